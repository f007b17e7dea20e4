// sealBatch keeps the chunk views of a whole batch with its buffer, so a reader that seals every batch
// from the same buffer makes no garbage per chunk. The views must follow the buffer's bytes, never a copy.
import { describe, expect, it } from 'vitest'
import { nodeAeadBackend } from '../../src/node-cipher/aead-node'
import { BATCH_PLAIN, type ChunkAead, openBatch, sealBatch } from '../../src/vault-format/batch-api'

const key = new Uint8Array(32).fill(7)
const baseNonce = new Uint8Array(12).fill(9)

function filled(length: number, seed: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 31 + seed) & 0xff)
}

/** An AEAD that records the plaintext views it is handed. */
function recording(): { aead: ChunkAead; seen: Uint8Array[] } {
  const inner = nodeAeadBackend.create(key, baseNonce)
  const seen: Uint8Array[] = []
  return {
    seen,
    aead: {
      sealInto: (index, plaintext, out, offset) => {
        seen.push(plaintext)
        inner.sealInto(index, plaintext, out, offset)
      },
      open: inner.open,
    },
  }
}

describe('sealBatch', () => {
  it('seals the bytes in the buffer now, when the same whole-batch buffer is sealed again', () => {
    const reused = filled(BATCH_PLAIN, 1)
    const { aead } = recording()
    const first = sealBatch(aead, reused, 0, false).slice()
    reused.set(filled(BATCH_PLAIN, 2))
    const second = sealBatch(aead, reused, 64, false)

    const fresh = nodeAeadBackend.create(key, baseNonce)
    expect(first).toEqual(sealBatch(fresh, filled(BATCH_PLAIN, 1), 0, false))
    expect(second).toEqual(sealBatch(fresh, filled(BATCH_PLAIN, 2), 64, false))
  })

  it('hands the AEAD the same 64 chunk views every time the same buffer is sealed whole', () => {
    const reused = filled(BATCH_PLAIN, 3)
    const { aead, seen } = recording()
    sealBatch(aead, reused, 0, false)
    sealBatch(aead, reused, 64, false)
    expect(seen).toHaveLength(128)
    for (let k = 0; k < 64; k++) expect(seen[64 + k]).toBe(seen[k])
  })

  it('makes fresh views for a final batch, whose last chunk is short', () => {
    const { aead, seen } = recording()
    const tail = filled(BATCH_PLAIN - 100, 4)
    const sealed = sealBatch(aead, tail, 0, true)
    expect(seen).toHaveLength(64)
    expect(seen[63]).toHaveLength(16_384 - 100)
    expect(sealed).toHaveLength(tail.length + 64 * 16)
  })
})

describe('openBatch', () => {
  const chunks = 5
  const plain = filled(chunks * 16384 - 100, 3)
  const sealed = sealBatch(nodeAeadBackend.create(key, baseNonce), plain, 40, true)

  /** node:crypto's chunks, opened into the batch through openInto (as the native backend does). */
  function intoBuffer(): { aead: ChunkAead; into: number[] } {
    const inner = nodeAeadBackend.create(key, baseNonce)
    const into: number[] = []
    return {
      into,
      aead: {
        sealInto: inner.sealInto,
        open: () => {
          throw new Error('open() called where openInto() is there')
        },
        openInto: (index, chunk, out, offset) => {
          into.push(index)
          const opened = inner.open(index, chunk)
          if (opened) out.set(opened, offset)
          return opened !== null
        },
      },
    }
  }

  it('opens into the batch buffer where the AEAD can, to the same bytes as open() and a copy', () => {
    const { aead, into } = intoBuffer()
    const direct = openBatch(aead, sealed, 40, true)
    const copied = openBatch(nodeAeadBackend.create(key, baseNonce), sealed, 40, true)
    expect(into).toEqual([40, 41, 42, 43, 44])
    expect(direct.failedAt).toBe(-1)
    expect(Buffer.from(direct.out).equals(Buffer.from(plain))).toBe(true)
    expect(Buffer.from(copied.out).equals(Buffer.from(plain))).toBe(true)
  })

  it('stops at the first chunk that does not authenticate, and hands out only the chunks before it', () => {
    const forged = sealed.slice()
    const at = 2 * (16384 + 16) + 10
    forged[at] = (forged[at] ?? 0) ^ 1
    const result = openBatch(intoBuffer().aead, forged, 40, true)
    expect(result.failedAt).toBe(2)
    expect(result.out.length).toBe(2 * 16384)
    expect(Buffer.from(result.out).equals(Buffer.from(plain.subarray(0, 2 * 16384)))).toBe(true)
  })
})
