// Where uploaded (already encrypted) files are kept: a folder (the default, or one several instances
// share) or the Arweave permanent storage network (arweave-blob-store.ts). Uploads are staged in a local
// temp file first, so a store only ever receives complete, checked files.
import { randomBytes } from 'node:crypto'
import {
  chmodSync,
  closeSync,
  createReadStream,
  fsyncSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
} from 'node:fs'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { makePrivateDir, PRIVATE_FILE_MODE } from './private-files'

/**
 * The store cannot take or give a blob just now (a network unreachable, a wallet short of funds): the
 * operator's log gets this message; clients get 503 and are told to retry, nothing having changed.
 */
export class BlobStoreError extends Error {}

/** What the service knows about a blob when it puts it, for stores that label what they keep. */
export interface BlobLabels {
  vaultId: string
  assetId: string
}

/** A stored blob as recorded on its asset. */
export interface StoredBlob {
  sha256Hex: string
  storageTxId: string
}

export interface BlobStore {
  readonly kind: 'folder' | 'arweave'
  /** A fresh path for staging an upload; on the same file system as the store where that matters. */
  newTempPath(): string
  /** Removes staged uploads no running upload can still be writing (at start). */
  clearTemp(): Promise<number>
  /**
   * Makes a complete, fsynced staged file durable and consumes it; returns the storage transaction id
   * the asset records (and the interface's `storageTxId`).
   */
  put(tempPath: string, blob: { sha256Hex: string; size: number; labels: BlobLabels }): Promise<string>
  /** The stored size in bytes, or null when the blob cannot be found. */
  sizeOf(blob: StoredBlob): Promise<number | null>
  /** The blob's bytes, or those from `start` to `end` inclusive. */
  read(blob: StoredBlob, range?: { start: number; end: number }): Promise<Readable>
  /** Frees a blob no asset refers to any more; a permanent store keeps it (it cannot do otherwise). */
  remove(blob: StoredBlob): Promise<void>
  /** Deletes blobs no asset refers to (left by a crash between storing a blob and recording its asset). */
  collectGarbage(isReferenced: (sha256Hex: string) => Promise<boolean>): Promise<number>
  /**
   * Only for a store whose put returns before the blob is permanent (Arweave: posted, not yet mined):
   * whether it is now. `dropped`: a store that answers healthily definitely does not have it, past the
   * grace period since it was sent, and a local copy can be sent again (the confirmation pass decides
   * whether to pay for that: storage-confirmation.ts); `lost`: dropped and no copy to send (`reason` says
   * what to do). A store that cannot tell (busy, failing, out of reach) throws a BlobStoreError.
   */
  confirm?(blob: BlobToConfirm, now: Date): Promise<BlobConfirmation>
  /**
   * Stores a dropped blob again (a paid, new transaction, unless one sent for the same bytes is still
   * alive); returns the id the asset must record now, and why its data is not all up yet, if it is not
   * (a later confirm finishes it without paying).
   */
  resend?(blob: BlobToConfirm): Promise<{ storageTxId: string; unfinished?: string }>
}

/**
 * A stored blob as the confirmation pass knows it (storage-confirmation.ts): `storedAt` is when the asset
 * was recorded, `sentAt` when its current transaction was sent (the last re-send, or storedAt).
 */
export type BlobToConfirm = StoredBlob & { labels: BlobLabels; size: number; storedAt: Date; sentAt: Date }

export type BlobConfirmation =
  | { state: 'confirmed' }
  | { state: 'pending' }
  | { state: 'dropped'; reason: string }
  | { state: 'lost'; reason: string }

/** The folder store's transaction id: the SHA-256 of the stored bytes as 43 characters of base64url. */
export function storageTxIdOf(sha256Hex: string): string {
  return Buffer.from(sha256Hex, 'hex').toString('base64url')
}

/**
 * Content-addressed blobs on disk: <root>/<first 2 hex>/<sha256 hex>, uploads staged in <root>/../tmp
 * (one data directory) or <root>/.staging (a folder several instances share, on one file system).
 */
export class FolderBlobStore implements BlobStore {
  readonly kind = 'folder'
  readonly root: string
  readonly tempDir: string
  /** Shared by other instances: staged files and unreferenced blobs may be theirs, in flight. */
  readonly #shared: boolean

  static inDataDir(dataDir: string): FolderBlobStore {
    return new FolderBlobStore(join(dataDir, 'blobs'), join(dataDir, 'tmp'), false)
  }

  static shared(root: string): FolderBlobStore {
    return new FolderBlobStore(root, join(root, '.staging'), true)
  }

  private constructor(root: string, tempDir: string, shared: boolean) {
    this.root = root
    this.tempDir = tempDir
    this.#shared = shared
    makePrivateDir(this.root)
    makePrivateDir(this.tempDir)
  }

  /** An upload runs for at most a day; anything staged or unreferenced for longer is nobody's. */
  static readonly IN_FLIGHT_MS = 24 * 60 * 60 * 1000

  async clearTemp(): Promise<number> {
    let removed = 0
    for (const name of readdirSync(this.tempDir)) {
      const path = join(this.tempDir, name)
      if (this.#shared && !this.#olderThanInFlight(path)) continue
      rmSync(path, { force: true, recursive: true })
      removed++
    }
    return removed
  }

  newTempPath(): string {
    return join(this.tempDir, `upload-${randomBytes(12).toString('hex')}.part`)
  }

  pathOf(sha256Hex: string): string {
    return join(this.root, sha256Hex.slice(0, 2), sha256Hex)
  }

  /** Moves the staged file into place (same file system, so rename is atomic) and fsyncs the folder. */
  async put(tempPath: string, blob: { sha256Hex: string }): Promise<string> {
    const dir = join(this.root, blob.sha256Hex.slice(0, 2))
    makePrivateDir(dir)
    // Private before it becomes visible under blobs/, whatever the umask it was written with.
    chmodSync(tempPath, PRIVATE_FILE_MODE)
    renameSync(tempPath, this.pathOf(blob.sha256Hex))
    const fd = openSync(dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    return storageTxIdOf(blob.sha256Hex)
  }

  async sizeOf(blob: StoredBlob): Promise<number | null> {
    try {
      return statSync(this.pathOf(blob.sha256Hex)).size
    } catch {
      return null
    }
  }

  async read(blob: StoredBlob, range?: { start: number; end: number }): Promise<Readable> {
    return createReadStream(this.pathOf(blob.sha256Hex), range)
  }

  async remove(blob: StoredBlob): Promise<void> {
    rmSync(this.pathOf(blob.sha256Hex), { force: true })
  }

  async collectGarbage(isReferenced: (sha256Hex: string) => Promise<boolean>): Promise<number> {
    let removed = 0
    for (const shard of readdirSync(this.root)) {
      if (shard.startsWith('.')) continue
      const dir = join(this.root, shard)
      for (const name of readdirSync(dir)) {
        const path = join(dir, name)
        // Another instance may have put this blob a moment ago and not yet recorded its asset.
        if (this.#shared && !this.#olderThanInFlight(path)) continue
        if (!(await isReferenced(name))) {
          unlinkSync(path)
          removed++
        }
      }
    }
    return removed
  }

  #olderThanInFlight(path: string): boolean {
    try {
      return Date.now() - statSync(path).mtimeMs > FolderBlobStore.IN_FLIGHT_MS
    } catch {
      return false
    }
  }
}
