// AES-256-GCM on WebCrypto (crypto.subtle), for browsers: the recovery page decrypts with it. WebCrypto
// is asynchronous and AeadBackend is not, so it plugs in where the chunked stream already waits: as a
// ChunkBatchRunner (chunk-batch.ts), several batches in flight and every chunk of a batch handed to
// the browser at once, which runs them off the page's thread. The stream's last batch and the
// diagnosis of a failed chunk stay on the synchronous backend (noble), as they do with Node's workers.
// Nothing here is used by the Node path.
import type { BatchJob, BatchResult, ChunkBatchRunner } from './chunk-batch'
import { CHUNK_SIZE, chunkNonce, SEALED_CHUNK_SIZE, TAG_SIZE } from './chunked-format'

// Named from the global, so this compiles under the DOM's typings and Node's alike.
type Subtle = typeof globalThis.crypto.subtle
type Key = Awaited<ReturnType<Subtle['importKey']>>

/** The platform's WebCrypto (a browser's, or Node's globalThis.crypto). */
function subtle(): Subtle {
  const found = (globalThis as { crypto?: { subtle?: Subtle } }).crypto?.subtle
  if (!found) throw new Error('WebCrypto (crypto.subtle) is not available here.')
  return found
}

/** A BufferSource WebCrypto takes without copying twice (a view over an ArrayBuffer). */
function view(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes as Uint8Array<ArrayBuffer>
}

function importKey(key: Uint8Array, usage: 'encrypt' | 'decrypt'): Promise<Key> {
  return subtle().importKey('raw', view(key), 'AES-GCM', false, [usage])
}

/** AES-GCM with a 16-byte tag: ciphertext || tag. */
export async function webCryptoSeal(
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  aad?: Uint8Array,
): Promise<Uint8Array> {
  const sealed = await subtle().encrypt(
    { name: 'AES-GCM', iv: view(nonce), tagLength: 128, ...(aad ? { additionalData: view(aad) } : {}) },
    await importKey(key, 'encrypt'),
    view(plaintext),
  )
  return new Uint8Array(sealed)
}

/** The plaintext, or null when ciphertext || tag does not authenticate. */
export async function webCryptoOpen(
  key: Uint8Array,
  nonce: Uint8Array,
  sealed: Uint8Array,
  aad?: Uint8Array,
): Promise<Uint8Array | null> {
  if (sealed.length < TAG_SIZE) return null
  try {
    const opened = await subtle().decrypt(
      { name: 'AES-GCM', iv: view(nonce), tagLength: 128, ...(aad ? { additionalData: view(aad) } : {}) },
      await importKey(key, 'decrypt'),
      view(sealed),
    )
    return new Uint8Array(opened)
  } catch {
    return null
  }
}

/**
 * A batch runner on WebCrypto: `size` batches (of 64 chunks) count as its threads, so the stream keeps
 * twice as many in flight. Opening only: sealing stays with the synchronous backends.
 */
export function webCryptoBatchRunner(size = 4): ChunkBatchRunner {
  // One CryptoKey per message key (a stream hands the same key object with every batch).
  const keys = new WeakMap<Uint8Array, Promise<Key>>()
  const keyFor = (key: Uint8Array) => {
    let found = keys.get(key)
    if (!found) {
      found = importKey(key, 'decrypt')
      keys.set(key, found)
    }
    return found
  }
  return {
    size,
    async run(job: BatchJob): Promise<BatchResult> {
      if (job.op !== 'open') throw new Error('The WebCrypto runner opens chunks only.')
      const key = await keyFor(job.key)
      const { data, firstIndex, final } = job
      const full = Math.floor(data.length / SEALED_CHUNK_SIZE)
      const chunks = final ? full + 1 : full
      const opened = await Promise.all(
        Array.from({ length: chunks }, async (_, k) => {
          const sealed = data.subarray(
            k * SEALED_CHUNK_SIZE,
            Math.min((k + 1) * SEALED_CHUNK_SIZE, data.length),
          )
          if (sealed.length < TAG_SIZE) return null
          try {
            const plain = await subtle().decrypt(
              { name: 'AES-GCM', iv: view(chunkNonce(job.baseNonce, firstIndex + k)), tagLength: 128 },
              key,
              view(sealed),
            )
            return new Uint8Array(plain)
          } catch {
            return null
          }
        }),
      )
      // Only chunks before the first failure are released, as openBatch does.
      const failedAt = opened.indexOf(null)
      const good = failedAt < 0 ? chunks : failedAt
      const length = opened.slice(0, good).reduce((sum, plain) => sum + plain!.length, 0)
      const out = new Uint8Array(length)
      for (let k = 0; k < good; k++) out.set(opened[k]!, k * CHUNK_SIZE)
      // The input comes back: for reuse when all went well, for the diagnosis when a chunk failed.
      return { out, failedAt, input: data }
    },
  }
}
