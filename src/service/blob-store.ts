// Content-addressed blob store on disk: blobs/<first 2 hex>/<sha256 hex>, uploads staged in tmp/.

import { randomBytes } from 'node:crypto'
import {
  chmodSync,
  closeSync,
  fsyncSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
} from 'node:fs'
import { join } from 'node:path'
import { makePrivateDir, PRIVATE_FILE_MODE } from './private-files'

export class BlobStore {
  readonly root: string
  readonly tempDir: string

  constructor(dataDir: string) {
    this.root = join(dataDir, 'blobs')
    this.tempDir = join(dataDir, 'tmp')
    makePrivateDir(this.root)
    makePrivateDir(this.tempDir)
  }

  /** Staged uploads of a previous run (killed mid-upload) are never resumed: remove them all. */
  clearTemp(): number {
    let removed = 0
    for (const name of readdirSync(this.tempDir)) {
      rmSync(join(this.tempDir, name), { force: true, recursive: true })
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

  /** Moves a fully written, fsynced temp file into place (same file system, so rename is atomic). */
  adopt(tempPath: string, sha256Hex: string): void {
    const dir = join(this.root, sha256Hex.slice(0, 2))
    makePrivateDir(dir)
    // Private before it becomes visible under blobs/, whatever the umask it was written with.
    chmodSync(tempPath, PRIVATE_FILE_MODE)
    renameSync(tempPath, this.pathOf(sha256Hex))
    const fd = openSync(dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  }

  remove(sha256Hex: string): void {
    rmSync(this.pathOf(sha256Hex), { force: true })
  }

  sizeOf(sha256Hex: string): number | null {
    try {
      return statSync(this.pathOf(sha256Hex)).size
    } catch {
      return null
    }
  }

  /** Deletes blobs no asset refers to (left by a crash between placing a blob and recording its asset). */
  collectGarbage(isReferenced: (sha256Hex: string) => boolean): number {
    let removed = 0
    for (const shard of readdirSync(this.root)) {
      const dir = join(this.root, shard)
      for (const name of readdirSync(dir)) {
        if (!isReferenced(name)) {
          unlinkSync(join(dir, name))
          removed++
        }
      }
    }
    return removed
  }
}

/** The storage transaction id: the SHA-256 of the stored bytes as 43 characters of base64url. */
export function storageTxIdOf(sha256Hex: string): string {
  return Buffer.from(sha256Hex, 'hex').toString('base64url')
}
