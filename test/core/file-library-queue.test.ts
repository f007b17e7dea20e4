// The file library from a real queue and service: this computer lists a bundle's files from its upload
// index; another computer (its own user data, the same vault key) lists them from the vault manifest,
// which knownFiles reads from the service first.
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { fileLibrary } from '../../src/main/core/uploads/file-library'
import { UploadQueue } from '../../src/main/core/uploads/upload-queue'
import { uploadQueueTest } from './upload-queue-fixture'

const it = uploadQueueTest('file-library-', { credits: 100 })

describe('the file library of a backed-up folder', () => {
  it('lists the files inside the bundle here, and from the manifest on another computer', async ({
    world,
  }) => {
    const { client, userData, files, keys, vaultId, openQueue } = world
    const letters = join(files, 'Letters')
    await mkdir(join(letters, 'old'), { recursive: true })
    await writeFile(join(letters, 'to-anna.txt'), 'Dear Anna\n')
    await writeFile(join(letters, 'to-ben.txt'), 'Dear Ben\n')
    await writeFile(join(letters, 'old', '2019.txt'), 'An old letter\n')
    const laptop = await openQueue({ bundleSmallFiles: { fileThreshold: 65_536 } })
    await laptop.enqueue({ vaultId, paths: [letters] })
    await laptop.idle()

    const here = fileLibrary({
      assets: await client.listAllAssets(vaultId),
      ...(await laptop.knownFiles(vaultId)),
    })
    expect(here.files.map((f) => [f.path, f.sizeBytes, f.from, f.blob?.bundle])).toEqual([
      ['Letters/old/2019.txt', 14, 'this-computer', true],
      ['Letters/to-anna.txt', 10, 'this-computer', true],
      ['Letters/to-ben.txt', 9, 'this-computer', true],
    ])
    // One blob holds all three, and its name is hidden from the service.
    expect(new Set(here.files.map((f) => f.blob?.assetId)).size).toBe(1)
    expect(here.files[0]!.blob).toMatchObject({
      nameHidden: true,
      serviceName: expect.stringMatching(/^file-/),
    })

    const desktopData = join(userData, '..', 'desktop-user-data')
    await mkdir(desktopData)
    const desktop = await UploadQueue.open({
      userDataDir: desktopData,
      clientFor: async () => client,
      vaultKeys: keys,
      progressIntervalMs: 0,
    })
    try {
      const known = await desktop.knownFiles(vaultId)
      expect(known.uploadedHere).toEqual([])
      expect(known.manifestUnread).toBe(false)
      const there = fileLibrary({ assets: await client.listAllAssets(vaultId), ...known })
      expect(there.files.map((f) => [f.path, f.sizeBytes, f.from])).toEqual([
        ['Letters/old/2019.txt', 14, 'manifest'],
        ['Letters/to-anna.txt', 10, 'manifest'],
        ['Letters/to-ben.txt', 9, 'manifest'],
      ])
      // The bundle's names are accounted for by the manifest: no blob is reported unnamed.
      expect(there.unnamedBlobs).toBe(0)
    } finally {
      await desktop.close()
    }
  })

  it('without the vault key another computer cannot read the manifest and says how many blobs it cannot name', async ({
    world,
  }) => {
    const { client, userData, files, vaultId, openQueue } = world
    const letters = join(files, 'Notes')
    await mkdir(letters)
    await writeFile(join(letters, 'a.txt'), 'a\n')
    await writeFile(join(letters, 'b.txt'), 'b\n')
    const laptop = await openQueue({ bundleSmallFiles: { fileThreshold: 65_536 } })
    await laptop.enqueue({ vaultId, paths: [letters] })
    await laptop.idle()

    const keylessData = join(userData, '..', 'keyless-user-data')
    await mkdir(keylessData)
    const keyless = await UploadQueue.open({
      userDataDir: keylessData,
      clientFor: async () => client,
      vaultKeys: { get: async () => null },
      progressIntervalMs: 0,
    })
    try {
      const list = fileLibrary({
        assets: await client.listAllAssets(vaultId),
        ...(await keyless.knownFiles(vaultId)),
      })
      expect(list.files).toEqual([])
      expect(list.unnamedBlobs).toBe(1)
    } finally {
      await keyless.close()
    }
  })
})
