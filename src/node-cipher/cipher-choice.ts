// What Node callers (the app, the recovery tool, the benches) hand the format library for speed:
// node:crypto's AES-GCM, and the worker pool where spare cores make it pay. Spread it into the
// options: encryptStream(source, { vaultKey, vaultId, identity, ...nodeCipher() }).
import { availableParallelism } from 'node:os'
import type { CipherImplementation } from '../vault-format'
import { FileCipherError, nobleAeadBackend } from '../vault-format'
import { nodeAeadBackend } from './aead-node'
import { type ChunkWorkerPool, sharedChunkWorkerPool } from './chunk-worker-pool'

/** The names the recovery tool's --backend takes. */
export type AeadBackendName = 'node' | 'noble'

/**
 * node:crypto, with batches on worker threads: `parallel` true (the shared pool), false, or a pool
 * of your own. Default: the pool only with more than 2 cores. Measured on 2 cores, one thread
 * (~0.9-1 GB/s) beats a pool, whose threads compete with the main thread's reading, copying and writing.
 */
export function nodeCipher(parallel?: boolean | ChunkWorkerPool): CipherImplementation {
  const usePool = parallel ?? availableParallelism() > 2
  const batchRunner = usePool === true ? sharedChunkWorkerPool() : usePool === false ? undefined : usePool
  return { backend: nodeAeadBackend, batchRunner }
}

/** The cipher a name stands for: 'node' (nodeCipher) or 'noble' (the library's pure-JS default, one thread). */
export function cipherByName(
  name: AeadBackendName = 'node',
  parallel?: boolean | ChunkWorkerPool,
): CipherImplementation {
  if (name === 'node') return nodeCipher(parallel)
  if (name === 'noble') return { backend: nobleAeadBackend }
  throw new FileCipherError('invalid-input', `Unknown cipher backend '${name}': use 'node' or 'noble'.`)
}
