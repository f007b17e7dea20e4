// The hot path: node:crypto AES-256-GCM (AES-NI), one cipher object per 16 KiB chunk. ~1.7 GB/s on
// one core, against ~50 MB/s for the library's pure-JS default. A stream's chunks share one KeyObject:
// each cipher object then skips converting and copying the raw key (about 5% of the cipher's CPU).
import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject } from 'node:crypto'
import type { AeadBackend } from '../vault-format/batch-api'
import { chunkNonce, TAG_SIZE } from '../vault-format/batch-api'

function sealInto(
  key: Uint8Array | KeyObject,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  out: Uint8Array,
  offset: number,
  aad?: Uint8Array,
): void {
  const cipher = createCipheriv('aes-256-gcm', key, nonce)
  if (aad && aad.length > 0) cipher.setAAD(aad)
  const body = cipher.update(plaintext)
  out.set(body, offset)
  const tail = cipher.final()
  out.set(tail, offset + body.length)
  out.set(cipher.getAuthTag(), offset + body.length + tail.length)
}

function open(
  key: Uint8Array | KeyObject,
  nonce: Uint8Array,
  sealed: Uint8Array,
  aad?: Uint8Array,
): Uint8Array | null {
  if (sealed.length < TAG_SIZE) return null
  const split = sealed.length - TAG_SIZE
  const decipher = createDecipheriv('aes-256-gcm', key, nonce)
  decipher.setAuthTag(sealed.subarray(split))
  if (aad && aad.length > 0) decipher.setAAD(aad)
  const body = decipher.update(sealed.subarray(0, split))
  try {
    const tail = decipher.final()
    return tail.length === 0 ? body : Buffer.concat([body, tail])
  } catch {
    return null
  }
}

export const nodeAeadBackend: AeadBackend = {
  name: 'node',
  diagnosisBudgetBytes: 160 * 1024 * 1024,
  create(key, baseNonce) {
    const nonce = new Uint8Array(baseNonce.length)
    const keyObject = createSecretKey(key)
    return {
      sealInto: (index, plaintext, out, offset) =>
        sealInto(keyObject, chunkNonce(baseNonce, index, nonce), plaintext, out, offset),
      open: (index, sealed) => open(keyObject, chunkNonce(baseNonce, index, nonce), sealed),
    }
  },
  seal(key, nonce, plaintext, aad) {
    const out = new Uint8Array(plaintext.length + TAG_SIZE)
    sealInto(key, nonce, plaintext, out, 0, aad)
    return out
  },
  open,
  // Every byte of the output is written before it is read: no need for zeroed memory.
  allocate: (length) => Buffer.allocUnsafeSlow(length),
}
