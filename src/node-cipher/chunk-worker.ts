// A thread of ChunkWorkerPool: seals or opens one batch of chunks per message with node:crypto, and
// hands the input back with the output (the pool reuses it, or needs it to diagnose a failure), so
// this thread holds no garbage between batches.
import { parentPort } from 'node:worker_threads'
import { type BatchJob, openBatch, sealBatch } from '../vault-format/batch-api'
import { nodeAeadBackend } from './aead-node'

/** A BatchJob as posted: its data moved over as a whole buffer. */
export interface ChunkWorkerJob extends Omit<BatchJob, 'data'> {
  id: number
  buffer: ArrayBuffer
  length: number
}

const port = parentPort!
port.on('message', (job: ChunkWorkerJob) => {
  const data = new Uint8Array(job.buffer, 0, job.length)
  const aead = nodeAeadBackend.create(job.key, job.baseNonce)
  const { out, failedAt } =
    job.op === 'seal'
      ? { out: sealBatch(aead, data, job.firstIndex, job.final), failedAt: -1 }
      : openBatch(aead, data, job.firstIndex, job.final)
  port.postMessage({ id: job.id, out, failedAt, input: data }, [out.buffer as ArrayBuffer, job.buffer])
})
