// sealBatch keeps the chunk views of a whole batch with its buffer, so a reader that seals every batch
// from the same buffer makes no garbage per chunk. The views must follow the buffer's bytes, never a copy.
import { describe, expect, it } from 'vitest'
import { nodeAeadBackend } from '../../src/node-cipher/aead-node'
import { BATCH_PLAIN, type ChunkAead, sealBatch } from '../../src/vault-format/batch-api'

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
