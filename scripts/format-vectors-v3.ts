// Writes docs/vectors/vault-desktop-v3.json, the test vectors of what docs/FORMAT.md version 3 added:
// format-3 file blobs, bundles of version 2 (one with an embedded manifest) and vault manifests, plus
// blobs that authenticate but break a rule. Fixed keys and salts, the reference code in src/vault-format.
// (vault-desktop-v2.json, from scripts/format-vectors.ts, keeps format 1, 2, bundles of version 1 and kits.)
//   npx tsx scripts/format-vectors-v3.ts          write the file
//   npx tsx scripts/format-vectors-v3.ts --check  exit 1 if the committed file differs from a fresh run
// test/crypto/format-vectors.test.ts checks the file against the code, and
// test/crypto/independent_decryptor.py checks it with a decryptor written from FORMAT.md alone.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { fromHex, toHex, utf8 } from '../src/vault-format/bytes'
import { deriveMessageKeys } from '../src/vault-format/chunked-format'
import { collectBytes, encryptChunked } from '../src/vault-format/chunked-stream'
import { encodeBundleHeader, encryptBundleStream } from '../src/vault-format/file-bundle'
import { encryptStream } from '../src/vault-format/file-cipher'
import { bundleContext, fileContext, fileSalt, manifestContext } from '../src/vault-format/file-context'
import { encodeIdentity } from '../src/vault-format/file-identity'
import { deriveFilesKey } from '../src/vault-format/vault-key'
import { encodeManifest, encryptManifest, type VaultManifest } from '../src/vault-format/vault-manifest'

const OUT = new URL('../docs/vectors/vault-desktop-v3.json', import.meta.url)
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex')
const INLINE_CONTENT = 1024

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

const saltOf = (salt: Uint8Array | string) => (typeof salt === 'string' ? seeded(salt, 16) : salt)

/** The inputs and every derived value of a blob under `context`. */
function derived(vaultKey: Uint8Array, vaultId: string, saltPrefix: Uint8Array, context: Uint8Array) {
  const filesKey = deriveFilesKey(vaultKey)
  const salt = fileSalt(filesKey, saltPrefix)
  const keys = deriveMessageKeys(filesKey, salt, context)
  return {
    vaultKey: toHex(vaultKey),
    vaultId,
    filesKey: toHex(filesKey),
    saltRandomPart: toHex(saltPrefix),
    salt: toHex(salt),
    context: toHex(context),
    aeadKey: toHex(keys.key),
    baseNonce: toHex(keys.baseNonce),
    commitment: toHex(keys.commitment),
  }
}

function sealedFacts(plaintextLength: number, blob: Uint8Array) {
  return {
    plaintextLength,
    chunks: Math.floor(plaintextLength / 16384) + 1,
    finalChunkPlaintextLength: plaintextLength % 16384,
    blobLength: blob.length,
    blobSha256: sha256(blob),
    blob: toHex(blob),
  }
}

const contentFields = (content: Uint8Array, contentRule?: string) => ({
  size: content.length,
  ...(content.length <= INLINE_CONTENT ? { content: toHex(content) } : { contentRule }),
  contentSha256: sha256(content),
})

async function blobVector(v: {
  name: string
  description: string
  vaultKey: Uint8Array
  vaultId: string
  salt: Uint8Array | string
  path: string
  writtenAtMs: number
  content: Uint8Array
  contentRule?: string
}) {
  const saltPrefix = saltOf(v.salt)
  const identity = { path: v.path, size: v.content.length, writtenAtMs: v.writtenAtMs }
  const record = encodeIdentity(identity)
  const blob = await collectBytes(
    encryptStream([v.content], { vaultKey: v.vaultKey, vaultId: v.vaultId, saltPrefix, identity }),
  )
  return {
    name: v.name,
    description: v.description,
    formatVersion: 3,
    ...derived(v.vaultKey, v.vaultId, saltPrefix, fileContext(v.vaultId, 3)),
    path: v.path,
    pathUtf8: toHex(utf8(v.path)),
    writtenAtMs: v.writtenAtMs,
    identityRecord: toHex(record),
    ...contentFields(v.content, v.contentRule),
    ...sealedFacts(record.length + v.content.length, blob),
  }
}

interface FileInput {
  path: string
  content: Uint8Array
  contentRule?: string
  writtenAtMs?: number
}

async function manifestVector(v: {
  name: string
  description: string
  vaultKey: Uint8Array
  vaultId: string
  salt: Uint8Array | string
  manifest: VaultManifest
}) {
  const saltPrefix = saltOf(v.salt)
  const plaintext = encodeManifest(v.manifest)
  const blob = await encryptManifest(v.manifest, { vaultKey: v.vaultKey, vaultId: v.vaultId, saltPrefix })
  // The entries as they are written: sorted, each with what it shares with the path before it.
  const entries: object[] = []
  let previous = new Uint8Array(0)
  const sorted = [...v.manifest.entries].sort((a, b) =>
    Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)),
  )
  for (const e of sorted) {
    const bytes = utf8(e.path)
    let shared = 0
    while (shared < Math.min(previous.length, bytes.length) && previous[shared] === bytes[shared]) shared++
    entries.push({
      path: e.path,
      size: e.size,
      sha256: e.sha256,
      writtenAtMs: e.writtenAtMs,
      shared,
      suffixUtf8: toHex(bytes.subarray(shared)),
    })
    previous = bytes
  }
  return {
    name: v.name,
    description: v.description,
    ...derived(v.vaultKey, v.vaultId, saltPrefix, manifestContext(v.vaultId)),
    sequence: v.manifest.sequence,
    writtenAtMs: v.manifest.writtenAtMs,
    count: entries.length,
    entries,
    plaintext: toHex(plaintext),
    ...sealedFacts(plaintext.length, blob),
  }
}

async function bundleVector(v: {
  name: string
  description: string
  vaultKey: Uint8Array
  vaultId: string
  salt: Uint8Array | string
  writtenAtMs: number
  files: FileInput[]
  manifest?: { salt: string; manifest: VaultManifest }
}) {
  const saltPrefix = saltOf(v.salt)
  const keys = { vaultKey: v.vaultKey, vaultId: v.vaultId }
  const identities = v.files.map((f) => ({
    path: f.path,
    size: f.content.length,
    writtenAtMs: f.writtenAtMs ?? v.writtenAtMs,
  }))
  const manifestBlob = v.manifest
    ? await encryptManifest(v.manifest.manifest, { ...keys, saltPrefix: seeded(v.manifest.salt, 16) })
    : undefined
  const manifestLength = manifestBlob?.length ?? 0
  const header = encodeBundleHeader(v.writtenAtMs, identities, manifestLength)
  const blob = await collectBytes(
    encryptBundleStream(
      v.files.map((f, i) => ({ identity: identities[i]!, content: () => [f.content] })),
      {
        ...keys,
        saltPrefix,
        createdAtMs: v.writtenAtMs,
        ...(manifestBlob ? { manifest: manifestBlob } : {}),
      },
    ),
  )
  const contentLength = v.files.reduce((n, f) => n + f.content.length, 0)
  return {
    name: v.name,
    description: v.description,
    bundleVersion: 2,
    ...derived(v.vaultKey, v.vaultId, saltPrefix, bundleContext(v.vaultId, 2)),
    writtenAtMs: v.writtenAtMs,
    count: v.files.length,
    manifestLength,
    ...(manifestBlob
      ? { manifestSequence: v.manifest!.manifest.sequence, manifestBlob: toHex(manifestBlob) }
      : {}),
    files: v.files.map((f, i) => ({
      path: f.path,
      pathUtf8: toHex(utf8(f.path)),
      writtenAtMs: identities[i]!.writtenAtMs,
      identityRecord: toHex(encodeIdentity(identities[i]!)),
      ...contentFields(f.content, f.contentRule),
    })),
    header: toHex(header),
    ...sealedFacts(header.length + manifestLength + contentLength, blob),
  }
}

/** A blob that authenticates under `context` but whose plaintext breaks a rule: rejected whole. */
async function invalidVector(v: {
  name: string
  description: string
  vaultKey: Uint8Array
  vaultId: string
  context: Uint8Array
  plaintext: Uint8Array
  reject: string
}) {
  const filesKey = deriveFilesKey(v.vaultKey)
  const salt = fileSalt(filesKey, seeded(`vault-desktop vectors v3/${v.name}`, 16))
  const blob = await collectBytes(
    encryptChunked([v.plaintext], { inputKey: filesKey, context: v.context, salt }),
  )
  return {
    name: v.name,
    description: v.description,
    vaultKey: toHex(v.vaultKey),
    vaultId: v.vaultId,
    reject: v.reject,
    plaintext: toHex(v.plaintext),
    blob: toHex(blob),
  }
}

const u64 = (n: bigint | number) => {
  const out = new Uint8Array(8)
  new DataView(out.buffer).setBigUint64(0, BigInt(n))
  return out
}
const u32 = (n: number) => Uint8Array.of(n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255)
const u16 = (n: number) => Uint8Array.of(n >>> 8, n & 255)
const cat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]))

/** A version-2 bundle header by hand (no checks), for bundles that break the rules. */
function rawBundleHeader(writtenAt: bigint, files: { path: string; size: number; writtenAt?: bigint }[]) {
  return cat(
    u64(writtenAt),
    u32(files.length),
    u32(0),
    ...files.map((f) =>
      cat(u64(f.size), u64(f.writtenAt ?? writtenAt), u16(utf8(f.path).length), utf8(f.path)),
    ),
  )
}

/** A manifest plaintext by hand (no checks): entries as given, shared/suffix as given. */
function rawManifest(
  sequence: bigint,
  writtenAt: bigint,
  entries: { shared: number; suffix: string; writtenAt?: bigint; count?: number }[],
  count = entries.length,
) {
  return cat(
    u64(sequence),
    u64(writtenAt),
    u32(count),
    ...entries.map((e) =>
      cat(
        u64(1),
        u64(e.writtenAt ?? writtenAt),
        new Uint8Array(32).fill(0x11),
        u16(e.shared),
        u16(utf8(e.suffix).length),
        utf8(e.suffix),
      ),
    ),
  )
}

export async function buildVectors() {
  const exampleKey = fromHex('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f')
  const uuidKey = seeded('vault-desktop vectors/uuid vault key', 32)
  const uuidVault = '0f8e2c1a-7b3d-4e5f-9a6b-1c2d3e4f5a6b'
  const docSalt = fromHex('a0a1a2a3a4a5a6a7a8a9aaabacadaeaf')
  const letter = utf8('Dear heirs, the deeds are in the safe.\n\n')
  const longPath = 'Familie/Testament – Müller (2025)/Übersicht.pdf'
  // FORMAT.md section 6: written 2026-03-01 12:00:00 UTC.
  const written = Date.UTC(2026, 2, 1, 12)
  const exactPath = 'photos/2019 holiday.jpg'
  const pattern = (size: number) => ({ content: patternContent(size), contentRule: 'byte i = i mod 251' })
  const example = { vaultKey: exampleKey, vaultId: 'example-vault' }
  const uuid = { vaultKey: uuidKey, vaultId: uuidVault }

  const blobs = [
    await blobVector({
      name: 'worked-example-v3',
      description: 'Section 6 of FORMAT.md: the letter as a format-3 blob, one short chunk.',
      ...example,
      salt: docSalt,
      path: 'letters/to my heirs.txt',
      writtenAtMs: written,
      content: letter,
    }),
    await blobVector({
      name: 'empty-file-v3',
      description: 'An empty file: the record alone, in one short chunk; write time 0 (1970) is valid.',
      ...example,
      salt: 'vault-desktop vectors v3/empty-file',
      path: 'notes/empty',
      writtenAtMs: 0,
      content: new Uint8Array(0),
    }),
    await blobVector({
      name: 'multi-chunk-uuid-v3',
      description: 'A file of 65536 bytes, a UUID vault id and a non-ASCII path.',
      ...uuid,
      salt: 'vault-desktop vectors v3/multi-chunk-uuid',
      path: longPath,
      writtenAtMs: written + 1,
      ...pattern(65536),
    }),
    await blobVector({
      name: 'multi-chunk-empty-final-chunk-v3',
      description:
        'Record (18 + 23 bytes) and content fill exactly 5 chunks (81920 bytes), so a sixth, empty final chunk (16 bytes: the tag alone) ends the blob.',
      ...uuid,
      salt: 'vault-desktop vectors v3/multi-chunk-empty-final-chunk',
      path: exactPath,
      writtenAtMs: 2 ** 53 - 1,
      ...pattern(5 * 16384 - (18 + utf8(exactPath).length)),
    }),
  ]

  const exampleFiles: FileInput[] = [
    { path: 'letters/to my heirs.txt', content: letter },
    { path: 'letters/empty.txt', content: new Uint8Array(0) },
    { path: 'notes/safe code.txt', content: utf8('4711\n') },
  ]
  const exampleManifest: VaultManifest = {
    sequence: 1,
    writtenAtMs: written,
    entries: exampleFiles.map((f) => ({
      path: f.path,
      size: f.content.length,
      sha256: sha256(f.content),
      writtenAtMs: written,
    })),
  }
  const manifests = [
    await manifestVector({
      name: 'manifest-example',
      description:
        "Section 6 of FORMAT.md: the vault's first manifest, listing the bundle example's three files (sorted: 'letters/empty.txt' first; 'letters/to my heirs.txt' shares 'letters/').",
      ...example,
      salt: docSalt,
      manifest: exampleManifest,
    }),
    await manifestVector({
      name: 'manifest-empty',
      description:
        'Every file removed: a manifest of no files (sequence 2) is valid and means the vault holds none.',
      ...example,
      salt: 'vault-desktop vectors v3/manifest-empty',
      manifest: { sequence: 2, writtenAtMs: written + 60_000, entries: [] },
    }),
    await manifestVector({
      name: 'manifest-uuid',
      description:
        "Six files with a UUID vault id: shared prefixes, a non-ASCII path, U+E000 before U+1F600 (UTF-8 byte order, not UTF-16's), 'a' next to 'a b' and 'ab' (neither is a folder of 'a').",
      ...uuid,
      salt: 'vault-desktop vectors v3/manifest-uuid',
      manifest: {
        sequence: 9_007_199_254_740_991,
        writtenAtMs: written + 5,
        entries: [
          { path: longPath, size: 65536, sha256: sha256(patternContent(65536)), writtenAtMs: written + 1 },
          {
            path: 'scans/deed page 2.png',
            size: 15000,
            sha256: sha256(patternContent(15000)),
            writtenAtMs: written,
          },
          {
            path: 'scans/deed page 1.png',
            size: 20000,
            sha256: sha256(patternContent(20000)),
            writtenAtMs: written,
          },
          { path: '😀.txt', size: 0, sha256: sha256(''), writtenAtMs: 0 },
          { path: '\uE000.txt', size: 1, sha256: sha256(patternContent(1)), writtenAtMs: written + 5 },
          { path: 'a', size: 1, sha256: sha256(patternContent(1)), writtenAtMs: written },
          { path: 'a b', size: 1, sha256: sha256(patternContent(1)), writtenAtMs: written },
          { path: 'ab', size: 1, sha256: sha256(patternContent(1)), writtenAtMs: written },
        ],
      },
    }),
  ]

  const bundles = [
    await bundleVector({
      name: 'bundle-example-v2',
      description:
        'Section 6 of FORMAT.md: three small files (one empty) in a version-2 bundle, no manifest.',
      ...example,
      salt: docSalt,
      writtenAtMs: written,
      files: exampleFiles,
    }),
    await bundleVector({
      name: 'bundle-with-manifest',
      description:
        "The same three files with the vault's manifest embedded (manifest-example's manifest, under its own salt): the backup's manifest costs no upload of its own.",
      ...example,
      salt: 'vault-desktop vectors v3/bundle-with-manifest',
      writtenAtMs: written,
      files: exampleFiles,
      manifest: { salt: 'vault-desktop vectors v3/bundle-with-manifest/manifest', manifest: exampleManifest },
    }),
    await bundleVector({
      name: 'bundle-multi-chunk-uuid-v2',
      description:
        "Five files across four chunks with a UUID vault id, one with an earlier write time of its own; each file's content restarts the pattern.",
      ...uuid,
      salt: 'vault-desktop vectors v3/bundle-multi-chunk-uuid',
      writtenAtMs: written + 86_400_000,
      files: [
        { path: 'scans/deed page 1.png', ...pattern(20000) },
        { path: longPath, ...pattern(16384), writtenAtMs: written },
        { path: 'notes/empty', content: new Uint8Array(0) },
        { path: 'a', ...pattern(1) },
        { path: 'scans/deed page 2.png', ...pattern(15000) },
      ],
    }),
    await bundleVector({
      name: 'bundle-empty-final-chunk-v2',
      description:
        'Header, records and contents fill exactly 3 chunks (49152 bytes), so a fourth, empty final chunk ends the blob.',
      ...uuid,
      salt: 'vault-desktop vectors v3/bundle-empty-final-chunk',
      writtenAtMs: written,
      files: [
        { path: 'x/one.bin', ...pattern(30000) },
        { path: 'x/two.bin', ...pattern(3 * 16384 - 30000 - 16 - 2 * (18 + 9)) },
      ],
    }),
  ]

  const w = BigInt(written)
  const bundleV2 = bundleContext('example-vault', 2)
  const manifestCtx = manifestContext('example-vault')
  const invalid = (
    name: string,
    description: string,
    context: Uint8Array,
    plaintext: Uint8Array,
    reject: 'before-release' | 'at-file',
  ) => invalidVector({ name, description, ...example, context, plaintext, reject })
  const invalidBundles = [
    await invalid(
      'bundle-v2-path-and-its-folder',
      "'a' and 'a/b' in one bundle of version 2: no file system holds both.",
      bundleV2,
      cat(
        rawBundleHeader(w, [
          { path: 'a', size: 1 },
          { path: 'a/b', size: 1 },
        ]),
        utf8('xy'),
      ),
      'before-release',
    ),
    await invalid(
      'bundle-v2-write-time-too-large',
      "A file's write time is 2^53.",
      bundleV2,
      cat(rawBundleHeader(w, [{ path: 'a', size: 1, writtenAt: 2n ** 53n }]), utf8('x')),
      'before-release',
    ),
    await invalid(
      'bundle-v2-manifest-of-another-vault',
      "The embedded manifest is a manifest of another vault (vault id 'other-vault') under the same key.",
      bundleV2,
      await (async () => {
        const foreign = await encryptManifest(exampleManifest, {
          vaultKey: exampleKey,
          vaultId: 'other-vault',
          saltPrefix: docSalt,
        })
        const head = rawBundleHeader(w, [{ path: 'a', size: 1 }])
        head.set(u32(foreign.length), 12)
        return cat(head, foreign, utf8('x'))
      })(),
      'before-release',
    ),
  ]
  const invalidManifests = [
    await invalid(
      'manifest-path-and-its-folder',
      "Lists 'a' and 'a/b'.",
      manifestCtx,
      rawManifest(1n, w, [
        { shared: 0, suffix: 'a' },
        { shared: 1, suffix: '/b' },
      ]),
      'before-release',
    ),
    await invalid(
      'manifest-out-of-order',
      "'b' before 'a'.",
      manifestCtx,
      rawManifest(1n, w, [
        { shared: 0, suffix: 'b' },
        { shared: 0, suffix: 'a' },
      ]),
      'before-release',
    ),
    await invalid(
      'manifest-shared-not-common-prefix',
      "'ab' then 'ac' written with shared 0 (their common prefix is 1).",
      manifestCtx,
      rawManifest(1n, w, [
        { shared: 0, suffix: 'ab' },
        { shared: 0, suffix: 'ac' },
      ]),
      'before-release',
    ),
    await invalid(
      'manifest-sequence-zero',
      'Sequence number 0.',
      manifestCtx,
      rawManifest(0n, w, []),
      'before-release',
    ),
    await invalid(
      'manifest-entry-after-manifest',
      "An entry's write time is later than the manifest's.",
      manifestCtx,
      rawManifest(1n, w, [{ shared: 0, suffix: 'a', writtenAt: w + 1n }]),
      'before-release',
    ),
    await invalid(
      'manifest-trailing-bytes',
      'One byte after the last entry.',
      manifestCtx,
      cat(rawManifest(1n, w, [{ shared: 0, suffix: 'a' }]), Uint8Array.of(0)),
      'before-release',
    ),
    await invalid(
      'manifest-count-too-large',
      'The count says 2 entries; 1 follows.',
      manifestCtx,
      rawManifest(1n, w, [{ shared: 0, suffix: 'a' }], 2),
      'before-release',
    ),
  ]

  return {
    description:
      'Test vectors for docs/FORMAT.md version 3: format-3 file blobs, bundles of version 2, vault manifests, and blobs that authenticate but break a rule. Hex is lowercase. Generated by scripts/format-vectors-v3.ts; do not edit by hand. Format 1 and 2, bundles of version 1 and the recovery kits: vault-desktop-v2.json.',
    blobs,
    bundles,
    manifests,
    invalidBundles,
    invalidManifests,
    manifestChoices: [
      {
        description:
          'Two manifests of example-vault: sequence 2 (every file removed) supersedes sequence 1, whatever the order they were found in.',
        found: ['manifest-example', 'manifest-empty'],
        chosen: 'manifest-empty',
      },
      {
        description: 'The same two, found the other way round.',
        found: ['manifest-empty', 'manifest-example'],
        chosen: 'manifest-empty',
      },
    ],
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
    console.error(`${OUT.pathname} differs from a fresh run: run npx tsx scripts/format-vectors-v3.ts`)
    process.exit(1)
  }
  console.log('vectors up to date')
} else {
  writeFileSync(OUT, text)
  console.log(`wrote ${OUT.pathname}`)
}
