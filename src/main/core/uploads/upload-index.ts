// What this device already uploaded, per vault and file: lets a repeated folder backup skip files
// that have not changed (same path, size and modification time, or same SHA-256 when only the
// time moved) instead of paying for them twice. The SHA-256 of a file uploaded alone is computed
// after the upload, while the queue is idle, so it never competes with encryption for the CPU; a
// bundled small file's is computed as it is read for the bundle. Rows in the upload database
// (upload-store.ts), looked up by file and by asset.
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { UploadIndexEntry } from './upload-records'
import { UploadStore } from './upload-store'

export async function sha256OfFile(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20, signal }))
    hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** Entries hashed per query while the queue is idle. */
const HASH_PAGE = 64

export class UploadIndex {
  readonly #store: UploadStore

  constructor(store: UploadStore) {
    this.#store = store
    store.resetUnhashable()
  }

  /** An index of its own database (the queue shares one with its items). */
  static async open(userDataDir: string): Promise<UploadIndex> {
    return new UploadIndex(await UploadStore.open(userDataDir))
  }

  /** The upload this computer made of an asset, if it made it (and has not replaced it since). */
  findAsset(vaultId: string, assetId: string): UploadIndexEntry | undefined {
    return this.#store.entriesOfAsset(vaultId, assetId)[0]
  }

  /**
   * The files whose latest upload from this computer is this asset: one, or those of a bundle still
   * pointing at it (a file changed and uploaded again since is superseded and not listed).
   */
  filesOfAsset(vaultId: string, assetId: string): UploadIndexEntry[] {
    return this.#store.entriesOfAsset(vaultId, assetId)
  }

  find(vaultId: string, path: string): UploadIndexEntry | undefined {
    return this.#store.entry(vaultId, path)
  }

  /**
   * The earlier upload of this exact content, if any. Hashes the file only when size matches and
   * the modification time differs (a touched but unchanged file).
   */
  async unchangedSince(
    vaultId: string,
    path: string,
    size: number,
    mtimeMs: number,
  ): Promise<UploadIndexEntry | undefined> {
    const entry = this.find(vaultId, path)
    if (!entry || entry.size !== size) return undefined
    if (entry.mtimeMs === mtimeMs) return entry
    if (!entry.sha256 || (await sha256OfFile(path)) !== entry.sha256) return undefined
    await this.record({ ...entry, mtimeMs })
    return entry
  }

  /**
   * Where the vault already holds this file's bytes, whatever its name: an upload from here, or a
   * file another computer listed in the vault manifest (`elsewhere`). The file is read (streamed,
   * never held) only when something of its exact size is there, so a new file of a new size costs
   * no extra read; its hash is kept for the run so the estimate and the queueing read it once.
   */
  async sameContent(
    vaultId: string,
    file: { path: string; size: number; mtimeMs: number },
    elsewhere: ReadonlyArray<{ sha256: string; writtenAtMs: number }> = [],
  ): Promise<{ at: string; assetId?: string } | undefined> {
    // The same path is the path check's (unchangedSince): a touched file is skipped as unchanged there.
    const here = this.#store.hashedOfSize(vaultId, file.size).filter((e) => e.path !== file.path)
    if (here.length === 0 && elsewhere.length === 0) return undefined
    const sha256 = await this.#hashOnce(file)
    const mine = here.find((e) => e.sha256 === sha256)
    if (mine) return { at: mine.uploadedAt, assetId: mine.assetId }
    const theirs = elsewhere.find((e) => e.sha256 === sha256)
    return theirs ? { at: new Date(theirs.writtenAtMs).toISOString() } : undefined
  }

  /** Content hashes read this run, by path, size and modification time (a changed file is read again). */
  readonly #hashes = new Map<string, string>()

  async #hashOnce(file: { path: string; size: number; mtimeMs: number }): Promise<string> {
    const key = `${file.path}\u0000${file.size}\u0000${file.mtimeMs}`
    const known = this.#hashes.get(key)
    if (known) return known
    const sha256 = await sha256OfFile(file.path)
    if (this.#hashes.size >= 10_000) this.#hashes.clear()
    this.#hashes.set(key, sha256)
    return sha256
  }

  async record(entry: UploadIndexEntry): Promise<void> {
    this.#store.putEntry(entry)
  }

  /** Several files' uploads in one transaction (the files of a bundle). */
  recordAll(entries: readonly UploadIndexEntry[]): void {
    this.#store.write(() => {
      for (const entry of entries) this.#store.putEntry(entry)
    })
  }

  /** Whether some entry's content hash is still to be computed. */
  hasUnhashed(): boolean {
    return this.#store.unhashed(1).length > 0
  }

  /** Entries whose content hash is still to be computed (at most `limit`). */
  unhashed(limit = Number.MAX_SAFE_INTEGER): UploadIndexEntry[] {
    return this.#store.unhashed(limit)
  }

  /**
   * Hashes uploaded files that have not been hashed yet, one at a time, stopping when `signal`
   * aborts. A file that changed since its upload gets no hash (it will count as changed).
   */
  async fillMissingHashes(signal: AbortSignal): Promise<void> {
    // Each entry once per run, even if its result could not be saved.
    const tried = new Set<string>()
    for (;;) {
      const page = this.#store
        .unhashed(HASH_PAGE + tried.size)
        .filter((e) => !tried.has(`${e.vaultId}\u0000${e.path}`))
      if (page.length === 0) return
      for (const entry of page) {
        if (signal.aborted) return
        tried.add(`${entry.vaultId}\u0000${entry.path}`)
        try {
          const before = await stat(entry.path)
          if (before.size !== entry.size || before.mtimeMs !== entry.mtimeMs) {
            this.#store.markUnhashable(entry)
            continue
          }
          const sha256 = await sha256OfFile(entry.path, signal)
          const after = await stat(entry.path)
          if (after.size !== entry.size || after.mtimeMs !== entry.mtimeMs) {
            this.#store.markUnhashable(entry)
            continue
          }
          // Only if the entry is still this upload (the file may have been uploaded again meanwhile).
          this.#store.setHash(entry, sha256)
        } catch {
          if (signal.aborted) return
          // Gone or unreadable: it stays unhashed and counts as changed next time.
          this.#store.markUnhashable(entry)
        }
      }
    }
  }

  /** The asset was taken out of the vault: its files are no longer there. */
  forgetAsset(vaultId: string, assetId: string): void {
    this.#store.forgetAsset(vaultId, assetId)
  }

  async forgetVault(vaultId: string): Promise<void> {
    this.#store.forgetVault(vaultId)
  }

  /** Writes are committed as they happen; kept for callers that flush before quitting. */
  flush(): Promise<void> {
    return Promise.resolve()
  }
}
