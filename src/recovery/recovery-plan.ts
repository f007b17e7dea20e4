// Which copy of a file wins when one recovery run meets several (the file changed and was uploaded
// again, in a newer bundle or as a newer single blob). Copies are recovered newest first, and a path
// written once is not written again: older copies are reported as superseded, not as errors.
// Dates: a bundle's is its authenticated createdAt; a single-file blob carries none inside, so it
// gets the upload time the vault service reports (heirs' downloads), or none (local files); copies
// without a date count as older than every dated copy and keep their given order among themselves.
import { createReadStream } from 'node:fs'
import { type AeadBackendName, cipherByName } from '../node-cipher/cipher-choice'
import { openEncryptedFile } from '../vault-format/file-cipher'

export interface BlobSummary {
  kind: 'file' | 'bundle'
  /** A bundle's authenticated date (ms since the Unix epoch). */
  createdAtMs?: number
  /** How many files it holds. */
  fileCount: number
}

/**
 * Opens an encrypted file just far enough to tell a bundle (and its date) from a file blob, then
 * closes it. Throws what openEncryptedFile throws (FileCipherError) or the read error.
 */
export async function summarizeBlob(
  input: string,
  keys: { vaultKey: Uint8Array; vaultId: string; backend?: AeadBackendName },
): Promise<BlobSummary> {
  const source = createReadStream(input, { highWaterMark: 1 << 20 })
  try {
    const opened = await openEncryptedFile(source, {
      vaultKey: keys.vaultKey,
      vaultId: keys.vaultId,
      ...cipherByName(keys.backend),
    })
    if (opened.kind === 'file') {
      await opened.body.return?.()
      return { kind: 'file', fileCount: 1 }
    }
    await opened.entries.return?.()
    return { kind: 'bundle', createdAtMs: opened.createdAtMs, fileCount: opened.files.length }
  } finally {
    source.destroy()
  }
}

/** Dated items newest first, then undated ones; equal dates keep their order. */
export function newestFirst<T>(items: readonly T[], dateOf: (item: T) => number | undefined): T[] {
  const keyed = items.map((item, at) => ({ item, at, date: dateOf(item) }))
  keyed.sort((a, b) => {
    if (a.date !== undefined && b.date !== undefined && a.date !== b.date) return b.date - a.date
    if ((a.date === undefined) !== (b.date === undefined)) return a.date === undefined ? 1 : -1
    return a.at - b.at
  })
  return keyed.map((k) => k.item)
}

/** "in backup.vault, bundled 2024-05-01 10:00 UTC" */
export function describeCopy(name: string, createdAtMs?: number): string {
  if (createdAtMs === undefined) return `in ${name}`
  const when = new Date(createdAtMs).toISOString().replace('T', ' ').slice(0, 16)
  return `in ${name}, bundled ${when} UTC`
}

/** The paths written in this run (newest copies first), so that older copies are left out. */
export class RecoveredPaths {
  private readonly taken = new Map<string, string>()
  private readonly failed = new Map<string, string>()

  /** The superseded message for another copy of `path`, if a newer one was settled in this run. */
  supersededBy = (path: string): string | undefined => this.taken.get(path)

  /**
   * Records how a copy of `path` ended: written or kept (it wins), blocked by a different file already
   * there (older copies would be blocked too), or failed (an older copy may still be recovered).
   */
  record(path: string, outcome: 'written' | 'blocked' | 'failed', copy: string): void {
    if (outcome === 'failed') {
      if (!this.failed.has(path)) this.failed.set(path, copy)
      return
    }
    this.taken.set(
      path,
      outcome === 'written'
        ? `A newer copy of this file (${copy}) was recovered in this run; this older copy was left out.`
        : `A newer copy of this file (${copy}) could not be written because a different file is in the way; this older copy was left out too.`,
    )
  }

  /** For a copy written after a newer one failed: says so, since it may be out of date. */
  olderCopyNote(path: string): string | undefined {
    const newer = this.failed.get(path)
    return newer
      ? `Recovered from an older copy: the newest copy (${newer}) could not be recovered, so this may not be the latest version.`
      : undefined
  }
}
