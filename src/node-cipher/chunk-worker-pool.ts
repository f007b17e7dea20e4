// Parallel AES-256-GCM over batches of chunks on worker_threads (node:crypto is synchronous per call,
// so several cores need several threads): the format library's ChunkBatchRunner. Each thread runs
// chunk-worker.ts, with node:crypto or, for a pool made for it, the native AES-GCM.
import { availableParallelism } from 'node:os'
import type { Worker } from 'node:worker_threads'
import type { BatchJob, BatchResult, ChunkBatchRunner } from '../vault-format'
import type { ChunkWorkerJob, WorkerBackend } from './chunk-worker'
import { startWorker } from './worker-module'

interface Slot {
  worker: Worker
  pending: Map<number, { resolve: (r: BatchResult) => void; reject: (e: Error) => void }>
}

export class ChunkWorkerPool implements ChunkBatchRunner {
  readonly size: number
  readonly backend: WorkerBackend
  private slots: (Slot | undefined)[]
  private nextId = 1

  constructor(size = Math.max(1, Math.min(4, availableParallelism() - 1)), backend: WorkerBackend = 'node') {
    this.size = size
    this.backend = backend
    this.slots = new Array(size).fill(undefined)
  }

  run(job: BatchJob): Promise<BatchResult> {
    const slot = this.leastBusySlot()
    const id = this.nextId++
    const { data, ...rest } = job
    // Transfer needs a buffer the batch owns whole; copy the rare view that shares one.
    const owned = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? data : data.slice()
    return new Promise<BatchResult>((resolve, reject) => {
      if (slot.pending.size === 0) slot.worker.ref()
      slot.pending.set(id, { resolve, reject })
      const message: ChunkWorkerJob = {
        ...rest,
        id,
        backend: this.backend,
        buffer: owned.buffer as ArrayBuffer,
        length: owned.length,
      }
      slot.worker.postMessage(message, [message.buffer])
    })
  }

  /** Stops the workers; a later run() starts new ones. */
  async close(): Promise<void> {
    const slots = this.slots
    this.slots = new Array(this.size).fill(undefined)
    await Promise.all(slots.map((slot) => slot?.worker.terminate()))
  }

  private leastBusySlot(): Slot {
    let best: Slot | undefined
    for (let i = 0; i < this.size; i++) {
      const slot = this.slots[i] ?? this.spawn(i)
      if (!best || slot.pending.size < best.pending.size) best = slot
    }
    return best!
  }

  private spawn(i: number): Slot {
    const worker = startWorker('chunk-worker')
    const slot: Slot = { worker, pending: new Map() }
    worker.on('message', (msg: { id: number } & BatchResult) => {
      const waiter = slot.pending.get(msg.id)
      if (!waiter) return
      slot.pending.delete(msg.id)
      if (slot.pending.size === 0) worker.unref()
      waiter.resolve({ out: msg.out, failedAt: msg.failedAt, input: msg.input })
    })
    const fail = (error: Error) => {
      if (this.slots[i] === slot) this.slots[i] = undefined
      for (const waiter of slot.pending.values()) waiter.reject(error)
      slot.pending.clear()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`encryption worker stopped (exit code ${code})`)))
    // Idle until run() refs it. Only after the listeners: adding a 'message' listener refs a worker again,
    // and a slot that never got a batch then kept the recovery tool from exiting.
    worker.unref()
    this.slots[i] = slot
    return slot
  }
}

const sharedPools = new Map<WorkerBackend, ChunkWorkerPool>()

/** One pool per process and backend: workers are unref'd while idle, so they never keep the process alive. */
export function sharedChunkWorkerPool(backend: WorkerBackend = 'node'): ChunkWorkerPool {
  let pool = sharedPools.get(backend)
  if (!pool) {
    pool = new ChunkWorkerPool(undefined, backend)
    sharedPools.set(backend, pool)
  }
  return pool
}
