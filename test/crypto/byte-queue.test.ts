// The decryption's input queue: whole chunks are opened where they lie in the source's pieces, and
// chunks that straddle pieces are copied into one buffer the stream reuses (a fresh 1 MiB per batch
// was most of what decrypting allocated). Reuse must never hand back bytes of an earlier batch.
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { nodeCipher } from '../../src/node-cipher/cipher-choice'
import {
  collectBytes,
  decryptStream,
  encryptStream,
  FileCipherError,
  generateVaultKey,
} from '../../src/vault-format'
import { ByteQueue } from '../../src/vault-format/byte-queue'

describe('ByteQueue.takeUnits', () => {
  it('hands whole units in the first piece back as a view, without copying', () => {
    const queue = new ByteQueue()
    const piece = Uint8Array.from({ length: 25 }, (_, i) => i)
    queue.push(piece)
    let asked = 0
    const units = queue.takeUnits(10, 100, () => {
      asked++
      return new Uint8Array(100)
    })
    expect([...units]).toEqual([...piece.subarray(0, 20)])
    expect(units.buffer).toBe(piece.buffer)
    // No copy, so no scratch buffer is made: a small file's decryption allocates none.
    expect(asked).toBe(0)
  })

  it('copies units that straddle pieces into the buffer it is given', () => {
    const queue = new ByteQueue()
    queue.push(Uint8Array.from([1, 2, 3]))
    queue.push(Uint8Array.from([4, 5, 6, 7, 8, 9]))
    const into = new Uint8Array(8)
    const units = queue.takeUnits(4, 8, () => into)
    expect(units).toBe(into)
    expect([...units]).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    expect(queue.length).toBe(1)
  })
})

describe('decryption from pieces that cut chunks anywhere', () => {
  const vaultKey = generateVaultKey()
  const plain = new Uint8Array(randomBytes(5 * 1024 * 1024 + 777))
  const identity = { path: 'a.bin', size: plain.length }
  const sealed = (async () =>
    collectBytes(encryptStream([plain], { vaultKey, vaultId: 'v1', identity, ...nodeCipher(false) })))()

  function* piecesOf(bytes: Uint8Array, size: number): Generator<Uint8Array> {
    // A fresh buffer per piece, as a socket gives them.
    for (let at = 0; at < bytes.length; at += size) yield bytes.slice(at, at + size)
  }

  it('gives back every byte, batch after batch, for pieces of 64 KiB and of odd sizes', async () => {
    for (const size of [65_536, 10_007, 1_048_576]) {
      const back = await collectBytes(
        decryptStream(piecesOf(await sealed, size), { vaultKey, vaultId: 'v1', ...nodeCipher(false) }),
      )
      expect(Buffer.from(back).equals(plain)).toBe(true)
    }
  })

  it('reports a damaged chunk in a straddling batch at its own index, after the intact batches', async () => {
    const damaged = (await sealed).slice()
    // Chunk 100 (in the second batch), well inside the ciphertext.
    const at = 32 + 100 * (16_384 + 16) + 500
    damaged[at] = (damaged[at] ?? 0) ^ 1
    const out: Uint8Array[] = []
    const error = await (async () => {
      for await (const piece of decryptStream(piecesOf(damaged, 65_536), {
        vaultKey,
        vaultId: 'v1',
        ...nodeCipher(false),
      }))
        out.push(piece.slice())
    })().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(FileCipherError)
    expect((error as FileCipherError).chunkIndex).toBe(100)
    const released = Buffer.concat(out)
    // Every chunk before it (less the file's sealed name at the start of chunk 0), intact.
    expect(released.length).toBeGreaterThan(99 * 16_384)
    expect(released.length).toBeLessThanOrEqual(100 * 16_384)
    expect(released.equals(plain.subarray(0, released.length))).toBe(true)
  })
})
