// The owner saving their own files back from a real service: the whole vault, a folder, one file, a
// bundle's member; a download cut off resumes with a byte range; a different file in the way is left
// untouched; another computer finds files whose blob hides its name.
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect } from 'vitest'
import { blobsToSave } from '../../src/main/core/ipc/file-save-handlers'
import { fileLibrary, selectedFiles } from '../../src/main/core/uploads/file-library'
import { UploadQueue } from '../../src/main/core/uploads/upload-queue'
import { type FileSaveSource, saveVaultFiles } from '../../src/main/core/vaults/file-save'
import type { LibrarySelection } from '../../src/shared/ipc/vault-types'
import { type UploadQueueWorld, uploadQueueTest } from './upload-queue-fixture'

const it = uploadQueueTest('file-save-', { credits: 1000 })

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/** The helpers below, on a test's own world (service client, folders, vault and key). */
function helpersOn(world: UploadQueueWorld) {
  const { client, files, vaultId, openQueue } = world
  /** Backs up Family/ (a 3 MiB scan alone, three letters in one bundle) and returns the originals. */
  async function backUpFamily(queue?: UploadQueue): Promise<Map<string, Buffer>> {
    const family = join(files, 'Family')
    await mkdir(join(family, 'Letters', 'old'), { recursive: true })
    const originals = new Map<string, Buffer>([
      ['Family/scan.pdf', randomBytes(3 * 1024 * 1024 + 17)],
      ['Family/Letters/to-anna.txt', Buffer.from('Dear Anna\n')],
      ['Family/Letters/to-ben.txt', Buffer.from('Dear Ben\n')],
      ['Family/Letters/old/2019.txt', Buffer.from('An old letter\n')],
    ])
    for (const [path, bytes] of originals) await writeFile(join(files, path), bytes)
    const q = queue ?? (await openQueue({ bundleSmallFiles: { fileThreshold: 65_536 } }))
    await q.enqueue({ vaultId, paths: [family] })
    await q.idle()
    return originals
  }

  async function plan(queue: UploadQueue, selection: LibrarySelection) {
    const assets = await client.listAllAssets(vaultId)
    const known = await queue.knownFiles(vaultId)
    const library = fileLibrary({ assets, ...known })
    const listed = new Map(known.elsewhere.map((e) => [e.path, e.sha256]))
    return blobsToSave(selectedFiles(library.files, selection), library.files, assets, listed)
  }
  return { backUpFamily, plan }
}

async function listTree(root: string, prefix = ''): Promise<string[]> {
  const out: string[] = []
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name
    if (entry.isDirectory()) out.push(...(await listTree(root, rel)))
    else out.push(rel)
  }
  return out.sort()
}

describe('saving the owner’s files', () => {
  it('saves the whole vault byte for byte, and a second save into the same folder keeps them all', async ({
    world,
  }) => {
    const { client, files, keys, vaultId, openQueue } = world
    const { backUpFamily, plan } = helpersOn(world)
    const queue = await openQueue({ bundleSmallFiles: { fileThreshold: 65_536 } })
    const originals = await backUpFamily(queue)
    const out = join(files, '..', 'saved-all')
    const vaultKey = (await keys.get(vaultId))!
    const blobs = await plan(queue, { files: [], folders: [''] })
    const progress: number[] = []
    const first = await saveVaultFiles({
      source: client,
      vaultId,
      vaultKey,
      folder: out,
      blobs,
      onProgress: (p) => progress.push(p.doneBytes),
    })
    expect(first).toMatchObject({ saved: 4, kept: 0, failed: [] })
    expect(first.stopped).toBeUndefined()
    expect(await listTree(out)).toEqual([...originals.keys()].sort())
    for (const [path, bytes] of originals) expect(sha(await readFile(join(out, path)))).toBe(sha(bytes))
    expect(progress.at(-1)).toBe(blobs.reduce((n, b) => n + b.encryptedBytes, 0))

    const again = await saveVaultFiles({ source: client, vaultId, vaultKey, folder: out, blobs })
    expect(again).toMatchObject({ saved: 0, kept: 4, failed: [] })
  })

  it('saves a folder under its own name, and one file of a bundle straight into the folder', async ({
    world,
  }) => {
    const { client, files, keys, vaultId, openQueue } = world
    const { backUpFamily, plan } = helpersOn(world)
    const queue = await openQueue({ bundleSmallFiles: { fileThreshold: 65_536 } })
    const originals = await backUpFamily(queue)
    const vaultKey = (await keys.get(vaultId))!
    const out = join(files, '..', 'saved-parts')
    const result = await saveVaultFiles({
      source: client,
      vaultId,
      vaultKey,
      folder: out,
      blobs: await plan(queue, { files: ['Family/Letters/to-ben.txt'], folders: ['Family/Letters/old'] }),
    })
    expect(result).toMatchObject({ saved: 2, failed: [] })
    expect(await listTree(out)).toEqual(['old/2019.txt', 'to-ben.txt'])
    expect(await readFile(join(out, 'to-ben.txt'))).toEqual(originals.get('Family/Letters/to-ben.txt'))
  })

  it('resumes a download cut off part-way with a byte range, without fetching the start again', async ({
    world,
  }) => {
    const { client, files, keys, vaultId, openQueue } = world
    const { backUpFamily, plan } = helpersOn(world)
    const queue = await openQueue({ bundleSmallFiles: { fileThreshold: 65_536 } })
    const originals = await backUpFamily(queue)
    const vaultKey = (await keys.get(vaultId))!
    const out = join(files, '..', 'saved-resumed')
    const blobs = await plan(queue, { files: ['Family/scan.pdf'], folders: [] })
    const starts: number[] = []
    // The service's answer breaks after 1 MiB (a laptop going to sleep).
    const cutting: FileSaveSource = {
      downloadAssetFrom: async (v, a, start, signal) => {
        starts.push(start)
        const answer = await client.downloadAssetFrom(v, a, start, signal)
        let sent = 0
        const broken = Readable.from(
          (async function* () {
            for await (const piece of answer.stream as AsyncIterable<Buffer>) {
              if (sent + piece.length > 1024 * 1024) {
                answer.stream.destroy()
                throw new Error('socket hang up')
              }
              sent += piece.length
              yield piece
            }
          })(),
        )
        return { stream: broken, partial: answer.partial }
      },
    }
    const cut = await saveVaultFiles({ source: cutting, vaultId, vaultKey, folder: out, blobs })
    expect(cut.stopped?.reason).toBe('interrupted')
    expect(cut.saved).toBe(0)
    // Nothing half-decrypted under the file's name.
    expect(await listTree(out).then((names) => names.filter((n) => !n.startsWith('.')))).toEqual([])

    const counting: FileSaveSource = {
      downloadAssetFrom: (v, a, start, signal) => {
        starts.push(start)
        return client.downloadAssetFrom(v, a, start, signal)
      },
    }
    const resumed = await saveVaultFiles({ source: counting, vaultId, vaultKey, folder: out, blobs })
    expect(resumed).toMatchObject({ saved: 1, failed: [] })
    expect(starts[0]).toBe(0)
    expect(starts[1]).toBeGreaterThan(0)
    expect(sha(await readFile(join(out, 'scan.pdf')))).toBe(sha(originals.get('Family/scan.pdf')!))
    // The download files are gone once the save completed.
    expect(await readdir(out)).toEqual(['scan.pdf'])
  })

  it('stops when cancelled and says how to go on', async ({ world }) => {
    const { client, files, keys, vaultId, openQueue } = world
    const { backUpFamily, plan } = helpersOn(world)
    const queue = await openQueue({ bundleSmallFiles: { fileThreshold: 65_536 } })
    await backUpFamily(queue)
    const vaultKey = (await keys.get(vaultId))!
    const controller = new AbortController()
    const result = await saveVaultFiles({
      source: client,
      vaultId,
      vaultKey,
      folder: join(files, '..', 'saved-cancelled'),
      blobs: await plan(queue, { files: [], folders: [''] }),
      signal: controller.signal,
      onProgress: (p) => {
        if (p.doneBytes > 0) controller.abort()
      },
    })
    expect(result.stopped?.reason).toBe('cancelled')
    expect(result.stopped?.message).toMatch(/save again into the same folder/)
  })

  it('leaves a different file already in the folder untouched and says so', async ({ world }) => {
    const { client, files, keys, vaultId, openQueue } = world
    const { backUpFamily, plan } = helpersOn(world)
    const queue = await openQueue({ bundleSmallFiles: { fileThreshold: 65_536 } })
    await backUpFamily(queue)
    const vaultKey = (await keys.get(vaultId))!
    const out = join(files, '..', 'saved-in-the-way')
    await mkdir(out)
    await writeFile(join(out, 'to-anna.txt'), 'my own notes')
    const result = await saveVaultFiles({
      source: client,
      vaultId,
      vaultKey,
      folder: out,
      blobs: await plan(queue, { files: ['Family/Letters/to-anna.txt'], folders: [] }),
    })
    expect(result.saved).toBe(0)
    expect(result.failed).toEqual([
      {
        path: 'Family/Letters/to-anna.txt',
        message: expect.stringMatching(/already in .*left untouched.*save again/),
      },
    ])
    expect(await readFile(join(out, 'to-anna.txt'), 'utf8')).toBe('my own notes')
  })

  it('on another computer finds a file whose blob hides its name, by reading the blobs', async ({
    world,
  }) => {
    const { client, userData, files, keys, vaultId } = world
    const { backUpFamily, plan } = helpersOn(world)
    const originals = await backUpFamily()
    const desktopData = join(userData, '..', 'desktop-data')
    await mkdir(desktopData)
    const desktop = await UploadQueue.open({
      userDataDir: desktopData,
      clientFor: async () => client,
      vaultKeys: keys,
      progressIntervalMs: 0,
    })
    try {
      const blobs = await plan(desktop, { files: ['Family/Letters/old/2019.txt'], folders: [] })
      expect(blobs.every((b) => b.searched)).toBe(true)
      const out = join(files, '..', 'saved-elsewhere')
      const result = await saveVaultFiles({
        source: client,
        vaultId,
        vaultKey: (await keys.get(vaultId))!,
        folder: out,
        blobs,
      })
      expect(result).toMatchObject({ saved: 1, failed: [] })
      expect(await readFile(join(out, '2019.txt'))).toEqual(originals.get('Family/Letters/old/2019.txt'))
      expect((await stat(join(out, '2019.txt'))).size).toBe(14)
    } finally {
      await desktop.close()
    }
  })

  it("a hostile service: a blob longer than listed, or another file's blob in its place, writes nothing", async ({
    world,
  }) => {
    const { client, files, keys, vaultId, openQueue } = world
    const { backUpFamily, plan } = helpersOn(world)
    const queue = await openQueue({ bundleSmallFiles: { fileThreshold: 65_536 } })
    await backUpFamily(queue)
    const vaultKey = (await keys.get(vaultId))!
    const scan = (await plan(queue, { files: ['Family/scan.pdf'], folders: [] }))[0]!
    const letters = (await plan(queue, { files: ['Family/Letters/to-anna.txt'], folders: [] }))[0]!

    // Sends one byte more than it lists.
    const longer: FileSaveSource = {
      downloadAssetFrom: async (v, a, start, signal) => {
        const answer = await client.downloadAssetFrom(v, a, start, signal)
        const padded = Readable.from(
          (async function* () {
            yield* answer.stream as AsyncIterable<Buffer>
            yield Buffer.from([0])
          })(),
        )
        return { stream: padded, partial: answer.partial }
      },
    }
    const outLonger = join(files, '..', 'hostile-longer')
    const tooLong = await saveVaultFiles({
      source: longer,
      vaultId,
      vaultKey,
      folder: outLonger,
      blobs: [scan],
    })
    expect(tooLong.saved).toBe(0)
    expect(tooLong.failed).toEqual([
      { path: 'Family/scan.pdf', message: expect.stringMatching(/more bytes than it lists/) },
    ])
    expect(await readdir(outLonger)).toEqual([])

    // Answers for the scan with the letters' bundle (authentic, of this vault, but not the file asked for).
    const swapped: FileSaveSource = {
      downloadAssetFrom: (v, _a, start, signal) =>
        client.downloadAssetFrom(v, letters.assetId, start, signal),
    }
    const outSwapped = join(files, '..', 'hostile-swapped')
    const other = await saveVaultFiles({
      source: swapped,
      vaultId,
      vaultKey,
      folder: outSwapped,
      blobs: [{ ...scan, encryptedBytes: letters.encryptedBytes }],
    })
    expect(other.saved).toBe(0)
    expect(other.failed).toEqual([
      { path: 'Family/scan.pdf', message: expect.stringMatching(/No blob on the service holds this file/) },
    ])
    expect(await readdir(outSwapped)).toEqual([])
  })
})
