// Writes docs/vectors/vault-desktop-v2.json, the test vectors of docs/FORMAT.md (version 2), from
// fixed keys, salts and Shamir polynomials, using the reference code in src/vault-format.
//   npx tsx scripts/format-vectors.ts          write the file
//   npx tsx scripts/format-vectors.ts --check  exit 1 if the committed file differs from a fresh run
// test/crypto/format-vectors.test.ts checks the committed file against the code in both directions,
// and test/crypto/independent_decryptor.py checks it with a decryptor written from FORMAT.md alone.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { fromHex, toHex, utf8 } from '../src/vault-format/bytes'
import { deriveMessageKeys } from '../src/vault-format/chunked-format'
import { collectBytes, encryptChunked } from '../src/vault-format/chunked-stream'
import { bundleContext } from '../src/vault-format/file-bundle'
import { fileContext, fileSalt } from '../src/vault-format/file-cipher'
import { encodeEnvelope, type GuardianShare } from '../src/vault-format/share-envelope'
import {
  bytesToWordIndices,
  encodeOwnerKitWords,
  encodePracticeShareWords,
  encodeShareWords,
} from '../src/vault-format/share-words'
import { deriveFilesKey, keyCheckValue, vaultFingerprint } from '../src/vault-format/vault-key'
import { encryptStreamV1 } from '../test/crypto/support/legacy-v1'
// Format 2 and bundles of version 1, as this file's vectors hold them (format 3, bundle version 2 and the
// manifest: scripts/format-vectors-v3.ts).
import {
  bundleHeaderV1 as encodeBundleHeader,
  identityRecordV2 as encodeIdentity,
  encryptBlobV2,
  encryptBundleV1,
} from '../test/crypto/support/legacy-writers'

const OUT = new URL('../docs/vectors/vault-desktop-v2.json', import.meta.url)
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex')

/** A fixed, reproducible stand-in for randomness: SHA-256(label || counter) blocks. */
function seeded(label: string, length: number): Uint8Array {
  const out = new Uint8Array(length)
  for (let i = 0; i * 32 < length; i++) {
    const block = createHash('sha256').update(`${label}/${i}`).digest()
    out.set(block.subarray(0, Math.min(32, length - i * 32)), i * 32)
  }
  return out
}

/** byte i = i mod 251 (251 is prime, so the pattern never lines up with chunk boundaries). */
function patternContent(size: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => i % 251)
}

// --- GF(2^8) with x^8 + x^4 + x^3 + x + 1, as FORMAT.md section 4 -------------------------------
function gfMul(a: number, b: number): number {
  let r = 0
  for (; b > 0; b >>= 1) {
    if (b & 1) r ^= a
    a <<= 1
    if (a & 0x100) a ^= 0x11b
  }
  return r
}

/** Shares of `key` on fixed polynomials: f(x) = key byte + c1 x + ... for each byte position. */
function shamirShares(key: Uint8Array, threshold: number, xs: number[], label: string) {
  const coefficients = Array.from({ length: threshold - 1 }, (_, k) => seeded(`${label}/c${k + 1}`, 32))
  const shares = xs.map((x) => {
    const share = new Uint8Array(33)
    for (let pos = 0; pos < 32; pos++) {
      let y = 0
      let power = 1
      for (const c of [key, ...coefficients]) {
        y ^= gfMul(c[pos]!, power)
        power = gfMul(power, x)
      }
      share[pos] = y
    }
    share[32] = x
    return share
  })
  return { coefficients, shares }
}

/** Distinct non-zero x-coordinates from a seed, like the random ones real splits use. */
function xCoordinates(count: number, label: string): number[] {
  const xs: number[] = []
  for (const b of seeded(label, 64)) if (b !== 0 && !xs.includes(b) && xs.length < count) xs.push(b)
  return xs
}

const INLINE_CONTENT = 1024

async function blobVector(v: {
  name: string
  description: string
  formatVersion: 1 | 2
  vaultKey: Uint8Array
  vaultId: string
  /** The salt's random part: 16 fixed bytes, or a label to derive them from. */
  salt: Uint8Array | string
  path?: string
  content: Uint8Array
  contentRule?: string
}) {
  const saltPrefix = typeof v.salt === 'string' ? seeded(v.salt, 16) : v.salt
  const filesKey = deriveFilesKey(v.vaultKey)
  const salt = fileSalt(filesKey, saltPrefix)
  const context = fileContext(v.vaultId, v.formatVersion)
  const keys = deriveMessageKeys(filesKey, salt, context)
  const identity = v.path === undefined ? null : { path: v.path, size: v.content.length }
  const record = identity ? encodeIdentity(identity) : new Uint8Array(0)
  const blob =
    v.formatVersion === 2
      ? await encryptBlobV2(v.content, {
          vaultKey: v.vaultKey,
          vaultId: v.vaultId,
          saltPrefix,
          path: identity!.path,
        })
      : await collectBytes(
          encryptStreamV1([v.content], { vaultKey: v.vaultKey, vaultId: v.vaultId, saltPrefix }),
        )
  const plaintextLength = record.length + v.content.length
  return {
    name: v.name,
    description: v.description,
    formatVersion: v.formatVersion,
    vaultKey: toHex(v.vaultKey),
    vaultId: v.vaultId,
    filesKey: toHex(filesKey),
    saltRandomPart: toHex(saltPrefix),
    salt: toHex(salt),
    context: toHex(context),
    aeadKey: toHex(keys.key),
    baseNonce: toHex(keys.baseNonce),
    commitment: toHex(keys.commitment),
    ...(identity
      ? { path: identity.path, pathUtf8: toHex(utf8(identity.path)), identityRecord: toHex(record) }
      : {}),
    size: v.content.length,
    ...(v.content.length <= INLINE_CONTENT ? { content: toHex(v.content) } : { contentRule: v.contentRule }),
    contentSha256: sha256(v.content),
    plaintextLength,
    chunks: Math.floor(plaintextLength / 16384) + 1,
    finalChunkPlaintextLength: plaintextLength % 16384,
    blobLength: blob.length,
    blobSha256: sha256(blob),
    blob: toHex(blob),
  }
}

interface BundleFileInput {
  path: string
  content: Uint8Array
  contentRule?: string
}

function fileRecord(f: BundleFileInput) {
  return {
    path: f.path,
    pathUtf8: toHex(utf8(f.path)),
    size: f.content.length,
    identityRecord: toHex(encodeIdentity({ path: f.path, size: f.content.length })),
    ...(f.content.length <= INLINE_CONTENT ? { content: toHex(f.content) } : { contentRule: f.contentRule }),
    contentSha256: sha256(f.content),
  }
}

async function bundleVector(v: {
  name: string
  description: string
  vaultKey: Uint8Array
  vaultId: string
  salt: Uint8Array | string
  createdAtMs: number
  files: BundleFileInput[]
}) {
  const saltPrefix = typeof v.salt === 'string' ? seeded(v.salt, 16) : v.salt
  const filesKey = deriveFilesKey(v.vaultKey)
  const salt = fileSalt(filesKey, saltPrefix)
  const context = bundleContext(v.vaultId, 1)
  const keys = deriveMessageKeys(filesKey, salt, context)
  const identities = v.files.map((f) => ({ path: f.path, size: f.content.length }))
  const header = encodeBundleHeader(v.createdAtMs, identities)
  const blob = await encryptBundleV1(v.files, {
    vaultKey: v.vaultKey,
    vaultId: v.vaultId,
    saltPrefix,
    createdAtMs: v.createdAtMs,
  })
  const plaintextLength = header.length + identities.reduce((sum, f) => sum + f.size, 0)
  return {
    name: v.name,
    description: v.description,
    vaultKey: toHex(v.vaultKey),
    vaultId: v.vaultId,
    filesKey: toHex(filesKey),
    saltRandomPart: toHex(saltPrefix),
    salt: toHex(salt),
    context: toHex(context),
    aeadKey: toHex(keys.key),
    baseNonce: toHex(keys.baseNonce),
    commitment: toHex(keys.commitment),
    createdAtMs: v.createdAtMs,
    count: v.files.length,
    files: v.files.map(fileRecord),
    header: toHex(header),
    plaintextLength,
    chunks: Math.floor(plaintextLength / 16384) + 1,
    finalChunkPlaintextLength: plaintextLength % 16384,
    blobLength: blob.length,
    blobSha256: sha256(blob),
    blob: toHex(blob),
  }
}

/** Raw bundle header bytes, without the writer's checks (for bundles that break the rules). */
function rawHeader(createdAtMs: number, files: { path: string; size: number }[]): Uint8Array {
  const parts = files.map((f) => {
    const path = utf8(f.path)
    const record = new Uint8Array(10 + path.length)
    new DataView(record.buffer).setBigUint64(0, BigInt(f.size))
    new DataView(record.buffer).setUint16(8, path.length)
    record.set(path, 10)
    return record
  })
  const fixed = new Uint8Array(12)
  new DataView(fixed.buffer).setBigUint64(0, BigInt(createdAtMs))
  new DataView(fixed.buffer).setUint32(8, files.length)
  const out = new Uint8Array(12 + parts.reduce((n, p) => n + p.length, 0))
  out.set(fixed)
  let at = 12
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

/** A bundle that authenticates but breaks a rule of FORMAT.md 3.9: a decryptor must release nothing. */
async function invalidBundleVector(v: {
  name: string
  description: string
  vaultKey: Uint8Array
  vaultId: string
  plaintext: Uint8Array
}) {
  const filesKey = deriveFilesKey(v.vaultKey)
  const salt = fileSalt(filesKey, seeded(`vault-desktop vectors/${v.name}`, 16))
  const blob = await collectBytes(
    encryptChunked([v.plaintext], { inputKey: filesKey, context: bundleContext(v.vaultId, 1), salt }),
  )
  return {
    name: v.name,
    description: v.description,
    vaultKey: toHex(v.vaultKey),
    vaultId: v.vaultId,
    plaintext: toHex(v.plaintext),
    blob: toHex(blob),
  }
}

function shareRecord(share: GuardianShare) {
  return {
    shareNumber: share.shareIndex,
    x: share.share[32]!,
    shamirShare: toHex(share.share),
    envelope: toHex(encodeEnvelope(share)),
    words: encodeShareWords(share),
  }
}

function splitVector(v: {
  name: string
  description: string
  vaultKey: Uint8Array
  vaultId: string
  threshold: number
  shareCount: number
  label: string
}) {
  const splitId = toHex(seeded(`${v.label}/split-id`, 4))
  const xs = xCoordinates(v.shareCount, `${v.label}/x`)
  const { coefficients, shares } = shamirShares(v.vaultKey, v.threshold, xs, v.label)
  const fingerprint = vaultFingerprint(v.vaultKey)
  const keyCheck = keyCheckValue(v.vaultKey)
  const guardianShares: GuardianShare[] = shares.map((share, i) => ({
    kind: 'guardian-share',
    version: 1,
    splitId,
    threshold: v.threshold,
    shareCount: v.shareCount,
    shareIndex: i + 1,
    fingerprint,
    keyCheck,
    vaultId: v.vaultId,
    share,
  }))
  return {
    vector: {
      name: v.name,
      description: v.description,
      vaultKey: toHex(v.vaultKey),
      vaultId: v.vaultId,
      fingerprint,
      keyCheck: toHex(keyCheck),
      splitId,
      threshold: v.threshold,
      shareCount: v.shareCount,
      coefficients: coefficients.map(toHex),
      ownerEnvelope: toHex(
        encodeEnvelope({ kind: 'owner-key', version: 1, vaultKey: v.vaultKey, vaultId: v.vaultId }),
      ),
      ownerWords: encodeOwnerKitWords({ vaultKey: v.vaultKey, vaultId: v.vaultId }),
      shares: guardianShares.map(shareRecord),
    },
    guardianShares,
  }
}

/** Envelope bytes as words with the checksum appended: a kit as some other kit maker might write it. */
function kitWords(envelope: Uint8Array): string {
  const body = envelope.subarray(0, envelope.length - 4)
  const checksum = createHash('sha256').update(body).digest().subarray(0, 4)
  return bytesToWordIndices(new Uint8Array([...body, ...checksum]))
    .map((i) => wordlist[i]!)
    .join(' ')
}

/** A kit whose Shamir share was altered and whose checksum was made to fit again: it reads, but lies. */
function alteredKit(share: GuardianShare): string {
  const altered = share.share.slice()
  altered[0]! ^= 0x5a
  return encodeShareWords({ ...share, share: altered })
}

export async function buildVectors() {
  const exampleKey = fromHex('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f')
  const uuidKey = seeded('vault-desktop vectors/uuid vault key', 32)
  const uuidVault = '0f8e2c1a-7b3d-4e5f-9a6b-1c2d3e4f5a6b'
  // The salt's random part of FORMAT.md's examples (version 1 of the page had the same).
  const docSalt = fromHex('a0a1a2a3a4a5a6a7a8a9aaabacadaeaf')
  const letter = utf8('Dear heirs, the deeds are in the safe.\n\n')
  const longPath = 'Familie/Testament – Müller (2025)/Übersicht.pdf'
  // 5 whole chunks of plaintext: the final chunk is empty.
  const exactPath = 'photos/2019 holiday.jpg'
  const exactSize = 5 * 16384 - (10 + utf8(exactPath).length)

  const blobs = [
    await blobVector({
      name: 'worked-example',
      description: 'Section 6 of FORMAT.md: one short chunk, a free-form vault id.',
      formatVersion: 2,
      vaultKey: exampleKey,
      vaultId: 'example-vault',
      salt: docSalt,
      path: 'letters/to my heirs.txt',
      content: letter,
    }),
    await blobVector({
      name: 'empty-file',
      description: 'An empty file: the record alone, in one short chunk.',
      formatVersion: 2,
      vaultKey: exampleKey,
      vaultId: 'example-vault',
      salt: 'vault-desktop vectors/empty-file',
      path: 'notes/empty',
      content: new Uint8Array(0),
    }),
    await blobVector({
      name: 'multi-chunk-uuid',
      description:
        'A file of exactly 4 chunks of content (65536 bytes; with the record in front the plaintext is not a multiple of the chunk size), a UUID vault id and a non-ASCII path.',
      formatVersion: 2,
      vaultKey: uuidKey,
      vaultId: uuidVault,
      salt: 'vault-desktop vectors/multi-chunk-uuid',
      path: longPath,
      content: patternContent(65536),
      contentRule: 'byte i = i mod 251',
    }),
    await blobVector({
      name: 'multi-chunk-empty-final-chunk',
      description:
        'Record and content fill exactly 5 chunks (81920 bytes), so a sixth, empty final chunk (16 bytes: the tag alone) ends the blob.',
      formatVersion: 2,
      vaultKey: uuidKey,
      vaultId: uuidVault,
      salt: 'vault-desktop vectors/multi-chunk-empty-final-chunk',
      path: exactPath,
      content: patternContent(exactSize),
      contentRule: 'byte i = i mod 251',
    }),
    await blobVector({
      name: 'format-1-example',
      description:
        'The old form (format 1, no identity record), still decrypted: the worked example of FORMAT.md version 1.',
      formatVersion: 1,
      vaultKey: exampleKey,
      vaultId: 'example-vault',
      salt: docSalt,
      content: letter,
    }),
    await blobVector({
      name: 'format-1-uuid',
      description: 'The old form with a UUID vault id, one full chunk and a short one.',
      formatVersion: 1,
      vaultKey: uuidKey,
      vaultId: uuidVault,
      salt: 'vault-desktop vectors/format-1-uuid',
      content: patternContent(20000),
      contentRule: 'byte i = i mod 251',
    }),
  ]

  // FORMAT.md section 6, the bundle example: 2026-01-01 00:00:00 UTC.
  const bundleDate = Date.UTC(2026, 0, 1)
  const pattern = (size: number) => ({ content: patternContent(size), contentRule: 'byte i = i mod 251' })
  const bundles = [
    await bundleVector({
      name: 'bundle-example',
      description: 'Section 6 of FORMAT.md: three small files (one empty) in one short chunk.',
      vaultKey: exampleKey,
      vaultId: 'example-vault',
      salt: docSalt,
      createdAtMs: bundleDate,
      files: [
        { path: 'letters/to my heirs.txt', content: letter },
        { path: 'letters/empty.txt', content: new Uint8Array(0) },
        { path: 'notes/safe code.txt', content: utf8('4711\n') },
      ],
    }),
    await bundleVector({
      name: 'bundle-multi-chunk-uuid',
      description:
        "Five files across four chunks with a UUID vault id: files that start and end inside chunks, one of exactly one chunk, an empty one, a non-ASCII path. Each file's content restarts the pattern.",
      vaultKey: uuidKey,
      vaultId: uuidVault,
      salt: 'vault-desktop vectors/bundle-multi-chunk-uuid',
      createdAtMs: bundleDate + 86_400_000,
      files: [
        { path: 'scans/deed page 1.png', ...pattern(20000) },
        { path: longPath, ...pattern(16384) },
        { path: 'notes/empty', content: new Uint8Array(0) },
        { path: 'a', ...pattern(1) },
        { path: 'scans/deed page 2.png', ...pattern(15000) },
      ],
    }),
    await bundleVector({
      name: 'bundle-empty-final-chunk',
      description:
        'Header, records and contents fill exactly 3 chunks (49152 bytes), so a fourth, empty final chunk ends the blob.',
      vaultKey: uuidKey,
      vaultId: uuidVault,
      salt: 'vault-desktop vectors/bundle-empty-final-chunk',
      createdAtMs: bundleDate,
      files: [
        { path: 'x/one.bin', ...pattern(30000) },
        { path: 'x/two.bin', ...pattern(3 * 16384 - 30000 - 12 - 2 * (10 + 9)) },
      ],
    }),
  ]
  const bad = (name: string, description: string, plaintext: Uint8Array) =>
    invalidBundleVector({ name, description, vaultKey: exampleKey, vaultId: 'example-vault', plaintext })
  const concat = (...parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
    let at = 0
    for (const part of parts) {
      out.set(part, at)
      at += part.length
    }
    return out
  }
  const ab = [
    { path: 'a.txt', size: 2 },
    { path: 'b.txt', size: 3 },
  ]
  const invalidBundles = [
    await bad('bundle-no-files', 'count is 0.', rawHeader(bundleDate, [])),
    await bad(
      'bundle-repeated-path',
      "The path 'a.txt' appears twice.",
      concat(rawHeader(bundleDate, [ab[0]!, { path: 'a.txt', size: 3 }]), utf8('aabbb')),
    ),
    await bad(
      'bundle-path-leaves-folder',
      "A record's path has a '..' segment.",
      concat(rawHeader(bundleDate, [ab[0]!, { path: 'x/../../b.txt', size: 3 }]), utf8('aabbb')),
    ),
    await bad(
      'bundle-contents-short',
      'The contents hold 4 bytes where the records announce 5.',
      concat(rawHeader(bundleDate, ab), utf8('aabb')),
    ),
    await bad(
      'bundle-contents-long',
      'The contents hold 6 bytes where the records announce 5.',
      concat(rawHeader(bundleDate, ab), utf8('aabbbX')),
    ),
  ]

  const standard = splitVector({
    name: 'standard-2-of-3',
    description: 'The worked example key split 2 of 3 (a free-form vault id).',
    vaultKey: exampleKey,
    vaultId: 'example-vault',
    threshold: 2,
    shareCount: 3,
    label: 'vault-desktop vectors/standard-2-of-3',
  })
  const enhanced = splitVector({
    name: 'enhanced-3-of-5',
    description: 'A key split 3 of 5 with a UUID vault id (carried as 0xFF and 16 bytes).',
    vaultKey: uuidKey,
    vaultId: uuidVault,
    threshold: 3,
    shareCount: 5,
    label: 'vault-desktop vectors/enhanced-3-of-5',
  })
  const [s1, s2, s3] = standard.guardianShares
  const [e1, e2, e3, e4, e5] = enhanced.guardianShares
  // A rehearsal's practice kit of the example vault: a share of a throwaway key, kind 0x03 (FORMAT.md 5.1).
  const practice = splitVector({
    name: 'practice',
    description: '',
    vaultKey: seeded('vault-desktop vectors/practice key', 32),
    vaultId: 'example-vault',
    threshold: 2,
    shareCount: 3,
    label: 'vault-desktop vectors/practice',
  }).guardianShares[0]!
  // e2 with its UUID vault id written length-prefixed (36 ASCII bytes), not as 0xFF and 16 bytes.
  const e2Envelope = encodeEnvelope(e2!)
  const e2LengthPrefixed = new Uint8Array([
    ...e2Envelope.subarray(0, 19),
    36,
    ...utf8(uuidVault),
    ...e2Envelope.subarray(36),
  ])
  // s2 with its x-coordinate made 0 (the Shamir share's last byte), checksum made to fit.
  const s2ZeroX = encodeEnvelope({ ...s2!, share: new Uint8Array([...s2!.share.subarray(0, 32), 0]) })
  // FORMAT.md 5.4: more kits than needed. Inputs are words, in order; `used` and `ignored` are indexes.
  const combinations = [
    {
      name: 'extra-kit-of-another-vault',
      description: 'Two good kits and one of another vault: the other vault is set aside.',
      kits: [encodeShareWords(s1!), encodeShareWords(e1!), encodeShareWords(s3!)],
      vaultKey: toHex(exampleKey),
      vaultId: 'example-vault',
      used: [0, 2],
      ignored: [1],
    },
    {
      name: 'altered-extra-kit',
      description:
        'Three kits of one split, one altered (its checksum made to fit): all three together fail the key check, the first pair that passes is used.',
      kits: [alteredKit(s1!), encodeShareWords(s2!), encodeShareWords(s3!)],
      vaultKey: toHex(exampleKey),
      vaultId: 'example-vault',
      used: [1, 2],
      ignored: [0],
    },
    {
      name: 'duplicate-and-unreadable',
      description:
        'Four kits of a 3-of-5 split, one entered twice, plus words that do not read (a misspelling): the duplicate and the unreadable kit are set aside, the four distinct kits combine.',
      kits: [
        encodeShareWords(e5!),
        encodeShareWords(e2!),
        encodeShareWords(e5!),
        `${encodeShareWords(e4!).replace(/^\S+/, 'abandn')}`,
        encodeShareWords(e3!),
        encodeShareWords(e1!),
      ],
      vaultKey: toHex(uuidKey),
      vaultId: uuidVault,
      used: [0, 1, 4, 5],
      ignored: [2, 3],
    },
    {
      name: 'one-x-coordinate',
      description:
        'Kit 1 and a copy of it renumbered as share 2 (same x-coordinate, checksum made to fit), then share 3: the two kits with one x-coordinate are never combined together, kits 1 and 3 give the key and the copy is left out.',
      kits: [encodeShareWords(s1!), encodeShareWords({ ...s1!, shareIndex: 2 }), encodeShareWords(s3!)],
      vaultKey: toHex(exampleKey),
      vaultId: 'example-vault',
      used: [0, 2],
      ignored: [1],
    },
    {
      name: 'owner-and-practice-kits-among-guardian-kits',
      description:
        "The owner kit and a rehearsal's practice kit (kind 0x03) given with two guardian kits: neither is combined with guardian shares, both are set aside, the guardian kits give the key.",
      kits: [
        encodeOwnerKitWords({ vaultKey: exampleKey, vaultId: 'example-vault' }),
        encodePracticeShareWords({ ...practice, kind: 'practice-share', expiresOn: '2026-12-31' }),
        encodeShareWords(s3!),
        encodeShareWords(s2!),
      ],
      vaultKey: toHex(exampleKey),
      vaultId: 'example-vault',
      used: [2, 3],
      ignored: [0, 1],
    },
    {
      name: 'uuid-vault-id-length-prefixed',
      description:
        'A kit whose lowercase UUID vault id is written length-prefixed (36 bytes) instead of 0xFF and 16 bytes: it is the same vault id and combines with kits written the usual way.',
      kits: [kitWords(e2LengthPrefixed), encodeShareWords(e4!), encodeShareWords(e1!)],
      vaultKey: toHex(uuidKey),
      vaultId: uuidVault,
      used: [0, 1, 2],
      ignored: [],
    },
    {
      name: 'x-coordinate-zero',
      description:
        'A kit whose x-coordinate is 0 (its checksum made to fit) is refused when read; the two other kits give the key.',
      kits: [kitWords(s2ZeroX), encodeShareWords(s1!), encodeShareWords(s3!)],
      vaultKey: toHex(exampleKey),
      vaultId: 'example-vault',
      used: [1, 2],
      ignored: [0],
    },
  ]

  return {
    description:
      'Test vectors for docs/FORMAT.md (file and recovery formats, version 2). Hex is lowercase; words are BIP-39 English. Generated by scripts/format-vectors.ts; do not edit by hand.',
    wordList: {
      description:
        'SHA-256 of the BIP-39 English word list as 2048 lines: each word followed by one line feed (0x0a), in index order, no other bytes.',
      sha256: sha256(`${wordlist.join('\n')}\n`),
    },
    blobs,
    bundles,
    invalidBundles,
    splits: [standard.vector, enhanced.vector],
    combinations,
  }
}

// Laid out as the repository's formatter (biome) lays out JSON, so `biome check` passes on the file.
const formatted = spawnSync('npx', ['biome', 'format', `--stdin-file-path=${OUT.pathname}`], {
  input: JSON.stringify(await buildVectors(), null, 2),
  encoding: 'utf8',
  maxBuffer: 1 << 26,
})
if (formatted.status !== 0) throw new Error(`biome format failed: ${formatted.stderr}`)
const text = formatted.stdout
if (process.argv.includes('--check')) {
  const committed = readFileSync(OUT, 'utf8')
  if (committed !== text) {
    console.error(`${OUT.pathname} differs from a fresh run: run npx tsx scripts/format-vectors.ts`)
    process.exit(1)
  }
  console.log('vectors up to date')
} else {
  writeFileSync(OUT, text)
  console.log(`wrote ${OUT.pathname}`)
}
