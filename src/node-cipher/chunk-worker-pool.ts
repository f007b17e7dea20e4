// Parallel AES-256-GCM over batches of chunks on worker_threads (node:crypto is synchronous per call,
// so several cores need several threads). The worker is an inline script so it works the same from
// sources (tsx, vitest), from the esbuild CLI bundle and inside Electron's main process.
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads')
const { createCipheriv, createDecipheriv } = require('node:crypto')
const CHUNK = 16384, TAG = 16, SEALED = CHUNK + TAG
const nonce = new Uint8Array(12)
function nonceFor(base, index) {
  nonce.set(base)
  let rest = index
  for (let i = 11; i >= 7; i--) { nonce[i] ^= rest % 256; rest = Math.floor(rest / 256) }
  return nonce
}
function seal(job, data) {
  const chunks = job.final ? Math.floor(data.length / CHUNK) + 1 : data.length / CHUNK
  const out = new Uint8Array(data.length + TAG * chunks)
  let o = 0
  for (let k = 0; k < chunks; k++) {
    const c = createCipheriv('aes-256-gcm', job.key, nonceFor(job.baseNonce, job.firstIndex + k))
    const b = c.update(data.subarray(k * CHUNK, Math.min((k + 1) * CHUNK, data.length)))
    out.set(b, o); o += b.length
    c.final()
    out.set(c.getAuthTag(), o); o += TAG
  }
  return { out, failedAt: -1 }
}
function open(job, data) {
  const full = Math.floor(data.length / SEALED)
  const chunks = job.final ? full + 1 : full
  const out = new Uint8Array(data.length - TAG * chunks)
  let o = 0
  for (let k = 0; k < chunks; k++) {
    const sealed = data.subarray(k * SEALED, Math.min((k + 1) * SEALED, data.length))
    if (sealed.length < TAG) return { out: out.subarray(0, o), failedAt: k }
    const d = createDecipheriv('aes-256-gcm', job.key, nonceFor(job.baseNonce, job.firstIndex + k))
    d.setAuthTag(sealed.subarray(sealed.length - TAG))
    const b = d.update(sealed.subarray(0, sealed.length - TAG))
    try { d.final() } catch { return { out: out.subarray(0, o), failedAt: k } }
    out.set(b, o); o += b.length
  }
  return { out, failedAt: -1 }
}
parentPort.on('message', (job) => {
  const data = new Uint8Array(job.buffer, job.byteOffset, job.length)
  const { out, failedAt } = job.op === 'seal' ? seal(job, data) : open(job, data)
  // The input goes back too: the caller reuses it (or needs it to diagnose a failure), and this
  // thread then holds no garbage between batches.
  parentPort.postMessage({ id: job.id, out, failedAt, input: data }, [out.buffer, job.buffer])
})
`

export interface BatchJob {
  op: 'seal' | 'open'
  key: Uint8Array
  baseNonce: Uint8Array
  firstIndex: number
  /** Whether the batch ends with the message's final (short) chunk. */
  final: boolean
  /** Moved to the worker: the caller must not use it afterwards (a failed open hands it back). */
  data: Uint8Array
}

export interface BatchResult {
  out: Uint8Array
  /** Chunk (relative to the batch) that failed to authenticate, -1 if none. `out` holds the chunks before it. */
  failedAt: number
  /** The input, handed back: for reuse, or to diagnose a failed chunk. Null when not returned. */
  input: Uint8Array | null
}

interface Slot {
  worker: Worker
  pending: Map<number, { resolve: (r: BatchResult) => void; reject: (e: Error) => void }>
}

export class ChunkWorkerPool {
  readonly size: number
  private slots: (Slot | undefined)[]
  private nextId = 1

  constructor(size = Math.max(1, Math.min(4, availableParallelism() - 1))) {
    this.size = size
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
      slot.worker.postMessage({ ...rest, id, buffer: owned.buffer, byteOffset: 0, length: owned.length }, [
        owned.buffer as ArrayBuffer,
      ])
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
    const worker = new Worker(WORKER_SOURCE, { eval: true })
    const slot: Slot = { worker, pending: new Map() }
    worker.unref()
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
    this.slots[i] = slot
    return slot
  }
}

let sharedPool: ChunkWorkerPool | undefined

/** One pool per process: workers are unref'd while idle, so they never keep the process alive. */
export function sharedChunkWorkerPool(): ChunkWorkerPool {
  sharedPool ??= new ChunkWorkerPool()
  return sharedPool
}
