// Chunks are sealed and opened in batches of 64 (1 MiB of plaintext): on the stream's own thread, or
// by a batch runner the host injects (src/node-cipher's worker pool), several batches at a time.
// A runner only has to run sealBatch/openBatch below on its own thread and hand back the result.
import type { AeadBackend, ChunkAead } from './aead-backend'
import { CHUNK_SIZE, SEALED_CHUNK_SIZE, TAG_SIZE } from './chunked-format'

/** Chunks per batch: 1 MiB of plaintext, the unit handed to a runner. */
export const BATCH_CHUNKS = 64
export const BATCH_PLAIN = BATCH_CHUNKS * CHUNK_SIZE
export const BATCH_SEALED = BATCH_CHUNKS * SEALED_CHUNK_SIZE

export interface BatchJob {
  op: 'seal' | 'open'
  /** The message key and base nonce (the runner creates its own AEAD from them). */
  key: Uint8Array
  baseNonce: Uint8Array
  firstIndex: number
  /** Whether the batch ends with the message's final (short) chunk. */
  final: boolean
  /** Moved to the runner: the caller must not use it afterwards (the result hands it back). */
  data: Uint8Array
}

export interface BatchResult {
  out: Uint8Array
  /** Chunk (relative to the batch) that failed to authenticate, -1 if none. `out` holds the chunks before it. */
  failedAt: number
  /** The input, handed back: for reuse, or to diagnose a failed chunk. Null when not returned. */
  input: Uint8Array | null
}

/** Runs batches off the stream's thread (node-cipher's ChunkWorkerPool), results in any order. */
export interface ChunkBatchRunner {
  /** Threads it runs on: the stream keeps twice as many batches in flight. */
  readonly size: number
  run(job: BatchJob): Promise<BatchResult>
}

/** Which AES-GCM seals the chunks (default: noble, pure JS) and who runs batches of them (default: the stream). */
export interface CipherImplementation {
  backend?: AeadBackend
  batchRunner?: ChunkBatchRunner
}

/** Bytes sealBatch writes for `plainBytes` of plaintext (and the final chunk, if `final`). */
export function sealedBatchLength(plainBytes: number, final: boolean): number {
  const chunks = final ? Math.floor(plainBytes / CHUNK_SIZE) + 1 : plainBytes / CHUNK_SIZE
  return plainBytes + TAG_SIZE * chunks
}

/**
 * The chunk views of a whole batch, kept with the batch buffer: a reader that seals every batch from the
 * same buffer makes no new views (64 per MiB were most of a 5 GB upload's garbage).
 */
const batchViews = new WeakMap<Uint8Array, Uint8Array[]>()
function wholeBatchViews(data: Uint8Array): Uint8Array[] | null {
  if (data.length !== BATCH_PLAIN) return null
  let views = batchViews.get(data)
  if (!views) {
    views = Array.from({ length: BATCH_CHUNKS }, (_, k) =>
      data.subarray(k * CHUNK_SIZE, (k + 1) * CHUNK_SIZE),
    )
    batchViews.set(data, views)
  }
  return views
}

/**
 * Seals plaintext chunks firstIndex.. (all whole unless `final`, whose last chunk is short or empty)
 * into `out` (at least sealedBatchLength bytes); returns the sealed bytes.
 */
export function sealBatch(
  aead: ChunkAead,
  data: Uint8Array,
  firstIndex: number,
  final: boolean,
  out: Uint8Array = new Uint8Array(sealedBatchLength(data.length, final)),
): Uint8Array {
  const chunks = final ? Math.floor(data.length / CHUNK_SIZE) + 1 : data.length / CHUNK_SIZE
  const views = final ? null : wholeBatchViews(data)
  for (let k = 0; k < chunks; k++) {
    const plain = views?.[k] ?? data.subarray(k * CHUNK_SIZE, Math.min((k + 1) * CHUNK_SIZE, data.length))
    aead.sealInto(firstIndex + k, plain, out, k * SEALED_CHUNK_SIZE)
  }
  const length = data.length + TAG_SIZE * chunks
  return out.length === length ? out : out.subarray(0, length)
}

/** Opens sealed chunks firstIndex.., stopping at the first that does not authenticate. */
export function openBatch(
  aead: ChunkAead,
  data: Uint8Array,
  firstIndex: number,
  final: boolean,
  allocate: (length: number) => Uint8Array = (length) => new Uint8Array(length),
): BatchResult {
  const full = Math.floor(data.length / SEALED_CHUNK_SIZE)
  const chunks = final ? full + 1 : full
  // Only what is written below is ever exposed (out.subarray up to the failing chunk).
  const out = allocate(Math.max(0, data.length - TAG_SIZE * chunks))
  for (let k = 0; k < chunks; k++) {
    const sealed = data.subarray(k * SEALED_CHUNK_SIZE, Math.min((k + 1) * SEALED_CHUNK_SIZE, data.length))
    if (aead.openInto) {
      if (!aead.openInto(firstIndex + k, sealed, out, k * CHUNK_SIZE))
        return { out: out.subarray(0, k * CHUNK_SIZE), failedAt: k, input: data }
      continue
    }
    const plain = aead.open(firstIndex + k, sealed)
    if (!plain) return { out: out.subarray(0, k * CHUNK_SIZE), failedAt: k, input: data }
    out.set(plain, k * CHUNK_SIZE)
  }
  return { out, failedAt: -1, input: null }
}

export interface FinishedBatch {
  result: BatchResult
  firstIndex: number
  final: boolean
}

/**
 * The batches of one stream, oldest first: run at once on this thread, or by the runner with up to
 * two per runner thread in flight. Input buffers the runner hands back are kept for the next batches.
 */
export class BatchQueue {
  readonly #inflight: { result: Promise<BatchResult>; firstIndex: number; final: boolean }[] = []
  readonly #spare: Uint8Array[] = []
  readonly #depth: number
  readonly #batchBytes: number
  readonly #allocate: ((length: number) => Uint8Array) | undefined

  constructor(
    private readonly op: 'seal' | 'open',
    private readonly keys: { key: Uint8Array; baseNonce: Uint8Array },
    private readonly aead: ChunkAead,
    backend: AeadBackend,
    private readonly runner: ChunkBatchRunner | undefined,
  ) {
    this.#depth = runner ? runner.size * 2 : 1
    this.#batchBytes = op === 'seal' ? BATCH_PLAIN : BATCH_SEALED
    this.#allocate = backend.allocate?.bind(backend)
  }

  get length(): number {
    return this.#inflight.length
  }

  /** As many batches in flight as the runner can use: take the oldest before sending more. */
  get full(): boolean {
    return this.#inflight.length >= this.#depth
  }

  /** A full-size input buffer the runner handed back, if any. */
  spare(): Uint8Array | undefined {
    return this.#spare.pop()
  }

  send(data: Uint8Array, firstIndex: number, final: boolean): void {
    const result = this.runner
      ? quiet(
          this.runner.run({ op: this.op, ...this.keys, firstIndex, final, data }).then((r) => {
            if (r.failedAt < 0 && r.input?.length === this.#batchBytes) this.#spare.push(r.input)
            return r
          }),
        )
      : Promise.resolve(this.runHere(data, firstIndex, final).result)
    this.#inflight.push({ result, firstIndex, final })
  }

  /** Runs a batch on this thread, now (the final chunk is always opened and sealed here). */
  runHere(data: Uint8Array, firstIndex: number, final: boolean): FinishedBatch {
    const allocate = this.#allocate
    const result =
      this.op === 'open'
        ? openBatch(this.aead, data, firstIndex, final, allocate)
        : {
            out: sealBatch(
              this.aead,
              data,
              firstIndex,
              final,
              allocate?.(sealedBatchLength(data.length, final)),
            ),
            failedAt: -1,
            input: null,
          }
    return { result, firstIndex, final }
  }

  async next(): Promise<FinishedBatch> {
    const { result, firstIndex, final } = this.#inflight.shift()!
    return { result: await result, firstIndex, final }
  }
}

/** Keeps a rejected in-flight batch from being reported as unhandled before its turn comes. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {})
  return promise
}
