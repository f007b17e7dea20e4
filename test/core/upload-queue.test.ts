import { appendFile, mkdir, symlink, truncate, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import {
  largestUploadableFile,
  type UploadCipher,
  type UploadProgress,
  UploadQueue,
} from '../../src/main/core/uploads/upload-queue'
import type { UploadItem } from '../../src/main/core/uploads/upload-records'
import type { Asset } from '../../src/shared/api'
import {
  decryptStream,
  encryptBundleStream,
  encryptedBundleLength,
  encryptedFileLength,
  encryptStream,
  openEncryptedFile,
} from '../../src/vault-format'
import { type UploadQueueWorld, uploadQueueTest } from './upload-queue-fixture'

/** A vault manifest stored as a blob of its own (not a file the owner uploaded). */
const manifestAlone = (a: Asset) =>
  (a as Asset & { metadata?: { encryption?: string } }).metadata?.encryption === 'vault-desktop/manifest/v1'

const PNG_HEADER = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex')

const it = uploadQueueTest('vault-upload-')

/** The real cipher, slowed after the first chunk so a test can act mid-upload. */
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

/** The helpers below, on a test's own world (service client, folders, vault and key). */
function helpersOn(world: UploadQueueWorld) {
  const { client, userData, keys, vaultId } = world
  function openQueue(extra: Partial<Parameters<typeof UploadQueue.open>[0]> = {}) {
    return UploadQueue.open({
      userDataDir: userData,
      clientFor: async () => client,
      vaultKeys: keys,
      progressIntervalMs: 0,
      ...extra,
    })
  }

  async function decryptAsset(assetId: string): Promise<Buffer> {
    const key = (await keys.get(vaultId))!
    const chunks: Buffer[] = []
    const stream = await client.downloadAsset(vaultId, assetId)
    for await (const c of decryptStream(stream, { vaultKey: key, vaultId })) chunks.push(Buffer.from(c))
    return Buffer.concat(chunks)
  }
  return { openQueue, decryptAsset }
}

describe('upload queue against the local service', () => {
  it('seals each file path and size inside its blob; by default the service sees neither', async ({
    world,
  }) => {
    const { client, files, keys, vaultId } = world
    const { openQueue } = helpersOn(world)
    const root = join(files, 'Private')
    await mkdir(join(root, 'medical'), { recursive: true })
    await writeFile(join(root, 'medical', 'diagnosis.pdf'), '%PDF-1.7\n% test pdf\n')
    // Not bundled: a lone small file would travel as a bundle of one carrying the manifest.
    const queue = await openQueue({ bundleSmallFiles: false })
    await queue.enqueue({ vaultId, paths: [root] })
    await queue.idle()
    expect(queue.list()).toEqual([expect.objectContaining({ state: 'done', nameHidden: true })])

    const [asset] = await client.listAllAssets(vaultId)
    const seenByService = JSON.stringify(asset)
    expect(seenByService).not.toMatch(/diagnosis|medical|Private|pdf/i)
    expect(asset!.filename).toMatch(/^file-[0-9a-f]{16}\.vault$/)
    const key = (await keys.get(vaultId))!
    const opened = await openEncryptedFile(await client.downloadAsset(vaultId, asset!.id), {
      vaultKey: key,
      vaultId,
    })
    expect(opened).toMatchObject({
      kind: 'file',
      version: 3,
      identity: { path: 'Private/medical/diagnosis.pdf', size: 20 },
    })
    if (opened.kind !== 'file') throw new Error('expected a file blob')
    const chunks: Uint8Array[] = []
    for await (const c of opened.body) chunks.push(c)
    expect(Buffer.concat(chunks).toString()).toBe('%PDF-1.7\n% test pdf\n')

    // The owner opts in to real names for this vault: uploads from now on carry them.
    queue.setRealNameVaults([vaultId])
    await writeFile(join(files, 'open.txt'), 'visible')
    await queue.enqueue({ vaultId, paths: [join(files, 'open.txt')] })
    await queue.idle()
    expect((await client.listAllAssets(vaultId)).map((a) => a.filename)).toContain('open.txt')
  })

  it('refuses a file whose name carries a bidirectional control character, with a way out', async ({
    world,
  }) => {
    const { client, files, vaultId } = world
    const { openQueue } = helpersOn(world)
    const spoof = join(files, 'invoice\u202Efdp.exe')
    await writeFile(spoof, 'x')
    const queue = await openQueue()
    const estimate = await queue.estimate(vaultId, [files])
    expect(estimate.files).toBe(0)
    expect(estimate.skipped).toEqual([expect.objectContaining({ reason: 'bad-name' })])
    await queue.enqueue({ vaultId, paths: [spoof] })
    await queue.idle()
    expect(queue.list()[0]!.error).toMatchObject({
      code: 'BAD_FILE_NAME',
      message: expect.stringMatching(/Rename/),
    })
    expect(await client.listAllAssets(vaultId)).toEqual([])
  })

  it('backs up a folder with nested files one by one, skipping junk and links that leave it', async ({
    world,
  }) => {
    const { client, files, vaultId } = world
    const { openQueue, decryptAsset } = helpersOn(world)
    const root = join(files, 'Documents')
    await mkdir(join(root, 'taxes', '2025'), { recursive: true })
    await writeFile(join(root, 'letter.txt'), 'Dear heirs,\n')
    await writeFile(join(root, 'taxes', '2025', 'return.pdf'), '%PDF-1.7\n% test pdf\n')
    await writeFile(join(root, 'taxes', 'scan'), PNG_HEADER)
    await writeFile(join(root, '.DS_Store'), 'junk')
    await writeFile(join(root, 'taxes', 'Thumbs.db'), 'junk')
    await writeFile(join(files, 'outside.txt'), 'not part of the backup')
    await symlink(join(files, 'outside.txt'), join(root, 'escape.txt'))
    await symlink(join(root, 'letter.txt'), join(root, 'letter-link.txt'))

    // One asset per file (bundles are tested in upload-queue-bundles.test.ts).
    // Real names chosen for the vault: the service is told each file's path and sniffed type.
    const queue = await openQueue({ bundleSmallFiles: false, realNameVaults: [vaultId] })
    const seen: UploadItem[] = []
    const progress: UploadProgress[] = []
    queue.on('item', (i) => seen.push(i))
    queue.on('progress', (p) => progress.push(p))
    const estimate = await queue.estimate(vaultId, [root])
    expect(estimate.files).toBe(4)
    expect(estimate.enough).toBe(true)
    // Four files alone, and the vault manifest after them as a blob of its own (no bundle to ride in).
    expect(estimate).toMatchObject({ credits: 5, bundles: 0, bundledFiles: 0, creditsWithoutBundles: 4 })
    const { items, skipped } = await queue.enqueue({ vaultId, paths: [root] })
    expect(items.map((i) => i.relativePath).sort()).toEqual([
      'Documents/letter-link.txt',
      'Documents/letter.txt',
      'Documents/taxes/2025/return.pdf',
      'Documents/taxes/scan',
    ])
    expect(skipped.map((s) => s.reason).sort()).toEqual(['os-junk', 'os-junk', 'symlink-outside'])
    expect(skipped.find((s) => s.reason === 'symlink-outside')!.detail).toMatch(/outside the folder/)
    await queue.idle()

    const done = queue.list()
    expect(done.map((i) => i.state)).toEqual(['done', 'done', 'done', 'done'])
    // The estimate was known before any byte was sent.
    const firstUploading = seen.find((i) => i.state === 'uploading')!
    expect(firstUploading.estimatedCredits).toBe(1)
    expect(firstUploading.balanceCredits).toBeGreaterThan(0)
    expect(progress.length).toBeGreaterThan(0)
    expect(progress.at(-1)!.sentBytes).toBe(progress.at(-1)!.totalBytes)

    const assets = (await client.listAllAssets(vaultId)).filter((a) => !manifestAlone(a))
    expect(assets).toHaveLength(4)
    const byPath = new Map(
      assets.map((a) => [(a as unknown as { metadata: { relativePath: string } }).metadata.relativePath, a]),
    )
    const scan = byPath.get('Documents/taxes/scan')!
    expect(scan.contentType).toBe('image/png')
    expect(scan.category).toBe('image')
    expect(byPath.get('Documents/taxes/2025/return.pdf')!.contentType).toBe('application/pdf')
    const letter = byPath.get('Documents/letter.txt')!
    expect(letter.contentType).toBe('text/plain')
    expect(letter.sizeBytes).toBe(encryptedFileLength({ path: 'Documents/letter.txt', size: 12 }))
    expect((await decryptAsset(letter.id)).toString()).toBe('Dear heirs,\n')
    const used = done.reduce((n, i) => n + (i.creditsConsumed ?? 0), 0)
    expect(used).toBe(4)
    // The four files and the manifest that lists them.
    expect((await client.getVault(vaultId)).assetCount).toBe(5)
  })

  it('skips files already uploaded unchanged, unless forced (a skipped file drops out of its bundle)', async ({
    world,
  }) => {
    const { client, files, vaultId } = world
    const { openQueue } = helpersOn(world)
    const a = join(files, 'a.txt')
    const b = join(files, 'b.txt')
    await writeFile(a, 'first version')
    await writeFile(b, 'stays the same')
    const queue = await openQueue({ realNameVaults: [vaultId] })
    await queue.enqueue({ vaultId, paths: [a, b] })
    await queue.idle()
    expect(queue.list().map((i) => i.state)).toEqual(['done', 'done'])

    const repeat = await queue.estimate(vaultId, [a, b])
    expect(repeat).toMatchObject({ files: 0, credits: 0, unchanged: ['a.txt', 'b.txt'] })
    // b touched (same bytes, new mtime): skipped after hashing; a really changed: uploaded.
    await utimes(b, new Date(), new Date(Date.now() + 5000))
    await writeFile(a, 'second version')
    await queue.clearFinished()
    await queue.enqueue({ vaultId, paths: [a, b] })
    await queue.idle()
    const second = queue.list()
    expect(second.map((i) => [i.relativePath, i.state])).toEqual([
      ['a.txt', 'done'],
      ['b.txt', 'skipped'],
    ])
    expect(second[1]!.note).toMatch(/already uploaded unchanged/)

    // b, planned in a's bundle, was found unchanged (by the hash taken when the bundle read it) and
    // dropped out; a went up as a bundle of one, as it carries the vault manifest.
    expect(second[0]!.bundleId).toEqual(expect.any(String))
    expect(second[1]!.asset).toBeUndefined()

    await queue.clearFinished()
    await queue.enqueue({ vaultId, paths: [b], force: true })
    await queue.idle()
    expect(queue.list()[0]!.state).toBe('done')
    // The first bundle (a and b), a again, b forced: each a bundle carrying its manifest, none alone.
    const stored = await client.listAllAssets(vaultId)
    expect(stored.filter((a) => !manifestAlone(a))).toHaveLength(3)
    expect(stored.filter(manifestAlone)).toHaveLength(0)
  })

  it('refuses before sending when the balance cannot cover the estimate', async ({ world }) => {
    const { client, files, vaultId } = world
    const { openQueue } = helpersOn(world)
    const big = join(files, 'video.mp4')
    await writeFile(big, '')
    await truncate(big, 40_000_000) // sparse: 40 MB costs 187 credits, the balance is lower
    const before = await client.getVault(vaultId)
    const queue = await openQueue()
    const estimate = await queue.estimate(vaultId, [big])
    expect(estimate.enough).toBe(false)
    expect(estimate.credits).toBeGreaterThan(estimate.balanceCredits)
    await queue.enqueue({ vaultId, paths: [big] })
    await queue.idle()
    const [item] = queue.list()
    expect(item!.state).toBe('failed')
    expect(item!.error!.code).toBe('INSUFFICIENT_CREDITS')
    expect(item!.error!.message).toMatch(
      /needs \d+ credits .* balance is \d+ credits.*nothing was sent or charged/,
    )
    expect(item!.sentBytes).toBe(0)
    const after = await client.getVault(vaultId)
    expect(after.creditsBalance).toBe(before.creditsBalance)
    expect(after.assetCount).toBe(0)
  })

  it('fails clearly for files over 5 GB and vaults without a key on this device', async ({ world }) => {
    const { client, files, vaultId } = world
    const { openQueue } = helpersOn(world)
    const huge = join(files, 'disk.img')
    await writeFile(huge, '')
    // Exactly 5 GB: the ciphertext (what the service stores) would exceed the limit.
    await truncate(huge, 5_000_000_000)
    const lengthOf = (size: number) => encryptedFileLength({ path: 'disk.img', size })
    const fits = largestUploadableFile(lengthOf)
    expect(lengthOf(fits)).toBeLessThanOrEqual(5_000_000_000)
    expect(lengthOf(fits + 1)).toBeGreaterThan(5_000_000_000)
    const small = join(files, 'small.txt')
    await writeFile(small, 'x')
    const keyless = (await client.createVault()).id
    const queue = await openQueue()
    await queue.enqueue({ vaultId, paths: [huge] })
    await queue.enqueue({ vaultId: keyless, paths: [small] })
    await queue.idle()
    const [tooBig, noKey] = queue.list()
    expect(tooBig!.error).toMatchObject({ code: 'FILE_TOO_LARGE' })
    expect(tooBig!.error!.message).toMatch(/is 5\.000 GB and 5\.004 GB once encrypted; the limit is 5 GB/)
    expect(noKey!.error).toMatchObject({ code: 'NO_VAULT_KEY' })
    expect(noKey!.error!.message).toMatch(/recovery kit/)
  })

  it('cancels mid-upload: no asset, no debit', async ({ world }) => {
    const { client, files, vaultId } = world
    const { openQueue } = helpersOn(world)
    const file = join(files, 'archive.bin')
    await writeFile(file, Buffer.alloc(2_000_000, 1))
    const before = await client.getVault(vaultId)
    const queue = await openQueue({ cipher: slowCipher(2) })
    let cancelled = false
    queue.on('progress', (p) => {
      if (!cancelled && p.sentBytes > 0 && p.sentBytes < p.totalBytes) {
        cancelled = true
        void queue.cancel(p.itemId)
      }
    })
    await queue.enqueue({ vaultId, paths: [file] })
    await queue.idle()
    const [item] = queue.list()
    expect(cancelled).toBe(true)
    expect(item!.state).toBe('cancelled')
    expect(item!.note).toMatch(/nothing was stored or charged/)
    const after = await client.getVault(vaultId)
    expect(after.assetCount).toBe(0)
    expect(after.creditsBalance).toBe(before.creditsBalance)
  })

  it('fails a file that changes while it is uploaded, storing nothing', async ({ world }) => {
    const { client, files, vaultId } = world
    const { openQueue } = helpersOn(world)
    const file = join(files, 'growing.log')
    await writeFile(file, Buffer.alloc(1_000_000, 2))
    const before = await client.getVault(vaultId)
    const queue = await openQueue({ cipher: slowCipher(1, () => appendFile(file, 'more lines\n')) })
    await queue.enqueue({ vaultId, paths: [file] })
    await queue.idle()
    const [item] = queue.list()
    expect(item!.state).toBe('failed')
    expect(item!.error!.code).toBe('FILE_CHANGED')
    expect(item!.error!.message).toMatch(/changed while it was being uploaded/)
    const after = await client.getVault(vaultId)
    expect(after.assetCount).toBe(0)
    expect(after.creditsBalance).toBe(before.creditsBalance)
  })

  it('uploads a file of several MiB byte for byte (reads come in 1 MiB pieces)', async ({ world }) => {
    const { files, vaultId } = world
    const { openQueue, decryptAsset } = helpersOn(world)
    const file = join(files, 'several-mib.bin')
    // Every 4-byte word differs, so a piece read twice, skipped or swapped would show.
    const original = Buffer.alloc(3 * 1024 * 1024 + 12_345)
    for (let i = 0; i + 4 <= original.length; i += 4) original.writeUInt32LE(i, i)
    await writeFile(file, original)
    const queue = await openQueue({ bundleSmallFiles: false })
    await queue.enqueue({ vaultId, paths: [file] })
    await queue.idle()
    const [item] = queue.list()
    expect(item!.state).toBe('done')
    expect((await decryptAsset(item!.asset!.id)).equals(original)).toBe(true)
  })

  it('fails a file cut short while it is uploaded, storing nothing', async ({ world }) => {
    const { client, files, vaultId } = world
    const { openQueue } = helpersOn(world)
    const file = join(files, 'shrinking.bin')
    await writeFile(file, Buffer.alloc(3 * 1024 * 1024, 7))
    const before = await client.getVault(vaultId)
    const queue = await openQueue({ cipher: slowCipher(1, () => truncate(file, 1024 * 1024 + 10)) })
    await queue.enqueue({ vaultId, paths: [file] })
    await queue.idle()
    const [item] = queue.list()
    expect(item!.state).toBe('failed')
    expect(item!.error!.code).toBe('FILE_CHANGED')
    const after = await client.getVault(vaultId)
    expect(after.assetCount).toBe(0)
    expect(after.creditsBalance).toBe(before.creditsBalance)
  })

  it('resumes the queue after a restart; the interrupted item starts over', async ({ world }) => {
    const { client, files, vaultId } = world
    const { openQueue } = helpersOn(world)
    const paths = ['one', 'two', 'three'].map((n) => join(files, `${n}.bin`))
    for (const p of paths) await writeFile(p, Buffer.alloc(600_000, p.length))
    const first = await openQueue({
      cipher: slowCipher(3),
      concurrency: 1,
      bundleSmallFiles: false,
      realNameVaults: [vaultId],
    })
    const stopped = new Promise<void>((resolve) => {
      first.on('item', (i) => {
        if (i.state === 'done') void first.stop().then(resolve)
      })
    })
    await first.enqueue({ vaultId, paths })
    await stopped
    const states = first.list().map((i) => i.state)
    expect(states[0]).toBe('done')
    expect(states.slice(1)).toEqual(['queued', 'queued'])

    await first.close()
    const second = await openQueue({ concurrency: 2, bundleSmallFiles: false, realNameVaults: [vaultId] })
    await second.idle()
    expect(second.list().map((i) => i.state)).toEqual(['done', 'done', 'done'])
    const assets = (await client.listAllAssets(vaultId)).filter((a) => !manifestAlone(a))
    expect(assets.map((a) => a.filename).sort()).toEqual(['one.bin', 'three.bin', 'two.bin'])
  })

  it('restarts items a crash left in flight from the beginning', async ({ world }) => {
    const { userData, files, vaultId } = world
    const { openQueue, decryptAsset } = helpersOn(world)
    const file = join(files, 'crash.txt')
    await writeFile(file, 'after the crash')
    const stamp = new Date().toISOString()
    await writeFile(
      join(userData, 'upload-queue.json'),
      JSON.stringify({
        version: 1,
        items: [
          {
            id: 'x1',
            batchId: 'b1',
            vaultId,
            path: file,
            relativePath: 'crash.txt',
            force: false,
            state: 'uploading',
            sentBytes: 12345,
            createdAt: stamp,
            updatedAt: stamp,
          },
        ],
      }),
    )
    const queue = await openQueue({ autoStart: false })
    expect(queue.get('x1')).toMatchObject({ state: 'queued', sentBytes: 0 })
    expect(queue.get('x1')!.note).toMatch(/restarting from the beginning/)
    queue.start()
    await queue.idle()
    expect(queue.get('x1')!.state).toBe('done')
    expect((await decryptAsset(queue.get('x1')!.asset!.id)).toString()).toBe('after the crash')
  })
})
