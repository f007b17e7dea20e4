// The portable path: pure-JS AES-256-GCM from @noble/ciphers (renderer, any JS runtime). ~30 MB/s.
import { gcm } from '@noble/ciphers/aes.js'
import type { AeadBackend, ChunkAead } from './aead-backend'
import { chunkNonce, TAG_SIZE } from './chunked-format'

export const nobleAeadBackend: AeadBackend = {
  name: 'noble',
  diagnosisBudgetBytes: 12 * 1024 * 1024,
  create(key: Uint8Array, baseNonce: Uint8Array): ChunkAead {
    return {
      sealInto(index, plaintext, out, offset) {
        out.set(gcm(key, chunkNonce(baseNonce, index)).encrypt(plaintext), offset)
      },
      open(index, sealed) {
        if (sealed.length < TAG_SIZE) return null
        try {
          return gcm(key, chunkNonce(baseNonce, index)).decrypt(sealed)
        } catch {
          return null
        }
      },
    }
  },
}
