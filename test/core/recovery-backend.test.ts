// The app's Recovery screen decrypts with the fastest AES-GCM the app has (the native one where it is
// built, which opens each chunk straight into its batch), for local files and for a service alike;
// the command-line tool keeps node:crypto, as it ships no native code.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { EventHub } from '../../src/main/core/ipc/handler-table'
import { createRecoveryHandlers } from '../../src/main/core/ipc/recovery-handlers'
import { nativeAeadBackend } from '../../src/node-cipher/aead-native'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
import {
  collectBytes,
  encodeShareWords,
  encryptStream,
  generateVaultKey,
  splitVaultKey,
} from '../../src/vault-format'

const backends = vi.hoisted(() => ({ files: [] as unknown[], service: [] as unknown[] }))
vi.mock('../../src/recovery/recover-files', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/recovery/recover-files')>()
  return {
    ...actual,
    recoverRun: (opts: Parameters<typeof actual.recoverRun>[0]) => {
      backends.files.push(opts.backend)
      return actual.recoverRun(opts)
    },
  }
})
vi.mock('../../src/recovery/heir-recovery', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/recovery/heir-recovery')>()
  return {
    ...actual,
    recoverFromService: (opts: Parameters<typeof actual.recoverFromService>[0]) => {
      backends.service.push(opts.backend)
      return actual.recoverFromService(opts)
    },
  }
})

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

describe("the app's Recovery screen", () => {
  const fastest = nativeAeadBackend() ? 'native' : 'node'

  it(`decrypts with the fastest AES-GCM it has (here: ${fastest}), and recovers the file`, async () => {
    const vaultId = 'vlt_backend00000000'
    const vaultKey = generateVaultKey()
    const shares = (await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)).map(encodeShareWords)
    const input = await mkdtemp(join(tmpdir(), 'vault-backend-in-'))
    const out = await mkdtemp(join(tmpdir(), 'vault-backend-out-'))
    dirs.push(input, out)
    const text = new TextEncoder().encode('read me')
    const blob = await collectBytes(
      encryptStream([text], { vaultKey, vaultId, identity: { path: 'note.txt', size: text.length } }),
    )
    await writeFile(join(input, 'note.txt.vault'), blob)
    const handlers = createRecoveryHandlers({ events: new EventHub() })

    const local = await handlers.recoverFiles({
      shares: [shares[0]!, shares[1]!],
      inputs: [input],
      outputDir: out,
    })
    expect(local.results.map((r) => r.status)).toEqual(['recovered'])
    expect(backends.files).toEqual([fastest])

    // From a service: the same choice (the service is not there; the run stops, having been asked).
    await handlers.recoverFromService({
      serviceUrl: 'http://127.0.0.1:9',
      accessToken: 'hk_unused',
      vaultId,
      shares: [shares[0]!, shares[2]!],
      outputDir: join(out, 'from-service'),
    })
    expect(backends.service).toEqual([fastest])
  })
})
