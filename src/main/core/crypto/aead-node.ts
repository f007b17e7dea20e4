// The hot path: node:crypto AES-256-GCM (AES-NI), one cipher object per 16 KiB chunk.
import { createCipheriv, createDecipheriv } from 'node:crypto'
import type { AeadBackend, ChunkAead } from './aead-backend'
import { chunkNonce, TAG_SIZE } from './chunked-format'

export const nodeAeadBackend: AeadBackend = {
  name: 'node',
  diagnosisBudgetBytes: 160 * 1024 * 1024,
  create(key: Uint8Array, baseNonce: Uint8Array): ChunkAead {
    const nonce = new Uint8Array(baseNonce.length)
    return {
      sealInto(index, plaintext, out, offset) {
        const cipher = createCipheriv('aes-256-gcm', key, chunkNonce(baseNonce, index, nonce))
        const body = cipher.update(plaintext)
        out.set(body, offset)
        const tail = cipher.final()
        out.set(tail, offset + body.length)
        out.set(cipher.getAuthTag(), offset + body.length + tail.length)
      },
      open(index, sealed) {
        if (sealed.length < TAG_SIZE) return null
        const split = sealed.length - TAG_SIZE
        const decipher = createDecipheriv('aes-256-gcm', key, chunkNonce(baseNonce, index, nonce))
        decipher.setAuthTag(sealed.subarray(split))
        const body = decipher.update(sealed.subarray(0, split))
        try {
          const tail = decipher.final()
          return tail.length === 0 ? body : Buffer.concat([body, tail])
        } catch {
          return null
        }
      },
    }
  },
}
