// Runs test/crypto/independent_decryptor.py, a decryptor written from docs/FORMAT.md alone in
// Python, on the committed vectors and on output of the TypeScript code: evidence that the page is
// enough to rebuild the tool.
import { execFileSync, spawnSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { afterAll, describe, expect, it } from 'vitest'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
import { utf8 } from '../../src/vault-format/bytes'
import { encryptChunked } from '../../src/vault-format/chunked-stream'
import { bundleContext } from '../../src/vault-format/file-bundle'
import { fileContext } from '../../src/vault-format/file-cipher'
import {
  collectBytes,
  deriveFilesKey,
  encodeOwnerKitWords,
  encodeShareWords,
  encryptBundleStream,
  encryptManifest,
  encryptStream,
  generateVaultKey,
  splitVaultKey,
} from '../../src/vault-format/index'
import { encryptStreamV1 } from './support/legacy-v1'
import { encryptBlobV2 } from './support/legacy-writers'

const sha256Hex = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex')

const script = new URL('./independent_decryptor.py', import.meta.url).pathname
const vectors = new URL('../../docs/vectors/vault-desktop-v2.json', import.meta.url).pathname
const vectorsV3 = new URL('../../docs/vectors/vault-desktop-v3.json', import.meta.url).pathname
const python = spawnSync('python3', ['-c', 'import cryptography'], { stdio: 'ignore' })
const available = python.status === 0
if (!available) console.warn('SKIPPED: independent decryptor needs python3 with the cryptography package')

const dir = mkdtempSync(join(tmpdir(), 'vault-independent-'))
// FORMAT.md 5.2: one word per line, each followed by a line feed (the script checks the hash).
const wordlistFile = join(dir, 'english.txt')
writeFileSync(wordlistFile, `${wordlist.join('\n')}\n`)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function run(args: string[]) {
  const result = spawnSync('python3', [script, '--wordlist', wordlistFile, ...args], { maxBuffer: 1 << 28 })
  const info = result.status === 0 ? JSON.parse(result.stderr.toString()) : null
  return { status: result.status, out: result.stdout, info, stderr: result.stderr.toString() }
}

async function writeBlob(name: string, blob: AsyncIterable<Uint8Array>): Promise<string> {
  const file = join(dir, name)
  writeFileSync(file, await collectBytes(blob))
  return file
}

describe.skipIf(!available)('independent Python decryptor (from FORMAT.md)', () => {
  it('agrees with every committed vector', () => {
    const out = execFileSync('python3', [script, '--wordlist', wordlistFile, '--vectors', vectors])
    expect(out.toString()).toMatch(/^ok: 6 blobs, 3 bundles, 5 invalidBundles, 2 splits, 7 combinations/)
    const v3 = execFileSync('python3', [script, '--wordlist', wordlistFile, '--vectors', vectorsV3])
    expect(v3.toString()).toMatch(
      /^ok: 4 blobs, 4 bundles, 3 manifests, 3 invalidBundles, 7 invalidManifests, 2 manifestChoices/,
    )
  })

  it.each([0, 40, 16363, 16384, 16385, 100_000])('%i-byte file with the owner kit', async (size) => {
    const vaultKey = generateVaultKey()
    const vaultId = `vault-${size}`
    const plain = randomBytes(size)
    const identity = {
      path: `Ordner ${size}/Brief an die Erben – ${size}.txt`,
      size,
      writtenAtMs: 1_790_000_000_000 + size,
    }
    const blob = await writeBlob(`${size}.vault`, encryptStream([plain], { vaultKey, vaultId, identity }))
    const { status, out, info } = run(['--owner-words', encodeOwnerKitWords({ vaultKey, vaultId }), blob])
    expect(status).toBe(0)
    expect(out.equals(plain)).toBe(true)
    expect(info).toMatchObject({
      version: 3,
      path: identity.path,
      writtenAt: identity.writtenAtMs,
      size,
      vaultId,
    })
  })

  it('a format-2 blob', async () => {
    const vaultKey = generateVaultKey()
    const vaultId = 'older-vault'
    const plain = randomBytes(40_000)
    const blob = join(dir, 'v2.vault')
    writeFileSync(blob, await encryptBlobV2(plain, { vaultKey, vaultId, path: 'alt/brief.txt' }))
    const { out, info } = run(['--owner-words', encodeOwnerKitWords({ vaultKey, vaultId }), blob])
    expect(out.equals(plain)).toBe(true)
    expect(info).toMatchObject({ version: 2, path: 'alt/brief.txt', writtenAt: null, size: 40_000 })
  })

  it('a manifest stored alone', async () => {
    const vaultKey = generateVaultKey()
    const vaultId = 'manifest-vault'
    const entries = ['b/z.txt', 'b/y.txt', 'a.txt'].map((path, i) => ({
      path,
      size: i,
      sha256: sha256Hex(path),
      writtenAtMs: 1_000 + i,
    }))
    const blob = join(dir, 'manifest.vault')
    writeFileSync(
      blob,
      await encryptManifest({ sequence: 12, writtenAtMs: 5_000, entries }, { vaultKey, vaultId }),
    )
    const { status, out, info } = run(['--owner-words', encodeOwnerKitWords({ vaultKey, vaultId }), blob])
    expect(status).toBe(0)
    expect(out.length).toBe(0)
    expect(info).toMatchObject({ kind: 'manifest', sequence: 12, writtenAt: 5_000 })
    expect(info.entries).toEqual(
      [entries[2]!, entries[1]!, entries[0]!].map((e) => ({
        path: e.path,
        size: e.size,
        sha256: e.sha256,
        writtenAt: e.writtenAtMs,
      })),
    )
  })

  it('a format-1 blob', async () => {
    const vaultKey = generateVaultKey()
    const vaultId = 'old-vault'
    const plain = randomBytes(40_000)
    const blob = await writeBlob('v1.vault', encryptStreamV1([plain], { vaultKey, vaultId }))
    const { out, info } = run(['--owner-words', encodeOwnerKitWords({ vaultKey, vaultId }), blob])
    expect(out.equals(plain)).toBe(true)
    expect(info).toMatchObject({ version: 1, path: null, size: 40_000 })
  })

  it('3 of 5 guardian shares, a UUID vault id, and extra kits that do not belong', async () => {
    const vaultKey = generateVaultKey()
    const vaultId = '0f8e2c1a-7b3d-4e5f-9a6b-1c2d3e4f5a6b'
    const shares = await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.enhanced)
    const older = await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.enhanced)
    const other = await splitVaultKey(generateVaultKey(), 'another-vault', SSS_PRESET_SHAPE.standard)
    const plain = randomBytes(50_000)
    const identity = { path: 'taxes/2025/return.pdf', size: plain.length, writtenAtMs: 7 }
    const blob = await writeBlob('shares.vault', encryptStream([plain], { vaultKey, vaultId, identity }))
    const kits = [other[0]!, shares[4]!, older[1]!, shares[0]!, shares[0]!, shares[2]!]
    const args = kits.flatMap((s) => ['--share-words', encodeShareWords(s)])
    const { out, info } = run([...args, blob])
    expect(out.equals(plain)).toBe(true)
    expect(info).toMatchObject({ version: 3, path: identity.path, used: [1, 3, 5], ignored: [0, 2, 4] })
  })

  it('a bundle with its manifest: every file written at its recorded path, and a bundle is no single file', async () => {
    const vaultKey = generateVaultKey()
    const vaultId = 'bundle-vault'
    const files = [
      { path: 'Briefe/an die Erben.txt', content: randomBytes(20_000) },
      { path: 'empty', content: Buffer.alloc(0) },
      { path: 'photos/2019/cake.jpg', content: randomBytes(33_000) },
    ]
    const entries = files.map((f) => ({
      identity: { path: f.path, size: f.content.length },
      content: () => [f.content],
    }))
    const manifest = {
      sequence: 3,
      writtenAtMs: 1234,
      entries: files.map((f) => ({
        path: f.path,
        size: f.content.length,
        sha256: sha256Hex(f.content),
        writtenAtMs: 1234,
      })),
    }
    const manifestBlob = await encryptManifest(manifest, { vaultKey, vaultId })
    const blob = await writeBlob(
      'bundle.vault',
      encryptBundleStream(entries, { vaultKey, vaultId, createdAtMs: 1234, manifest: manifestBlob }),
    )
    const owner = ['--owner-words', encodeOwnerKitWords({ vaultKey, vaultId })]
    const out = join(dir, 'bundle-out')
    const { status, info } = run([...owner, '--out', out, blob])
    expect(status).toBe(0)
    expect(info).toMatchObject({ kind: 'bundle', version: 2, createdAt: 1234, vaultId })
    expect(info.manifest).toMatchObject({ sequence: 3, writtenAt: 1234 })
    expect(info.manifest.entries.map((e: { sha256: string }) => e.sha256).sort()).toEqual(
      manifest.entries.map((e) => e.sha256).sort(),
    )
    expect(info.files.map((f: { path: string; writtenAt: number }) => [f.path, f.writtenAt])).toEqual(
      files.map((f) => [f.path, 1234]),
    )
    for (const f of files) expect(readFileSync(join(out, f.path)).equals(f.content)).toBe(true)
    const asFile = run([...owner, blob])
    expect(asFile.status).toBe(1)
    expect(asFile.stderr).toMatch(/^invalid: .*bundle/)
  })

  // Bundles (version 1) a faulty writer with the key could make: every chunk authenticates, a rule is
  // broken. Version-2 rules: the invalidBundles of vault-desktop-v3.json.
  it.each([
    [
      'a repeated path',
      [
        { path: 'a', size: 1 },
        { path: 'a', size: 1 },
      ],
      2,
    ],
    ['no files', [], 0],
    [
      'contents shorter than the records',
      [
        { path: 'a', size: 2 },
        { path: 'b', size: 2 },
      ],
      3,
    ],
    ['contents longer than the records', [{ path: 'a', size: 2 }], 3],
    ['a path with a right-to-left override', [{ path: 'evil\u202Efdp.exe', size: 1 }], 1],
  ])('rejects a bundle with %s', async (_name, records, contentLength) => {
    const vaultKey = generateVaultKey()
    const vaultId = 'v'
    const parts: Uint8Array[] = [new Uint8Array(12)]
    new DataView(parts[0]!.buffer).setUint32(8, records.length)
    for (const r of records) {
      const path = utf8(r.path)
      const record = new Uint8Array(10 + path.length)
      new DataView(record.buffer).setBigUint64(0, BigInt(r.size))
      new DataView(record.buffer).setUint16(8, path.length)
      record.set(path, 10)
      parts.push(record)
    }
    parts.push(randomBytes(contentLength))
    const blob = await writeBlob(
      'bad-bundle.vault',
      encryptChunked(parts, { inputKey: deriveFilesKey(vaultKey), context: bundleContext(vaultId, 1) }),
    )
    const out = join(dir, `bad-bundle-out-${_name.length}`)
    const { status, stderr } = run([
      '--owner-words',
      encodeOwnerKitWords({ vaultKey, vaultId }),
      '--out',
      out,
      blob,
    ])
    expect(status).toBe(1)
    expect(stderr).toMatch(/^invalid: /)
    expect(existsSync(out)).toBe(false)
  })

  // Blobs a faulty writer with the key could make: every chunk authenticates, the record is wrong.
  it.each([
    ['a path with ..', { path: 'a/../b', size: 3 }, 3],
    ['a path with a right-to-left override', { path: 'evil\u202Efdp.exe', size: 3 }, 3],
    ['an NFD path', { path: 'Mu\u0308ller.txt', size: 3 }, 3],
    ['fewer bytes than its size', { path: 'short.txt', size: 4 }, 3],
    ['more bytes than its size', { path: 'long.txt', size: 2 }, 3],
    ['a write time beyond 2^53-1', { path: 'late.txt', size: 3, writtenAt: 2n ** 53n }, 3],
  ])('rejects a blob with %s', async (name, identity, contentLength) => {
    const vaultKey = generateVaultKey()
    const vaultId = 'v'
    const path = utf8(identity.path)
    for (const version of name.includes('write time') ? [3 as const] : [3 as const, 2 as const]) {
      const fixed = version === 3 ? 18 : 10
      const record = new Uint8Array(fixed + path.length)
      const view = new DataView(record.buffer)
      view.setBigUint64(0, BigInt(identity.size))
      if (version === 3) view.setBigUint64(8, 'writtenAt' in identity ? identity.writtenAt : 1n)
      view.setUint16(fixed - 2, path.length)
      record.set(path, fixed)
      const plaintext = [record, randomBytes(contentLength)]
      const blob = await writeBlob(
        'bad.vault',
        encryptChunked(plaintext, {
          inputKey: deriveFilesKey(vaultKey),
          context: fileContext(vaultId, version),
        }),
      )
      const { status, out, stderr } = run(['--owner-words', encodeOwnerKitWords({ vaultKey, vaultId }), blob])
      expect(status).toBe(1)
      expect(out.length).toBe(0)
      expect(stderr).toMatch(/^invalid: /)
    }
  })
})
