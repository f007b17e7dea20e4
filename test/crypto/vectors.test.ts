// Conformance: every Cobblestone-256 Wycheproof vector and the AES-256-GCM/96-bit-IV groups of
// aes_gcm_test.json, for every backend (node inline, node on worker threads, noble, and the native
// AES-GCM inline and on worker threads where it is built: test/crypto/aead-native.test.ts says when not).
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { inflateSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { type AeadBackendName, cipherByName } from '../../src/node-cipher'
import { nativeAeadStatus } from '../../src/node-cipher/aead-native'
import { fromHex, toHex } from '../../src/vault-format/bytes'
import { deriveMessageKeys } from '../../src/vault-format/chunked-format'
import { collectBytes, decryptChunked, encryptChunked } from '../../src/vault-format/chunked-stream'
import { FileCipherError } from '../../src/vault-format/format-errors'

const dir = join(import.meta.dirname, '../fixtures/vectors')

interface ChunkedVector {
  tcId: number
  comment: string
  key: string
  ctx: string
  ct: string
  aeadKey?: string
  baseNonce?: string
  msgLength?: number
  msgSha512?: string
  result: 'valid' | 'invalid'
  flags: string[]
}
const chunkedFile = JSON.parse(
  readFileSync(join(dir, 'c2sp_chunked_encryption_aes_256_gcm_test.json'), 'utf8'),
)
const chunkedVectors: ChunkedVector[] = chunkedFile.testGroups.flatMap(
  (g: { tests: ChunkedVector[] }) => g.tests,
)

interface GcmVector {
  tcId: number
  key: string
  iv: string
  aad: string
  msg: string
  ct: string
  tag: string
  result: 'valid' | 'invalid' | 'acceptable'
}
const gcmFile = JSON.parse(readFileSync(join(dir, 'aes_gcm_test.json'), 'utf8'))
const gcmVectors: GcmVector[] = gcmFile.testGroups
  .filter((g: { keySize: number; ivSize: number }) => g.keySize === 256 && g.ivSize === 96)
  .flatMap((g: { tests: GcmVector[] }) => g.tests)

const configs: { label: string; backend: AeadBackendName; parallel: boolean }[] = [
  { label: 'node', backend: 'node', parallel: false },
  { label: 'node+workers', backend: 'node', parallel: true },
  { label: 'noble', backend: 'noble', parallel: false },
  ...(nativeAeadStatus().inUse
    ? [
        { label: 'native', backend: 'native' as const, parallel: false },
        { label: 'native+workers', backend: 'native' as const, parallel: true },
      ]
    : []),
]

const sha512 = (b: Uint8Array) => createHash('sha512').update(b).digest('hex')

/** Feeds the ciphertext in uneven pieces so chunk boundaries never line up with reads. */
function* pieces(bytes: Uint8Array, size: number): Iterable<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size)
  if (bytes.length === 0) yield bytes
}

async function readUntilError(source: AsyncIterableIterator<Uint8Array>) {
  const parts: Uint8Array[] = []
  try {
    for (;;) {
      const step = await source.next()
      if (step.done) return { out: Buffer.concat(parts), error: undefined }
      parts.push(step.value)
    }
  } catch (error) {
    return {
      out: Buffer.concat(parts),
      error,
      again: await source.next().then(
        () => 'ended',
        (e) => e,
      ),
    }
  }
}

it('has the expected vector files', () => {
  expect(chunkedVectors.length).toBe(chunkedFile.numberOfTests)
  expect(gcmVectors.length).toBeGreaterThan(60)
})

describe.each(configs)('Cobblestone-256 vectors, $label backend', ({ backend, parallel }) => {
  it.each(chunkedVectors.map((v) => [`${v.tcId} ${v.comment} [${v.flags.join(',')}]`, v] as const))(
    '%s',
    async (_name, v) => {
      const key = fromHex(v.key)
      const context = fromHex(v.ctx)
      const ct = new Uint8Array(inflateSync(fromHex(v.ct)))
      const opts = { inputKey: key, context, ...cipherByName(backend, parallel) }

      if (v.result === 'valid') {
        const msg = await collectBytes(decryptChunked(pieces(ct, 7777), opts))
        expect(msg.length).toBe(v.msgLength)
        expect(sha512(msg)).toBe(v.msgSha512)
        // Raw mode: our derivation gives the vector's AEAD key and base nonce.
        const derived = deriveMessageKeys(key, ct.subarray(0, 24), context)
        expect(toHex(derived.key)).toBe(v.aeadKey)
        expect(toHex(derived.baseNonce)).toBe(v.baseNonce)
        // Encryption with the vector's salt reproduces the ciphertext byte for byte.
        const again = await collectBytes(
          encryptChunked(pieces(msg, 5000), { ...opts, salt: ct.slice(0, 24) }),
        )
        expect(Buffer.from(again).equals(Buffer.from(ct))).toBe(true)
        return
      }

      const result = await readUntilError(decryptChunked(pieces(ct, 7777), opts))
      expect(result.error).toBeInstanceOf(FileCipherError)
      // Keeps failing: never a clean end after an error.
      expect(result.again).toBe(result.error)
      if (v.flags.includes('InvalidKeySize'))
        expect((result.error as FileCipherError).reason).toBe('invalid-key')
      if (v.flags.includes('PartialPlaintext')) {
        // Only authenticated chunks come out: at most the valid prefix, and exactly it here.
        expect(result.out.length).toBe(v.msgLength)
        expect(sha512(result.out)).toBe(v.msgSha512)
      } else {
        expect(result.out.length).toBe(0)
      }
    },
  )
})

describe.each(configs.filter((c) => !c.parallel))(
  'AES-256-GCM 96-bit IV vectors, $label backend',
  ({ backend }) => {
    const aead = cipherByName(backend).backend!
    it.each(gcmVectors.map((v) => [`${v.tcId} ${v.result}`, v] as const))('%s', (_name, v) => {
      const key = fromHex(v.key)
      const iv = fromHex(v.iv)
      const aad = fromHex(v.aad)
      const sealed = Buffer.concat([fromHex(v.ct), fromHex(v.tag)])
      const opened = aead.open(key, iv, sealed, aad)
      if (v.result === 'invalid') {
        expect(opened).toBeNull()
        return
      }
      expect(opened && toHex(opened)).toBe(v.msg)
      expect(toHex(aead.seal(key, iv, fromHex(v.msg), aad))).toBe(toHex(sealed))
    })
  },
)
