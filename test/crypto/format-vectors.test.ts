// docs/vectors/vault-desktop-v2.json against the code, both ways: the code makes every blob, envelope
// and word list in the file from its inputs, and reads every one back to the recorded values. Its
// blobs are of formats 1 and 2 and its bundles of version 1, which Vault Desktop only reads now: they
// are written here by test/crypto/support (format 3, bundle 2, manifests: format-vectors-v3.test.ts).
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { describe, expect, it } from 'vitest'
import { cipherByName } from '../../src/node-cipher'
import { fromHex, toHex, utf8 } from '../../src/vault-format/bytes'
import { deriveMessageKeys } from '../../src/vault-format/chunked-format'
import { bundleContext } from '../../src/vault-format/file-bundle'
import { fileSalt } from '../../src/vault-format/file-cipher'
import {
  collectBytes,
  combineShares,
  decodeOwnerKitWords,
  decodeShareWords,
  decryptChunked,
  deriveFilesKey,
  encodeOwnerKitWords,
  encodeShareWords,
  encryptedLength,
  fileContext,
  keyCheckValue,
  openEncryptedFile,
  ShareInputError,
  vaultFingerprint,
} from '../../src/vault-format/index'
import { encodeEnvelope } from '../../src/vault-format/share-envelope'
import { combineShareWords } from '../../src/vault-format/vault-shares'
import { encryptStreamV1 } from './support/legacy-v1'
import { bundleHeaderV1, encryptBlobV2, encryptBundleV1, identityRecordV2 } from './support/legacy-writers'
import { openFileBlob } from './support/open-file'

interface BlobVector {
  name: string
  formatVersion: 1 | 2
  vaultKey: string
  vaultId: string
  filesKey: string
  saltRandomPart: string
  salt: string
  context: string
  aeadKey: string
  baseNonce: string
  commitment: string
  path?: string
  pathUtf8?: string
  identityRecord?: string
  size: number
  content?: string
  contentRule?: string
  contentSha256: string
  plaintextLength: number
  chunks: number
  finalChunkPlaintextLength: number
  blobLength: number
  blobSha256: string
  blob: string
}
interface BundleVector {
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
  createdAtMs: number
  count: number
  files: {
    path: string
    pathUtf8: string
    size: number
    identityRecord: string
    content?: string
    contentRule?: string
    contentSha256: string
  }[]
  header: string
  plaintextLength: number
  chunks: number
  finalChunkPlaintextLength: number
  blobLength: number
  blobSha256: string
  blob: string
}
interface InvalidBundle {
  name: string
  vaultKey: string
  vaultId: string
  plaintext: string
  blob: string
}
interface SplitVector {
  name: string
  vaultKey: string
  vaultId: string
  fingerprint: string
  keyCheck: string
  splitId: string
  threshold: number
  shareCount: number
  coefficients: string[]
  ownerEnvelope: string
  ownerWords: string
  shares: { shareNumber: number; x: number; shamirShare: string; envelope: string; words: string }[]
}
interface Combination {
  name: string
  kits: string[]
  vaultKey: string
  vaultId: string
  used: number[]
  ignored: number[]
}

const vectors = JSON.parse(
  readFileSync(new URL('../../docs/vectors/vault-desktop-v2.json', import.meta.url), 'utf8'),
) as {
  wordList: { sha256: string }
  blobs: BlobVector[]
  bundles: BundleVector[]
  invalidBundles: InvalidBundle[]
  splits: SplitVector[]
  combinations: Combination[]
}

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex')

function content(v: { content?: string; contentRule?: string; size: number }): Uint8Array {
  if (v.content !== undefined) return fromHex(v.content)
  expect(v.contentRule).toBe('byte i = i mod 251')
  return Uint8Array.from({ length: v.size }, (_, i) => i % 251)
}

function gfMul(a: number, b: number): number {
  let r = 0
  for (; b > 0; b >>= 1) {
    if (b & 1) r ^= a
    a <<= 1
    if (a & 0x100) a ^= 0x11b
  }
  return r
}

function* subsets<T>(items: T[], size: number, start = 0, picked: T[] = []): Generator<T[]> {
  if (picked.length === size) yield picked
  else for (let i = start; i < items.length; i++) yield* subsets(items, size, i + 1, [...picked, items[i]!])
}

it('the word list hash is the one of the list the code uses', () => {
  expect(sha256(`${wordlist.join('\n')}\n`)).toBe(vectors.wordList.sha256)
})

it('covers what the format needs', () => {
  const v2 = vectors.blobs.filter((b) => b.formatVersion === 2)
  expect(v2.some((b) => b.chunks > 4)).toBe(true)
  expect(v2.some((b) => b.finalChunkPlaintextLength === 0 && b.chunks > 1)).toBe(true)
  expect(v2.some((b) => /^[0-9a-f-]{36}$/.test(b.vaultId))).toBe(true)
  expect(v2.some((b) => !/^[0-9a-f-]{36}$/.test(b.vaultId))).toBe(true)
  expect(vectors.blobs.some((b) => b.formatVersion === 1)).toBe(true)
  expect(vectors.splits.map((s) => `${s.threshold}/${s.shareCount}`).sort()).toEqual(['2/3', '3/5'])
  expect(vectors.bundles.some((b) => b.chunks > 3 && b.files.some((f) => f.size === 0))).toBe(true)
  expect(vectors.bundles.some((b) => b.finalChunkPlaintextLength === 0 && b.chunks > 1)).toBe(true)
  expect(vectors.bundles.some((b) => /^[0-9a-f-]{36}$/.test(b.vaultId))).toBe(true)
  expect(vectors.invalidBundles.length).toBeGreaterThanOrEqual(5)
})

describe.each(vectors.bundles.map((v) => [v.name, v] as const))('bundle %s', (_name, v) => {
  const vaultKey = fromHex(v.vaultKey)
  const saltPrefix = fromHex(v.saltRandomPart)
  const identities = v.files.map((f) => ({ path: f.path, size: f.size }))
  const contents = v.files.map(content)

  it('derived values', () => {
    const filesKey = deriveFilesKey(vaultKey)
    expect(toHex(filesKey)).toBe(v.filesKey)
    expect(toHex(fileSalt(filesKey, saltPrefix))).toBe(v.salt)
    expect(toHex(bundleContext(v.vaultId, 1))).toBe(v.context)
    const keys = deriveMessageKeys(filesKey, fromHex(v.salt), fromHex(v.context))
    expect([toHex(keys.key), toHex(keys.baseNonce), toHex(keys.commitment)]).toEqual([
      v.aeadKey,
      v.baseNonce,
      v.commitment,
    ])
    expect(v.count).toBe(v.files.length)
    v.files.forEach((f, i) => {
      expect(toHex(utf8(f.path))).toBe(f.pathUtf8)
      expect(toHex(identityRecordV2(identities[i]!))).toBe(f.identityRecord)
      expect(sha256(contents[i]!)).toBe(f.contentSha256)
    })
    expect(toHex(bundleHeaderV1(v.createdAtMs, identities))).toBe(v.header)
    expect(v.header).toBe(
      v.createdAtMs.toString(16).padStart(16, '0') +
        v.count.toString(16).padStart(8, '0') +
        v.files.map((f) => f.identityRecord).join(''),
    )
    expect(v.plaintextLength).toBe(v.header.length / 2 + identities.reduce((n, f) => n + f.size, 0))
    expect(encryptedLength(v.plaintextLength)).toBe(v.blobLength)
    expect(v.chunks).toBe(Math.floor(v.plaintextLength / 16384) + 1)
  })

  it.each(['node', 'noble'] as const)('encrypts to the blob (%s)', async (backend) => {
    const files = identities.map((identity, i) => ({ path: identity.path, content: contents[i]! }))
    const blob = await encryptBundleV1(files, {
      vaultKey,
      vaultId: v.vaultId,
      saltPrefix,
      createdAtMs: v.createdAtMs,
      ...cipherByName(backend),
    })
    expect(blob.length).toBe(v.blobLength)
    expect(sha256(blob)).toBe(v.blobSha256)
    expect(toHex(blob)).toBe(v.blob)
  })

  it.each(['node', 'noble'] as const)('decrypts the blob (%s)', async (backend) => {
    const opened = await openEncryptedFile([fromHex(v.blob)], {
      vaultKey,
      vaultId: v.vaultId,
      ...cipherByName(backend),
    })
    if (opened.kind !== 'bundle') throw new Error('not read as a bundle')
    expect(opened.createdAtMs).toBe(v.createdAtMs)
    expect(opened.files).toEqual(identities)
    for await (const entry of opened.entries) {
      expect(sha256(await collectBytes(entry.body))).toBe(v.files[entry.index]!.contentSha256)
    }
  })
})

describe.each(vectors.invalidBundles.map((v) => [v.name, v] as const))('invalid bundle %s', (_name, v) => {
  it('authenticates, but is refused as damaged', async () => {
    const vaultKey = fromHex(v.vaultKey)
    const plain = await collectBytes(
      decryptChunked([fromHex(v.blob)], {
        inputKey: deriveFilesKey(vaultKey),
        context: bundleContext(v.vaultId, 1),
      }),
    )
    expect(toHex(plain)).toBe(v.plaintext)
    const failure = await (async () => {
      const opened = await openEncryptedFile([fromHex(v.blob)], { vaultKey, vaultId: v.vaultId })
      if (opened.kind !== 'bundle') throw new Error('not read as a bundle')
      for await (const entry of opened.entries) await collectBytes(entry.body)
    })().then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toMatchObject({ name: 'FileCipherError', reason: 'damaged' })
  })
})

describe.each(vectors.blobs.map((v) => [v.name, v] as const))('blob %s', (_name, v) => {
  const vaultKey = fromHex(v.vaultKey)
  const saltPrefix = fromHex(v.saltRandomPart)
  const plain = content(v)
  const identity = v.path === undefined ? null : { path: v.path, size: v.size }

  it('derived values', () => {
    const filesKey = deriveFilesKey(vaultKey)
    expect(toHex(filesKey)).toBe(v.filesKey)
    expect(toHex(fileSalt(filesKey, saltPrefix))).toBe(v.salt)
    expect(toHex(fileContext(v.vaultId, v.formatVersion))).toBe(v.context)
    const keys = deriveMessageKeys(filesKey, fromHex(v.salt), fromHex(v.context))
    expect([toHex(keys.key), toHex(keys.baseNonce), toHex(keys.commitment)]).toEqual([
      v.aeadKey,
      v.baseNonce,
      v.commitment,
    ])
    expect(sha256(plain)).toBe(v.contentSha256)
    if (identity) {
      expect(toHex(utf8(identity.path))).toBe(v.pathUtf8)
      expect(toHex(identityRecordV2(identity))).toBe(v.identityRecord)
    } else {
      expect(encryptedLength(v.size)).toBe(v.blobLength)
    }
    expect(encryptedLength(v.plaintextLength)).toBe(v.blobLength)
    expect(v.chunks).toBe(Math.floor(v.plaintextLength / 16384) + 1)
  })

  it.each(['node', 'noble'] as const)('encrypts to the blob (%s)', async (backend) => {
    const opts = { vaultKey, vaultId: v.vaultId, saltPrefix, ...cipherByName(backend) }
    const blob = identity
      ? await encryptBlobV2(plain, { ...opts, path: identity.path })
      : await collectBytes(encryptStreamV1([plain], opts))
    expect(blob.length).toBe(v.blobLength)
    expect(sha256(blob)).toBe(v.blobSha256)
    expect(toHex(blob)).toBe(v.blob)
  })

  it.each(['node', 'noble'] as const)('decrypts the blob (%s)', async (backend) => {
    const blob = fromHex(v.blob)
    expect(sha256(blob)).toBe(v.blobSha256)
    const opened = await openFileBlob([blob], { vaultKey, vaultId: v.vaultId, ...cipherByName(backend) })
    expect(opened.version).toBe(v.formatVersion)
    expect(opened.identity).toEqual(identity)
    const out = await collectBytes(opened.body)
    expect(out.length).toBe(v.size)
    expect(sha256(out)).toBe(v.contentSha256)
  })
})

describe.each(vectors.splits.map((s) => [s.name, s] as const))('split %s', (_name, s) => {
  const vaultKey = fromHex(s.vaultKey)

  it('key values and the owner kit', () => {
    expect(vaultFingerprint(vaultKey)).toBe(s.fingerprint)
    expect(toHex(keyCheckValue(vaultKey))).toBe(s.keyCheck)
    expect(toHex(encodeEnvelope({ kind: 'owner-key', version: 1, vaultKey, vaultId: s.vaultId }))).toBe(
      s.ownerEnvelope,
    )
    expect(encodeOwnerKitWords({ vaultKey, vaultId: s.vaultId })).toBe(s.ownerWords)
    const owner = decodeOwnerKitWords(s.ownerWords)
    expect([toHex(owner.vaultKey), owner.vaultId]).toEqual([s.vaultKey, s.vaultId])
  })

  it('every share lies on the recorded polynomial, and reads and writes as recorded', () => {
    expect(s.coefficients).toHaveLength(s.threshold - 1)
    expect(s.shares).toHaveLength(s.shareCount)
    const coefficients = [vaultKey, ...s.coefficients.map(fromHex)]
    for (const record of s.shares) {
      const expected = Array.from({ length: 32 }, (_, pos) => {
        let [y, power] = [0, 1]
        for (const c of coefficients) {
          y ^= gfMul(c[pos]!, power)
          power = gfMul(power, record.x)
        }
        return y
      })
      expect(toHex(Uint8Array.from([...expected, record.x]))).toBe(record.shamirShare)
      const share = decodeShareWords(record.words)
      expect(toHex(share.share)).toBe(record.shamirShare)
      expect(toHex(encodeEnvelope(share))).toBe(record.envelope)
      expect(encodeShareWords(share)).toBe(record.words)
      expect([share.splitId, share.threshold, share.shareCount, share.shareIndex]).toEqual([
        s.splitId,
        s.threshold,
        s.shareCount,
        record.shareNumber,
      ])
      expect([share.fingerprint, toHex(share.keyCheck), share.vaultId]).toEqual([
        s.fingerprint,
        s.keyCheck,
        s.vaultId,
      ])
    }
  })

  it('any threshold of the shares gives the key; one fewer does not', async () => {
    const shares = s.shares.map((r) => decodeShareWords(r.words))
    for (const subset of subsets(shares, s.threshold)) {
      const result = await combineShares(subset)
      expect([toHex(result.vaultKey), result.vaultId]).toEqual([s.vaultKey, s.vaultId])
    }
    for (const subset of subsets(shares, s.threshold - 1)) {
      await expect(combineShares(subset)).rejects.toBeInstanceOf(ShareInputError)
    }
  })
})

describe.each(vectors.combinations.map((c) => [c.name, c] as const))('combination %s', (_name, c) => {
  it('gives the key from the kits used, leaving out the others', async () => {
    const result = await combineShareWords(c.kits)
    expect([toHex(result.vaultKey), result.vaultId]).toEqual([c.vaultKey, c.vaultId])
    expect(result.used).toEqual(c.used)
    expect(result.ignored.map((i) => i.index)).toEqual(c.ignored)
    for (const i of result.ignored) expect(i.reason).toMatch(new RegExp(`^Kit ${i.index + 1}\\b`))
  })
})
