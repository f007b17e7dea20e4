// Opening a file from the library through the handlers, as the desktop shell does: the file is
// decrypted into a folder only this user can read, handed to the default app, and no decrypted copy
// outlives the app (emptied at quit, and at the next start after a crash). Saving needs the vault key.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { createVaultApp, type VaultApp } from '../../src/main/core/vault-app'
import { type RunningService, startService } from '../../src/service'
import { invokeChannels } from '../../src/shared/ipc/contract'
import type { UploadItemView } from '../../src/shared/ipc/vault-types'
import { encodeOwnerKitWords, generateVaultKey } from '../../src/vault-format'
import { testSecretBox } from '../core/secret-box-fixture'

let service: RunningService
let dir: string
const opened: string[] = []

function appOn(userDataDir: string): VaultApp {
  return createVaultApp({
    userDataDir,
    mode: 'electron',
    version: '0',
    useKeychain: false,
    secretBox: testSecretBox(),
    shell: {
      openFile: {
        kind: 'default-app',
        open: async (path) => {
          opened.push(path)
        },
      },
    },
  })
}

async function ok<T>(app: VaultApp, key: keyof typeof invokeChannels, args?: unknown): Promise<T> {
  const response = await dispatch(app.handlers, invokeChannels[key].name, args)
  if (!response.ok) throw new Error(`${key}: ${response.error.code} ${response.error.message}`)
  return response.value as T
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vault-open-'))
  service = await startService({ dataDir: join(dir, 'service'), port: 0 })
})
afterAll(async () => {
  await service?.close()
  await rm(dir, { recursive: true, force: true })
})

/** An app connected to the service with a vault whose Letters/ (two small files) is backed up. */
async function backedUpApp(userData: string): Promise<{ app: VaultApp; vaultId: string }> {
  const app = appOn(userData)
  const account = await service.admin.createAccount({ email: `${basename(userData)}@example.com` })
  const { vaultId } = await service.admin.createVault({ account: account.accountId, preset: 'standard' })
  await ok(app, 'connectService', { serviceUrl: service.url, apiKey: account.apiKey })
  await ok(app, 'importOwnerKit', {
    vaultId,
    words: encodeOwnerKitWords({ vaultKey: generateVaultKey(), vaultId }),
  })
  const folder = join(dir, 'files', 'Letters')
  await mkdir(folder, { recursive: true })
  await writeFile(join(folder, 'to-anna.txt'), 'Dear Anna\n')
  await writeFile(join(folder, 'to-ben.txt'), 'Dear Ben\n')
  const { batchId } = await ok<{ batchId: string }>(app, 'queueUpload', { vaultId, paths: [folder] })
  await expect
    .poll(
      async () =>
        (await ok<UploadItemView[]>(app, 'listUploads')).filter(
          (i) => i.batchId === batchId && i.state === 'done',
        ).length,
      { timeout: 30_000 },
    )
    .toBe(2)

  return { app, vaultId }
}

describe('opening a file from the library', () => {
  it('decrypts into a private folder, opens it, and leaves no decrypted copy after quit', async () => {
    const userData = join(dir, 'user-data')
    const { app, vaultId } = await backedUpApp(userData)

    const result = await ok(app, 'openVaultFile', { vaultId, path: 'Letters/to-ben.txt' })
    expect(result).toEqual({ opened: 'default-app', name: 'to-ben.txt' })
    const path = opened.at(-1)!
    expect(await readFile(path, 'utf8')).toBe('Dear Ben\n')
    expect(path.startsWith(join(userData, 'opened-files'))).toBe(true)
    if (process.platform !== 'win32') {
      expect((await stat(join(path, '..'))).mode & 0o077).toBe(0)
      expect((await stat(path)).mode & 0o077).toBe(0)
    }

    // A path the vault does not hold: a clear error, nothing opened.
    const missing = await dispatch(app.handlers, invokeChannels.openVaultFile.name, {
      vaultId,
      path: 'Letters/to-carol.txt',
    })
    expect(missing).toMatchObject({ ok: false, error: { code: 'NOTHING_CHOSEN' } })
    expect(opened).toHaveLength(1)

    await app.close()
    expect(await readdir(join(userData, 'opened-files'))).toEqual([])

    // A crash leaves a copy behind: the next start removes it.
    await mkdir(join(userData, 'opened-files', 'left-by-a-crash'), { recursive: true })
    await writeFile(join(userData, 'opened-files', 'left-by-a-crash', 'will.txt'), 'plain text')
    const next = appOn(userData)
    await expect.poll(() => readdir(join(userData, 'opened-files'))).toEqual([])
    await next.close()
  })

  it("records a deletion in the vault's activity history", async () => {
    const { app, vaultId } = await backedUpApp(join(dir, 'user-data-deleting'))
    const report = await ok<{ removed: number }>(app, 'removeVaultFiles', {
      vaultId,
      selection: { files: ['Letters/to-anna.txt'], folders: [] },
    })
    expect(report.removed).toBe(1)
    const page = await ok<{ items: Array<{ kind: string; detail: Record<string, unknown> }> }>(
      app,
      'listActivity',
      { vaultId, kinds: ['files-deleted'], limit: 10, offset: 0 },
    )
    expect(page.items).toEqual([
      expect.objectContaining({
        kind: 'files-deleted',
        detail: expect.objectContaining({ files: 1, names: ['Letters/to-anna.txt'] }),
      }),
    ])
    await app.close()
  })
})
