// Streaming Cobblestone-256 (c2sp.org/chunked-encryption): bytes in, bytes out, in constant memory.
// Chunks go in batches (chunk-batch.ts), on this thread or on an injected runner. Decryption releases
// a chunk's plaintext only once it authenticated at its index; the first failure is diagnosed
// (chunk-failure.ts) and the stream keeps failing with it.
import { nobleAeadBackend } from './aead-noble'
import { asBytes, type ByteSource, SourceQueue } from './byte-queue'
import { concatBytes, equalBytes, randomBytes } from './bytes'
import {
  BATCH_CHUNKS,
  BATCH_PLAIN,
  BATCH_SEALED,
  BatchQueue,
  type CipherImplementation,
  type FinishedBatch,
} from './chunk-batch'
import { diagnoseChunkFailure, endCutShort, failedChunk, headerCutShort } from './chunk-failure'
import {
  CHUNK_SIZE,
  deriveMessageKeys,
  HEADER_SIZE,
  MAX_CHUNKS,
  type MessageKeys,
  SALT_SIZE,
  SEALED_CHUNK_SIZE,
  TAG_SIZE,
} from './chunked-format'
import { FileCipherError } from './format-errors'
import { StickyIterator } from './sticky-iterator'

export interface ChunkedCipherOptions extends CipherImplementation {
  inputKey: Uint8Array
  context: Uint8Array
  /**
   * The caller derived `inputKey` for this stream alone: zero it once the message keys are derived
   * (and, decrypting, once a mismatch has been explained).
   */
  wipeInputKey?: boolean
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

function checkIndex(index: number): void {
  if (index >= MAX_CHUNKS) {
    throw new FileCipherError('invalid-input', 'The message exceeds the format limit of 2^38 chunks (4 PiB).')
  }
}

/**
 * Zeroes a stream's message key and base nonce once it ended, however it ended. Batches already sent
 * to a runner carry copies (a posted message, an imported CryptoKey) that this cannot reach.
 */
function wipeMessageKeys(keys: MessageKeys): void {
  keys.key.fill(0)
  keys.baseNonce.fill(0)
}

async function* encryptGenerator(
  source: ByteSource,
  opts: ChunkedEncryptOptions,
): AsyncGenerator<Uint8Array> {
  const backend = opts.backend ?? nobleAeadBackend
  const runner = opts.batchRunner
  const salt = opts.salt ?? randomBytes(SALT_SIZE)
  const keys = deriveMessageKeys(opts.inputKey, salt, opts.context)
  if (opts.wipeInputKey) opts.inputKey.fill(0)
  try {
    const aead = backend.create(keys.key, keys.baseNonce)
    const batches = new BatchQueue('seal', keys, aead, backend, runner)
    yield concatBytes(salt, keys.commitment)

    let batch: Uint8Array = new Uint8Array(BATCH_PLAIN)
    let fill = 0
    let index = 0 // of the next chunk to seal
    for await (const raw of source) {
      const piece = asBytes(raw)
      for (let p = 0; p < piece.length; ) {
        if (!runner && fill === 0 && piece.length - p >= CHUNK_SIZE) {
          // Fast path: whole chunks sealed straight from the source's piece, without a copy.
          const chunks = Math.min(BATCH_CHUNKS, Math.floor((piece.length - p) / CHUNK_SIZE))
          checkIndex(index + chunks)
          yield batches.runHere(piece.subarray(p, p + chunks * CHUNK_SIZE), index, false).result.out
          index += chunks
          p += chunks * CHUNK_SIZE
          continue
        }
        const n = Math.min(piece.length - p, BATCH_PLAIN - fill)
        batch.set(piece.subarray(p, p + n), fill)
        fill += n
        p += n
        if (fill < BATCH_PLAIN) continue
        // A full batch never holds the final chunk (that one is always short): seal it now.
        checkIndex(index + BATCH_CHUNKS)
        batches.send(batch, index, false)
        index += BATCH_CHUNKS
        fill = 0
        // A runner took the buffer; on this thread it is done with and refilled.
        if (runner) batch = batches.spare() ?? new Uint8Array(BATCH_PLAIN)
        while (batches.full) yield (await batches.next()).result.out
      }
    }
    checkIndex(index + Math.floor(fill / CHUNK_SIZE) + 1)
    while (batches.length > 0) yield (await batches.next()).result.out
    yield batches.runHere(batch.subarray(0, fill), index, true).result.out
  } finally {
    wipeMessageKeys(keys)
  }
}

/** The message keys of the first context whose commitment matches the header's; throws when none does. */
function matchHeader(header: Uint8Array, opts: ChunkedDecryptOptions): MessageKeys {
  const salt = header.subarray(0, SALT_SIZE)
  const stored = header.subarray(SALT_SIZE)
  const expected: Uint8Array[] = []
  for (const context of [opts.context, ...(opts.fallbackContexts ?? [])]) {
    const keys = deriveMessageKeys(opts.inputKey, salt, context)
    expected.push(keys.commitment)
    if (equalBytes(keys.commitment, stored)) {
      opts.onContextMatched?.(expected.length - 1)
      return keys
    }
    wipeMessageKeys(keys)
  }
  throw (
    opts.onCommitmentMismatch?.({ salt, commitment: stored, expected }) ??
    new FileCipherError(
      'wrong-key',
      'This file cannot be opened with this key and context: the header check (key commitment) does not match.',
    )
  )
}

async function* decryptGenerator(
  source: ByteSource,
  opts: ChunkedDecryptOptions,
): AsyncGenerator<Uint8Array> {
  const backend = opts.backend ?? nobleAeadBackend
  const runner = opts.batchRunner
  const input = new SourceQueue(source)
  if ((await input.fill(HEADER_SIZE)) < HEADER_SIZE) throw headerCutShort(input.length)
  let keys: MessageKeys
  try {
    keys = matchHeader(input.take(HEADER_SIZE), opts)
  } finally {
    if (opts.wipeInputKey) opts.inputKey.fill(0)
  }
  try {
    const aead = backend.create(keys.key, keys.baseNonce)
    const batches = new BatchQueue('open', keys, aead, backend, runner)

    /** A finished batch's plaintext, then the diagnosis of its failed chunk, if any. */
    function* release(batch: FinishedBatch): Generator<Uint8Array> {
      if (batch.result.out.length > 0) yield batch.result.out
      if (batch.result.failedAt >= 0) throw diagnoseChunkFailure(backend, aead, failedChunk(batch), keys)
    }

    let index = 0 // of the next chunk to open
    // Chunks that straddle source pieces are copied here when opened on this thread: a batch is
    // opened before the next is taken, so one buffer, made at the first such copy, serves them all.
    let straddling: Uint8Array | undefined
    const scratch = () => (straddling ??= new Uint8Array(BATCH_SEALED))
    // With more than a batch buffered, no chunk of the batch is the final one.
    while ((await input.fill(BATCH_SEALED + 1)) > BATCH_SEALED) {
      checkIndex(index + BATCH_CHUNKS)
      // A runner needs a buffer of its own; this thread reads whole chunks in place.
      const data = runner
        ? input.take(BATCH_SEALED, batches.spare())
        : input.takeUnits(SEALED_CHUNK_SIZE, BATCH_SEALED, scratch)
      const chunks = data.length / SEALED_CHUNK_SIZE // read before a transfer detaches it
      batches.send(data, index, false)
      index += chunks
      while (batches.full) yield* release(await batches.next())
    }
    while (batches.length > 0) yield* release(await batches.next())

    // What is left ends with the final chunk.
    const rest = input.take(input.length)
    const lastLength = rest.length % SEALED_CHUNK_SIZE
    const lastIndex = index + Math.floor(rest.length / SEALED_CHUNK_SIZE)
    checkIndex(lastIndex)
    if (lastLength < TAG_SIZE) {
      // Authenticate what is there first, so a damaged chunk is reported as such, then report the cut.
      yield* release(batches.runHere(rest.subarray(0, rest.length - lastLength), index, false))
      throw endCutShort(lastLength, lastIndex)
    }
    yield* release(batches.runHere(rest, index, true))
  } finally {
    wipeMessageKeys(keys)
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
