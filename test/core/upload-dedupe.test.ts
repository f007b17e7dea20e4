// Never paying twice for the same bytes: a file whose content the vault already holds (found by the
// content hash in this computer's upload index, or in the manifest another computer stored) is left
// out of the estimate and the queue, and not charged, unless the owner asks to upload it again.
import { createHash, randomBytes } from 'node:crypto'
import { copyFile, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { UploadIndex } from '../../src/main/core/uploads/upload-index'
import { uploadQueueTest } from './upload-queue-fixture'

const it = uploadQueueTest('vault-dedupe-')

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

describe('files the vault already holds', () => {
  it('are left out of the estimate and the queue, not charged, unless the owner insists', async ({
    world,
  }) => {
    const { client, files, vaultId, openQueue } = world
    // Large enough to go up alone (its hash comes from the encryption pass, not a second read).
    const bytes = randomBytes(5 * 1024 * 1024)
    const first = join(files, 'photo.jpg')
    await writeFile(first, bytes)
    const queue = await openQueue()
    await queue.enqueue({ vaultId, paths: [first] })
    await queue.idle()
    expect(queue.list().map((i) => [i.state, i.bundleId])).toEqual([['done', undefined]])
    // The index keeps the plaintext content hash as soon as the upload is recorded.
    const entry = queue.index.find(vaultId, first)
    expect(entry?.sha256).toBe(sha256(bytes))

    // The same bytes under another name and folder (a browser drop lands in a new folder each time).
    await mkdir(join(files, 'again'))
    const copy = join(files, 'again', 'photo (1).jpg')
    await copyFile(first, copy)
    const before = await client.getVault(vaultId)
    const estimate = await queue.estimate(vaultId, [copy])
    expect(estimate).toMatchObject({ files: 0, credits: 0 })
    expect(estimate.alreadyStored).toEqual([{ path: 'photo (1).jpg', at: entry!.uploadedAt }])

    await queue.clearFinished()
    const queued = await queue.enqueue({ vaultId, paths: [copy] })
    expect(queued.items).toHaveLength(0)
    expect(queued.alreadyStored).toEqual([{ path: 'photo (1).jpg', at: entry!.uploadedAt }])
    await queue.idle()
    const after = await client.getVault(vaultId)
    expect(after.creditsBalance).toBe(before.creditsBalance)
    expect(after.assetCount).toBe(before.assetCount)

    // The owner insists: counted, queued and stored again.
    const forced = await queue.estimate(vaultId, [copy], undefined, true)
    expect(forced.files).toBe(1)
    expect(forced.credits).toBeGreaterThan(0)
    expect(forced.alreadyStored).toEqual([])
    await queue.enqueue({ vaultId, paths: [copy], force: true })
    await queue.idle()
    expect(queue.list().map((i) => i.state)).toEqual(['done'])
    expect((await client.getVault(vaultId)).creditsBalance).toBeLessThan(before.creditsBalance)
  })

  it('tells a file of the same size but other bytes apart, and counts duplicates in a bundle apart', async ({
    world,
  }) => {
    const { files, vaultId, openQueue } = world
    const a = join(files, 'a.txt')
    await writeFile(a, 'same size, first text')
    const queue = await openQueue()
    await queue.enqueue({ vaultId, paths: [a] })
    await queue.idle()
    expect(queue.index.find(vaultId, a)?.sha256).toBe(sha256(Buffer.from('same size, first text')))

    await mkdir(join(files, 'more'))
    const other = join(files, 'more', 'b.txt')
    const twin = join(files, 'more', 'twin.txt')
    await writeFile(other, 'same size, other text')
    await copyFile(a, twin)
    const estimate = await queue.estimate(vaultId, [join(files, 'more')])
    expect(estimate.files).toBe(1)
    expect(estimate.alreadyStored.map((s) => s.path)).toEqual([join('more', 'twin.txt')])
  })

  it('reads a file only when the vault holds something of its size; knows other computers’ files by the manifest', async ({
    world,
  }) => {
    const { userData, files, vaultId } = world
    const index = await UploadIndex.open(userData)
    // Nothing of this size: answered without opening the file (this path does not exist).
    await expect(
      index.sameContent(vaultId, { path: join(files, 'missing.bin'), size: 12345, mtimeMs: 1 }),
    ).resolves.toBeUndefined()

    const elsewhere = join(files, 'from-laptop.pdf')
    const bytes = Buffer.from('uploaded by the laptop')
    await writeFile(elsewhere, bytes)
    const writtenAtMs = Date.parse('2026-10-01T08:00:00.000Z')
    const file = { path: elsewhere, size: bytes.length, mtimeMs: 2 }
    await expect(index.sameContent(vaultId, file, [{ sha256: sha256(bytes), writtenAtMs }])).resolves.toEqual(
      {
        at: '2026-10-01T08:00:00.000Z',
      },
    )
    await expect(
      index.sameContent(vaultId, file, [{ sha256: sha256(Buffer.from('other')), writtenAtMs }]),
    ).resolves.toBeUndefined()
  })
})
