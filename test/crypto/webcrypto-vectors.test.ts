// The recovery page's AES-GCM (WebCrypto, src/vault-format/aead-webcrypto.ts) against the official
// vectors: every Cobblestone-256 Wycheproof vector decrypted through the WebCrypto batch runner, and
// the AES-256-GCM/96-bit-IV groups of aes_gcm_test.json opened and sealed. Node's globalThis.crypto is
// the same WebCrypto interface a browser has.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { inflateSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { webCryptoBatchRunner, webCryptoOpen, webCryptoSeal } from '../../src/vault-format/aead-webcrypto'
import { fromHex, toHex } from '../../src/vault-format/bytes'
import { CHUNK_SIZE } from '../../src/vault-format/chunked-format'
import { collectBytes, decryptChunked, encryptChunked } from '../../src/vault-format/chunked-stream'
import { FileCipherError } from '../../src/vault-format/format-errors'

const dir = join(import.meta.dirname, '../fixtures/vectors')

interface ChunkedVector {
  tcId: number
  comment: string
  key: string
  ctx: string
  ct: string
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

const sha512 = (b: Uint8Array) => createHash('sha512').update(b).digest('hex')

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
    return { out: Buffer.concat(parts), error }
  }
}

describe('Cobblestone-256 vectors, WebCrypto batch runner', () => {
  it('covers every vector', () => {
    expect(chunkedVectors.length).toBe(chunkedFile.numberOfTests)
    expect(gcmVectors.length).toBeGreaterThan(60)
  })

  it.each(chunkedVectors.map((v) => [`${v.tcId} ${v.comment} [${v.flags.join(',')}]`, v] as const))(
    '%s',
    async (_name, v) => {
      const opts = {
        inputKey: fromHex(v.key),
        context: fromHex(v.ctx),
        batchRunner: webCryptoBatchRunner(2),
      }
      const ct = new Uint8Array(inflateSync(fromHex(v.ct)))
      if (v.result === 'valid') {
        const msg = await collectBytes(decryptChunked(pieces(ct, 7777), opts))
        expect(msg.length).toBe(v.msgLength)
        expect(sha512(msg)).toBe(v.msgSha512)
        return
      }
      const result = await readUntilError(decryptChunked(pieces(ct, 7777), opts))
      expect(result.error).toBeInstanceOf(FileCipherError)
      if (v.flags.includes('InvalidKeySize'))
        expect((result.error as FileCipherError).reason).toBe('invalid-key')
      if (v.flags.includes('PartialPlaintext')) {
        expect(result.out.length).toBe(v.msgLength)
        expect(sha512(result.out)).toBe(v.msgSha512)
      } else {
        expect(result.out.length).toBe(0)
      }
    },
  )
})

describe('AES-256-GCM 96-bit IV vectors, WebCrypto', () => {
  it.each(gcmVectors.map((v) => [`${v.tcId} ${v.result}`, v] as const))('%s', async (_name, v) => {
    const key = fromHex(v.key)
    const iv = fromHex(v.iv)
    const aad = fromHex(v.aad)
    const sealed = Buffer.concat([fromHex(v.ct), fromHex(v.tag)])
    const opened = await webCryptoOpen(key, iv, sealed, aad)
    if (v.result === 'invalid') {
      expect(opened).toBeNull()
      return
    }
    expect(opened && toHex(opened)).toBe(v.msg)
    expect(toHex(await webCryptoSeal(key, iv, fromHex(v.msg), aad))).toBe(toHex(sealed))
  })
})

describe('WebCrypto batch runner on a long message', () => {
  it('opens many batches in flight in order, and stops at a damaged chunk in the middle', async () => {
    const inputKey = new Uint8Array(32).fill(7)
    const context = new TextEncoder().encode('webcrypto test')
    const message = new Uint8Array(CHUNK_SIZE * 64 * 9 + 1234)
    for (let i = 0; i < message.length; i++) message[i] = (i * 31 + (i >> 14)) & 0xff
    const sealed = await collectBytes(encryptChunked(pieces(message, 100_000), { inputKey, context }))
    const opened = await collectBytes(
      decryptChunked(pieces(sealed, 65_536), { inputKey, context, batchRunner: webCryptoBatchRunner(3) }),
    )
    expect(Buffer.from(opened).equals(Buffer.from(message))).toBe(true)

    // One byte of chunk 200 altered: exactly the 200 chunks before it come out, then the error.
    const damaged = sealed.slice()
    damaged[56 + 200 * (CHUNK_SIZE + 16) + 5]! ^= 1
    const result = await readUntilError(
      decryptChunked(pieces(damaged, 65_536), { inputKey, context, batchRunner: webCryptoBatchRunner(3) }),
    )
    expect(result.error).toBeInstanceOf(FileCipherError)
    expect(result.out.length).toBe(200 * CHUNK_SIZE)
    expect(Buffer.from(result.out).equals(Buffer.from(message.subarray(0, 200 * CHUNK_SIZE)))).toBe(true)
  })
})
