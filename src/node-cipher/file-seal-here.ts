// Reading a file and sealing it on the calling thread, when the native AES-GCM is in use. It seals into
// the piece and leaves no garbage, so the reason for the reader thread (node:crypto's per-chunk garbage
// in the app's heap, file-read-worker.ts) is gone, and so are the thread's ~12 MB. Reads go through
// libuv's pool, so a slow disk never blocks this thread; sealing 1 MiB takes ~0.25 ms of it, hashing
// it (for the upload index) ~0.5 ms. The blob and the stream's contract are encryptFileInWorker's.
import { createHash, type Hash } from 'node:crypto'
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
 * RELEASE as in FileReadOptions: piece p is valid until p + 2 is asked for, so two sealed buffers
 * serve in turn (reuseBuffers false: a fresh one per piece).
 */
class FileHereStream implements AsyncIterableIterator<Uint8Array> {
  readonly #path: string
  readonly #opts: Omit<FileReadOptions, 'worker'>
  /** Null: the plaintext itself, in pieces of 1 MiB (a ring of two read buffers). */
  readonly #plan: PlannedSeal | null
  readonly #aead: ChunkAead | null
  #plain: Uint8Array = new Uint8Array(BATCH_PLAIN)
  readonly #ring: Uint8Array[] = []
  #turn = 0
  #file: FileHandle | undefined
  #hash: Hash | null
  #read = 0
  #index = 0
  #state: 'new' | 'reading' | 'done' = 'new'
  /** Settles when return() is called: a read that never comes back (a stalled drive) must not hold next(). */
  readonly #stopped: Promise<'stopped'>
  #stop: () => void = () => {}
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
    this.#stopped = new Promise((resolve) => {
      this.#stop = () => {
        this.#isStopped = true
        resolve('stopped')
      }
    })
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Uint8Array> {
    return this
  }

  async next(): Promise<IteratorResult<Uint8Array>> {
    if (this.#failure) throw this.#failure.error
    if (this.#state === 'done') return { done: true, value: undefined }
    try {
      if (this.#state === 'new') {
        this.#state = 'reading'
        try {
          const opening = open(this.#path, 'r')
          const file = await Promise.race([opening, this.#stopped])
          if (file === 'stopped') {
            opening.then(
              (late) => late.close(),
              () => {},
            )
            return { done: true, value: undefined }
          }
          this.#file = file
        } catch (error) {
          const { code, message } = error as NodeJS.ErrnoException
          throw readError(this.#path, code, message)
        }
        if (this.#plan) return { done: false, value: this.#plan.first }
      }
      const piece = await this.#piece()
      return piece && !this.#isStopped ? { done: false, value: piece } : { done: true, value: undefined }
    } catch (error) {
      this.#failure = { error }
      await this.#close()
      throw error
    }
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    this.#stop()
    // Not awaited: a handle closes only once its pending read is back.
    void this.#close()
    return { done: true, value: undefined }
  }

  /** The next piece; null once a plain read has nothing left. */
  async #piece(): Promise<Uint8Array | null> {
    if (!this.#aead) return this.#plainPiece()
    let fill = 0
    const prefix = this.#plan!.seal.prefix
    if (this.#index === 0 && prefix.length > 0) {
      this.#plain.set(prefix)
      fill = prefix.length
    }
    const size = this.#opts.size
    const want = Math.min(size - this.#read, BATCH_PLAIN - fill)
    const got = await this.#readInto(fill, want)
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
      this.#plain.subarray(0, fill),
      this.#index,
      final,
      this.#output(BATCH_SEALED),
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
    this.#plain = this.#output(BATCH_PLAIN)
    const want = Math.min(size - this.#read, BATCH_PLAIN)
    const got = await this.#readInto(0, want)
    if (this.#isStopped) return null
    if (got < want) {
      await this.#opts.afterRead?.({ bytesRead: this.#read })
      throw sizeChangedError(basename(this.#path), size, this.#read, 'nothing was stored')
    }
    if (this.#read === size) await this.#end()
    return this.#plain.subarray(0, got)
  }

  /** Every byte was read: the file is closed and the caller's check runs before the last piece goes out. */
  async #end(): Promise<void> {
    const sha256 = this.#hash?.digest('hex')
    this.#hash = null
    await this.#close()
    await this.#opts.afterRead?.({ bytesRead: this.#read, sha256 })
  }

  /** Reads up to n bytes into the plaintext buffer at `at`; fewer only at the end of the file. */
  async #readInto(at: number, n: number): Promise<number> {
    let got = 0
    try {
      while (got < n) {
        const file = this.#file
        if (!file) break // stopped
        const read = await Promise.race([
          file.read(this.#plain, at + got, n - got, this.#read + got),
          this.#stopped,
        ])
        if (read === 'stopped') break
        const { bytesRead } = read
        if (bytesRead === 0) break
        got += bytesRead
      }
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException
      throw readError(this.#path, code, message)
    }
    this.#hash?.update(this.#plain.subarray(at, at + got))
    this.#read += got
    return got
  }

  #output(length: number): Uint8Array {
    if (this.#opts.reuseBuffers === false) return new Uint8Array(length)
    this.#turn = 1 - this.#turn
    this.#ring[this.#turn] ??= new Uint8Array(length)
    return this.#ring[this.#turn]!
  }

  async #close(): Promise<void> {
    this.#state = 'done'
    const file = this.#file
    this.#file = undefined
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
