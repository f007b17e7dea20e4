// "Start locally" through the handlers (embedded service, account, first vault, key on this device,
// guardian kits), and recovery from typed shares to decrypted files.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { createVaultApp, type VaultApp } from '../../src/main/core/vault-app'
import { LocalServiceHost } from '../../src/main/local-service-host'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
import { invokeChannels } from '../../src/shared/ipc/contract'
import type { IpcResponse } from '../../src/shared/ipc/contract-kit'
import {
  collectBytes,
  encodeShareWords,
  encryptStream,
  generateVaultKey,
  splitVaultKey,
} from '../../src/vault-format'

let backend: VaultApp
let dir: string

async function call<T = unknown>(key: keyof typeof invokeChannels, args?: unknown): Promise<IpcResponse<T>> {
  return (await dispatch(backend.handlers, invokeChannels[key].name, args)) as IpcResponse<T>
}
async function ok<T = unknown>(key: keyof typeof invokeChannels, args?: unknown): Promise<T> {
  const response = await call<T>(key, args)
  if (!response.ok) throw new Error(`${key} failed: ${response.error.code} ${response.error.message}`)
  return response.value
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vault-ui-local-'))
  backend = createVaultApp({
    userDataDir: join(dir, 'user-data'),
    mode: 'browser',
    version: '0',
    useKeychain: false,
    localService: (userDataDir) => LocalServiceHost.open(userDataDir),
  })
})
afterAll(async () => {
  await backend?.close()
  await rm(dir, { recursive: true, force: true })
})

describe('start locally', () => {
  it('starts the embedded service, creates the account and a vault with its key on this device', async () => {
    const result = await ok<{
      connection: { local: boolean; keyKind: string }
      vault: { id: string; creditsBalance: number; keyOnDevice: boolean }
    }>('startLocally', { email: 'me@example.com' })
    expect(result.connection).toMatchObject({ local: true, keyKind: 'human' })
    expect(result.vault).toMatchObject({ creditsBalance: 100, keyOnDevice: true })
    const status = await ok<{ localService: { running: boolean } }>('getConnectionStatus')
    expect(status.localService.running).toBe(true)

    const vaultId = result.vault.id
    // The vault it made, and credits added, are in the vault's history (issue 30, point 7).
    await ok('addLocalCredits', { credits: 40 })
    const history = await ok<{ items: Array<{ kind: string; detail: { credits?: number } }> }>(
      'listActivity',
      { vaultId, limit: 10, offset: 0 },
    )
    expect(history.items.map((e) => e.kind)).toEqual(['credits-added', 'vault-created'])
    expect(history.items[0]!.detail.credits).toBe(40)
    await ok('addGuardian', { vaultId, person: { name: 'Ann', email: 'ann@example.com' } })
    const change = await ok<{
      kits: Array<{ guardianId: string; threshold: number; shares: number }>
      kitProblem: null
    }>('addGuardian', { vaultId, person: { name: 'Bo', email: 'bo@example.com' } })
    expect(change.kitProblem).toBeNull()
    expect(change.kits).toHaveLength(2)
    expect(change.kits[0]).toMatchObject({ threshold: 2, shares: 3 })
    const kit = await ok<{ html: string; guardianName: string; fileName: string }>('getGuardianKit', {
      vaultId,
      guardianId: change.kits[1]!.guardianId,
    })
    expect(kit.guardianName).toBe('Bo')
    expect(kit.html).toContain('Share for <bdi>Bo</bdi>')
    expect(kit.fileName).toMatch(/guardian kit - Bo\.html$/)
    // Renamed, the kit and its file carry the new name (issue 30, point 10).
    await ok('renameVault', { vaultId, name: 'Family papers' })
    const renamed = await ok<{ html: string; fileName: string }>('getGuardianKit', {
      vaultId,
      guardianId: change.kits[1]!.guardianId,
    })
    expect(renamed.fileName).toBe('Family papers - guardian kit - Bo.html')
    expect(renamed.html).toContain('<span class="kit-vault-name"><bdi>Family papers</bdi></span>')
    const print = await call('printGuardianKit', {
      vaultId,
      guardianId: change.kits[1]!.guardianId,
      as: 'pdf',
    })
    expect(print).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE_IN_BROWSER' } })
  })
})

describe('recovery', () => {
  it('checks shares one by one and decrypts files with enough of them', async () => {
    const vaultKey = generateVaultKey()
    const vaultId = 'vlt_recovery-test'
    const shares = (await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)).map(encodeShareWords)
    const check = await ok<{ ok: boolean; threshold: number; shareIndex: number }>('checkShare', {
      text: shares[0],
    })
    expect(check).toMatchObject({ ok: true, threshold: 2, shareIndex: 1 })
    const typo = await ok<{ ok: boolean; message: string }>('checkShare', { text: 'apple banana' })
    expect(typo.ok).toBe(false)
    expect(typo.message.length).toBeGreaterThan(10)

    const original = Buffer.from('The will is in the blue folder.\n'.repeat(2000))
    const encrypted = await collectBytes(
      encryptStream(Readable.from([original]), {
        vaultKey,
        vaultId,
        identity: { path: 'letter.txt', size: original.length },
      }),
    )
    await writeFile(join(dir, 'letter.txt.vault'), encrypted)
    const tooFew = await call('recoverFiles', {
      shares: [shares[0]],
      inputs: [join(dir, 'letter.txt.vault')],
      outputDir: join(dir, 'out'),
    })
    expect(tooFew).toMatchObject({ ok: false, error: { code: 'SHARE_INVALID' } })

    const report = await ok<{
      results: Array<{ ok: boolean; output: string }>
      manifestNote?: string
      manifestWarning?: boolean
    }>('recoverFiles', {
      shares: [shares[2], shares[0]],
      inputs: [join(dir, 'letter.txt.vault')],
      outputDir: join(dir, 'out'),
    })
    expect(report.results).toEqual([
      expect.objectContaining({ ok: true, output: join(dir, 'out', 'letter.txt') }),
    ])
    // One file and no list of the vault's files: the screen warns that a missing file cannot be noticed.
    expect(report).toMatchObject({ manifestWarning: true, manifestNote: expect.stringMatching(/No list/) })
    expect(await readFile(join(dir, 'out', 'letter.txt'))).toEqual(original)
  })
})
