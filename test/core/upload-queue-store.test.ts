// The queue's storage: rows in SQLite, imported from the JSON files of earlier versions, a damaged
// database kept aside, and a write cost per file that does not grow with the queue.
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { UPLOAD_DB_FILE } from '../../src/main/core/uploads/upload-store'
import { uploadQueueTest } from './upload-queue-fixture'

const it = uploadQueueTest('vault-upload-store-', { credits: 100_000 })

async function smallFiles(dir: string, n: number): Promise<string> {
  await mkdir(dir, { recursive: true })
  for (let i = 0; i < n; i++) await writeFile(join(dir, `f${String(i).padStart(4, '0')}.txt`), `file ${i}\n`)
  return dir
}

describe('upload queue storage', () => {
  it('imports the JSON files of an earlier version once, then renames them aside', async ({ world }) => {
    const { userData, files, vaultId, openQueue, closeQueue } = world
    const done = join(files, 'done.txt')
    const waiting = join(files, 'waiting.txt')
    await writeFile(done, 'uploaded by the old version')
    await writeFile(waiting, 'still to upload')
    const info = await stat(done)
    const stamp = '2025-01-02T03:04:05.000Z'
    const oldItem = (id: string, path: string, state: string, extra: object = {}) => ({
      id,
      batchId: 'old-batch',
      vaultId,
      path,
      relativePath: path.slice(files.length + 1),
      force: false,
      state,
      sentBytes: 0,
      createdAt: stamp,
      updatedAt: stamp,
      ...extra,
    })
    await writeFile(
      join(userData, 'upload-queue.json'),
      JSON.stringify(
        {
          version: 1,
          items: [
            oldItem('i1', done, 'done', { creditsConsumed: 1 }),
            oldItem('i2', waiting, 'uploading', { sentBytes: 999 }),
            { not: 'an item' },
          ],
        },
        null,
        2,
      ),
    )
    await writeFile(
      join(userData, 'upload-index.json'),
      JSON.stringify({
        version: 1,
        entries: [
          {
            vaultId,
            path: done,
            relativePath: 'done.txt',
            size: info.size,
            mtimeMs: info.mtimeMs,
            assetId: 'asset-from-the-old-version',
            uploadedAt: stamp,
          },
        ],
      }),
    )

    const queue = await openQueue({ autoStart: false })
    expect(queue.list().map((i) => [i.id, i.state])).toEqual([
      ['i1', 'done'],
      ['i2', 'queued'],
    ])
    expect(queue.get('i2')).toMatchObject({ sentBytes: 0, note: expect.stringMatching(/restarting/) })
    expect(queue.index.find(vaultId, done)).toMatchObject({ assetId: 'asset-from-the-old-version' })
    expect(queue.batchCounts('old-batch')).toMatchObject({ done: 1, queued: 1, total: 2, creditsConsumed: 1 })
    expect(existsSync(join(userData, 'upload-queue.json'))).toBe(false)
    expect(existsSync(join(userData, 'upload-index.json'))).toBe(false)
    expect(existsSync(join(userData, 'upload-queue.json.imported'))).toBe(true)
    expect(existsSync(join(userData, 'upload-index.json.imported'))).toBe(true)
    expect(queue.storageProblem).toBeUndefined()

    // The imported index skips the file the old version uploaded; the queued one goes up.
    queue.start()
    await queue.enqueue({ vaultId, paths: [done] })
    await queue.idle()
    const items = queue.list()
    expect(items.map((i) => i.state)).toEqual(['done', 'done', 'skipped'])
    expect(items[2]!.note).toMatch(
      /already uploaded unchanged on 2025-01-02 \(asset asset-from-the-old-version\)/,
    )
    await closeQueue(queue)

    // An import repeated (the files put back, as after a crash before the rename) adds nothing twice.
    await writeFile(
      join(userData, 'upload-queue.json'),
      await readFile(join(userData, 'upload-queue.json.imported'), 'utf8'),
    )
    const again = await openQueue({ autoStart: false })
    expect(again.list().map((i) => i.id)).toEqual(['i1', 'i2', items[2]!.id])
    expect(again.get('i2')!.state).toBe('done')
  })

  it('keeps a damaged database aside and starts a new list, saying so', async ({ world }) => {
    const { userData, files, vaultId, openQueue, closeQueue } = world
    await writeFile(join(userData, UPLOAD_DB_FILE), Buffer.alloc(8192, 'not a database '))
    const queue = await openQueue()
    expect(queue.storageProblem).toMatch(/could not be read .* kept as .*damaged-\d+.* new list was started/)
    expect(queue.list()).toEqual([])
    const kept = (await readdir(userData)).filter((n) => n.includes('.damaged-'))
    expect(kept).toHaveLength(1)
    expect((await readFile(join(userData, kept[0]!), 'utf8')).startsWith('not a database')).toBe(true)

    // And the new list works and lasts.
    await queue.enqueue({ vaultId, paths: [await smallFiles(join(files, 'docs'), 3)] })
    await queue.idle()
    expect(queue.list().map((i) => i.state)).toEqual(['done', 'done', 'done'])
    await closeQueue(queue)
    const reopened = await openQueue({ autoStart: false })
    expect(reopened.storageProblem).toBeUndefined()
    expect(reopened.list()).toHaveLength(3)
  })

  it('keeps working in memory when the database cannot be created at all', async ({ world }) => {
    const { userData, files, vaultId, openQueue } = world
    // A folder where the database file should be: SQLite cannot open it.
    await mkdir(join(userData, UPLOAD_DB_FILE))
    const queue = await openQueue()
    expect(queue.storageProblem).toMatch(/could not be opened .* kept only until the app closes/)
    await queue.enqueue({ vaultId, paths: [await smallFiles(join(files, 'docs'), 2)] })
    await queue.idle()
    expect(queue.list().map((i) => i.state)).toEqual(['done', 'done'])
  })

  it('writes a constant number of rows per file, however long the queue (no whole-state rewrites)', async ({
    world,
  }) => {
    const { userData, files, vaultId, openQueue, closeQueue } = world
    const rowsPerFile = async (n: number, bundleSmallFiles: boolean) => {
      await rm(userData, { recursive: true, force: true })
      await mkdir(userData)
      const queue = await openQueue({ bundleSmallFiles })
      const before = queue.rowsWritten()
      await queue.enqueue({
        vaultId,
        paths: [await smallFiles(join(files, `set-${n}-${bundleSmallFiles}`), n)],
      })
      await queue.idle()
      expect(queue.list().every((i) => i.state === 'done')).toBe(true)
      const rows = queue.rowsWritten() - before
      await closeQueue(queue)
      // The batch's vault manifest: its sequence taken, then recorded as stored (a few rows per
      // batch, however many files).
      const perBatch = rows - 5 * n
      expect(perBatch).toBeGreaterThanOrEqual(1)
      expect(perBatch).toBeLessThanOrEqual(4)
      return (rows - perBatch) / n
    }
    // One by one: queued, checking, uploading, done, the index entry with its hash (taken by the
    // reader thread as it read the file).
    const small = await rowsPerFile(10, false)
    const large = await rowsPerFile(60, false)
    expect(small).toBe(5)
    expect(large).toBe(5)
    // In bundles: the same rows; the hash is taken as the bundle reads the file.
    expect(await rowsPerFile(10, true)).toBe(5)
    expect(await rowsPerFile(60, true)).toBe(5)
    expect(existsSync(join(userData, 'upload-queue.json'))).toBe(false)
    expect(existsSync(join(userData, 'upload-index.json'))).toBe(false)
  })

  it('counts a batch by state without walking the queue, and names its first failure', async ({ world }) => {
    const { files, vaultId, openQueue } = world
    const dir = await smallFiles(join(files, 'batch'), 4)
    const queue = await openQueue({ autoStart: false, bundleSmallFiles: false })
    const { batchId, items } = await queue.enqueue({ vaultId, paths: [dir] })
    expect(queue.batchCounts(batchId)).toMatchObject({ queued: 4, done: 0, failed: 0, total: 4 })
    await rm(items[1]!.path)
    queue.start()
    await queue.idle()
    const counts = queue.batchCounts(batchId)!
    expect(counts).toMatchObject({ queued: 0, checking: 0, uploading: 0, done: 3, failed: 1, total: 4 })
    expect(counts.creditsConsumed).toBe(3)
    expect(counts.firstError).toMatchObject({ code: 'FILE_MISSING', message: expect.stringMatching(/f0001/) })
    expect(queue.batchCounts('no-such-batch')).toBeUndefined()

    await writeFile(items[1]!.path, 'back again')
    await queue.retry(items[1]!.id)
    await queue.idle()
    expect(queue.batchCounts(batchId)).toMatchObject({ done: 4, failed: 0, creditsConsumed: 4 })
    expect(queue.batchCounts(batchId)!.firstError).toBeUndefined()
    expect(await queue.clearFinished()).toBe(4)
    expect(queue.batchCounts(batchId)).toBeUndefined()
    expect(queue.list()).toEqual([])
  })

  it('keeps queue order across restarts: a retried item goes back to its place', async ({ world }) => {
    const { files, vaultId, openQueue, closeQueue } = world
    const dir = await smallFiles(join(files, 'order'), 5)
    const queue = await openQueue({ autoStart: false, bundleSmallFiles: false })
    const { items } = await queue.enqueue({ vaultId, paths: [dir] })
    await queue.cancel(items[0]!.id)
    await queue.retry(items[0]!.id)
    await closeQueue(queue)
    const reopened = await openQueue({ autoStart: false, bundleSmallFiles: false, concurrency: 1 })
    const started: string[] = []
    reopened.on('item', (i) => {
      if (i.state === 'checking') started.push(i.relativePath)
    })
    reopened.start()
    await reopened.idle()
    expect(started).toEqual(items.map((i) => i.relativePath))
  })
})
