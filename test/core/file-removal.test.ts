// Deleting files from a vault against a real queue and local service: a lone file's blob is deleted, a
// bundle member's bundle is re-packed without it (its bytes are then in no blob on the service), a
// folder goes whole, the plan changes nothing and its numbers are what happens, and an heir's recovery
// of every blob left brings back exactly the files that stay, byte for byte.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { createFileRemovalHandlers } from '../../src/main/core/ipc/file-removal-handlers'
import { dispatch, type HandlerTable } from '../../src/main/core/ipc/handler-table'
import { fileLibrary } from '../../src/main/core/uploads/file-library'
import {
  type FileRemovalDeps,
  planFileRemoval,
  removeVaultFiles,
} from '../../src/main/core/uploads/file-removal'
import type { UploadQueue } from '../../src/main/core/uploads/upload-queue'
import type { UploadItem } from '../../src/main/core/uploads/upload-records'
import type { VaultSession } from '../../src/main/core/vault-session'
import { recoverRun } from '../../src/recovery/recover-files'
import type { VaultApiClient } from '../../src/service-client'
import { AppError } from '../../src/shared/app-error'
import type { LibrarySelection } from '../../src/shared/ipc/vault-types'
import { openVaultBlob } from '../../src/vault-format'
import { type UploadQueueWorld, uploadQueueTest } from './upload-queue-fixture'

const it = uploadQueueTest('file-removal-', { credits: 1000 })

const SMALL = { bundleSmallFiles: { fileThreshold: 65_536 } }

/** The letters (one bundle) and two photos (a blob each), with contents easy to find in plaintext. */
const CONTENT: Record<string, Buffer> = {
  'Backup/Letters/to-anna.txt': Buffer.from('Dear Anna, the keys are in the blue box.\n'),
  'Backup/Letters/to-ben.txt': Buffer.from('SECRET-FOR-BEN: the password is hunter2\n'),
  'Backup/Letters/old/2019.txt': Buffer.from('An old letter from 2019\n'),
  'Backup/Photos/beach.raw': Buffer.alloc(100_000, 'beach-photo '),
  'Backup/Photos/hills.raw': Buffer.alloc(120_000, 'hills-photo '),
}

/** The helpers below, on a test's own world (service client, folders, vault and key). */
function helpersOn(world: UploadQueueWorld) {
  const { client, userData, files, keys, vaultId } = world
  async function backUp(queue: UploadQueue): Promise<void> {
    for (const [path, bytes] of Object.entries(CONTENT)) {
      await mkdir(join(files, path, '..'), { recursive: true })
      await writeFile(join(files, path), bytes)
    }
    await queue.enqueue({ vaultId, paths: [join(files, 'Backup')] })
    await queue.idle()
  }

  function depsOf(queue: UploadQueue, over: Partial<FileRemovalDeps> = {}): Promise<FileRemovalDeps> {
    return keys.get(vaultId).then((vaultKey) => ({ client, queue, vaultKey, tempRoot: userData, ...over }))
  }

  async function library(queue: UploadQueue) {
    const assets = await client.listAllAssets(vaultId)
    return fileLibrary({ assets, ...(await queue.knownFiles(vaultId, undefined, assets)) })
  }

  async function balance(): Promise<number> {
    return (await client.getVault(vaultId)).creditsBalance
  }

  async function download(assetId: string): Promise<Buffer> {
    const chunks: Buffer[] = []
    for await (const chunk of await client.downloadAsset(vaultId, assetId)) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  }

  /** Every blob still on the service, opened with the key: the files it holds (path and bytes) and the paths its manifest names. */
  async function everyBlob(): Promise<
    Array<{ files: Map<string, Buffer>; listed: string[]; plaintext: Buffer }>
  > {
    const vaultKey = (await keys.get(vaultId))!
    const blobs = []
    for (const asset of await client.listAllAssets(vaultId)) {
      const opened = await openVaultBlob([await download(asset.id)], { vaultKey, vaultId })
      const held = new Map<string, Buffer>()
      let listed: string[] = []
      if (opened.kind === 'bundle') {
        listed = opened.manifest?.entries.map((e) => e.path) ?? []
        for await (const entry of opened.entries) {
          const parts: Buffer[] = []
          for await (const piece of entry.body) parts.push(Buffer.from(piece))
          held.set(entry.identity.path, Buffer.concat(parts))
        }
      } else if (opened.kind === 'file') {
        const parts: Buffer[] = []
        for await (const piece of opened.body) parts.push(Buffer.from(piece))
        held.set(opened.identity?.path ?? asset.id, Buffer.concat(parts))
      } else {
        listed = opened.manifest.entries.map((e) => e.path)
      }
      blobs.push({ files: held, listed, plaintext: Buffer.concat([...held.values()]) })
    }
    return blobs
  }

  /** An heir's recovery of every blob still on the service: the files it writes, by path. */
  async function heirRecovery(name: string): Promise<Map<string, Buffer>> {
    const blobs = join(userData, '..', `${name}-blobs`)
    const out = join(userData, '..', `${name}-recovered`)
    await mkdir(blobs)
    for (const asset of await client.listAllAssets(vaultId)) {
      await writeFile(join(blobs, `${asset.id}.vault`), await download(asset.id))
    }
    const run = await recoverRun({
      vaultKey: (await keys.get(vaultId))!,
      vaultId,
      inputs: [blobs],
      outDir: out,
    })
    expect(run.manifest).not.toBeNull()
    expect(run.results.filter((r) => r.status === 'failed' || r.status === 'missing')).toEqual([])
    const recovered = new Map<string, Buffer>()
    for (const r of run.results) {
      if (r.status !== 'recovered') continue
      recovered.set(
        r.output
          .slice(out.length + 1)
          .split('\\')
          .join('/'),
        await readFile(r.output),
      )
    }
    return recovered
  }

  /** The session's parts the handlers use, on this test's queue, client and key. */
  function handlersOn(
    queue: UploadQueue,
    uploads: () => Partial<UploadItem>[] = () => [],
    rotationPhase = 'none',
  ) {
    const session = async () =>
      ({
        uploads: {
          list: uploads,
          removalSide: () => ({ queue, connectionId: undefined }),
        },
        activeService: { client: async () => client },
        vaultKey: (id: string) => keys.get(id),
        rotation: { status: () => ({ phase: rotationPhase }) },
        // The removal records itself in the history (file-removal-operations.ts).
        recordActivity: () => undefined,
      }) as unknown as VaultSession
    return createFileRemovalHandlers({ session, tempRoot: userData }) as unknown as HandlerTable
  }
  return { backUp, depsOf, library, balance, download, everyBlob, heirRecovery, handlersOn }
}

function expectExactly(recovered: Map<string, Buffer>, paths: string[]): void {
  expect([...recovered.keys()].sort()).toEqual([...paths].sort())
  for (const path of paths) expect(recovered.get(path)!.equals(CONTENT[path]!)).toBe(true)
}

const only = (...paths: string[]): LibrarySelection => ({ files: paths, folders: [] })

describe('deleting files from a vault', () => {
  it('a lone file: its blob is deleted and recovery no longer brings it; the plan changed nothing and said so', async ({
    world,
  }) => {
    const { client, vaultId, openQueue } = world
    const { backUp, depsOf, library, balance, heirRecovery } = helpersOn(world)
    const queue = await openQueue(SMALL)
    await backUp(queue)
    const deps = await depsOf(queue)
    const assetsBefore = (await client.listAllAssets(vaultId)).map((a) => a.id).sort()
    const balanceBefore = await balance()

    const plan = await planFileRemoval(deps, vaultId, only('Backup/Photos/beach.raw'))
    expect(plan).toMatchObject({
      files: 1,
      bytes: 100_000,
      sample: ['Backup/Photos/beach.raw'],
      blobsDeleted: 1,
      bundlesRepacked: 0,
      repackCredits: 0,
      permanentStore: false,
    })
    expect(plan.manifestCredits).toBeGreaterThan(0)
    // The folder '' is the whole vault: every file, both photos' blobs and the letters' bundle.
    expect(await planFileRemoval(deps, vaultId, { files: [], folders: [''] })).toMatchObject({
      files: 5,
      blobsDeleted: 3,
      bundlesRepacked: 0,
    })
    // The plan changed nothing.
    expect((await client.listAllAssets(vaultId)).map((a) => a.id).sort()).toEqual(assetsBefore)
    expect(await balance()).toBe(balanceBefore)
    expect((await library(queue)).files).toHaveLength(5)

    const photo = (await library(queue)).files.find((f) => f.path === 'Backup/Photos/beach.raw')!
    const report = await removeVaultFiles(deps, vaultId, only('Backup/Photos/beach.raw'))
    expect(report).toEqual({
      vaultId,
      removed: 1,
      blobsDeleted: 1,
      bundlesRepacked: 0,
      creditsSpent: 0,
      contentKept: 0,
    })
    expect((await client.listAllAssets(vaultId)).map((a) => a.id)).not.toContain(photo.blob!.assetId)
    expect(await balance()).toBe(balanceBefore - plan.manifestCredits)
    expect((await library(queue)).files.map((f) => f.path)).not.toContain('Backup/Photos/beach.raw')
    expectExactly(await heirRecovery('lone'), [
      'Backup/Letters/to-anna.txt',
      'Backup/Letters/to-ben.txt',
      'Backup/Letters/old/2019.txt',
      'Backup/Photos/hills.raw',
    ])
  })

  it('a bundle member: the bundle is re-packed without it, so its bytes are in no blob left, and the credits are as planned', async ({
    world,
  }) => {
    const { client, userData, vaultId, openQueue } = world
    const { backUp, depsOf, library, balance, everyBlob, heirRecovery } = helpersOn(world)
    const queue = await openQueue(SMALL)
    await backUp(queue)
    const deps = await depsOf(queue)
    const before = await library(queue)
    const oldBundle = before.files.find((f) => f.path === 'Backup/Letters/to-ben.txt')!.blob!.assetId
    const balanceBefore = await balance()

    const plan = await planFileRemoval(deps, vaultId, only('Backup/Letters/to-ben.txt'))
    expect(plan).toMatchObject({ files: 1, blobsDeleted: 0, bundlesRepacked: 1 })
    expect(plan.repackCredits).toBeGreaterThan(0)
    // What a crash in an earlier re-pack left decrypted there is removed by the next one.
    await mkdir(join(userData, 'vault-repack-crashed'))
    await writeFile(join(userData, 'vault-repack-crashed', '0'), 'left behind')

    const report = await removeVaultFiles(deps, vaultId, only('Backup/Letters/to-ben.txt'))
    // Not only unlisted: the deleted letter's bytes and name are in no blob the service still has.
    for (const blob of await everyBlob()) {
      expect([...blob.files.keys()]).not.toContain('Backup/Letters/to-ben.txt')
      expect(blob.listed).not.toContain('Backup/Letters/to-ben.txt')
      expect(blob.plaintext.includes('SECRET-FOR-BEN')).toBe(false)
    }
    expect(report).toMatchObject({ removed: 1, blobsDeleted: 0, bundlesRepacked: 1 })
    expect(report.creditsSpent).toBe(plan.repackCredits)
    expect((await readdir(userData)).filter((name) => name.startsWith('vault-repack-'))).toEqual([])
    expect(await balance()).toBe(balanceBefore - plan.repackCredits - plan.manifestCredits)

    const assets = (await client.listAllAssets(vaultId)).map((a) => a.id)
    expect(assets).not.toContain(oldBundle)
    // The letters that stay point at the new bundle, here and on the service.
    const after = await library(queue)
    const letters = after.files.filter((f) => f.path.startsWith('Backup/Letters/'))
    expect(letters.map((f) => f.path)).toEqual(['Backup/Letters/old/2019.txt', 'Backup/Letters/to-anna.txt'])
    const newBundle = letters[0]!.blob!.assetId
    expect(letters[1]!.blob!.assetId).toBe(newBundle)
    expect(assets).toContain(newBundle)

    expectExactly(await heirRecovery('member'), [
      'Backup/Letters/to-anna.txt',
      'Backup/Letters/old/2019.txt',
      'Backup/Photos/beach.raw',
      'Backup/Photos/hills.raw',
    ])
  })

  it('a folder: every file below it goes, and a whole bundle of them is deleted without re-packing', async ({
    world,
  }) => {
    const { client, vaultId, openQueue } = world
    const { backUp, depsOf, library, heirRecovery } = helpersOn(world)
    const queue = await openQueue(SMALL)
    await backUp(queue)
    const deps = await depsOf(queue)
    const selection = { files: [], folders: ['Backup/Letters/'] }
    const plan = await planFileRemoval(deps, vaultId, selection)
    expect(plan).toMatchObject({
      files: 3,
      bytes:
        CONTENT['Backup/Letters/to-anna.txt']!.length +
        CONTENT['Backup/Letters/to-ben.txt']!.length +
        CONTENT['Backup/Letters/old/2019.txt']!.length,
      blobsDeleted: 1,
      bundlesRepacked: 0,
      repackCredits: 0,
    })
    expect(plan.sample.sort()).toEqual([
      'Backup/Letters/old/2019.txt',
      'Backup/Letters/to-anna.txt',
      'Backup/Letters/to-ben.txt',
    ])
    const report = await removeVaultFiles(deps, vaultId, selection)
    expect(report).toMatchObject({ removed: 3, blobsDeleted: 1, bundlesRepacked: 0, creditsSpent: 0 })
    expect((await library(queue)).files.map((f) => f.path)).toEqual([
      'Backup/Photos/beach.raw',
      'Backup/Photos/hills.raw',
    ])
    expectExactly(await heirRecovery('folder'), ['Backup/Photos/beach.raw', 'Backup/Photos/hills.raw'])

    // Asked again, the folder is no longer there: a clear error, nothing else changes.
    const assets = (await client.listAllAssets(vaultId)).map((a) => a.id).sort()
    await expect(removeVaultFiles(deps, vaultId, selection)).rejects.toThrow(AppError)
    await expect(planFileRemoval(deps, vaultId, selection)).rejects.toMatchObject({
      userMessage:
        'None of the chosen files is in this vault any more. Open the Files tab again to see its current files.',
    })
    expect((await client.listAllAssets(vaultId)).map((a) => a.id).sort()).toEqual(assets)
  })

  it('the re-packed bundle reaches the service as the queue sends bundles: names hidden, or real when the vault chose so', async ({
    world,
  }) => {
    const { client, vaultId, openQueue } = world
    const { backUp, depsOf, library } = helpersOn(world)
    const queue = await openQueue({ ...SMALL, realNameVaults: [vaultId] })
    await backUp(queue)
    await removeVaultFiles(await depsOf(queue), vaultId, only('Backup/Letters/to-ben.txt'))
    const assets = await client.listAllAssets(vaultId)
    const repacked = assets.find((a) => a.filename.startsWith('Bundle of'))!
    expect(repacked.filename).toBe('Bundle of 2 small files')
    const staying =
      CONTENT['Backup/Letters/to-anna.txt']!.length + CONTENT['Backup/Letters/old/2019.txt']!.length
    expect((repacked as typeof repacked & { metadata: unknown }).metadata).toEqual({
      encryption: 'vault-desktop/bundle/v2',
      bundle: true,
      fileCount: 2,
      plaintextBytes: staying,
    })

    queue.setRealNameVaults([])
    await removeVaultFiles(await depsOf(queue), vaultId, only('Backup/Letters/to-anna.txt'))
    const hidden = (await client.listAllAssets(vaultId)).find(
      (a) => (a as typeof a & { metadata: { fileCount?: number } }).metadata.fileCount === 1,
    )!
    expect(hidden.filename).toMatch(/^file-[0-9a-f]{16}\.vault$/)
    expect((hidden as typeof hidden & { metadata: unknown }).metadata).toEqual({
      encryption: 'vault-desktop/bundle/v2',
      bundle: true,
      fileCount: 1,
      nameSealedInside: true,
    })
    expect((await library(queue)).files.map((f) => f.path)).toEqual([
      'Backup/Letters/old/2019.txt',
      'Backup/Photos/beach.raw',
      'Backup/Photos/hills.raw',
    ])
  })

  it('an older copy of the file in a bundle kept for other files goes too: that bundle is re-packed', async ({
    world,
  }) => {
    const { files, vaultId, openQueue } = world
    const { backUp, depsOf, everyBlob, heirRecovery } = helpersOn(world)
    const queue = await openQueue(SMALL)
    await backUp(queue)
    const ben = join(files, 'Backup/Letters/to-ben.txt')
    await writeFile(ben, 'SECOND-FOR-BEN: the new password is correct-horse\n')
    await queue.enqueue({ vaultId, paths: [join(files, 'Backup')] })
    await queue.idle()
    const deps = await depsOf(queue)
    const plan = await planFileRemoval(deps, vaultId, only('Backup/Letters/to-ben.txt'))
    // The current copy's blob is deleted; the first bundle, which the other letters keep, is re-packed.
    expect(plan).toMatchObject({ files: 1, blobsDeleted: 1, bundlesRepacked: 1 })
    await removeVaultFiles(deps, vaultId, only('Backup/Letters/to-ben.txt'))
    for (const blob of await everyBlob()) {
      expect(blob.plaintext.includes('SECRET-FOR-BEN')).toBe(false)
      expect(blob.plaintext.includes('SECOND-FOR-BEN')).toBe(false)
    }
    expectExactly(await heirRecovery('older-copy'), [
      'Backup/Letters/to-anna.txt',
      'Backup/Letters/old/2019.txt',
      'Backup/Photos/beach.raw',
      'Backup/Photos/hills.raw',
    ])
  })

  it('cut off after the new bundle went up: every file is still there, and deleting again finishes', async ({
    world,
  }) => {
    const { client, vaultId, openQueue } = world
    const { backUp, depsOf, library, everyBlob, heirRecovery } = helpersOn(world)
    const queue = await openQueue(SMALL)
    await backUp(queue)
    const oldBundle = (await library(queue)).files.find((f) => f.path === 'Backup/Letters/to-ben.txt')!.blob!
      .assetId
    const failing = new Proxy(client, {
      get(target, name, receiver) {
        if (name === 'deleteAsset')
          return async () => {
            throw new Error('connection reset')
          }
        const value = Reflect.get(target, name, receiver)
        return typeof value === 'function' ? value.bind(target) : value
      },
    }) as VaultApiClient
    await expect(
      removeVaultFiles(await depsOf(queue, { client: failing }), vaultId, only('Backup/Letters/to-ben.txt')),
    ).rejects.toThrow('connection reset')
    // The old bundle is still there beside the new one: nothing is lost.
    expect((await client.listAllAssets(vaultId)).map((a) => a.id)).toContain(oldBundle)
    expectExactly(await heirRecovery('cut-off'), Object.keys(CONTENT))

    const again = await removeVaultFiles(await depsOf(queue), vaultId, only('Backup/Letters/to-ben.txt'))
    // The files that stay are in the new bundle already: the old one now goes whole, no second re-pack.
    expect(again).toMatchObject({ removed: 1, blobsDeleted: 1, bundlesRepacked: 0, creditsSpent: 0 })
    for (const blob of await everyBlob()) expect(blob.plaintext.includes('SECRET-FOR-BEN')).toBe(false)
    expectExactly(await heirRecovery('finished'), [
      'Backup/Letters/to-anna.txt',
      'Backup/Letters/old/2019.txt',
      'Backup/Photos/beach.raw',
      'Backup/Photos/hills.raw',
    ])
  })

  it('cut off before the list was written: asking again writes it, and recovery no longer names the file', async ({
    world,
  }) => {
    const { client, vaultId, openQueue, closeQueue } = world
    const { backUp, depsOf, library, heirRecovery } = helpersOn(world)
    const failingUploads = new Proxy(client, {
      get(target, name, receiver) {
        if (name === 'uploadAsset')
          return async () => {
            throw new Error('service unreachable')
          }
        const value = Reflect.get(target, name, receiver)
        return typeof value === 'function' ? value.bind(target) : value
      },
    }) as VaultApiClient
    const first = await openQueue(SMALL)
    await backUp(first)
    await closeQueue(first)
    // The same computer, its manifest uploads failing.
    const cut = await openQueue({ ...SMALL, clientFor: async () => failingUploads })
    await expect(
      removeVaultFiles(await depsOf(cut), vaultId, only('Backup/Photos/beach.raw')),
    ).rejects.toThrow('service unreachable')
    await closeQueue(cut)

    const queue = await openQueue(SMALL)
    expect((await library(queue)).files.map((f) => f.path)).not.toContain('Backup/Photos/beach.raw')
    await expect(
      removeVaultFiles(await depsOf(queue), vaultId, only('Backup/Photos/beach.raw')),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' })
    expectExactly(await heirRecovery('list-written'), [
      'Backup/Letters/to-anna.txt',
      'Backup/Letters/to-ben.txt',
      'Backup/Letters/old/2019.txt',
      'Backup/Photos/hills.raw',
    ])
  })

  it('not enough credits for the re-pack: refused before anything is deleted or charged', async ({
    world,
  }) => {
    const { client, vaultId, openQueue } = world
    const { backUp, depsOf, library, balance } = helpersOn(world)
    const queue = await openQueue(SMALL)
    await backUp(queue)
    // The service's balance as this account sees it, less than the re-pack costs.
    const poor = new Proxy(client, {
      get(target, name, receiver) {
        if (name === 'getVault')
          return async (id: string) => ({ ...(await target.getVault(id)), creditsBalance: 1 })
        const value = Reflect.get(target, name, receiver)
        return typeof value === 'function' ? value.bind(target) : value
      },
    }) as VaultApiClient
    const deps = await depsOf(queue, { client: poor })
    const assets = (await client.listAllAssets(vaultId)).map((a) => a.id).sort()
    const balanceBefore = await balance()
    const plan = await planFileRemoval(deps, vaultId, only('Backup/Letters/to-ben.txt'))
    const needed = plan.repackCredits + plan.manifestCredits
    await expect(removeVaultFiles(deps, vaultId, only('Backup/Letters/to-ben.txt'))).rejects.toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
      details: { creditsNeeded: needed, creditsBalance: 1 },
      userMessage: expect.stringContaining(`${needed} credits`),
    })
    expect((await client.listAllAssets(vaultId)).map((a) => a.id).sort()).toEqual(assets)
    expect(await balance()).toBe(balanceBefore)
    expect((await library(queue)).files).toHaveLength(5)
  })

  it('a blob that cannot be read for a network failure stops the plan: it is not taken for holding nothing', async ({
    world,
  }) => {
    const { client, vaultId, openQueue } = world
    const { backUp, depsOf, library } = helpersOn(world)
    const queue = await openQueue(SMALL)
    await backUp(queue)
    const cutOff = new Proxy(client, {
      get(target, name, receiver) {
        if (name === 'downloadAsset')
          return async () => {
            throw new Error('socket hang up')
          }
        const value = Reflect.get(target, name, receiver)
        return typeof value === 'function' ? value.bind(target) : value
      },
    }) as VaultApiClient
    const deps = await depsOf(queue, { client: cutOff })
    await expect(planFileRemoval(deps, vaultId, only('Backup/Photos/beach.raw'))).rejects.toThrow(
      'socket hang up',
    )
    await expect(removeVaultFiles(deps, vaultId, only('Backup/Photos/beach.raw'))).rejects.toThrow(
      'socket hang up',
    )
    expect((await library(queue)).files).toHaveLength(5)
  })

  it('without the vault key nothing is read or deleted, and the owner is told to type in the owner kit', async ({
    world,
  }) => {
    const { vaultId, openQueue } = world
    const { backUp, depsOf, library } = helpersOn(world)
    const queue = await openQueue(SMALL)
    await backUp(queue)
    const deps = await depsOf(queue, { vaultKey: null })
    await expect(planFileRemoval(deps, vaultId, only('Backup/Photos/beach.raw'))).rejects.toMatchObject({
      code: 'NO_VAULT_KEY',
      userMessage: expect.stringContaining("owner kit's words"),
    })
    await expect(removeVaultFiles(deps, vaultId, only('Backup/Photos/beach.raw'))).rejects.toMatchObject({
      code: 'NO_VAULT_KEY',
    })
    expect((await library(queue)).files).toHaveLength(5)
  })

  it('on another computer, names hidden: the bundle is found by its records and re-packed the same way', async ({
    world,
  }) => {
    const { userData, vaultId, openQueue } = world
    const { backUp, depsOf, library, everyBlob, heirRecovery } = helpersOn(world)
    const laptop = await openQueue(SMALL)
    await backUp(laptop)
    const desktopData = join(userData, '..', 'desktop-user-data')
    await mkdir(desktopData)
    const desktop = await openQueue({ userDataDir: desktopData })
    const there = await library(desktop)
    expect(there.files.find((f) => f.path === 'Backup/Letters/to-ben.txt')).toMatchObject({
      from: 'manifest',
    })
    expect(there.files.find((f) => f.path === 'Backup/Letters/to-ben.txt')!.blob).toBeUndefined()

    const deps = await depsOf(desktop)
    const plan = await planFileRemoval(deps, vaultId, only('Backup/Letters/to-ben.txt'))
    expect(plan).toMatchObject({ files: 1, blobsDeleted: 0, bundlesRepacked: 1 })
    const report = await removeVaultFiles(deps, vaultId, only('Backup/Letters/to-ben.txt'))
    for (const blob of await everyBlob()) expect(blob.plaintext.includes('SECRET-FOR-BEN')).toBe(false)
    expect(report).toMatchObject({ removed: 1, bundlesRepacked: 1, creditsSpent: plan.repackCredits })
    expect((await library(desktop)).files.map((f) => f.path)).not.toContain('Backup/Letters/to-ben.txt')
    expectExactly(await heirRecovery('elsewhere'), [
      'Backup/Letters/to-anna.txt',
      'Backup/Letters/old/2019.txt',
      'Backup/Photos/beach.raw',
      'Backup/Photos/hills.raw',
    ])
  })
})

describe('files:remove-plan and files:remove over the bridge', () => {
  it('plans, refuses what the schema does not allow, and runs two removals of one vault one after the other', async ({
    world,
  }) => {
    const { vaultId, openQueue } = world
    const { backUp, library, everyBlob, handlersOn } = helpersOn(world)
    const queue = await openQueue(SMALL)
    await backUp(queue)
    const handlers = handlersOn(queue)
    const selection = only('Backup/Letters/to-ben.txt')
    expect(await dispatch(handlers, 'files:remove-plan', { vaultId, selection })).toMatchObject({
      ok: true,
      value: { files: 1, bundlesRepacked: 1 },
    })
    for (const bad of [
      { vaultId },
      { vaultId, selection: { files: 'a' } },
      { vaultId, selection, extra: 1 },
    ]) {
      expect(await dispatch(handlers, 'files:remove', bad)).toMatchObject({
        ok: false,
        error: { code: 'INVALID_ARGUMENT' },
      })
    }
    // Clicked twice: the second waits for the first, then finds the file gone.
    const [first, second] = await Promise.all([
      dispatch(handlers, 'files:remove', { vaultId, selection }),
      dispatch(handlers, 'files:remove', { vaultId, selection }),
    ])
    expect(first).toMatchObject({ ok: true, value: { removed: 1, bundlesRepacked: 1 } })
    expect(second).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } })
    // One re-pack only: the bundle that stays, the two photos and the new manifest.
    for (const blob of await everyBlob()) expect(blob.plaintext.includes('SECRET-FOR-BEN')).toBe(false)
    expect((await library(queue)).files).toHaveLength(4)
  })

  it('refuses while files of the vault are uploading or its key is being replaced, and changes nothing', async ({
    world,
  }) => {
    const { client, vaultId, openQueue } = world
    const { backUp, handlersOn } = helpersOn(world)
    const queue = await openQueue(SMALL)
    await backUp(queue)
    const handlers = handlersOn(queue, () => [{ vaultId, state: 'uploading' }])
    const assets = (await client.listAllAssets(vaultId)).map((a) => a.id).sort()
    const answer = await dispatch(handlers, 'files:remove', {
      vaultId,
      selection: only('Backup/Photos/beach.raw'),
    })
    expect(answer).toMatchObject({ ok: false, error: { code: 'UPLOADS_RUNNING' } })
    const rotating = handlersOn(queue, () => [], 're-encrypting')
    expect(
      await dispatch(rotating, 'files:remove', { vaultId, selection: only('Backup/Photos/beach.raw') }),
    ).toMatchObject({ ok: false, error: { code: 'ROTATION_UNDER_WAY' } })
    expect((await client.listAllAssets(vaultId)).map((a) => a.id).sort()).toEqual(assets)
  })
})
