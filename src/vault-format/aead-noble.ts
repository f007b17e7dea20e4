// The portable path and the library's default: pure-JS AES-256-GCM from @noble/ciphers (any JS
// runtime: Node, a browser, a worker). ~50 MB/s on one core.
import { gcm } from '@noble/ciphers/aes.js'
import type { AeadBackend } from './aead-backend'
import { chunkNonce, TAG_SIZE } from './chunked-format'

function open(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad?: Uint8Array): Uint8Array | null {
  if (sealed.length < TAG_SIZE) return null
  try {
    return gcm(key, nonce, aad).decrypt(sealed)
  } catch {
    return null
  }
}

export const nobleAeadBackend: AeadBackend = {
  name: 'noble',
  diagnosisBudgetBytes: 12 * 1024 * 1024,
  create(key, baseNonce) {
    return {
      sealInto(index, plaintext, out, offset) {
        out.set(gcm(key, chunkNonce(baseNonce, index)).encrypt(plaintext), offset)
      },
      open: (index, sealed) => open(key, chunkNonce(baseNonce, index), sealed),
    }
  },
  seal: (key, nonce, plaintext, aad) => gcm(key, nonce, aad).encrypt(plaintext),
  open,
}
