// How the queue encrypts: the cipher's interface (tests and benchmarks pass their own) and the
// format's cipher on a reader thread, plus the size limit it implies. Apart from the queue so that
// what an upload costs in CPU is decided in one place.
import { nodeCipher } from '../../../node-cipher/cipher-choice'
import { encryptFile } from '../../../node-cipher/file-seal-here'
import { LIMITS } from '../../../shared/api'
import {
  type BundleSourceEntry,
  encryptStream as cobblestoneEncryptStream,
  encryptBundleStream,
  encryptedBundleLength,
  encryptedFileLength,
  type FileIdentity,
} from '../../../vault-format'

export interface UploadCipher {
  /** Exact blob length: the file's size and its path, both sealed inside (FORMAT.md, format 2). */
  encryptedLength(identity: FileIdentity): number
  /** `source` reuses its buffers: a chunk is valid only until the next one is requested. */
  encryptStream(
    source: AsyncIterable<Uint8Array>,
    options: { vaultKey: Uint8Array; vaultId: string; identity: FileIdentity },
  ): AsyncIterable<Uint8Array>
  /**
   * Reads the file itself and encrypts it (the same blob as encryptStream). `afterRead` runs once
   * every byte was read, before the last piece is released; it gets the file's SHA-256. Pieces are
   * valid until the piece after the next is asked for (a pipe into the socket). Optional: without
   * it the queue reads the file and calls encryptStream.
   */
  encryptFile?(
    path: string,
    options: {
      vaultKey: Uint8Array
      vaultId: string
      identity: FileIdentity
      afterRead: (end: { bytesRead: number; sha256?: string }) => Promise<void>
    },
  ): AsyncIterable<Uint8Array>
  /** Exact blob length of a bundle of these files, with an embedded manifest of that many bytes (FORMAT.md 3.9). */
  encryptedBundleLength(files: readonly FileIdentity[], manifestLength?: number): number
  /** A bundle: each entry's content is opened in turn, when the bundle reaches it. */
  encryptBundleStream(
    entries: readonly BundleSourceEntry[],
    options: { vaultKey: Uint8Array; vaultId: string; createdAtMs: number; manifest?: Uint8Array },
  ): AsyncIterable<Uint8Array>
}

/**
 * A file is read, hashed (for the index) and encrypted by node-cipher's encryptFile: on this thread
 * with the native AES-GCM, which seals into the piece and leaves no garbage (bench:upload, 1 GB:
 * no reader thread and its ~12 MB); with node:crypto on one reader thread, because node:crypto's
 * garbage (a buffer and a cipher object per 16 KiB chunk) cost the main thread more in collections
 * than the encryption itself (1 GB, busy 2-core machine: main thread 2.00 s + 1.10 s hashing
 * afterwards, peak RSS 178 MB; reader thread 1.51 s in all, 118 MB). Bundles (many small files) stay
 * on the main thread; `parallelEncryption` spreads them over the worker pool on machines with spare cores.
 */
export function cobblestoneCipher(parallel: boolean): UploadCipher {
  // Chosen at the first upload, not when the queue opens: the native module (and OpenSSL's start, ~2 MB)
  // stays out of an app that is only waiting.
  let chosen: ReturnType<typeof nodeCipher> | undefined
  const cipher = () => {
    chosen ??= nodeCipher(parallel)
    return chosen
  }
  return {
    encryptedLength: encryptedFileLength,
    encryptStream: (source, options) => cobblestoneEncryptStream(source, { ...options, ...cipher() }),
    encryptFile: (path, options) => encryptFile(path, { ...options, sha256: true }),
    encryptedBundleLength,
    encryptBundleStream: (entries, options) => encryptBundleStream(entries, { ...options, ...cipher() }),
  }
}

/** The largest file (plaintext bytes) whose encrypted form fits the service's per-file limit. */
export function largestUploadableFile(encryptedLength: (plaintext: number) => number): number {
  let low = 0
  let high = LIMITS.maxFileBytes
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (encryptedLength(mid) <= LIMITS.maxFileBytes) low = mid
    else high = mid - 1
  }
  return low
}
