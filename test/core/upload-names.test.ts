// Issue 26, point 9: by default the service learns nothing of a file's name, folder path, type or
// modification time. The bytes it receives are read off the wire (every multipart body the queue
// sends), not from what the service chose to keep.
import { mkdir, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect } from 'vitest'
import type { VaultApiClient } from '../../src/service-client'
import { type UploadQueueWorld, uploadQueueTest } from './upload-queue-fixture'

const it = uploadQueueTest('vault-upload-names-')

/** The helpers below, on a test's own world (service client, folders, vault and key). */
function helpersOn(world: UploadQueueWorld) {
  const { client, files } = world
  /** The client, recording every upload body byte for byte as it is sent. */
  function recordingClient(): { client: VaultApiClient; bodies: Buffer[] } {
    const bodies: Buffer[] = []
    const uploadAsset: VaultApiClient['uploadAsset'] = (request) =>
      client.uploadAsset({
        ...request,
        body: () => {
          const pieces: Buffer[] = []
          bodies.push(Buffer.alloc(0))
          const at = bodies.length - 1
          const source = request.body()
          return Readable.from(
            (async function* () {
              for await (const piece of source) {
                pieces.push(Buffer.from(piece as Uint8Array))
                bodies[at] = Buffer.concat(pieces)
                yield piece
              }
            })(),
          )
        },
      })
    // The client keeps private fields: every other call goes to it unchanged.
    const recording = new Proxy(client, {
      get: (target, property) => {
        if (property === 'uploadAsset') return uploadAsset
        const value = Reflect.get(target, property)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    return { client: recording, bodies }
  }

  /** A folder with one file that goes up alone and three that go up as one bundle. */
  async function privateFolder() {
    const root = join(files, 'Medical-Quokka')
    await mkdir(join(root, 'scans-Walrus'), { recursive: true })
    const big = join(root, 'scans-Walrus', 'diagnosis-Zebra.pdf')
    await writeFile(big, Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(300_000, 7)]))
    for (const name of ['letter-Okapi.txt', 'will-Narwhal.txt', 'passwords-Axolotl.txt'])
      await writeFile(join(root, name), `${name}\n`)
    const mtime = new Date((await stat(big)).mtimeMs).toISOString()
    return { root, mtime }
  }
  return { recordingClient, privateFolder }
}

/** Files from 64 KiB go up alone (the 300 kB PDF); the rest in one bundle. */
const SMALL = { fileThreshold: 65_536 }

const SECRETS = [
  'Quokka',
  'Walrus',
  'Zebra',
  'diagnosis',
  'Okapi',
  'Narwhal',
  'Axolotl',
  'letter',
  'passwords',
  '.pdf',
  '.txt',
  'application/pdf',
  'text/plain',
  'relativePath',
  'modifiedAt',
  'plaintextBytes',
]

describe('names hidden from the service', () => {
  it('by default the bytes the service receives carry no part of a name, path, type or time', async ({
    world,
  }) => {
    const { client, vaultId, openQueue } = world
    const { recordingClient, privateFolder } = helpersOn(world)
    const { root, mtime } = await privateFolder()
    const recorded = recordingClient()
    const queue = await openQueue({ clientFor: async () => recorded.client, bundleSmallFiles: SMALL })
    await queue.enqueue({ vaultId, paths: [root] })
    await queue.idle()
    expect(queue.list().map((i) => i.state)).toEqual(['done', 'done', 'done', 'done'])
    // One file alone, one bundle of three.
    expect(recorded.bodies).toHaveLength(2)
    for (const body of recorded.bodies) {
      const wire = body.toString('latin1')
      for (const secret of [...SECRETS, mtime, mtime.slice(0, 16)]) expect(wire).not.toContain(secret)
      expect(wire).toMatch(/name="filename"\r\n\r\nfile-[0-9a-f]{16}\.vault\r\n/)
      expect(wire).toMatch(/name="contentType"\r\n\r\napplication\/octet-stream\r\n/)
      expect(wire).toMatch(/name="file"; filename="file-[0-9a-f]{16}\.vault"\r\n/)
    }
    const kept = JSON.stringify(await client.listAllAssets(vaultId))
    for (const secret of SECRETS) expect(kept).not.toContain(secret)
    // This computer still knows every name, from its own index.
    expect(queue.index.find(vaultId, join(root, 'scans-Walrus', 'diagnosis-Zebra.pdf'))?.relativePath).toBe(
      'Medical-Quokka/scans-Walrus/diagnosis-Zebra.pdf',
    )
  })

  it('a vault whose owner chose real names tells the service the name, path, type and time', async ({
    world,
  }) => {
    const { client, keys, vaultId, openQueue } = world
    const { recordingClient, privateFolder } = helpersOn(world)
    const { root, mtime } = await privateFolder()
    const recorded = recordingClient()
    const queue = await openQueue({
      clientFor: async () => recorded.client,
      bundleSmallFiles: SMALL,
      realNameVaults: [vaultId],
    })
    await queue.enqueue({ vaultId, paths: [root] })
    await queue.idle()
    const alone = recorded.bodies.map((b) => b.toString('latin1')).find((w) => w.includes('Zebra'))!
    expect(alone).toContain('name="filename"\r\n\r\ndiagnosis-Zebra.pdf\r\n')
    expect(alone).toContain('application/pdf')
    expect(alone).toContain('"relativePath":"Medical-Quokka/scans-Walrus/diagnosis-Zebra.pdf"')
    expect(alone).toContain(mtime)
    // Another vault of the same queue keeps the default.
    const other = (await client.createVault()).id
    await keys.create(other)
    recorded.bodies.length = 0
    await queue.enqueue({ vaultId: other, paths: [join(root, 'scans-Walrus')] })
    await queue.idle()
    // The file, then the vault manifest (alone: no bundle to ride in); neither names anything.
    expect(recorded.bodies).toHaveLength(2)
    for (const body of recorded.bodies) expect(body.toString('latin1')).not.toContain('Zebra')
  })
})
