// Reading a file and sealing it on the calling thread, when the native AES-GCM is in use. It seals into
// the piece and leaves no garbage, so the reason for the reader thread (node:crypto's per-chunk garbage
// in the app's heap, file-read-worker.ts) is gone, and so are the thread's ~12 MB. Reads go through
// libuv's pool, so a slow disk never blocks this thread; sealing 1 MiB takes ~0.25 ms of it, hashing
// it (for the upload index) ~0.5 ms. The blob and the stream's contract are encryptFileInWorker's.
import { createHash, type Hash } from 'node:crypto'
import { read } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { basename } from 'node:path'
import { type AeadBackend, sizeChangedError } from '../vault-format'
import { BATCH_PLAIN, BATCH_SEALED, CHUNK_SIZE, type ChunkAead, sealBatch } from '../vault-format/batch-api'
import { nativeAeadBackend } from './aead-native'
import {
  encryptFileInWorker,
  type FileEncryptionOptions,
  type FileReadOptions,
  type PlannedSeal,
  planFileSeal,
  readError,
} from './file-read-worker'

/**
 * Buffers of released pieces, for the next piece of any stream. A stream's own buffers would live as
 * long as it does, so V8 would keep them in old space and free them only at a full collection: that
 * let RSS creep by ~50 MB over six 1 GB uploads (bench:upload).
 */
const spare = new Map<number, Uint8Array[]>()
/** Enough for one stream (two pieces lent, one read buffer), so the pool never holds more than ~4 MB. */
const SPARE_PER_SIZE = 2

function take(length: number): Uint8Array {
  return spare.get(length)?.pop() ?? new Uint8Array(length)
}

function giveBack(buffer: Uint8Array): void {
  const list = spare.get(buffer.length) ?? []
  spare.set(buffer.length, list)
  if (list.length < SPARE_PER_SIZE) list.push(buffer)
}

/**
 * RELEASE as in FileReadOptions: piece p is valid until p + 2 is asked for; then its buffer goes back to
 * `spare` (asking once more after the last piece releases the one before it). The last piece gets a
 * fresh buffer of its exact length, since nothing says when the consumer is done with it (reuseBuffers
 * false: a fresh one for every piece).
 */
class FileHereStream implements AsyncIterableIterator<Uint8Array> {
  readonly #path: string
  readonly #opts: Omit<FileReadOptions, 'worker'>
  /** Null: the plaintext itself, in pieces of 1 MiB. */
  readonly #plan: PlannedSeal | null
  readonly #aead: ChunkAead | null
  /** Sealing: where the file's bytes are read (from `spare`, given back once all are read). */
  #readBuffer: Uint8Array | undefined
  /** Pieces yielded so far (the header included), and the spare buffers lent with them. */
  #yielded = 0
  readonly #lent: { piece: number; buffer: Uint8Array }[] = []
  #file: FileHandle | undefined
  #hash: Hash | null
  #read = 0
  #index = 0
  #state: 'new' | 'reading' | 'done' = 'new'
  /**
   * Ends the pending open or read early when return() is called: one that never comes back (a stalled
   * drive) must not hold next(). One per call, not a race against a promise the stream keeps: that
   * kept a reaction per read alive for the whole file and grew the heap by megabytes on 5 GB.
   */
  #interrupt: (() => void) | undefined
  /** A read of the descriptor is in flight, and what to call once it is back (set by #close). */
  #reading = false
  #whenReadBack: (() => void) | undefined
  #isStopped = false
  #failure: { error: unknown } | undefined

  constructor(
    path: string,
    opts: Omit<FileReadOptions, 'worker'>,
    seal: { plan: PlannedSeal; backend: AeadBackend } | null,
  ) {
    this.#path = path
    this.#opts = opts
    this.#plan = seal?.plan ?? null
    // The sealer keeps its own key (the native context, wiped when collected) but reads the base nonce
    // at every chunk: it gets a copy, and the plan's key and nonce are wiped.
    this.#aead = seal ? seal.backend.create(seal.plan.seal.key, seal.plan.seal.baseNonce.slice()) : null
    seal?.plan.seal.key.fill(0)
    seal?.plan.seal.baseNonce.fill(0)
    this.#hash = opts.sha256 ? createHash('sha256') : null
  }

  /** `operation`'s result, or 'stopped' if return() came first. */
  #unlessStopped<T>(operation: Promise<T>): Promise<T | 'stopped'> {
    return new Promise<T | 'stopped'>((resolve, reject) => {
      this.#interrupt = () => resolve('stopped')
      operation.then(resolve, reject)
    }).finally(() => {
      this.#interrupt = undefined
    })
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Uint8Array> {
    return this
  }

  async next(): Promise<IteratorResult<Uint8Array>> {
    if (this.#failure) throw this.#failure.error
    // RELEASE: asking for piece k means piece k - 2 is written out (also when the answer is "done").
    while (this.#lent.length > 0 && this.#lent[0]!.piece <= this.#yielded - 2)
      giveBack(this.#lent.shift()!.buffer)
    if (this.#state === 'done') return { done: true, value: undefined }
    try {
      if (this.#state === 'new') {
        this.#state = 'reading'
        try {
          const opening = open(this.#path, 'r')
          const file = await this.#unlessStopped(opening)
          if (file === 'stopped') {
            opening.then((late) => late.close()).catch(() => {})
            return { done: true, value: undefined }
          }
          this.#file = file
        } catch (error) {
          const { code, message } = error as NodeJS.ErrnoException
          throw readError(this.#path, code, message)
        }
        if (this.#plan) {
          this.#yielded++
          return { done: false, value: this.#plan.first }
        }
      }
      const piece = await this.#piece()
      if (!piece || this.#isStopped) return { done: true, value: undefined }
      this.#yielded++
      return { done: false, value: piece }
    } catch (error) {
      this.#failure = { error }
      await this.#close()
      throw error
    }
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    this.#isStopped = true
    this.#interrupt?.()
    // Not awaited: a handle closes only once its pending read is back.
    void this.#close()
    return { done: true, value: undefined }
  }

  /** The next piece; null once a plain read has nothing left. */
  async #piece(): Promise<Uint8Array | null> {
    if (!this.#aead) return this.#plainPiece()
    let fill = 0
    this.#readBuffer ??= take(BATCH_PLAIN)
    const plain = this.#readBuffer
    const prefix = this.#plan!.seal.prefix
    if (this.#index === 0 && prefix.length > 0) {
      plain.set(prefix)
      fill = prefix.length
    }
    const size = this.#opts.size
    const want = Math.min(size - this.#read, BATCH_PLAIN - fill)
    const got = await this.#readInto(plain, fill, want)
    if (this.#isStopped) return null
    fill += got
    if (got < want) {
      // The file ended early: no final chunk is sealed, so no complete blob of the wrong size exists.
      await this.#opts.afterRead?.({ bytesRead: this.#read })
      throw sizeChangedError(basename(this.#path), size, this.#read, 'nothing was stored')
    }
    // A full piece is never the final one (the final chunk is always short).
    const final = fill < BATCH_PLAIN
    const sealed = sealBatch(
      this.#aead,
      // The read buffer itself when whole: sealBatch keeps its chunk views.
      fill === plain.length ? plain : plain.subarray(0, fill),
      this.#index,
      final,
      final ? undefined : this.#output(BATCH_SEALED),
    )
    this.#index += Math.floor(fill / CHUNK_SIZE)
    if (final) await this.#end()
    return sealed
  }

  async #plainPiece(): Promise<Uint8Array | null> {
    const size = this.#opts.size
    if (this.#read === size) {
      await this.#end()
      return null
    }
    const want = Math.min(size - this.#read, BATCH_PLAIN)
    const piece = this.#read + want === size ? new Uint8Array(want) : this.#output(BATCH_PLAIN)
    const got = await this.#readInto(piece, 0, want)
    if (this.#isStopped) return null
    if (got < want) {
      await this.#opts.afterRead?.({ bytesRead: this.#read })
      throw sizeChangedError(basename(this.#path), size, this.#read, 'nothing was stored')
    }
    if (this.#read === size) await this.#end()
    return piece.subarray(0, got)
  }

  /** Every byte was read: the file is closed and the caller's check runs before the last piece goes out. */
  async #end(): Promise<void> {
    if (this.#readBuffer) giveBack(this.#readBuffer)
    this.#readBuffer = undefined
    const sha256 = this.#hash?.digest('hex')
    this.#hash = null
    await this.#close()
    await this.#opts.afterRead?.({ bytesRead: this.#read, sha256 })
  }

  /** Reads up to n bytes into `buffer` at `at`; fewer only at the end of the file. */
  async #readInto(buffer: Uint8Array, at: number, n: number): Promise<number> {
    let got = 0
    try {
      while (got < n) {
        const file = this.#file
        if (!file) break // stopped
        const bytesRead = await this.#readAt(file.fd, buffer, at + got, n - got, this.#read + got)
        if (bytesRead === 'stopped' || bytesRead === 0) break
        got += bytesRead
      }
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException
      throw readError(this.#path, code, message)
    }
    this.#hash?.update(buffer.subarray(at, at + got))
    this.#read += got
    return got
  }

  /**
   * One read of the descriptor, or 'stopped' if return() came first. fs.read with a callback, not
   * FileHandle.read: that made ~3 KB of garbage a read (a promise request with its own stat array, and
   * the handle's bookkeeping), most of an upload's, and so most of the young-generation collections
   * whose survivors make V8 grow the young generation (bench:upload's peak).
   */
  #readAt(
    fd: number,
    buffer: Uint8Array,
    at: number,
    n: number,
    position: number,
  ): Promise<number | 'stopped'> {
    return new Promise((resolve, reject) => {
      this.#interrupt = () => resolve('stopped')
      read(fd, buffer, at, n, position, (error, bytesRead) => {
        this.#reading = false
        this.#interrupt = undefined
        const back = this.#whenReadBack
        this.#whenReadBack = undefined
        back?.()
        if (error) reject(error)
        else resolve(bytesRead)
      })
      // After the call: one that threw made no read for a close to wait on.
      this.#reading = true
    })
  }

  /** The buffer for the next piece but the last. */
  #output(length: number): Uint8Array {
    if (this.#opts.reuseBuffers === false) return new Uint8Array(length)
    const buffer = take(length)
    this.#lent.push({ piece: this.#yielded, buffer })
    return buffer
  }

  async #close(): Promise<void> {
    this.#state = 'done'
    const file = this.#file
    this.#file = undefined
    // Reads go to the descriptor itself, which FileHandle does not track: it stays open until a read in
    // flight is back, or a file opened meanwhile could take its number and be read in its place.
    if (file && this.#reading) await new Promise<void>((resolve) => (this.#whenReadBack = resolve))
    await file?.close().catch(() => {})
  }
}

/**
 * A file as a format-3 blob (encryptFileInWorker's bytes and contract): read and sealed on this thread
 * where the native AES-GCM is in use, else on the reader thread with node:crypto.
 */
export function encryptFile(path: string, opts: FileEncryptionOptions): AsyncIterableIterator<Uint8Array> {
  const native = nativeAeadBackend()
  if (!native) return encryptFileInWorker(path, opts)
  const { worker: _, ...here } = opts
  return new FileHereStream(
    path,
    { ...here, size: opts.identity.size },
    { plan: planFileSeal(opts), backend: native },
  )
}

/** readFileInWorker's pieces and contract, read on this thread (through libuv's pool). */
export function readFileHere(
  path: string,
  opts: Omit<FileReadOptions, 'worker'>,
): AsyncIterableIterator<Uint8Array> {
  return new FileHereStream(path, opts, null)
}
