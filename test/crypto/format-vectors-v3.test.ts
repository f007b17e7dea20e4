// docs/vectors/vault-desktop-v3.json against the code, both ways: format-3 blobs, bundles of version 2
// (one embedding the manifest) and vault manifests are made from their inputs byte for byte and read
// back to the recorded values; the invalid ones authenticate and are rejected whole.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { cipherByName } from '../../src/node-cipher'
import { fromHex, toHex, utf8 } from '../../src/vault-format/bytes'
import { deriveMessageKeys } from '../../src/vault-format/chunked-format'
import { encodeBundleHeader } from '../../src/vault-format/file-bundle'
import { bundleContext, fileContext, fileSalt, manifestContext } from '../../src/vault-format/file-context'
import { encodeIdentity } from '../../src/vault-format/file-identity'
import {
  collectBytes,
  decodeManifest,
  decryptChunked,
  decryptManifest,
  deriveFilesKey,
  encodeManifest,
  encryptBundleStream,
  encryptedBundleLength,
  encryptedFileLength,
  encryptedLength,
  encryptedManifestLength,
  encryptManifest,
  encryptStream,
  newestManifest,
  openEncryptedFile,
  openVaultBlob,
} from '../../src/vault-format/index'

interface Derived {
  name: string
  vaultKey: string
  vaultId: string
  filesKey: string
  saltRandomPart: string
  salt: string
  context: string
  aeadKey: string
  baseNonce: string
  commitment: string
  plaintextLength: number
  chunks: number
  finalChunkPlaintextLength: number
  blobLength: number
  blobSha256: string
  blob: string
}
interface Content {
  size: number
  content?: string
  contentRule?: string
  contentSha256: string
}
interface BlobVector extends Derived, Content {
  formatVersion: 3
  path: string
  pathUtf8: string
  writtenAtMs: number
  identityRecord: string
}
interface BundleVector extends Derived {
  bundleVersion: 2
  writtenAtMs: number
  count: number
  manifestLength: number
  manifestSequence?: number
  manifestBlob?: string
  files: (Content & { path: string; pathUtf8: string; writtenAtMs: number; identityRecord: string })[]
  header: string
}
interface ManifestVector extends Derived {
  sequence: number
  writtenAtMs: number
  count: number
  entries: {
    path: string
    size: number
    sha256: string
    writtenAtMs: number
    shared: number
    suffixUtf8: string
  }[]
  plaintext: string
}
interface InvalidVector {
  name: string
  vaultKey: string
  vaultId: string
  reject: 'before-release'
  plaintext: string
  blob: string
}

const vectors = JSON.parse(
  readFileSync(new URL('../../docs/vectors/vault-desktop-v3.json', import.meta.url), 'utf8'),
) as {
  blobs: BlobVector[]
  bundles: BundleVector[]
  manifests: ManifestVector[]
  invalidBundles: InvalidVector[]
  invalidManifests: InvalidVector[]
  manifestChoices: { found: string[]; chosen: string }[]
}

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex')
const backends = ['node', 'noble'] as const

function content(v: Content): Uint8Array {
  if (v.content !== undefined) return fromHex(v.content)
  expect(v.contentRule).toBe('byte i = i mod 251')
  return Uint8Array.from({ length: v.size }, (_, i) => i % 251)
}

function checkDerived(v: Derived, context: Uint8Array) {
  const filesKey = deriveFilesKey(fromHex(v.vaultKey))
  expect(toHex(filesKey)).toBe(v.filesKey)
  expect(toHex(fileSalt(filesKey, fromHex(v.saltRandomPart)))).toBe(v.salt)
  expect(toHex(context)).toBe(v.context)
  const keys = deriveMessageKeys(filesKey, fromHex(v.salt), fromHex(v.context))
  expect([toHex(keys.key), toHex(keys.baseNonce), toHex(keys.commitment)]).toEqual([
    v.aeadKey,
    v.baseNonce,
    v.commitment,
  ])
  expect(encryptedLength(v.plaintextLength)).toBe(v.blobLength)
  expect(v.chunks).toBe(Math.floor(v.plaintextLength / 16384) + 1)
  expect(v.finalChunkPlaintextLength).toBe(v.plaintextLength % 16384)
  expect(sha256(fromHex(v.blob))).toBe(v.blobSha256)
}

const uuid = /^[0-9a-f-]{36}$/

it('covers what the format needs', () => {
  expect(vectors.blobs.some((b) => b.chunks > 4 && uuid.test(b.vaultId))).toBe(true)
  expect(vectors.blobs.some((b) => b.finalChunkPlaintextLength === 0 && b.chunks > 1)).toBe(true)
  expect(vectors.blobs.some((b) => b.writtenAtMs === 2 ** 53 - 1)).toBe(true)
  expect(vectors.bundles.some((b) => b.manifestLength > 0)).toBe(true)
  expect(vectors.bundles.some((b) => b.finalChunkPlaintextLength === 0 && b.chunks > 1)).toBe(true)
  expect(vectors.bundles.some((b) => new Set(b.files.map((f) => f.writtenAtMs)).size > 1)).toBe(true)
  expect(vectors.manifests.some((m) => m.count === 0)).toBe(true)
  expect(vectors.manifests.some((m) => m.entries.some((e) => e.shared > 0))).toBe(true)
  expect(vectors.invalidBundles.length).toBeGreaterThanOrEqual(3)
  expect(vectors.invalidManifests.length).toBeGreaterThanOrEqual(7)
})

describe.each(vectors.blobs.map((v) => [v.name, v] as const))('format-3 blob %s', (_name, v) => {
  const vaultKey = fromHex(v.vaultKey)
  const plain = content(v)
  const identity = { path: v.path, size: v.size, writtenAtMs: v.writtenAtMs }

  it('derived values and the record: size, write time, path length, path', () => {
    checkDerived(v, fileContext(v.vaultId, 3))
    expect(sha256(plain)).toBe(v.contentSha256)
    expect(toHex(utf8(v.path))).toBe(v.pathUtf8)
    expect(toHex(encodeIdentity(identity))).toBe(v.identityRecord)
    expect(v.identityRecord).toBe(
      v.size.toString(16).padStart(16, '0') +
        v.writtenAtMs.toString(16).padStart(16, '0') +
        (v.pathUtf8.length / 2).toString(16).padStart(4, '0') +
        v.pathUtf8,
    )
    expect(v.plaintextLength).toBe(v.identityRecord.length / 2 + v.size)
    expect(encryptedFileLength(identity)).toBe(v.blobLength)
  })

  it.each(backends)('encrypts to the blob and decrypts it (%s)', async (backend) => {
    const opts = { vaultKey, vaultId: v.vaultId, ...cipherByName(backend) }
    const saltPrefix = fromHex(v.saltRandomPart)
    expect(toHex(await collectBytes(encryptStream([plain], { ...opts, saltPrefix, identity })))).toBe(v.blob)
    const opened = await openEncryptedFile([fromHex(v.blob)], opts)
    if (opened.kind !== 'file') throw new Error('not read as a file')
    expect([opened.version, opened.identity]).toEqual([3, identity])
    expect(sha256(await collectBytes(opened.body))).toBe(v.contentSha256)
  })
})

describe.each(vectors.manifests.map((v) => [v.name, v] as const))('manifest %s', (_name, v) => {
  const vaultKey = fromHex(v.vaultKey)
  const manifest = {
    sequence: v.sequence,
    writtenAtMs: v.writtenAtMs,
    entries: v.entries.map(({ path, size, sha256, writtenAtMs }) => ({ path, size, sha256, writtenAtMs })),
  }

  it('derived values, the front-coded entries and the plaintext', () => {
    checkDerived(v, manifestContext(v.vaultId))
    expect(toHex(encodeManifest(manifest))).toBe(v.plaintext)
    expect(decodeManifest(fromHex(v.plaintext))).toEqual(manifest)
    let previous: Uint8Array = new Uint8Array(0)
    let plaintext =
      v.sequence.toString(16).padStart(16, '0') +
      v.writtenAtMs.toString(16).padStart(16, '0') +
      v.count.toString(16).padStart(8, '0')
    for (const e of v.entries) {
      const bytes = utf8(e.path)
      expect(toHex(previous.subarray(0, e.shared)) + e.suffixUtf8).toBe(toHex(bytes))
      plaintext +=
        e.size.toString(16).padStart(16, '0') +
        e.writtenAtMs.toString(16).padStart(16, '0') +
        e.sha256 +
        e.shared.toString(16).padStart(4, '0') +
        (e.suffixUtf8.length / 2).toString(16).padStart(4, '0') +
        e.suffixUtf8
      previous = bytes
    }
    expect(plaintext).toBe(v.plaintext)
    expect(encryptedManifestLength(manifest.entries.map((e) => e.path))).toBe(v.blobLength)
  })

  it('encrypts to the blob, which opens as this manifest', async () => {
    const opts = { vaultKey, vaultId: v.vaultId }
    const blob = await encryptManifest(manifest, { ...opts, saltPrefix: fromHex(v.saltRandomPart) })
    expect(toHex(blob)).toBe(v.blob)
    expect(await decryptManifest([fromHex(v.blob)], opts)).toEqual(manifest)
    expect(await openVaultBlob([fromHex(v.blob)], opts)).toEqual({ kind: 'manifest', manifest })
  })
})

describe.each(vectors.bundles.map((v) => [v.name, v] as const))('bundle %s (version 2)', (_name, v) => {
  const vaultKey = fromHex(v.vaultKey)
  const identities = v.files.map((f) => ({ path: f.path, size: f.size, writtenAtMs: f.writtenAtMs }))
  const contents = v.files.map(content)
  const manifestBlob = v.manifestBlob === undefined ? undefined : fromHex(v.manifestBlob)

  it('derived values, the header and the records', () => {
    checkDerived(v, bundleContext(v.vaultId, 2))
    expect(v.count).toBe(v.files.length)
    v.files.forEach((f, i) => {
      expect(toHex(utf8(f.path))).toBe(f.pathUtf8)
      expect(toHex(encodeIdentity(identities[i]!))).toBe(f.identityRecord)
      expect(sha256(contents[i]!)).toBe(f.contentSha256)
    })
    expect(toHex(encodeBundleHeader(v.writtenAtMs, identities, v.manifestLength))).toBe(v.header)
    expect(v.header).toBe(
      v.writtenAtMs.toString(16).padStart(16, '0') +
        v.count.toString(16).padStart(8, '0') +
        v.manifestLength.toString(16).padStart(8, '0') +
        v.files.map((f) => f.identityRecord).join(''),
    )
    expect(manifestBlob?.length ?? 0).toBe(v.manifestLength)
    expect(v.plaintextLength).toBe(
      v.header.length / 2 + v.manifestLength + identities.reduce((n, f) => n + f.size, 0),
    )
    expect(encryptedBundleLength(identities, v.manifestLength)).toBe(v.blobLength)
  })

  it.each(backends)('encrypts to the blob and decrypts it (%s)', async (backend) => {
    const opts = { vaultKey, vaultId: v.vaultId, ...cipherByName(backend) }
    const entries = identities.map((identity, i) => ({ identity, content: () => [contents[i]!] }))
    const blob = await collectBytes(
      encryptBundleStream(entries, {
        ...opts,
        saltPrefix: fromHex(v.saltRandomPart),
        createdAtMs: v.writtenAtMs,
        ...(manifestBlob ? { manifest: manifestBlob } : {}),
      }),
    )
    expect(toHex(blob)).toBe(v.blob)
    const opened = await openEncryptedFile([fromHex(v.blob)], opts)
    if (opened.kind !== 'bundle') throw new Error('not read as a bundle')
    expect([opened.version, opened.createdAtMs, opened.files]).toEqual([2, v.writtenAtMs, identities])
    if (manifestBlob) {
      expect(opened.manifest).toEqual(await decryptManifest([manifestBlob], opts))
      expect(opened.manifest?.sequence).toBe(v.manifestSequence)
    } else expect(opened.manifest).toBeNull()
    for await (const entry of opened.entries) {
      expect(sha256(await collectBytes(entry.body))).toBe(v.files[entry.index]!.contentSha256)
    }
  })
})

describe.each([
  ...vectors.invalidBundles.map((v) => ['bundle', v.name, v] as const),
  ...vectors.invalidManifests.map((v) => ['manifest', v.name, v] as const),
])('invalid %s %s', (kind, _name, v) => {
  it('authenticates, but is rejected whole before anything is released', async () => {
    const vaultKey = fromHex(v.vaultKey)
    const context = kind === 'bundle' ? bundleContext(v.vaultId, 2) : manifestContext(v.vaultId)
    const plain = await collectBytes(
      decryptChunked([fromHex(v.blob)], { inputKey: deriveFilesKey(vaultKey), context }),
    )
    expect(toHex(plain)).toBe(v.plaintext)
    expect(v.reject).toBe('before-release')
    await expect(openVaultBlob([fromHex(v.blob)], { vaultKey, vaultId: v.vaultId })).rejects.toMatchObject({
      name: 'FileCipherError',
      reason: 'damaged',
    })
  })
})

it('manifest choices: the highest sequence number, whatever the order', () => {
  const byName = new Map(vectors.manifests.map((m) => [m.name, m]))
  for (const choice of vectors.manifestChoices) {
    const found = choice.found.map((name) => ({
      name,
      manifest: decodeManifest(fromHex(byName.get(name)!.plaintext)),
    }))
    expect(newestManifest(found).chosen?.name).toBe(choice.chosen)
  }
})
