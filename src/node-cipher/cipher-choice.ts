// What Node callers (the app, the recovery tool, the benches) hand the format library for speed: the
// native AES-GCM where it is built (aead-native.ts), else node:crypto's, and the worker pool where spare
// cores make it pay. Spread it into the options: encryptStream(source, { vaultKey, vaultId, identity, ...nodeCipher() }).
import { availableParallelism } from 'node:os'
import type { AeadBackend, CipherImplementation } from '../vault-format'
import { FileCipherError, nobleAeadBackend } from '../vault-format'
import { nativeAeadBackend } from './aead-native'
import { nodeAeadBackend } from './aead-node'
import { type ChunkWorkerPool, sharedChunkWorkerPool } from './chunk-worker-pool'

/** The names the recovery tool's --backend takes, and 'native' (the app's, where it is built). */
export type AeadBackendName = 'node' | 'noble' | 'native'

/** The fastest AES-GCM this process has: the native one if it loaded and passed its check, else node:crypto. */
export function fastestAeadBackend(): AeadBackend {
  return nativeAeadBackend() ?? nodeAeadBackend
}

/** The name of fastestAeadBackend(), for callers that pass a backend by name (the recovery's options). */
export function fastestBackendName(): AeadBackendName {
  return nativeAeadBackend() ? 'native' : 'node'
}

/**
 * The fastest backend, with batches on worker threads: `parallel` true (the shared pool), false, or a
 * pool of your own. Default: the pool only with more than 2 cores. Measured on 2 cores, one thread
 * (~0.9-1 GB/s with node:crypto) beats a pool, whose threads compete with the main thread's reading,
 * copying and writing.
 */
export function nodeCipher(parallel?: boolean | ChunkWorkerPool): CipherImplementation {
  return withPool(fastestAeadBackend(), parallel)
}

function withPool(backend: AeadBackend, parallel?: boolean | ChunkWorkerPool): CipherImplementation {
  const usePool = parallel ?? availableParallelism() > 2
  const shared = () => sharedChunkWorkerPool(backend.name === 'native' ? 'native' : 'node')
  const batchRunner = usePool === true ? shared() : usePool === false ? undefined : usePool
  return { backend, batchRunner }
}

/**
 * The cipher a name stands for: 'node' (node:crypto, what the recovery tool uses: it ships no native
 * code), 'native' (an error where it is not built) or 'noble' (the library's pure-JS default, one thread).
 */
export function cipherByName(
  name: AeadBackendName = 'node',
  parallel?: boolean | ChunkWorkerPool,
): CipherImplementation {
  if (name === 'node') return withPool(nodeAeadBackend, parallel)
  if (name === 'noble') return { backend: nobleAeadBackend }
  if (name === 'native') {
    const native = nativeAeadBackend()
    if (!native)
      throw new FileCipherError(
        'invalid-input',
        'The native AES-GCM is not available here: run `node scripts/build-native-cipher.mjs` to see why.',
      )
    return withPool(native, parallel)
  }
  throw new FileCipherError('invalid-input', `Unknown cipher backend '${name}': use 'node' or 'noble'.`)
}
