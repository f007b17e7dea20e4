// Runs test/crypto/independent_decryptor.py, a decryptor written from docs/FORMAT.md alone in
// Python, on the committed vectors and on output of the TypeScript code: evidence that the page is
// enough to rebuild the tool.
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { afterAll, describe, expect, it } from 'vitest'
import { utf8 } from '../../src/main/core/crypto/bytes'
import { encryptChunked } from '../../src/main/core/crypto/chunked-stream'
import { fileContext } from '../../src/main/core/crypto/file-cipher'
import {
  collectBytes,
  deriveFilesKey,
  encodeOwnerKitWords,
  encodeShareWords,
  encryptStream,
  generateVaultKey,
  splitVaultKey,
} from '../../src/main/core/crypto/index'
import { encryptStreamV1 } from './support/legacy-v1'

const script = new URL('./independent_decryptor.py', import.meta.url).pathname
const vectors = new URL('../../docs/vectors/vault-desktop-v2.json', import.meta.url).pathname
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
    expect(out.toString()).toMatch(/^ok: 6 blobs, 2 splits, 3 combinations/)
  })

  it.each([0, 40, 16363, 16384, 16385, 100_000])('%i-byte file with the owner kit', async (size) => {
    const vaultKey = generateVaultKey()
    const vaultId = `vault-${size}`
    const plain = randomBytes(size)
    const identity = { path: `Ordner ${size}/Brief an die Erben – ${size}.txt`, size }
    const blob = await writeBlob(`${size}.vault`, encryptStream([plain], { vaultKey, vaultId, identity }))
    const { status, out, info } = run(['--owner-words', encodeOwnerKitWords({ vaultKey, vaultId }), blob])
    expect(status).toBe(0)
    expect(out.equals(plain)).toBe(true)
    expect(info).toMatchObject({ version: 2, path: identity.path, size, vaultId })
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
    const shares = await splitVaultKey(vaultKey, vaultId, 'enhanced')
    const older = await splitVaultKey(vaultKey, vaultId, 'enhanced')
    const other = await splitVaultKey(generateVaultKey(), 'another-vault', 'standard')
    const plain = randomBytes(50_000)
    const identity = { path: 'taxes/2025/return.pdf', size: plain.length }
    const blob = await writeBlob('shares.vault', encryptStream([plain], { vaultKey, vaultId, identity }))
    const kits = [other[0]!, shares[4]!, older[1]!, shares[0]!, shares[0]!, shares[2]!]
    const args = kits.flatMap((s) => ['--share-words', encodeShareWords(s)])
    const { out, info } = run([...args, blob])
    expect(out.equals(plain)).toBe(true)
    expect(info).toMatchObject({ version: 2, path: identity.path, used: [1, 3, 5], ignored: [0, 2, 4] })
  })

  // Blobs a faulty writer with the key could make: every chunk authenticates, the record is wrong.
  it.each([
    ['a path with ..', { path: 'a/../b', size: 3 }, 3],
    ['a path with a right-to-left override', { path: 'evil\u202Efdp.exe', size: 3 }, 3],
    ['an NFD path', { path: 'Mu\u0308ller.txt', size: 3 }, 3],
    ['fewer bytes than its size', { path: 'short.txt', size: 4 }, 3],
    ['more bytes than its size', { path: 'long.txt', size: 2 }, 3],
  ])('rejects a blob with %s', async (_name, identity, contentLength) => {
    const vaultKey = generateVaultKey()
    const vaultId = 'v'
    const path = utf8(identity.path)
    const record = new Uint8Array(10 + path.length)
    new DataView(record.buffer).setBigUint64(0, BigInt(identity.size))
    new DataView(record.buffer).setUint16(8, path.length)
    record.set(path, 10)
    const plaintext = [record, randomBytes(contentLength)]
    const blob = await writeBlob(
      'bad.vault',
      encryptChunked(plaintext, { inputKey: deriveFilesKey(vaultKey), context: fileContext(vaultId) }),
    )
    const { status, out, stderr } = run(['--owner-words', encodeOwnerKitWords({ vaultKey, vaultId }), blob])
    expect(status).toBe(1)
    expect(out.length).toBe(0)
    expect(stderr).toMatch(/^invalid: /)
  })
})
