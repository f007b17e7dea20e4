// Runs test/crypto/independent_decryptor.py, a decryptor written from docs/FORMAT.md alone in
// Python, on output of the TypeScript code: evidence that the page is enough to rebuild the tool.
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { afterAll, describe, expect, it } from 'vitest'
import {
  collectBytes,
  encodeOwnerKitWords,
  encodeShareWords,
  encryptStream,
  generateVaultKey,
  splitVaultKey,
} from '../../src/main/core/crypto/index'

const script = new URL('./independent_decryptor.py', import.meta.url).pathname
const python = spawnSync('python3', ['-c', 'import cryptography'], { stdio: 'ignore' })
const available = python.status === 0
if (!available) console.warn('SKIPPED: independent decryptor needs python3 with the cryptography package')

const dir = mkdtempSync(join(tmpdir(), 'vault-independent-'))
const wordlistFile = join(dir, 'english.txt')
writeFileSync(wordlistFile, wordlist.join('\n'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.skipIf(!available)('independent Python decryptor (from FORMAT.md)', () => {
  it.each([0, 40, 16383, 16384, 16385, 100_000])('%i-byte file with the owner kit', async (size) => {
    const vaultKey = generateVaultKey()
    const vaultId = `vault-${size}`
    const plain = randomBytes(size)
    const blob = join(dir, `${size}.vault`)
    writeFileSync(blob, await collectBytes(encryptStream([plain], { vaultKey, vaultId })))
    const out = execFileSync('python3', [
      script,
      '--wordlist',
      wordlistFile,
      '--owner-words',
      encodeOwnerKitWords({ vaultKey, vaultId }),
      blob,
    ])
    expect(out.equals(plain)).toBe(true)
  })

  it('3 of 5 guardian shares and a UUID vault id', async () => {
    const vaultKey = generateVaultKey()
    const vaultId = '0f8e2c1a-7b3d-4e5f-9a6b-1c2d3e4f5a6b'
    const shares = await splitVaultKey(vaultKey, vaultId, 'enhanced')
    const plain = randomBytes(50_000)
    const blob = join(dir, 'shares.vault')
    writeFileSync(blob, await collectBytes(encryptStream([plain], { vaultKey, vaultId })))
    const args = [shares[4]!, shares[0]!, shares[2]!].flatMap((s) => ['--share-words', encodeShareWords(s)])
    const out = execFileSync('python3', [script, '--wordlist', wordlistFile, ...args, blob])
    expect(out.equals(plain)).toBe(true)
  })
})
