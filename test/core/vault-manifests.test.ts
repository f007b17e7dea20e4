// Issue 26, point 3 (the app's side): after every change that adds or removes files, the owner's app
// writes a new vault manifest of the vault's current files with the next sequence number, inside the
// change's bundle when it uploads one, else as a small blob of its own; the cost estimate counts it.
import { createHash } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { UploadQueue } from '../../src/main/core/uploads/upload-queue'
import type { Asset } from '../../src/shared/api'
import {
  encryptedManifestLength,
  FileCipherError,
  generateVaultKey,
  openVaultBlob,
  type VaultManifest,
} from '../../src/vault-format'
import { type UploadQueueWorld, uploadQueueTest } from './upload-queue-fixture'

const it = uploadQueueTest('vault-manifests-', { credits: 100 })

interface Stored {
  asset: Asset
  kind: 'manifest' | 'bundle'
  manifest: VaultManifest
}

/** The helpers below, on a test's own world (service client, folders, vault and key). */
function helpersOn(world: UploadQueueWorld) {
  const { client, files, keys, vaultId } = world
  /**
   * Every manifest the service holds for the vault under its current key (stored alone or embedded in
   * a bundle), by sequence; blobs under another key are passed over.
   */
  async function storedManifests(): Promise<Stored[]> {
    const vaultKey = (await keys.get(vaultId))!
    const out: Stored[] = []
    for (const asset of await client.listAllAssets(vaultId)) {
      const opened = await openVaultBlob(await client.downloadAsset(vaultId, asset.id), {
        vaultKey,
        vaultId,
      }).catch((error: unknown) => {
        if (error instanceof FileCipherError && error.reason === 'wrong-key') return null
        throw error
      })
      if (!opened) continue
      if (opened.kind === 'manifest') out.push({ asset, kind: 'manifest', manifest: opened.manifest })
      if (opened.kind === 'bundle') {
        for await (const entry of opened.entries) for await (const _ of entry.body);
        if (opened.manifest) out.push({ asset, kind: 'bundle', manifest: opened.manifest })
      }
      if (opened.kind === 'file') for await (const _ of opened.body);
    }
    return out.sort((a, b) => a.manifest.sequence - b.manifest.sequence)
  }

  const sha256 = async (path: string) =>
    createHash('sha256')
      .update(await readFile(path))
      .digest('hex')
  const paths = (m: VaultManifest) => m.entries.map((e) => e.path)

  /** A folder of small files (one bundle) and a large file (alone). */
  async function twoBatches() {
    const letters = join(files, 'Letters')
    await mkdir(letters)
    for (const name of ['to-ann.txt', 'to-bo.txt', 'to-cy.txt'])
      await writeFile(join(letters, name), `${name}\n`)
    const video = join(files, 'video.bin')
    await writeFile(video, Buffer.alloc(200_000, 3))
    return { letters, video }
  }
  return { storedManifests, sha256, paths, twoBatches }
}

describe('the vault manifest', () => {
  it('after two batches the service holds manifests 1 and 2, and 2 lists the files of both', async ({
    world,
  }) => {
    const { client, keys, vaultId, openQueue } = world
    const { storedManifests, sha256, paths, twoBatches } = helpersOn(world)
    const { letters, video } = await twoBatches()
    const queue = await openQueue({ bundleSmallFiles: { fileThreshold: 65_536 } })

    // Batch 1, three small files: one bundle, the manifest inside it (no extra upload).
    const first = await queue.estimate(vaultId, [letters])
    const listed1 = ['Letters/to-ann.txt', 'Letters/to-bo.txt', 'Letters/to-cy.txt']
    expect(first).toMatchObject({ files: 3, bundles: 1, credits: 1 })
    await queue.enqueue({ vaultId, paths: [letters] })
    await queue.idle()
    expect(await client.listAllAssets(vaultId)).toHaveLength(1)
    let stored = await storedManifests()
    expect(stored.map((s) => [s.kind, s.manifest.sequence])).toEqual([['bundle', 1]])
    expect(paths(stored[0]!.manifest)).toEqual(listed1)
    expect(first.encryptedBytes).toBe(stored[0]!.asset.sizeBytes)

    // Batch 2, one large file: no bundle, so the manifest goes up alone; the estimate counted it.
    const second = await queue.estimate(vaultId, [video])
    const manifestBytes = encryptedManifestLength([...listed1, 'video.bin'])
    expect(second).toMatchObject({ files: 1, bundles: 0, credits: 2 })
    const before = (await client.getVault(vaultId)).creditsBalance
    await queue.enqueue({ vaultId, paths: [video] })
    await queue.idle()
    expect(before - (await client.getVault(vaultId)).creditsBalance).toBe(second.credits)
    stored = await storedManifests()
    expect(stored.map((s) => [s.kind, s.manifest.sequence])).toEqual([
      ['bundle', 1],
      ['manifest', 2],
    ])
    const alone = stored[1]!
    expect(alone.asset.sizeBytes).toBe(manifestBytes)
    // Neutral to the service like any upload.
    expect(alone.asset.filename).toMatch(/^file-[0-9a-f]{16}\.vault$/)
    expect(alone.asset.contentType).toBe('application/octet-stream')
    const newest = alone.manifest
    expect(paths(newest)).toEqual([...listed1, 'video.bin'])
    expect(newest.entries.find((e) => e.path === 'video.bin')).toMatchObject({
      size: 200_000,
      sha256: await sha256(video),
    })
    expect(newest.entries.find((e) => e.path === 'Letters/to-bo.txt')?.sha256).toBe(
      await sha256(join(letters, 'to-bo.txt')),
    )
    // Each entry's write time is the one sealed in the copy it stands for.
    const vaultKey = (await keys.get(vaultId))!
    const videoAsset = queue.list().find((i) => i.relativePath === 'video.bin')!.asset!
    const opened = await openVaultBlob(await client.downloadAsset(vaultId, videoAsset.id), {
      vaultKey,
      vaultId,
    })
    if (opened.kind !== 'file') throw new Error('expected the video alone')
    for await (const _ of opened.body);
    expect(newest.entries.find((e) => e.path === 'video.bin')?.writtenAtMs).toBe(opened.identity?.writtenAtMs)

    // Nothing changed: a repeated backup uploads nothing, not even a manifest.
    await queue.enqueue({ vaultId, paths: [letters, video] })
    await queue.idle()
    expect(await storedManifests()).toHaveLength(2)
  })

  it('after deleting a file the next manifest omits it', async ({ world }) => {
    const { vaultId, openQueue } = world
    const { storedManifests, paths, twoBatches } = helpersOn(world)
    const { letters, video } = await twoBatches()
    const queue = await openQueue({ bundleSmallFiles: { fileThreshold: 65_536 } })
    await queue.enqueue({ vaultId, paths: [letters, video] })
    await queue.idle()
    const videoAsset = queue.list().find((i) => i.relativePath === 'video.bin')!.asset!
    const before = await storedManifests()
    expect(paths(before.at(-1)!.manifest)).toContain('video.bin')

    await queue.deleteAsset(vaultId, videoAsset.id)
    const after = await storedManifests()
    const newest = after.at(-1)!.manifest
    expect(newest.sequence).toBe(before.at(-1)!.manifest.sequence + 1)
    expect(paths(newest)).toEqual(['Letters/to-ann.txt', 'Letters/to-bo.txt', 'Letters/to-cy.txt'])
  })

  it("another computer continues the sequence and keeps the first computer's files in its manifest", async ({
    world,
  }) => {
    const { client, userData, files, keys, vaultId, openQueue } = world
    const { storedManifests, paths, twoBatches } = helpersOn(world)
    const { letters, video } = await twoBatches()
    const laptop = await openQueue({ bundleSmallFiles: { fileThreshold: 65_536 } })
    await laptop.enqueue({ vaultId, paths: [letters] })
    await laptop.idle()

    // The desktop: its own user-data folder (no upload index, no sequence), the same vault key.
    const desktopData = join(userData, '..', 'desktop-user-data')
    await mkdir(desktopData)
    const desktop = await UploadQueue.open({
      userDataDir: desktopData,
      clientFor: async () => client,
      vaultKeys: keys,
      progressIntervalMs: 0,
    })
    try {
      await desktop.enqueue({ vaultId, paths: [video] })
      await desktop.idle()
    } finally {
      await desktop.close()
    }
    const newest = (await storedManifests()).at(-1)!.manifest
    expect(newest.sequence).toBe(2)
    expect(paths(newest)).toEqual([
      'Letters/to-ann.txt',
      'Letters/to-bo.txt',
      'Letters/to-cy.txt',
      'video.bin',
    ])

    // Back on the laptop: its next manifest reads the desktop's first and lists the video too.
    const note = join(files, 'note.txt')
    await writeFile(note, 'one more\n')
    await laptop.enqueue({ vaultId, paths: [note] })
    await laptop.idle()
    const latest = (await storedManifests()).at(-1)!.manifest
    expect(latest.sequence).toBe(3)
    expect(paths(latest)).toEqual([
      'Letters/to-ann.txt',
      'Letters/to-bo.txt',
      'Letters/to-cy.txt',
      'note.txt',
      'video.bin',
    ])
  })

  it('a manifest that cannot be stored is told to the owner, and written after the next change', async ({
    world,
  }) => {
    const { client, vaultId, openQueue } = world
    const { storedManifests, paths, twoBatches } = helpersOn(world)
    const { video } = await twoBatches()
    let refuseManifests = true
    const flaky = new Proxy(client, {
      get: (target, property) => {
        if (property === 'uploadAsset') {
          return (request: Parameters<typeof client.uploadAsset>[0]) =>
            refuseManifests && (request.contentLength ?? 0) < 10_000
              ? Promise.reject(new Error('the connection was reset'))
              : client.uploadAsset(request)
        }
        const value = Reflect.get(target, property)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    // Not bundled, so that the manifest goes up alone (and is refused).
    const queue = await openQueue({ clientFor: async () => flaky, bundleSmallFiles: false })
    const problems: string[] = []
    queue.on('manifest-problem', (p) => problems.push(p.message))
    await queue.enqueue({ vaultId, paths: [video] })
    await queue.idle()
    expect(queue.list()[0]!.state).toBe('done')
    expect(await storedManifests()).toEqual([])
    expect(problems).toEqual([
      expect.stringMatching(/manifest\) could not be stored: the connection was reset/),
    ])

    refuseManifests = false
    await queue.refreshManifest(vaultId)
    expect(paths((await storedManifests()).at(-1)!.manifest)).toEqual(['video.bin'])
  })

  it('after the vault key changed, the same list is written again under the new key', async ({ world }) => {
    const { keys, vaultId, openQueue } = world
    const { storedManifests, paths, twoBatches } = helpersOn(world)
    const { video } = await twoBatches()
    const queue = await openQueue()
    await queue.enqueue({ vaultId, paths: [video] })
    await queue.idle()
    expect(await storedManifests()).toHaveLength(1)
    await queue.refreshManifest(vaultId)
    expect(await storedManifests()).toHaveLength(1)

    // As a rotation leaves it: the vault's files under a new key (here: the key replaced in place).
    await keys.put(vaultId, generateVaultKey(), { replace: true })
    await queue.refreshManifest(vaultId)
    const underNewKey = await storedManifests()
    expect(underNewKey.map((s) => s.manifest.sequence)).toEqual([2])
    expect(paths(underNewKey[0]!.manifest)).toEqual(['video.bin'])
  })
})
