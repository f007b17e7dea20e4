// Reading a file, and encrypting it as a format-3 blob, on a worker thread: the main thread only
// forwards finished pieces to the socket. node:crypto allocates a fresh output buffer per 16 KiB
// chunk and a cipher object per chunk; on the main thread, with the app's heap, that garbage cost
// more CPU (full collections) than the encryption itself. On the worker it is collected in a heap of
// a few MB, and the pieces come back to the worker for reuse once the consumer is done with them.
// The thread runs file-read-thread.ts.
import { basename } from 'node:path'
import type { Worker } from 'node:worker_threads'
import {
  BATCH_PLAIN,
  BATCH_SEALED,
  CHUNK_SIZE,
  deriveFilesKey,
  deriveMessageKeys,
  encodeIdentity,
  FileCipherError,
  type FileEncryptOptions,
  type FileIdentity,
  fileContext,
  fileSalt,
  MAX_CHUNKS,
  sizeChangedError,
  stampWriteTime,
} from '../vault-format'
import type { ReadMessage, ReadRequest } from './file-read-thread'
import { startWorker } from './worker-module'

/**
 * Buffers per stream. The consumer holds at most 2 pieces (the one being written and the one it
 * just received, see RELEASE below); the other 2 let the worker read and encrypt ahead.
 */
const RING = 4
/**
 * GC pacing. Each chunk's update() output (16 KiB, outside the JS heap) dies at once, but V8 frees
 * it only at the next scavenge, which comes when the young generation (JS objects) is full: ~1 KiB
 * of objects per chunk let ~20-40 MB of dead outputs pile up. A small young generation and a 4 KiB
 * array per chunk (file-read-thread.ts, PACING_SLOTS) bring a scavenge every ~4 MB (a scavenge of this heap costs ~0.3 ms). Measured
 * on 2 cores, 1 GiB encrypted to /dev/null, 10 paired runs: peak RSS 76 MiB instead of 94, CPU
 * unchanged (ratio 1.00).
 */
const YOUNG_MB = 1

/**
 * A thread with no stream left is let go after this long: its heap, stack and buffers (10-20 MB)
 * go back to the system while no upload runs. A queue's files follow each other closely (one a
 * second when the service's rate limit paces them), so it keeps one thread; a later upload starts a
 * new one (tens of milliseconds of CPU).
 */
export const FILE_READ_IDLE_RELEASE_MS = 10_000

interface Job {
  onMessage(message: ReadMessage): void
  onCrash(error: Error): void
}

/**
 * One worker thread serving any number of streams (their pieces interleave). Unref'd while idle, so
 * it never keeps the process alive, and released after FILE_READ_IDLE_RELEASE_MS without a stream; restarted
 * by the next stream after a crash or a release.
 */
export class FileReadWorker {
  #worker: Worker | undefined
  /** Each job with the thread serving it (a thread let go or crashed fails its own jobs only). */
  readonly #jobs = new Map<number, { job: Job; worker: Worker }>()
  #nextId = 1
  #idleTimer: NodeJS.Timeout | undefined
  readonly #idleReleaseMs: number

  constructor(options: { idleReleaseMs?: number } = {}) {
    this.#idleReleaseMs = options.idleReleaseMs ?? FILE_READ_IDLE_RELEASE_MS
  }

  /** @internal Starts a job; messages for it go to `job` until it ends. */
  start(job: Job, request: Omit<Extract<ReadRequest, { op: 'start' }>, 'op' | 'id'>): number {
    clearTimeout(this.#idleTimer)
    const worker = this.#spawned()
    const id = this.#nextId++
    if (!this.#serves(worker)) worker.ref()
    this.#jobs.set(id, { job, worker })
    const message: ReadRequest = { ...request, op: 'start', id }
    worker.postMessage(message)
    return id
  }

  /** @internal */
  more(id: number, buffer: ArrayBuffer | undefined): void {
    const entry = this.#jobs.get(id)
    if (!entry) return
    const message: ReadRequest = { op: 'more', id, buffer }
    entry.worker.postMessage(message, buffer ? [buffer] : [])
  }

  /** @internal Ends a job: the worker closes its file; messages still in flight are dropped. */
  end(id: number): void {
    const entry = this.#jobs.get(id)
    if (!entry) return
    this.#jobs.delete(id)
    const message: ReadRequest = { op: 'stop', id }
    entry.worker.postMessage(message)
    if (!this.#serves(entry.worker)) {
      entry.worker.unref()
      if (entry.worker !== this.#worker) return
      clearTimeout(this.#idleTimer)
      this.#idleTimer = setTimeout(() => this.#releaseIfIdle(), this.#idleReleaseMs)
      this.#idleTimer.unref()
    }
  }

  /** Whether a thread is running now (released ones are not). */
  get running(): boolean {
    return this.#worker !== undefined
  }

  /** Stops the thread; streams still reading fail with a clear error. A later stream starts a new one. */
  async close(): Promise<void> {
    clearTimeout(this.#idleTimer)
    const worker = this.#worker
    this.#worker = undefined
    await worker?.terminate()
  }

  #releaseIfIdle(): void {
    if (this.#worker && !this.#serves(this.#worker)) void this.close()
  }

  /** Whether `worker` has a job (a thread that is stopping may still hold its own until it exits). */
  #serves(worker: Worker): boolean {
    for (const entry of this.#jobs.values()) if (entry.worker === worker) return true
    return false
  }

  #spawned(): Worker {
    if (this.#worker) return this.#worker
    const worker = startWorker('file-read-thread', { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB } })
    worker.unref()
    worker.on('message', (message: ReadMessage) => {
      const entry = this.#jobs.get(message.id)
      if (entry?.worker === worker) entry.job.onMessage(message)
    })
    const crash = (error: Error) => {
      if (this.#worker === worker) this.#worker = undefined
      const failed = [...this.#jobs].filter(([, entry]) => entry.worker === worker)
      for (const [id] of failed) this.#jobs.delete(id)
      for (const [, entry] of failed) entry.job.onCrash(error)
    }
    worker.on('error', crash)
    worker.on('exit', (code) => crash(new Error(`exit code ${code}`)))
    this.#worker = worker
    return worker
  }
}

let shared: FileReadWorker | undefined

/** One reader thread per process. */
export function sharedFileReadWorker(): FileReadWorker {
  shared ??= new FileReadWorker()
  return shared
}

export interface FileReadOptions {
  /** Bytes to read from the start of the file: the size seen before, whatever it is now. */
  size: number
  /**
   * Called once the reader stopped (all `size` bytes read, or the file ended after `bytesRead`),
   * before the last piece is released: throw to fail the stream instead (the file changed).
   * `sha256` (hex, of the `size` bytes read) when asked for and every byte was read.
   */
  afterRead?: (end: { bytesRead: number; sha256?: string }) => Promise<void> | void
  /** Hash what is read with SHA-256 on the reader thread (for the upload index: no second pass). */
  sha256?: boolean
  /**
   * RELEASE: by default pieces come from a ring of buffers that is written again once the consumer
   * asks for the piece after the next one, so it must be done with piece p (its bytes written out)
   * before it asks for piece p + 2. A pipe into a socket meets this: got and http call a write back
   * only once the socket wrote the piece, and a Readable (Readable.from) asks for a piece after
   * 'drain', so while it asks for p + 2, at most p + 1 is unwritten. False: fresh buffers the
   * consumer may keep (more garbage).
   */
  reuseBuffers?: boolean
  /** The thread to use (default: one shared by the process). */
  worker?: FileReadWorker
}

interface Plan {
  path: string
  opts: FileReadOptions
  /** Pieces yielded before the worker's (the encrypted blob's header). */
  first?: Uint8Array
  /** For encryption: the message key, base nonce and the plaintext to seal before the file's bytes. */
  seal?: { key: Uint8Array; baseNonce: Uint8Array; prefix: Uint8Array }
}

/** The owner's words for a file that could not be opened or read. */
export function readError(path: string, code: string | undefined, message: string): Error {
  const name = basename(path)
  const why =
    code === 'ENOENT'
      ? 'it no longer exists'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission was denied'
        : code === 'EISDIR'
          ? 'it is a folder'
          : message
  const error = new Error(
    `${name} could not be read (${why}), so nothing was stored. Check that the file is still there and readable, then retry.`,
  )
  ;(error as Error & { code?: string }).code = code
  return error
}

class WorkerFileStream implements AsyncIterableIterator<Uint8Array> {
  readonly #plan: Plan
  readonly #worker: FileReadWorker
  readonly #reuse: boolean
  #id = 0
  #started = false
  #done = false
  #failure: { error: unknown } | undefined
  /** Pieces received, not yet yielded. */
  readonly #ready: { bytes: Uint8Array; last: boolean; bytesRead: number; sha256?: string }[] = []
  /** Ring buffers yielded and not yet given back, oldest first. */
  readonly #held: ArrayBuffer[] = []
  #ended: { bytesRead: number } | undefined
  #wake: (() => void) | undefined

  constructor(plan: Plan) {
    this.#plan = plan
    this.#worker = plan.opts.worker ?? sharedFileReadWorker()
    this.#reuse = plan.opts.reuseBuffers ?? true
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Uint8Array> {
    return this
  }

  async next(): Promise<IteratorResult<Uint8Array>> {
    if (this.#failure) throw this.#failure.error
    if (this.#done) return { done: true, value: undefined }
    try {
      if (!this.#started) {
        this.#start()
        if (this.#plan.first) return { done: false, value: this.#plan.first }
      }
      // RELEASE: asking for this piece means the one before the last is written out.
      while (this.#held.length > 1) this.#worker.more(this.#id, this.#held.shift())
      for (;;) {
        const piece = this.#ready.shift()
        if (piece) {
          if (piece.last) await this.#checkEnd({ bytesRead: piece.bytesRead, sha256: piece.sha256 })
          if (piece.last && piece.bytes.length === 0) {
            this.#finish() // an empty file: nothing to yield
            return { done: true, value: undefined }
          }
          if (this.#reuse) this.#held.push(piece.bytes.buffer as ArrayBuffer)
          else this.#worker.more(this.#id, undefined)
          if (piece.last) this.#finish()
          return { done: false, value: piece.bytes }
        }
        if (this.#ended) {
          await this.#checkEnd({ bytesRead: this.#ended.bytesRead })
          // The reader says the file is shorter, and the check did not object: say so ourselves.
          throw sizeChangedError(
            basename(this.#plan.path),
            this.#plan.opts.size,
            this.#ended.bytesRead,
            'nothing was stored',
          )
        }
        // Set by the worker's messages while this waited (the compiler cannot see that).
        const failure = this.#failure as { error: unknown } | undefined
        if (failure) throw failure.error
        if (this.#done) return { done: true, value: undefined }
        await new Promise<void>((resolve) => {
          this.#wake = resolve
        })
      }
    } catch (error) {
      this.#failure = { error }
      this.#finish()
      throw error
    }
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    this.#finish()
    this.#done = true
    return { done: true, value: undefined }
  }

  #start(): void {
    this.#started = true
    const { path, opts, seal } = this.#plan
    this.#id = this.#worker.start(
      {
        onMessage: (message) => this.#onMessage(message),
        onCrash: (error) =>
          this.#fail(
            new Error(
              `Reading ${basename(path)} stopped because its reader thread ended unexpectedly (${error.message}); nothing was stored. Retry; if it keeps happening, restart the app.`,
            ),
          ),
      },
      {
        path,
        size: opts.size,
        credits: RING,
        sha256: opts.sha256 === true,
        ...(seal ? { key: seal.key, baseNonce: seal.baseNonce, prefix: seal.prefix } : {}),
      },
    )
    // The thread got its own copies with the message: these are no longer needed here.
    seal?.key.fill(0)
    seal?.baseNonce.fill(0)
  }

  #onMessage(message: ReadMessage): void {
    if (message.type === 'piece') {
      const bytes = new Uint8Array(message.buffer, 0, message.length)
      this.#ready.push({ bytes, last: message.last, bytesRead: message.bytesRead, sha256: message.sha256 })
    } else if (message.type === 'short') {
      this.#ended = { bytesRead: message.bytesRead }
    } else {
      this.#fail(readError(this.#plan.path, message.code, message.message))
      return
    }
    this.#wakeUp()
  }

  #fail(error: Error): void {
    this.#failure ??= { error }
    this.#finish()
  }

  #wakeUp(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }

  async #checkEnd(end: { bytesRead: number; sha256?: string }): Promise<void> {
    await this.#plan.opts.afterRead?.(end)
  }

  #finish(): void {
    if (this.#started && !this.#done) this.#worker.end(this.#id)
    this.#done = true
    this.#ready.length = 0
    this.#wakeUp() // a next() still waiting (return() called meanwhile) ends too
  }
}

/**
 * The first `opts.size` bytes of the file, read on the worker thread in pieces of 1 MiB (the last
 * shorter). See FileReadOptions.reuseBuffers for how long a piece stays valid.
 */
export function readFileInWorker(path: string, opts: FileReadOptions): AsyncIterableIterator<Uint8Array> {
  return new WorkerFileStream({ path, opts })
}

/** What sealing a file starts from: the blob's header, and the message key, base nonce and sealed prefix. */
export interface PlannedSeal {
  first: Uint8Array
  seal: { key: Uint8Array; baseNonce: Uint8Array; prefix: Uint8Array }
}

export type FileEncryptionOptions = Omit<FileReadOptions, 'size'> &
  Pick<FileEncryptOptions, 'vaultKey' | 'vaultId' | 'saltPrefix'> & { identity: FileIdentity }

/** The header and keys of a file's format-3 blob (its identity stamped with the write time, default now). */
export function planFileSeal(opts: FileEncryptionOptions): PlannedSeal {
  const prefix = encodeIdentity(stampWriteTime(opts.identity, Date.now()))
  if (Math.floor((prefix.length + opts.identity.size) / CHUNK_SIZE) + 1 > MAX_CHUNKS) {
    throw new FileCipherError('invalid-input', 'The file exceeds the format limit of 2^38 chunks (4 PiB).')
  }
  const filesKey = deriveFilesKey(opts.vaultKey)
  const salt = fileSalt(filesKey, opts.saltPrefix)
  const { key, baseNonce, commitment } = deriveMessageKeys(filesKey, salt, fileContext(opts.vaultId, 3))
  filesKey.fill(0)
  return { first: Buffer.concat([salt, commitment]), seal: { key, baseNonce, prefix } }
}

/**
 * The file as a format-3 blob, byte for byte what `encryptStream` (file-cipher.ts) writes for the
 * same identity (its writtenAtMs, default now) and salt, read and encrypted on the worker thread.
 * Exactly `identity.size` bytes are read; a file that ended early fails the stream before its final
 * chunk is sealed.
 */
export function encryptFileInWorker(
  path: string,
  opts: FileEncryptionOptions,
): AsyncIterableIterator<Uint8Array> {
  return new WorkerFileStream({ path, opts: { ...opts, size: opts.identity.size }, ...planFileSeal(opts) })
}

/** Plaintext per piece: 64 chunks (1 MiB), sealed into 64 * (16 KiB + 16) bytes. */
export const FILE_READ_PIECE_BYTES = { plain: BATCH_PLAIN, sealed: BATCH_SEALED }
