// A thread of ChunkWorkerPool: seals or opens one batch of chunks per message with the pool's backend, and
// hands the input back with the output (the pool reuses it, or needs it to diagnose a failure), so
// this thread holds no garbage between batches.
import { parentPort } from 'node:worker_threads'
import { type BatchJob, openBatch, sealBatch } from '../vault-format/batch-api'
import { nativeAeadBackend } from './aead-native'
import { nodeAeadBackend } from './aead-node'

export type WorkerBackend = 'node' | 'native'

/** A BatchJob as posted: its data moved over as a whole buffer. */
export interface ChunkWorkerJob extends Omit<BatchJob, 'data'> {
  id: number
  backend: WorkerBackend
  buffer: ArrayBuffer
  length: number
}

const port = parentPort!
port.on('message', (job: ChunkWorkerJob) => {
  const data = new Uint8Array(job.buffer, 0, job.length)
  // A pool is made for 'native' only where the main thread loaded it; this thread loads the same file.
  const backend = job.backend === 'native' ? (nativeAeadBackend() ?? nodeAeadBackend) : nodeAeadBackend
  const aead = backend.create(job.key, job.baseNonce)
  const { out, failedAt } =
    job.op === 'seal'
      ? { out: sealBatch(aead, data, job.firstIndex, job.final), failedAt: -1 }
      : openBatch(aead, data, job.firstIndex, job.final)
  port.postMessage({ id: job.id, out, failedAt, input: data }, [out.buffer as ArrayBuffer, job.buffer])
})
