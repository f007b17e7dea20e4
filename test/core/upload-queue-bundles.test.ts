// Small files travel in bundles (docs/FORMAT.md 3.9) against a real local service: what the
// confirmation says is what is charged, the bundle decrypts to the original files, and a file that
// changes, is cancelled, or is interrupted by a restart never takes the others down with it.
import { createHash } from 'node:crypto'
import { appendFile, mkdir, readFile, rm, truncate, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { assetView } from '../../src/main/core/ipc/upload-handlers'
import type { UploadCipher } from '../../src/main/core/uploads/upload-queue'
import type { UploadItem } from '../../src/main/core/uploads/upload-records'
import type { Asset } from '../../src/shared/api'
import {
  encryptBundleStream,
  encryptedBundleLength,
  encryptedFileLength,
  encryptedManifestLength,
  encryptStream,
  openEncryptedFile,
} from '../../src/vault-format'
import { type UploadQueueWorld, uploadQueueTest } from './upload-queue-fixture'

const it = uploadQueueTest('vault-upload-bundles-')

/** The real cipher, slowed after each chunk (and a hook after the first) so a test can act mid-upload. */
function slowCipher(delayMs: number, onFirstChunk?: () => void | Promise<void>): UploadCipher {
  const slowed = (chunks: AsyncIterable<Uint8Array>) =>
    (async function* () {
      let n = 0
      for await (const chunk of chunks) {
        yield chunk
        if (n++ === 0) await onFirstChunk?.()
        await new Promise((r) => setTimeout(r, delayMs))
      }
    })()
  return {
    encryptedLength: encryptedFileLength,
    encryptStream: (source, options) => slowed(encryptStream(source, options)),
    encryptedBundleLength,
    encryptBundleStream: (entries, options) => slowed(encryptBundleStream(entries, options)),
  }
}

/** Files of varied sizes under `dir`, each with its own bytes; returns relative path -> content. */
async function makeFolder(dir: string, n: number, size = (i: number) => 100 + i * 37) {
  const contents = new Map<string, Buffer>()
  const name = dir.split('/').pop()!
  for (let i = 0; i < n; i++) {
    const sub = i % 3 === 0 ? 'nested/deeper' : i % 3 === 1 ? 'nested' : ''
    await mkdir(join(dir, sub), { recursive: true })
    const file = `file ${String(i).padStart(3, '0')}.txt`
    const content = Buffer.alloc(size(i))
    for (let k = 0; k < content.length; k++) content[k] = (i * 31 + k * 7) & 0xff
    await writeFile(join(dir, sub, file), content)
    contents.set([name, sub, file].filter(Boolean).join('/'), content)
  }
  return contents
}

/** The helpers below, on a test's own world (service client, folders, vault and key). */
function helpersOn(world: UploadQueueWorld) {
  const { client, keys, vaultId } = world
  async function openBundle(assetId: string) {
    const key = (await keys.get(vaultId))!
    const blob = await openEncryptedFile(await client.downloadAsset(vaultId, assetId), {
      vaultKey: key,
      vaultId,
    })
    if (blob.kind !== 'bundle') throw new Error(`asset ${assetId} is a ${blob.kind}, not a bundle`)
    const out = new Map<string, Buffer>()
    for await (const entry of blob.entries) {
      const pieces: Buffer[] = []
      for await (const piece of entry.body) pieces.push(Buffer.from(piece))
      out.set(entry.identity.path, Buffer.concat(pieces))
    }
    return { createdAtMs: blob.createdAtMs, files: out, manifest: blob.manifest }
  }

  async function balance(): Promise<number> {
    return (await client.getVault(vaultId)).creditsBalance
  }
  return { openBundle, balance }
}

const withMetadata = (a: Asset) => a as Asset & { metadata: Record<string, unknown> }

describe('bundles of small files', () => {
  it('uploads a folder of small files as one asset that decrypts to the very files; the estimate is the charge', async ({
    world,
  }) => {
    const { client, files, vaultId, openQueue } = world
    const { openBundle, balance } = helpersOn(world)
    const root = join(files, 'Letters')
    const originals = await makeFolder(root, 30)
    const big = join(files, 'big.bin')
    await writeFile(big, Buffer.alloc(70_000, 9))
    // A low threshold keeps the test small: files of 64 KiB and more go alone.
    const queue = await openQueue({ bundleSmallFiles: { fileThreshold: 65_536 } })
    const estimate = await queue.estimate(vaultId, [root, big])
    expect(estimate).toMatchObject({ files: 31, bundles: 1, bundledFiles: 30, credits: 2 })
    expect(estimate.creditsWithoutBundles).toBe(31)
    const before = await balance()
    const { items } = await queue.enqueue({ vaultId, paths: [root, big] })
    const bundleIds = new Set(items.filter((i) => i.relativePath !== 'big.bin').map((i) => i.bundleId))
    expect(bundleIds.size).toBe(1)
    expect([...bundleIds][0]).toEqual(expect.any(String))
    expect(items.find((i) => i.relativePath === 'big.bin')!.bundleId).toBeUndefined()
    await queue.idle()

    const done = queue.list()
    expect(done.every((i) => i.state === 'done')).toBe(true)
    expect(before - (await balance())).toBe(estimate.credits)
    expect(done.reduce((sum, i) => sum + (i.creditsConsumed ?? 0), 0)).toBe(estimate.credits)
    const bundled = done.filter((i) => i.bundleId)
    expect(new Set(bundled.map((i) => i.asset!.id)).size).toBe(1)
    const bundleAssetId = bundled[0]!.asset!.id

    const assets = await client.listAllAssets(vaultId)
    expect(assets).toHaveLength(2)
    const bundleAsset = assets.find((a) => a.id === bundleAssetId)!
    // The service learns that it is a bundle and how many files it holds; no name of any of them.
    expect(withMetadata(bundleAsset).metadata).toMatchObject({
      encryption: 'vault-desktop/bundle/v2',
      bundle: true,
      fileCount: 30,
    })
    expect(JSON.stringify(bundleAsset)).not.toMatch(/Letters|nested|file \d/)
    // The vault manifest rode inside it (no extra upload): it lists the bundle's files and big.bin,
    // which went up first while the bundle waited for it.
    const listed = [...originals.keys(), 'big.bin']
    expect(bundleAsset.sizeBytes).toBe(
      encryptedBundleLength(
        [...originals].map(([path, c]) => ({ path, size: c.length })),
        encryptedManifestLength(listed),
      ),
    )

    const opened = await openBundle(bundleAssetId)
    expect(opened.files).toEqual(originals)
    expect(opened.manifest?.sequence).toBe(1)
    expect(opened.manifest?.entries.map((e) => e.path).sort()).toEqual(listed.sort())
    expect(opened.manifest?.entries.find((e) => e.path === 'big.bin')?.sha256).toBe(
      createHash('sha256')
        .update(await readFile(big))
        .digest('hex'),
    )

    // The asset list shows what is inside, from this computer's index.
    const view = assetView(bundleAsset, queue.index.filesOfAsset(vaultId, bundleAssetId))
    expect(view.bundle!.fileCount).toBe(30)
    expect(view.bundle!.files.map((f) => f.relativePath).sort()).toEqual([...originals.keys()].sort())
    expect(view.displayName).toBe('Letters: 30 files in one bundle')
    expect(view.originalBytes).toBe([...originals.values()].reduce((s, c) => s + c.length, 0))
  })

  it('splits a large set into several bundles within the limits, and charges what it estimated', async ({
    world,
  }) => {
    const { client, files, vaultId, openQueue } = world
    const { balance } = helpersOn(world)
    const root = join(files, 'Many')
    await makeFolder(root, 10)
    const queue = await openQueue({ bundleSmallFiles: { maxFiles: 4 } })
    const estimate = await queue.estimate(vaultId, [root])
    expect(estimate).toMatchObject({
      files: 10,
      bundles: 3,
      bundledFiles: 10,
      credits: 3,
      creditsWithoutBundles: 10,
    })
    const before = await balance()
    const { items } = await queue.enqueue({ vaultId, paths: [root] })
    expect(new Set(items.map((i) => i.bundleId)).size).toBe(3)
    await queue.idle()
    expect(before - (await balance())).toBe(estimate.credits)
    expect(await client.listAllAssets(vaultId)).toHaveLength(3)
  })

  it('by default, sends a neutral name and not even the total size', async ({ world }) => {
    const { client, files, vaultId, openQueue } = world
    const root = join(files, 'Medical')
    await makeFolder(root, 5)
    const queue = await openQueue()
    await queue.enqueue({ vaultId, paths: [root] })
    await queue.idle()
    const [asset] = await client.listAllAssets(vaultId)
    expect(asset!.filename).toMatch(/^file-[0-9a-f]{16}\.vault$/)
    expect(withMetadata(asset!).metadata).toEqual({
      encryption: 'vault-desktop/bundle/v2',
      bundle: true,
      fileCount: 5,
      nameSealedInside: true,
      manifest: true,
    })
    expect(queue.list().every((i) => i.nameHidden)).toBe(true)
    const view = assetView(asset!, queue.index.filesOfAsset(vaultId, asset!.id))
    expect(view).toMatchObject({ nameHidden: true, displayName: 'Medical: 5 files in one bundle' })
  })

  it('a lone small file goes up as a bundle of one carrying the manifest, and is listed as that file', async ({
    world,
  }) => {
    const { client, files, vaultId, openQueue } = world
    const file = join(files, 'lone note.txt')
    await writeFile(file, 'just one small file')
    const queue = await openQueue()
    await queue.enqueue({ vaultId, paths: [file] })
    await queue.idle()
    const assets = await client.listAllAssets(vaultId)
    // One upload, one credit: no manifest blob of its own.
    expect(assets).toHaveLength(1)
    expect(withMetadata(assets[0]!).metadata).toMatchObject({ bundle: true, fileCount: 1, manifest: true })
    const view = assetView(assets[0]!, queue.index.filesOfAsset(vaultId, assets[0]!.id))
    expect(view).toMatchObject({ displayName: 'lone note.txt', nameHidden: true, originalBytes: 19 })
    expect(view.bundle).toBeUndefined()
  })

  it('a file changed while the bundle is read fails alone; the others go up in a new bundle', async ({
    world,
  }) => {
    const { client, files, vaultId, openQueue } = world
    const { openBundle, balance } = helpersOn(world)
    const root = join(files, 'Busy')
    const originals = await makeFolder(root, 20, () => 20_000)
    const lastPath = join(root, 'nested', 'file 019.txt')
    const before = await balance()
    let appended = false
    const queue = await openQueue({
      cipher: slowCipher(5, async () => {
        if (appended) return
        appended = true
        await appendFile(lastPath, 'one more line\n')
      }),
    })
    const cipherless = await openQueue({ autoStart: false })
    const estimate = await cipherless.estimate(vaultId, [root])
    await queue.enqueue({ vaultId, paths: [root] })
    await queue.idle()
    const items = queue.list()
    const changed = items.find((i) => i.relativePath === 'Busy/nested/file 019.txt')!
    expect(changed.state).toBe('failed')
    expect(changed.error).toMatchObject({
      code: 'FILE_CHANGED',
      message: expect.stringMatching(/file 019\.txt changed while it was being uploaded.*retry/),
    })
    const others = items.filter((i) => i !== changed)
    expect(others.every((i) => i.state === 'done')).toBe(true)
    expect(new Set(others.map((i) => i.asset!.id)).size).toBe(1)
    expect(others.every((i) => i.bundleId === changed.bundleId)).toBe(true)

    // Only the second attempt was stored and charged: the others, without the changed file.
    const assets = await client.listAllAssets(vaultId)
    expect(assets).toHaveLength(1)
    const opened = await openBundle(assets[0]!.id)
    originals.delete('Busy/nested/file 019.txt')
    expect(opened.files).toEqual(originals)
    expect(before - (await balance())).toBeLessThanOrEqual(estimate.credits)
    expect(queue.index.find(vaultId, lastPath)).toBeUndefined()

    // Retried, the changed file goes up (alone: its bundle's other files are done).
    await queue.retry(changed.id)
    await queue.idle()
    expect(queue.get(changed.id)!.state).toBe('done')
  })

  it('cancelling one file of a bundle in flight stores nothing of it; the others go up without it', async ({
    world,
  }) => {
    const { client, files, vaultId, openQueue } = world
    const { openBundle } = helpersOn(world)
    const root = join(files, 'Photos')
    const originals = await makeFolder(root, 20, () => 20_000)
    const queue = await openQueue({ cipher: slowCipher(5) })
    let target: UploadItem | undefined
    const { items } = await queue.enqueue({ vaultId, paths: [root] })
    const victim = items[3]!
    let cancelled: Promise<boolean> | undefined
    queue.on('progress', (p) => {
      if (!cancelled && p.sentBytes > 0 && p.sentBytes < p.totalBytes) {
        expect(p.bundleId).toBe(victim.bundleId)
        target = queue.get(victim.id)
        cancelled = queue.cancel(victim.id)
      }
    })
    await queue.idle()
    expect(await cancelled).toBe(true)
    expect(target!.state).toBe('uploading')
    const after = queue.list()
    expect(after.find((i) => i.id === victim.id)).toMatchObject({
      state: 'cancelled',
      note: expect.stringMatching(/nothing was stored or charged/),
    })
    const others = after.filter((i) => i.id !== victim.id)
    expect(others.every((i) => i.state === 'done')).toBe(true)
    const assets = await client.listAllAssets(vaultId)
    expect(assets).toHaveLength(1)
    const opened = await openBundle(assets[0]!.id)
    originals.delete(victim.relativePath)
    expect(opened.files).toEqual(originals)
  })

  it('a file of a bundle cancelled before it starts is left out; the bundle goes up without it', async ({
    world,
  }) => {
    const { client, files, vaultId, openQueue } = world
    const { openBundle } = helpersOn(world)
    const root = join(files, 'Queued')
    const originals = await makeFolder(root, 5)
    const queue = await openQueue({ autoStart: false })
    const { items } = await queue.enqueue({ vaultId, paths: [root] })
    expect(await queue.cancel(items[2]!.id)).toBe(true)
    queue.start()
    await queue.idle()
    expect(queue.get(items[2]!.id)).toMatchObject({ state: 'cancelled', note: 'cancelled before it started' })
    const assets = await client.listAllAssets(vaultId)
    expect(assets).toHaveLength(1)
    originals.delete(items[2]!.relativePath)
    expect((await openBundle(assets[0]!.id)).files).toEqual(originals)
  })

  it('cancelling a whole batch mid-bundle stores and charges nothing', async ({ world }) => {
    const { client, files, vaultId, openQueue } = world
    const { balance } = helpersOn(world)
    const root = join(files, 'Drop')
    await makeFolder(root, 20, () => 20_000)
    const before = await balance()
    const queue = await openQueue({ cipher: slowCipher(5) })
    const { batchId } = await queue.enqueue({ vaultId, paths: [root] })
    let cancelling: Promise<number> | undefined
    queue.on('progress', () => {
      cancelling ??= queue.cancelBatch(batchId)
    })
    await queue.idle()
    expect(await cancelling).toBe(20)
    expect(queue.batchCounts(batchId)).toMatchObject({ cancelled: 20, done: 0, queued: 0 })
    expect(await client.listAllAssets(vaultId)).toEqual([])
    expect(await balance()).toBe(before)
  })

  it('survives a restart mid-bundle: the bundle goes up whole after the restart', async ({ world }) => {
    const { client, files, vaultId, openQueue, closeQueue } = world
    const { openBundle } = helpersOn(world)
    const root = join(files, 'Archive')
    const originals = await makeFolder(root, 20, () => 20_000)
    const first = await openQueue({ cipher: slowCipher(5) })
    let stopping: Promise<void> | undefined
    first.on('progress', () => {
      stopping ??= first.stop()
    })
    const { items } = await first.enqueue({ vaultId, paths: [root] })
    await first.idle()
    await stopping
    expect(first.list().every((i) => i.state === 'queued' && i.sentBytes === 0)).toBe(true)
    await closeQueue(first)
    expect(await client.listAllAssets(vaultId)).toEqual([])

    const second = await openQueue()
    await second.idle()
    const after = second.list()
    expect(after.map((i) => i.id)).toEqual(items.map((i) => i.id))
    expect(after.every((i) => i.state === 'done' && i.bundleId === items[0]!.bundleId)).toBe(true)
    const assets = await client.listAllAssets(vaultId)
    expect(assets).toHaveLength(1)
    expect((await openBundle(assets[0]!.id)).files).toEqual(originals)
  })

  it('skips unchanged files by the index (a touched file by the hash taken as the bundle read it)', async ({
    world,
  }) => {
    const { client, files, vaultId, openQueue } = world
    const root = join(files, 'Notes')
    const originals = await makeFolder(root, 6)
    const queue = await openQueue()
    await queue.enqueue({ vaultId, paths: [root] })
    await queue.idle()
    const [firstAsset] = await client.listAllAssets(vaultId)
    // Hashed on the way up, not in a second pass.
    const path = join(root, 'nested', 'file 001.txt')
    expect(queue.index.find(vaultId, path)!.sha256).toBe(
      createHash('sha256')
        .update(await readFile(path))
        .digest('hex'),
    )
    expect(queue.index.hasUnhashed()).toBe(false)

    await utimes(path, new Date(), new Date(Date.now() + 5000))
    const estimate = await queue.estimate(vaultId, [root])
    // The touched file counts until its hash is compared, when the upload checks it.
    expect(estimate).toMatchObject({ files: 1, unchanged: expect.any(Array) })
    expect(estimate.unchanged).toHaveLength(5)
    await queue.clearFinished()
    await queue.enqueue({ vaultId, paths: [root] })
    await queue.idle()
    const again = queue.list()
    expect(again.map((i) => i.state)).toEqual(Array(6).fill('skipped'))
    expect(again.every((i) => /already uploaded unchanged/.test(i.note ?? ''))).toBe(true)
    expect(await client.listAllAssets(vaultId)).toEqual([firstAsset])
    expect(originals.size).toBe(6)
  })

  it('a changed file goes up again in a new bundle; its older copy is superseded in the index', async ({
    world,
  }) => {
    const { client, files, vaultId, openQueue } = world
    const { openBundle } = helpersOn(world)
    const root = join(files, 'Drafts')
    await makeFolder(root, 5)
    const queue = await openQueue()
    await queue.enqueue({ vaultId, paths: [root] })
    await queue.idle()
    const oldAssetId = queue.list()[0]!.asset!.id
    const changedA = join(root, 'nested', 'file 001.txt')
    const changedB = join(root, 'file 002.txt')
    await writeFile(changedA, 'rewritten A')
    await writeFile(changedB, 'rewritten B')

    const estimate = await queue.estimate(vaultId, [root])
    expect(estimate).toMatchObject({ files: 2, bundles: 1, bundledFiles: 2 })
    await queue.clearFinished()
    await queue.enqueue({ vaultId, paths: [root] })
    await queue.idle()
    const states = queue.list().map((i) => [i.relativePath, i.state])
    expect(states.filter(([, s]) => s === 'done').map(([p]) => p)).toEqual([
      'Drafts/file 002.txt',
      'Drafts/nested/file 001.txt',
    ])
    const newAssetId = queue.list().find((i) => i.state === 'done')!.asset!.id
    expect(newAssetId).not.toBe(oldAssetId)

    expect(queue.index.filesOfAsset(vaultId, oldAssetId).map((e) => e.relativePath)).toEqual([
      'Drafts/nested/deeper/file 000.txt',
      'Drafts/nested/deeper/file 003.txt',
      'Drafts/nested/file 004.txt',
    ])
    expect(queue.index.filesOfAsset(vaultId, newAssetId).map((e) => e.relativePath)).toEqual([
      'Drafts/file 002.txt',
      'Drafts/nested/file 001.txt',
    ])
    const assets = await client.listAllAssets(vaultId)
    const oldView = assetView(
      assets.find((a) => a.id === oldAssetId)!,
      queue.index.filesOfAsset(vaultId, oldAssetId),
    )
    // The bundle still holds five files; this computer lists the three it has not uploaded again.
    expect(oldView.bundle).toMatchObject({ fileCount: 5 })
    expect(oldView.bundle!.files).toHaveLength(3)
    const newer = await openBundle(newAssetId)
    expect(newer.files.get('Drafts/nested/file 001.txt')!.toString()).toBe('rewritten A')
  })

  it('a bundle the balance cannot cover fails whole before sending; retried together, its files go up together', async ({
    world,
  }) => {
    const { svc, client, files, vaultId, openQueue } = world
    const { balance } = helpersOn(world)
    const root = join(files, 'Videos')
    await mkdir(root)
    for (const name of ['a.bin', 'b.bin', 'c.bin']) {
      await writeFile(join(root, name), '')
      await truncate(join(root, name), 10_000_000) // sparse: 30 MB in all, ~140 credits
    }
    const queue = await openQueue({ bundleSmallFiles: { fileThreshold: 16 * 1024 * 1024 } })
    const estimate = await queue.estimate(vaultId, [root])
    expect(estimate).toMatchObject({ bundles: 1, bundledFiles: 3, enough: false })
    const before = await balance()
    const { items } = await queue.enqueue({ vaultId, paths: [root] })
    await queue.idle()
    const failed = queue.list()
    expect(failed.map((i) => i.error?.code)).toEqual(Array(3).fill('INSUFFICIENT_CREDITS'))
    expect(failed[0]!.error!.message).toMatch(
      /goes up in one bundle with 2 other small files, which needs \d+ credits .*nothing was sent or charged/,
    )
    expect(failed.reduce((s, i) => s + (i.estimatedCredits ?? 0), 0)).toBe(estimate.credits)
    expect(await balance()).toBe(before)

    await svc.service.admin.addCredits({ account: svc.accountId, credits: 1_000 })
    for (const item of items) await queue.retry(item.id)
    await queue.idle()
    const done = queue.list()
    expect(done.every((i) => i.state === 'done')).toBe(true)
    expect(new Set(done.map((i) => i.asset!.id)).size).toBe(1)
    expect(await client.listAllAssets(vaultId)).toHaveLength(1)
    await rm(root, { recursive: true })
  })

  it('uploads each file alone when bundling is off (benchmarks compare with it)', async ({ world }) => {
    const { client, files, vaultId, openQueue } = world
    const root = join(files, 'Loose')
    await makeFolder(root, 4)
    const queue = await openQueue({ bundleSmallFiles: false })
    const estimate = await queue.estimate(vaultId, [root])
    // And the vault manifest after them, as a blob of its own.
    expect(estimate).toMatchObject({
      files: 4,
      bundles: 0,
      bundledFiles: 0,
      credits: 5,
      creditsWithoutBundles: 4,
    })
    await queue.enqueue({ vaultId, paths: [root] })
    await queue.idle()
    expect(queue.list().every((i) => i.state === 'done' && !i.bundleId)).toBe(true)
    expect(await client.listAllAssets(vaultId)).toHaveLength(5)
  })
})
