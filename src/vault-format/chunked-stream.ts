// Streaming Cobblestone-256: AsyncIterable<Uint8Array> in, AsyncIterable<Uint8Array> out, in constant
// memory. Decryption releases a chunk's plaintext only after that chunk authenticated at its index;
// on failure it diagnoses what happened (reordered, trailing data, damaged) and keeps failing.
import { availableParallelism } from 'node:os'
import { nodeAeadBackend } from '../node-cipher/aead-node'
import {
  type BatchResult,
  type ChunkWorkerPool,
  sharedChunkWorkerPool,
} from '../node-cipher/chunk-worker-pool'
import type { AeadBackend, AeadBackendName, ChunkAead } from './aead-backend'
import { nobleAeadBackend } from './aead-noble'
import { asBytes, ByteQueue } from './byte-queue'
import { concatBytes, equalBytes } from './bytes'
import {
  CHUNK_SIZE,
  chunkNonce,
  deriveMessageKeys,
  HEADER_SIZE,
  MAX_CHUNKS,
  type MessageKeys,
  SALT_SIZE,
  SEALED_CHUNK_SIZE,
  TAG_SIZE,
} from './chunked-format'
import { FileCipherError } from './file-cipher-error'
import { locateSingleByteError } from './gcm-error-locator'

/** Chunks per batch: 1 MiB of plaintext, the unit handed to a worker. */
export const BATCH_CHUNKS = 64
const BATCH_PLAIN = BATCH_CHUNKS * CHUNK_SIZE
const BATCH_SEALED = BATCH_CHUNKS * SEALED_CHUNK_SIZE

export type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>

export interface ChunkedCipherOptions {
  inputKey: Uint8Array
  context: Uint8Array
  /** 'node' (node:crypto, default) or 'noble' (pure JS, runs anywhere). */
  backend?: AeadBackendName
  /**
   * Spread batches over worker threads (node backend only): true, false, or a pool of your own.
   * Default: workers only with more than 2 cores. Measured on 2 cores, one thread (~0.9-1 GB/s)
   * beats a pool, whose threads compete with the main thread's reading, copying and writing.
   */
  parallel?: boolean | ChunkWorkerPool
}

export interface ChunkedEncryptOptions extends ChunkedCipherOptions {
  /** 24 bytes; random when omitted. Only tests and documented examples fix it. */
  salt?: Uint8Array
}

export interface ChunkedDecryptOptions extends ChunkedCipherOptions {
  /**
   * More contexts to accept, tried in order after `context` when its commitment does not match
   * (format versions tell themselves apart this way, without a byte on the wire).
   */
  fallbackContexts?: readonly Uint8Array[]
  /** Told, before any plaintext, which context matched: 0 for `context`, i + 1 for fallbackContexts[i]. */
  onContextMatched?: (index: number) => void
  /**
   * Builds the error for a commitment mismatch (the file layer tells wrong key from wrong vault).
   * `expected` holds the derived commitment of every context tried, in order.
   */
  onCommitmentMismatch?: (header: {
    salt: Uint8Array
    commitment: Uint8Array
    expected: Uint8Array[]
  }) => FileCipherError
}

export function aeadBackend(name: AeadBackendName = 'node'): AeadBackend {
  if (name === 'node') return nodeAeadBackend
  if (name === 'noble') return nobleAeadBackend
  throw new FileCipherError('invalid-input', `Unknown cipher backend '${name}': use 'node' or 'noble'.`)
}

export function randomBytes(n: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(n))
}

function workerPool(opts: ChunkedCipherOptions): ChunkWorkerPool | undefined {
  if ((opts.backend ?? 'node') !== 'node' || opts.parallel === false) return undefined
  if (opts.parallel === undefined && availableParallelism() <= 2) return undefined
  return opts.parallel === undefined || opts.parallel === true ? sharedChunkWorkerPool() : opts.parallel
}

function checkIndex(index: number): void {
  if (index >= MAX_CHUNKS) {
    throw new FileCipherError('invalid-input', 'The message exceeds the format limit of 2^38 chunks (4 PiB).')
  }
}

function sealInline(aead: ChunkAead, data: Uint8Array, firstIndex: number, final: boolean): Uint8Array {
  const chunks = final ? Math.floor(data.length / CHUNK_SIZE) + 1 : data.length / CHUNK_SIZE
  // Every byte is written below: no need for zeroed memory.
  const out: Uint8Array = Buffer.allocUnsafeSlow(data.length + TAG_SIZE * chunks)
  for (let k = 0; k < chunks; k++) {
    const plain = data.subarray(k * CHUNK_SIZE, Math.min((k + 1) * CHUNK_SIZE, data.length))
    aead.sealInto(firstIndex + k, plain, out, k * SEALED_CHUNK_SIZE)
  }
  return out
}

function openInline(aead: ChunkAead, data: Uint8Array, firstIndex: number, final: boolean): BatchResult {
  const full = Math.floor(data.length / SEALED_CHUNK_SIZE)
  const chunks = final ? full + 1 : full
  // Only what is written below is ever exposed (out.subarray up to the failing chunk).
  const out: Uint8Array = Buffer.allocUnsafeSlow(Math.max(0, data.length - TAG_SIZE * chunks))
  for (let k = 0; k < chunks; k++) {
    const sealed = data.subarray(k * SEALED_CHUNK_SIZE, Math.min((k + 1) * SEALED_CHUNK_SIZE, data.length))
    const plain = aead.open(firstIndex + k, sealed)
    if (!plain) return { out: out.subarray(0, k * CHUNK_SIZE), failedAt: k, input: data }
    out.set(plain, k * CHUNK_SIZE)
  }
  return { out, failedAt: -1, input: null }
}

/** Keeps a rejected in-flight batch from being reported as unhandled before its turn comes. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {})
  return promise
}

async function* encryptGenerator(
  source: ByteSource,
  opts: ChunkedEncryptOptions,
): AsyncGenerator<Uint8Array> {
  const backend = aeadBackend(opts.backend)
  const salt = opts.salt ?? randomBytes(SALT_SIZE)
  const { key, baseNonce, commitment } = deriveMessageKeys(opts.inputKey, salt, opts.context)
  const aead = backend.create(key, baseNonce)
  const pool = workerPool(opts)
  const depth = pool ? pool.size * 2 : 1
  const inflight: Promise<Uint8Array>[] = []
  /** Batch buffers the workers handed back, ready for reuse. */
  const spare: Uint8Array[] = []
  yield concatBytes(salt, commitment)

  let batch: Uint8Array = new Uint8Array(BATCH_PLAIN)
  let fill = 0
  let nextIndex = 0
  for await (const raw of source) {
    const piece = asBytes(raw)
    for (let p = 0; p < piece.length; ) {
      if (!pool && fill === 0 && piece.length - p >= CHUNK_SIZE) {
        // On this thread, whole chunks are sealed straight from the source piece (no batch copy).
        const chunks = Math.min(BATCH_CHUNKS, Math.floor((piece.length - p) / CHUNK_SIZE))
        checkIndex(nextIndex + chunks)
        yield sealInline(aead, piece.subarray(p, p + chunks * CHUNK_SIZE), nextIndex, false)
        nextIndex += chunks
        p += chunks * CHUNK_SIZE
        continue
      }
      const n = Math.min(piece.length - p, BATCH_PLAIN - fill)
      batch.set(piece.subarray(p, p + n), fill)
      fill += n
      p += n
      if (fill < BATCH_PLAIN) continue
      // A full chunk is never the final one (the final chunk is always short), so seal it now.
      checkIndex(nextIndex + BATCH_CHUNKS)
      if (pool) {
        const job = { op: 'seal', key, baseNonce, firstIndex: nextIndex, final: false, data: batch } as const
        inflight.push(
          quiet(
            pool.run(job).then((r) => {
              if (r.input?.length === BATCH_PLAIN) spare.push(r.input)
              return r.out
            }),
          ),
        )
      } else {
        inflight.push(Promise.resolve(sealInline(aead, batch, nextIndex, false)))
      }
      nextIndex += BATCH_CHUNKS
      if (pool) batch = spare.pop() ?? new Uint8Array(BATCH_PLAIN) // the old one moved to a worker
      fill = 0
      while (inflight.length >= depth) yield await inflight.shift()!
    }
  }
  checkIndex(nextIndex + Math.floor(fill / CHUNK_SIZE) + 1)
  while (inflight.length > 0) yield await inflight.shift()!
  yield sealInline(aead, batch.subarray(0, fill), nextIndex, true)
}

interface Failure {
  index: number
  /** Ciphertext from the failing chunk's first byte on (at least that chunk). */
  region: Uint8Array
  /** The failing chunk was read as the final (short) one. */
  asFinal: boolean
}

async function* decryptGenerator(
  source: ByteSource,
  opts: ChunkedDecryptOptions,
): AsyncGenerator<Uint8Array> {
  const backend = aeadBackend(opts.backend)
  const iterator = (
    Symbol.asyncIterator in source
      ? (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]()
      : (source as Iterable<Uint8Array>)[Symbol.iterator]()
  ) as AsyncIterator<Uint8Array> | Iterator<Uint8Array>
  const queue = new ByteQueue()
  let ended = false
  const fillTo = async (min: number) => {
    while (!ended && queue.length < min) {
      const step = await iterator.next()
      if (step.done) ended = true
      else queue.push(asBytes(step.value))
    }
  }

  await fillTo(HEADER_SIZE)
  if (queue.length < HEADER_SIZE) {
    throw new FileCipherError(
      'truncated',
      `The encrypted file is only ${queue.length} bytes long; even an empty file encrypts to ${HEADER_SIZE + TAG_SIZE}. It was cut short or is not an encrypted file.`,
    )
  }
  const header = queue.take(HEADER_SIZE)
  const salt = header.subarray(0, SALT_SIZE)
  const stored = header.subarray(SALT_SIZE)
  const contexts = [opts.context, ...(opts.fallbackContexts ?? [])]
  const expected: Uint8Array[] = []
  let matched: MessageKeys | undefined
  for (const context of contexts) {
    const keys = deriveMessageKeys(opts.inputKey, salt, context)
    expected.push(keys.commitment)
    if (equalBytes(keys.commitment, stored)) {
      matched = keys
      break
    }
  }
  if (!matched) {
    throw (
      opts.onCommitmentMismatch?.({ salt, commitment: stored, expected }) ??
      new FileCipherError(
        'wrong-key',
        'This file cannot be opened with this key and context: the header check (key commitment) does not match.',
      )
    )
  }
  opts.onContextMatched?.(expected.length - 1)
  const { key, baseNonce } = matched
  const aead = backend.create(key, baseNonce)
  const pool = workerPool(opts)
  const depth = pool ? pool.size * 2 : 1
  const inflight: { result: Promise<BatchResult>; firstIndex: number; final: boolean }[] = []

  // Yields a finished batch's plaintext; returns the failure to diagnose, if any.
  /** Batch buffers the workers handed back, ready for reuse. */
  const spare: Uint8Array[] = []
  const settle = async (
    entry: (typeof inflight)[number],
  ): Promise<{ out: Uint8Array; failure?: Failure }> => {
    const result = await entry.result
    if (result.failedAt < 0) {
      if (pool && result.input?.length === BATCH_SEALED) spare.push(result.input)
      return { out: result.out }
    }
    const input = result.input!
    const count = Math.floor(input.length / SEALED_CHUNK_SIZE) + (entry.final ? 1 : 0)
    return {
      out: result.out,
      failure: {
        index: entry.firstIndex + result.failedAt,
        region: input.subarray(result.failedAt * SEALED_CHUNK_SIZE),
        asFinal: entry.final && result.failedAt === count - 1,
      },
    }
  }

  let nextIndex = 0
  for (;;) {
    await fillTo(BATCH_SEALED + 1)
    // With more than a batch buffered, every chunk in the batch is followed by data: none is final.
    if (queue.length <= BATCH_SEALED) break
    checkIndex(nextIndex + BATCH_CHUNKS)
    // A worker needs a buffer of its own; this thread can read whole chunks in place.
    const data = pool
      ? queue.take(BATCH_SEALED, spare.pop())
      : queue.takeUnits(SEALED_CHUNK_SIZE, BATCH_SEALED)
    const chunks = data.length / SEALED_CHUNK_SIZE // read before the transfer detaches it
    const job = { op: 'open', key, baseNonce, firstIndex: nextIndex, final: false, data } as const
    const result = pool ? quiet(pool.run(job)) : Promise.resolve(openInline(aead, data, nextIndex, false))
    inflight.push({ result, firstIndex: nextIndex, final: false })
    nextIndex += chunks
    while (inflight.length >= depth) {
      const { out, failure } = await settle(inflight.shift()!)
      if (out.length > 0) yield out
      if (failure) throw diagnose(backend, aead, failure, key, baseNonce)
    }
  }
  while (inflight.length > 0) {
    const { out, failure } = await settle(inflight.shift()!)
    if (out.length > 0) yield out
    if (failure) throw diagnose(backend, aead, failure, key, baseNonce)
  }

  const rest = queue.take(queue.length)
  const lastLength = rest.length % SEALED_CHUNK_SIZE
  const lastIndex = nextIndex + Math.floor(rest.length / SEALED_CHUNK_SIZE)
  checkIndex(lastIndex)
  if (lastLength < TAG_SIZE) {
    // Authenticate what is there first, so a damaged chunk is reported as such, then report the cut.
    const { out, failure } = await settle({
      result: Promise.resolve(openInline(aead, rest.subarray(0, rest.length - lastLength), nextIndex, false)),
      firstIndex: nextIndex,
      final: false,
    })
    if (out.length > 0) yield out
    if (failure) throw diagnose(backend, aead, failure, key, baseNonce)
    throw new FileCipherError(
      'truncated',
      lastLength === 0
        ? 'The encrypted file ends without its closing part: it was cut short (an incomplete download or copy). Get a complete copy of the file.'
        : `The encrypted file ends in the middle of a part (${lastLength} stray bytes at the end): it was cut short. Get a complete copy of the file.`,
      lastIndex,
    )
  }
  const { out, failure } = await settle({
    result: Promise.resolve(openInline(aead, rest, nextIndex, true)),
    firstIndex: nextIndex,
    final: true,
  })
  if (out.length > 0) yield out
  if (failure) throw diagnose(backend, aead, failure, key, baseNonce)
}

/** Works out why chunk `index` failed, by trial decryption within the backend's budget. */
function diagnose(
  backend: AeadBackend,
  aead: ChunkAead,
  failure: Failure,
  key: Uint8Array,
  baseNonce: Uint8Array,
): FileCipherError {
  const { index, region, asFinal } = failure
  const chunk = asFinal ? region : region.subarray(0, SEALED_CHUNK_SIZE)
  const part = `Part ${index + 1} of the encrypted file (from byte ${HEADER_SIZE + index * SEALED_CHUNK_SIZE})`
  let budget = backend.diagnosisBudgetBytes

  // Reordered, repeated or dropped chunks: the chunk authenticates under another index.
  // Half the budget goes to other positions (both directions), half to the trailing-data search.
  // A trial costs at least as much as ~4 KiB of data (per-call setup), whatever the chunk's size.
  const trialCost = Math.max(chunk.length, 4096)
  const window = Math.min(4096, Math.max(1, Math.floor(budget / 4 / trialCost)))
  for (let distance = 1; distance <= window && budget > 0; distance++) {
    for (const j of [index + distance, index - distance]) {
      if (j < 0 || j >= MAX_CHUNKS) continue
      budget -= trialCost
      if (aead.open(j, chunk)) {
        return new FileCipherError(
          'reordered',
          `${part} is authentic but belongs at position ${j + 1}: parts of the file were swapped, repeated or lost (for example by a faulty copy). Get another copy of the encrypted file.`,
          index,
        )
      }
    }
  }

  // Trailing data: a shorter prefix is a valid final chunk, so everything after it was appended.
  const longest = Math.min(region.length - 1, SEALED_CHUNK_SIZE - 1)
  for (let length = TAG_SIZE; length <= longest && budget > 0; length++) {
    budget -= length + 1024
    if (aead.open(index, region.subarray(0, length))) {
      return new FileCipherError(
        'trailing-data',
        `The encrypted file has extra data after its real end (after byte ${HEADER_SIZE + index * SEALED_CHUNK_SIZE + length}): something was appended to it. The data before that is intact; remove the extra bytes or get a clean copy.`,
        index,
      )
    }
  }

  // A final chunk that fails is either cut short or altered; one changed byte leaves a trace we can find.
  const start = HEADER_SIZE + index * SEALED_CHUNK_SIZE
  const changed = locateSingleByteError(key, chunkNonce(baseNonce, index), chunk)
  if (asFinal && changed === null) {
    return new FileCipherError(
      'truncated',
      `The encrypted file ends early: its last part (from byte ${start}) is incomplete, so the file was cut short, for example by an interrupted download or copy. Get another, complete copy of the file.`,
      index,
    )
  }
  const where = changed === null ? '' : ` (byte ${start + changed} was altered)`
  return new FileCipherError(
    'damaged',
    `${part} has been changed or damaged${where}, so its contents cannot be trusted and nothing from it is released. Get another copy of the encrypted file.`,
    index,
  )
}

/**
 * An async iterator that, once it failed, keeps failing with the same error on every later read
 * (a plain async generator would report a clean end instead).
 */
export class StickyIterator<T> implements AsyncIterableIterator<T> {
  private failure: { error: unknown } | undefined
  constructor(private readonly inner: AsyncGenerator<T>) {}

  async next(): Promise<IteratorResult<T>> {
    if (this.failure) throw this.failure.error
    try {
      return await this.inner.next()
    } catch (error) {
      this.failure = { error }
      throw error
    }
  }

  async return(value?: unknown): Promise<IteratorResult<T>> {
    if (this.failure) return { done: true, value: undefined }
    return this.inner.return(value as T)
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this
  }
}

/**
 * Encrypts `source`. Each source piece is used up before the next is asked for, so the source may
 * reuse its buffers. Every piece yielded is a buffer of its own that the consumer may keep.
 */
export function encryptChunked(
  source: ByteSource,
  opts: ChunkedEncryptOptions,
): AsyncIterableIterator<Uint8Array> {
  return new StickyIterator(encryptGenerator(source, opts))
}

/**
 * Decrypts `source`, releasing each chunk's plaintext only once it authenticated. Source pieces are
 * kept (and read in place) until their chunks are opened, so the source must not reuse its buffers.
 */
export function decryptChunked(
  source: ByteSource,
  opts: ChunkedDecryptOptions,
): AsyncIterableIterator<Uint8Array> {
  return new StickyIterator(decryptGenerator(source, opts))
}

export async function collectBytes(source: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  for await (const part of source) parts.push(part)
  return concatBytes(...parts)
}
