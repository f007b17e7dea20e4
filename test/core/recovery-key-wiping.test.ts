// The vault key rebuilt from guardians' kits serves one recovery run: the app zeroes it when the run
// ends, whether it recovered files or failed.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { EventHub } from '../../src/main/core/ipc/handler-table'
import { createRecoveryHandlers } from '../../src/main/core/ipc/recovery-handlers'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
import { encodeShareWords, generateVaultKey, splitVaultKey } from '../../src/vault-format'

const rebuilt = vi.hoisted(() => [] as Uint8Array[])
vi.mock('../../src/vault-format', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/vault-format')>()
  return {
    ...actual,
    combineShareWords: async (...args: Parameters<typeof actual.combineShareWords>) => {
      const key = await actual.combineShareWords(...args)
      rebuilt.push(key.vaultKey)
      return key
    },
  }
})

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

describe('the rebuilt vault key after a recovery', () => {
  it('is zeroed when the run ends, even when it found nothing to recover', async () => {
    const vaultId = 'vlt_wipe0000000000'
    const shares = (await splitVaultKey(generateVaultKey(), vaultId, SSS_PRESET_SHAPE.standard)).map(
      encodeShareWords,
    )
    const empty = await mkdtemp(join(tmpdir(), 'vault-wipe-in-'))
    const out = await mkdtemp(join(tmpdir(), 'vault-wipe-out-'))
    dirs.push(empty, out)
    const handlers = createRecoveryHandlers({ events: new EventHub() })
    await expect(
      handlers.recoverFiles({ shares: [shares[0]!, shares[1]!], inputs: [empty], outputDir: out }),
    ).rejects.toThrow(/No encrypted files found/)
    expect(rebuilt).toHaveLength(1)
    expect(rebuilt[0]!.length).toBe(32)
    expect(rebuilt[0]!.every((byte) => byte === 0)).toBe(true)
  })
})
