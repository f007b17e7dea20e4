// Rotating a vault's key against a real local service: files uploaded through the upload queue (one
// large file, a bundle of small ones, an empty one) and a format-1 blob are re-encrypted under a new
// key; afterwards every blob opens with the new key and none with the old one, two kits of the old
// split rebuild the old key but it opens nothing the service holds, the credits charged are those
// shown, a rotation stopped half-way (even after the service stored a copy whose answer was lost)
// continues and finishes, and a short balance is refused before anything is made.
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src/main/core/storage/secret-store'
import { VaultKeyStore } from '../../src/main/core/storage/vault-key-store'
import { buildMultipartBody } from '../../src/main/core/uploads/multipart-body'
import { UploadQueue } from '../../src/main/core/uploads/upload-queue'
import { KeyRotation } from '../../src/main/core/vaults/key-rotation'
import { KeyRotationStore } from '../../src/main/core/vaults/key-rotation-store'
import { VaultApiClient } from '../../src/service-client'
import { SSS_PRESET_SHAPE, uploadCostCredits } from '../../src/shared/api'
import { AppError } from '../../src/shared/app-error'
import {
  collectBytes,
  combineShareWords,
  encodeShareWords,
  FileCipherError,
  type OpenedVaultBlob,
  openVaultBlob,
  splitVaultKey,
  vaultFingerprint,
} from '../../src/vault-format'
import { encryptStreamV1 } from '../crypto/support/legacy-v1'
import { encryptBlobV2, encryptBundleV1 } from '../crypto/support/legacy-writers'
import { type ServiceFixture, startServiceFixture, tempDir } from './service-fixture'

let svc: ServiceFixture
let client: VaultApiClient
let work: { path: string; remove: () => Promise<void> }
let userData: string
let secrets: MemorySecretStore
let keys: VaultKeyStore
let vaultId: string
let queue: UploadQueue
const rotations: KeyRotation[] = []

beforeAll(async () => {
  svc = await startServiceFixture()
  await svc.service.admin.addCredits({ account: svc.accountId, credits: 1000 })
  client = new VaultApiClient({ baseUrl: svc.url, apiKey: svc.humanKey })
})
afterAll(async () => {
  await svc?.close()
})
beforeEach(async () => {
  work = await tempDir('key-rotation-')
  userData = join(work.path, 'user-data')
  await mkdir(userData)
  savedOwnerKits = new Set()
  secrets = new MemorySecretStore()
  keys = new VaultKeyStore(secrets)
  vaultId = (await client.createVault()).id
  await keys.create(vaultId)
  queue = await UploadQueue.open({ userDataDir: userData, clientFor: async () => client, vaultKeys: keys })
})
afterEach(async () => {
  for (const r of rotations.splice(0)) await r.close().catch(() => undefined)
  await queue.close()
  await work.remove()
})

/** Kits of the split the rotation makes, as words (what the guardians would be handed). */
let newKits: string[] = []
/** Fingerprints of the keys whose owner kit the owner confirmed as saved. */
let savedOwnerKits = new Set<string>()

async function openRotation(apiClient: VaultApiClient = client): Promise<KeyRotation> {
  const rotation = new KeyRotation({
    store: await KeyRotationStore.open(userData),
    vaultKeys: keys,
    client: async () => apiClient,
    activeConnectionId: () => undefined,
    durableKeys: () => true,
    index: () => queue.index,
    uploadsSettled: () => queue.idle(),
    remakeKits: async (id, key) => {
      newKits = (await splitVaultKey(key, id, SSS_PRESET_SHAPE.standard)).map(encodeShareWords)
      return newKits.length
    },
    ownerKitSaved: (_id, fingerprint) => savedOwnerKits.has(fingerprint),
    progressIntervalMs: 0,
  })
  rotations.push(rotation)
  return rotation
}

/** The owner saves the owner kit of the vault's key now and confirms it ("I have saved it"). */
async function confirmOwnerKit(rotation: KeyRotation): Promise<void> {
  savedOwnerKits.add(vaultFingerprint((await keys.get(vaultId))!))
  rotation.ownerKitConfirmed(vaultId)
  await rotation.idle(vaultId)
}

async function closeRotation(rotation: KeyRotation): Promise<void> {
  await rotation.close()
  rotations.splice(rotations.indexOf(rotation), 1)
}

/** The vault's files as a folder of them: one over the bundle threshold, small ones, an empty one. */
async function uploadFiles(): Promise<Map<string, Buffer>> {
  const folder = join(work.path, 'files')
  const contents = new Map<string, Buffer>([
    ['files/big.bin', randomBytes(5 * 1024 * 1024 + 123)],
    ['files/letters/will.txt', Buffer.from('The house goes to the cat.\n')],
    ['files/letters/notes.md', randomBytes(70_000)],
    ['files/empty.txt', Buffer.alloc(0)],
  ])
  await mkdir(join(folder, 'letters'), { recursive: true })
  for (const [path, bytes] of contents) await writeFile(join(work.path, path), bytes)
  await queue.enqueue({ vaultId, paths: [folder] })
  await queue.idle()
  expect(queue.list().every((i) => i.state === 'done')).toBe(true)
  // Blobs as earlier versions wrote them: format 1 (no record inside), format 2, a version-1 bundle.
  const key = (await keys.get(vaultId))!
  const legacy = randomBytes(40_000)
  await uploadBlob('legacy.pdf', await collectBytes(encryptStreamV1([legacy], { vaultKey: key, vaultId })))
  contents.set('v1:legacy.pdf', legacy)
  const older = randomBytes(30_000)
  await uploadBlob('older.bin', await encryptBlobV2(older, { vaultKey: key, vaultId, path: 'old/older.bin' }))
  contents.set('old/older.bin', older)
  const bundled = [
    { path: 'old/a.txt', content: Buffer.from('first') },
    { path: 'old/b.txt', content: randomBytes(9000) },
  ]
  await uploadBlob(
    'Bundle of 2 small files',
    await encryptBundleV1(bundled, { vaultKey: key, vaultId, createdAtMs: 1_600_000_000_000 }),
  )
  for (const f of bundled) contents.set(f.path, f.content)
  return contents
}

/** The number of blobs uploadFiles leaves: big.bin, a bundle of the small files, and the three old ones. */
const BLOBS = 5

async function uploadBlob(filename: string, blob: Uint8Array): Promise<void> {
  const body = buildMultipartBody([['filename', filename]], {
    fieldName: 'file',
    filename: `${filename}.c2sp`,
    contentType: 'application/octet-stream',
    length: blob.length,
    content: async function* () {
      yield blob
    },
  })
  await client.uploadAsset({
    vaultId,
    body: body.stream,
    contentType: body.contentType,
    contentLength: body.contentLength,
  })
}

/** What a blob is, as its authenticated plaintext says: kind, version, paths and dates. */
function shapeOf(opened: OpenedVaultBlob, filename: string): string {
  if (opened.kind === 'manifest')
    return `manifest #${opened.manifest.sequence} at ${opened.manifest.writtenAtMs}`
  if (opened.kind === 'bundle') {
    const files = opened.files.map((f) => `${f.path}@${f.writtenAtMs ?? '-'}`).join(',')
    const manifest = opened.manifest ? ` + manifest #${opened.manifest.sequence}` : ''
    return `bundle v${opened.version} at ${opened.createdAtMs}: ${files}${manifest}`
  }
  const identity = opened.identity
  return `file v${opened.version} ${identity ? `${identity.path}@${identity.writtenAtMs ?? '-'}` : filename}`
}

/** Every file the service holds, opened with `key` (FileCipherError when a blob does not open, unless `skipOtherKeys`); `shapes` gets each blob's. */
async function filesUnder(
  key: Uint8Array,
  shapes: string[] = [],
  { skipOtherKeys = false } = {},
): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>()
  for (const asset of await client.listAllAssets(vaultId)) {
    const opened = await openVaultBlob(await client.downloadAsset(vaultId, asset.id), {
      vaultKey: key,
      vaultId,
    }).catch((error: unknown) => {
      if (skipOtherKeys && error instanceof FileCipherError && error.reason === 'wrong-key') return undefined
      throw error
    })
    if (!opened) continue
    shapes.push(shapeOf(opened, asset.filename))
    if (opened.kind === 'manifest') continue
    if (opened.kind === 'bundle') {
      for await (const entry of opened.entries) {
        out.set(entry.identity.path, await bytesOf(entry.body))
      }
    } else {
      const name = opened.identity ? opened.identity.path : `v1:${asset.filename}`
      out.set(name, await bytesOf(opened.body))
    }
  }
  return out
}

async function bytesOf(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const piece of body) parts.push(Buffer.from(piece))
  return Buffer.concat(parts)
}

/** How many of the service's blobs open with `key`. */
async function blobsOpeningWith(key: Uint8Array): Promise<number> {
  let opening = 0
  for (const asset of await client.listAllAssets(vaultId)) {
    try {
      const opened = await openVaultBlob(await client.downloadAsset(vaultId, asset.id), {
        vaultKey: key,
        vaultId,
      })
      if (opened.kind === 'bundle') await opened.entries.return?.()
      else if (opened.kind === 'file') await opened.body.return?.()
      opening++
    } catch (error) {
      expect(error).toBeInstanceOf(FileCipherError)
      expect((error as FileCipherError).reason).toBe('wrong-key')
    }
  }
  return opening
}

async function balance(): Promise<number> {
  return (await client.getVault(vaultId)).creditsBalance
}

describe('rotating the vault key', () => {
  it('re-encrypts every blob under a new key; old kits open nothing the service holds; the cost shown is the cost charged', async () => {
    const contents = await uploadFiles()
    const oldKey = (await keys.get(vaultId))!
    const oldKits = (await splitVaultKey(oldKey, vaultId, SSS_PRESET_SHAPE.standard)).map(encodeShareWords)
    const before = await client.listAllAssets(vaultId)
    expect(before).toHaveLength(BLOBS)
    const shapesBefore: string[] = []
    await filesUnder((await keys.get(vaultId))!, shapesBefore)

    const rotation = await openRotation()
    const estimate = await rotation.estimate(vaultId)
    expect(estimate).toMatchObject({ files: BLOBS, shortBy: 0, canDelete: true, underWay: false })
    expect(estimate.storage).toEqual({ kind: 'folder', permanent: false })
    expect(estimate.credits).toBe(before.reduce((sum, a) => sum + uploadCostCredits(a.sizeBytes), 0))
    const balanceBefore = await balance()

    await rotation.start(vaultId, estimate.credits)
    await rotation.idle(vaultId)
    expect(rotation.status(vaultId).phase).toBe('awaiting-owner-kit')
    await confirmOwnerKit(rotation)
    const status = rotation.status(vaultId)
    expect(status).toMatchObject({
      phase: 'done',
      problem: null,
      files: { total: BLOBS, reencrypted: BLOBS, oldDeleted: BLOBS, unreadable: 0 },
      oldCopiesKept: 0,
      kitsMade: 3,
      estimatedCredits: estimate.credits,
      creditsConsumed: estimate.credits,
    })
    expect(balanceBefore - (await balance())).toBe(estimate.credits)

    // The key changed; the next and retired entries are gone.
    const newKey = (await keys.get(vaultId))!
    expect(Buffer.from(newKey).equals(Buffer.from(oldKey))).toBe(false)
    expect(await keys.nextKey(vaultId)).toBeNull()
    expect(await keys.retiredKey(vaultId)).toBeNull()

    // Every file comes back, byte for byte, under the new key; same number of blobs, all new.
    const after = await client.listAllAssets(vaultId)
    expect(after).toHaveLength(BLOBS)
    expect(after.map((a) => a.id).filter((id) => before.some((b) => b.id === id))).toEqual([])
    expect(after.map((a) => a.filename).sort()).toEqual(before.map((a) => a.filename).sort())
    const shapesAfter: string[] = []
    const recovered = await filesUnder(newKey, shapesAfter)
    expect([...recovered.keys()].sort()).toEqual([...contents.keys()].sort())
    // Each blob is what it was, format, version, authenticated dates and all: only the key changed.
    expect(shapesAfter.sort()).toEqual(shapesBefore.sort())
    expect(shapesAfter.some((shape) => shape.startsWith('file v3 '))).toBe(true)
    expect(shapesAfter).toContain('bundle v1 at 1600000000000: old/a.txt@-,old/b.txt@-')
    expect(shapesAfter).toContain('file v2 old/older.bin@-')
    expect(shapesAfter).toContain('file v1 legacy.pdf')
    for (const [path, bytes] of contents) expect(recovered.get(path)?.equals(bytes), path).toBe(true)

    // Two kits of the old split still rebuild the old key, and it opens nothing the service holds.
    const combined = await combineShareWords(oldKits.slice(0, 2))
    expect(Buffer.from(combined.vaultKey).equals(Buffer.from(oldKey))).toBe(true)
    expect(await blobsOpeningWith(combined.vaultKey)).toBe(0)
    // Two kits of the new split rebuild the new key, which opens all of them.
    const fromNewKits = await combineShareWords(newKits.slice(1, 3))
    expect(Buffer.from(fromNewKits.vaultKey).equals(Buffer.from(newKey))).toBe(true)
    expect(await blobsOpeningWith(fromNewKits.vaultKey)).toBe(BLOBS)

    // The local index follows the files to their new blobs (the unchanged-file check still works).
    const entry = queue.index.find(vaultId, join(work.path, 'files', 'big.bin'))
    expect(after.map((a) => a.id)).toContain(entry?.assetId)
  })

  it('stopped half-way (a copy stored whose answer was lost, then the app gone), it continues where it stopped and finishes', async () => {
    const contents = await uploadFiles()
    const oldKey = (await keys.get(vaultId))!
    // The second upload reaches the service, but the app "crashes" before it hears the answer.
    let uploads = 0
    const crashing = new Proxy(client, {
      get(target, property, receiver) {
        if (property === 'uploadAsset') {
          return async (request: Parameters<VaultApiClient['uploadAsset']>[0]) => {
            const asset = await target.uploadAsset(request)
            if (++uploads === 2) throw new Error('the app stopped')
            return asset
          }
        }
        const value = Reflect.get(target, property, receiver)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const first = await openRotation(crashing)
    const estimate = await first.estimate(vaultId)
    const balanceBefore = await balance()
    await first.start(vaultId, estimate.credits)
    await first.idle(vaultId)
    const stopped = first.status(vaultId)
    expect(stopped.phase).toBe('re-encrypting')
    expect(stopped.files.reencrypted).toBe(1)
    expect(stopped.problem).toMatch(/the app stopped/)
    // Half-way nothing changed for the heirs: the old key is still the vault's and opens every file.
    expect(Buffer.from((await keys.get(vaultId))!).equals(Buffer.from(oldKey))).toBe(true)
    await closeRotation(first)

    // A restart: the record on disk and the next key in the key store carry on.
    const second = await openRotation()
    expect(second.status(vaultId)).toMatchObject({ phase: 're-encrypting', running: false })
    second.resumeUnfinished()
    await second.idle(vaultId)
    await confirmOwnerKit(second)
    expect(second.status(vaultId)).toMatchObject({
      phase: 'done',
      problem: null,
      files: { total: BLOBS, reencrypted: BLOBS, oldDeleted: BLOBS },
    })
    const newKey = (await keys.get(vaultId))!
    // The copy whose answer was lost was found and deleted: as many blobs as before, all under the new key.
    expect(await client.listAllAssets(vaultId)).toHaveLength(BLOBS)
    expect(await blobsOpeningWith(oldKey)).toBe(0)
    const recovered = await filesUnder(newKey)
    for (const [path, bytes] of contents) expect(recovered.get(path)?.equals(bytes), path).toBe(true)
    // Nothing was paid twice but the one copy the service stored while the app was gone (the second blob).
    const charged = balanceBefore - (await balance())
    expect(charged).toBeGreaterThan(estimate.credits)
    expect(charged).toBeLessThan(2 * estimate.credits)
  })

  it('moves a file uploaded under the old key while it runs, before the switch', async () => {
    await uploadFiles()
    const oldKey = (await keys.get(vaultId))!
    // Right after the rotation's first copy, the owner backs up one more file: the queue still
    // encrypts under the old key, which is the vault's until the switch.
    const late = join(work.path, 'late.txt')
    await writeFile(late, 'written during the rotation')
    let lateUploaded = false
    const meanwhile = new Proxy(client, {
      get(target, property, receiver) {
        if (property === 'uploadAsset') {
          return async (request: Parameters<VaultApiClient['uploadAsset']>[0]) => {
            const asset = await target.uploadAsset(request)
            if (!lateUploaded) {
              lateUploaded = true
              await queue.enqueue({ vaultId, paths: [late] })
              await queue.idle()
            }
            return asset
          }
        }
        const value = Reflect.get(target, property, receiver)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const rotation = await openRotation(meanwhile)
    const estimate = await rotation.estimate(vaultId)
    await rotation.start(vaultId, estimate.credits)
    await rotation.idle(vaultId)
    expect(lateUploaded).toBe(true)
    await confirmOwnerKit(rotation)
    // The late file's blob (and the manifest the queue wrote with it) joined the rotation.
    const { phase, files: moved } = rotation.status(vaultId)
    expect(phase).toBe('done')
    expect(moved.total).toBeGreaterThan(BLOBS)
    expect(moved.reencrypted).toBe(moved.total)
    expect(await blobsOpeningWith(oldKey)).toBe(0)
    const recovered = await filesUnder((await keys.get(vaultId))!)
    expect(recovered.get('late.txt')?.toString()).toBe('written during the rotation')
  })

  it('refuses before anything is made when the balance is short, or when the cost changed since it was shown', async () => {
    const poor = await svc.service.admin.createAccount({ email: 'poor@example.com' })
    const poorClient = new VaultApiClient({ baseUrl: svc.url, apiKey: poor.apiKey })
    vaultId = (await poorClient.createVault()).id
    await keys.create(vaultId)
    await queue.close()
    queue = await UploadQueue.open({
      userDataDir: userData,
      clientFor: async () => poorClient,
      vaultKeys: keys,
    })
    const big = join(work.path, 'twelve.bin')
    await writeFile(big, randomBytes(12_000_000))
    await queue.enqueue({ vaultId, paths: [big] })
    await queue.idle()
    expect(queue.list()[0]?.state).toBe('done')

    const rotation = await openRotation(poorClient)
    const estimate = await rotation.estimate(vaultId)
    const listed = await poorClient.listAllAssets(vaultId)
    expect(estimate.credits).toBe(listed.reduce((sum, a) => sum + uploadCostCredits(a.sizeBytes), 0))
    expect(estimate.shortBy).toBe(estimate.credits - estimate.balance)
    expect(estimate.shortBy).toBeGreaterThan(0)
    const refusal = await rotation.start(vaultId, estimate.credits).catch((e: unknown) => e)
    expect(refusal).toBeInstanceOf(AppError)
    expect((refusal as AppError).code).toBe('INSUFFICIENT_CREDITS')
    expect((refusal as AppError).userMessage).toMatch(
      new RegExp(
        `costs ${estimate.credits} credits .* balance is ${estimate.balance}: ${estimate.shortBy} credits short`,
      ),
    )
    const changed = await rotation.start(vaultId, estimate.credits + 1).catch((e: unknown) => e)
    expect((changed as AppError).code).toBe('ROTATION_COST_CHANGED')
    // Nothing was made, sent or charged.
    expect(await keys.nextKey(vaultId)).toBeNull()
    expect(rotation.status(vaultId).phase).toBe('none')
    expect((await poorClient.getVault(vaultId)).creditsBalance).toBe(estimate.balance)
  })

  it('can be abandoned before the switch: the new copies go and the vault stays under its old key', async () => {
    await uploadFiles()
    const oldKey = (await keys.get(vaultId))!
    const rotation = await openRotation()
    const estimate = await rotation.estimate(vaultId)
    await rotation.start(vaultId, estimate.credits)
    await rotation.pause(vaultId)
    await rotation.abandon(vaultId)
    await rotation.idle(vaultId)
    expect(rotation.status(vaultId).phase).toBe('none')
    expect(await keys.nextKey(vaultId)).toBeNull()
    expect(Buffer.from((await keys.get(vaultId))!).equals(Buffer.from(oldKey))).toBe(true)
    expect(await client.listAllAssets(vaultId)).toHaveLength(BLOBS)
    expect(await blobsOpeningWith(oldKey)).toBe(BLOBS)
  })

  it('keeps the old blobs until the new owner kit is confirmed, also across a restart, then deletes them', async () => {
    const contents = await uploadFiles()
    const oldKey = (await keys.get(vaultId))!
    const first = await openRotation()
    await first.start(vaultId, (await first.estimate(vaultId)).credits)
    await first.idle(vaultId)
    const newKey = (await keys.get(vaultId))!
    expect(Buffer.from(newKey).equals(Buffer.from(oldKey))).toBe(false)
    // Every file is under the new key (and was read back), kits are made, but only this computer holds
    // the new key: the old copies stay, and the status says how many.
    expect(first.status(vaultId)).toMatchObject({
      phase: 'awaiting-owner-kit',
      running: false,
      problem: null,
      files: { total: BLOBS, reencrypted: BLOBS, oldDeleted: 0 },
      oldCopiesLeft: BLOBS,
      kitsMade: 3,
    })
    expect(await client.listAllAssets(vaultId)).toHaveLength(2 * BLOBS)
    expect(await blobsOpeningWith(oldKey)).toBe(BLOBS)
    expect(await blobsOpeningWith(newKey)).toBe(BLOBS)
    // Confirming a kit of another key (the old one) changes nothing.
    savedOwnerKits.add(vaultFingerprint(oldKey))
    first.ownerKitConfirmed(vaultId)
    await first.idle(vaultId)
    expect(first.status(vaultId).phase).toBe('awaiting-owner-kit')
    await closeRotation(first)

    // The computer restarts before the owner saved the kit: the rotation resumes at the wait and deletes nothing.
    const second = await openRotation()
    second.resumeUnfinished()
    await second.idle(vaultId)
    expect(second.status(vaultId)).toMatchObject({ phase: 'awaiting-owner-kit', oldCopiesLeft: BLOBS })
    expect(await blobsOpeningWith(oldKey)).toBe(BLOBS)
    // Had this computer died now, two old kits would still rebuild a key that opens every file.
    const oldKits = (await splitVaultKey(oldKey, vaultId, SSS_PRESET_SHAPE.standard)).map(encodeShareWords)
    const rebuilt = (await combineShareWords(oldKits.slice(0, 2))).vaultKey
    const fromOld = await filesUnder(rebuilt, [], { skipOtherKeys: true })
    for (const [path, bytes] of contents) expect(fromOld.get(path)?.equals(bytes), path).toBe(true)
    expect(await keys.retiredKey(vaultId)).not.toBeNull()

    // The owner confirms the new kit, and the app stops before the rotation hears of it: the next
    // start finds the confirmation and deletes the old copies.
    savedOwnerKits.add(vaultFingerprint(newKey))
    await closeRotation(second)
    const third = await openRotation()
    third.resumeUnfinished()
    await third.idle(vaultId)
    expect(third.status(vaultId)).toMatchObject({
      phase: 'done',
      problem: null,
      files: { total: BLOBS, reencrypted: BLOBS, oldDeleted: BLOBS },
      oldCopiesLeft: 0,
      oldCopiesKept: 0,
    })
    expect(await client.listAllAssets(vaultId)).toHaveLength(BLOBS)
    expect(await blobsOpeningWith(oldKey)).toBe(0)
    expect(await keys.retiredKey(vaultId)).toBeNull()
    const recovered = await filesUnder(newKey)
    for (const [path, bytes] of contents) expect(recovered.get(path)?.equals(bytes), path).toBe(true)
  })

  it('a new copy that does not read back whole is made again before the old one may go', async () => {
    await uploadFiles()
    const oldKey = (await keys.get(vaultId))!
    // The service answers the first read-back of a new copy with its last 100 bytes missing.
    const newCopies = new Set<string>()
    const cut: string[] = []
    const lossy = new Proxy(client, {
      get(target, property, receiver) {
        if (property === 'uploadAsset') {
          return async (request: Parameters<VaultApiClient['uploadAsset']>[0]) => {
            const asset = await target.uploadAsset(request)
            newCopies.add(asset.id)
            return asset
          }
        }
        if (property === 'downloadAsset') {
          return async (id: string, assetId: string, signal?: AbortSignal) => {
            const stream = await target.downloadAsset(id, assetId, signal)
            if (!newCopies.has(assetId) || cut.length > 0) return stream
            cut.push(assetId)
            const whole = await bytesOf(stream)
            return Readable.from([whole.subarray(0, whole.length - 100)])
          }
        }
        const value = Reflect.get(target, property, receiver)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const rotation = await openRotation(lossy)
    const estimate = await rotation.estimate(vaultId)
    await rotation.start(vaultId, estimate.credits)
    await rotation.idle(vaultId)
    expect(cut).toHaveLength(1)
    const status = rotation.status(vaultId)
    expect(status).toMatchObject({ phase: 'awaiting-owner-kit', problem: null, oldCopiesLeft: BLOBS })
    // The cut copy was deleted and made again: one copy per blob under each key, and the one moved
    // twice was paid twice.
    const newKey = (await keys.get(vaultId))!
    expect(await client.listAllAssets(vaultId)).toHaveLength(2 * BLOBS)
    expect(await blobsOpeningWith(newKey)).toBe(BLOBS)
    expect(await blobsOpeningWith(oldKey)).toBe(BLOBS)
    expect(status.creditsConsumed).toBeGreaterThan(estimate.credits)
    await confirmOwnerKit(rotation)
    expect(rotation.status(vaultId).phase).toBe('done')
    expect(await blobsOpeningWith(oldKey)).toBe(0)
  })
})
