// What this device already uploaded, per vault and file: lets a repeated folder backup skip files
// that have not changed (same path, size and modification time, or same SHA-256 when only the
// time moved) instead of paying for them twice. The SHA-256 is computed after the upload, while
// the queue is idle, so it never competes with encryption for the CPU.
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { JsonFileWriter, readJsonFile } from './json-file'

export interface UploadIndexEntry {
  vaultId: string
  path: string
  relativePath: string
  size: number
  mtimeMs: number
  /** Filled in after the upload, while the queue is idle (hashing would slow the upload down). */
  sha256?: string
  assetId: string
  uploadedAt: string
}

interface UploadIndexFile {
  version: 1
  entries: UploadIndexEntry[]
}

export async function sha256OfFile(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20, signal }))
    hash.update(chunk as Buffer)
  return hash.digest('hex')
}

export class UploadIndex {
  readonly #entries = new Map<string, UploadIndexEntry>()
  /** Entries that could not be hashed (changed or unreadable since the upload): not retried. */
  readonly #unhashable = new Set<string>()
  readonly #writer: JsonFileWriter<UploadIndexFile>

  private constructor(file: string, entries: UploadIndexEntry[]) {
    this.#writer = new JsonFileWriter(file)
    for (const e of entries) this.#entries.set(keyOf(e.vaultId, e.path), e)
  }

  static async open(userDataDir: string): Promise<UploadIndex> {
    const file = join(userDataDir, 'upload-index.json')
    const data = await readJsonFile<UploadIndexFile>(file, { version: 1, entries: [] })
    return new UploadIndex(file, Array.isArray(data.entries) ? data.entries : [])
  }

  /** The upload this computer made of an asset, if it made it (and has not replaced it since). */
  findAsset(vaultId: string, assetId: string): UploadIndexEntry | undefined {
    for (const entry of this.#entries.values()) {
      if (entry.vaultId === vaultId && entry.assetId === assetId) return entry
    }
    return undefined
  }

  find(vaultId: string, path: string): UploadIndexEntry | undefined {
    return this.#entries.get(keyOf(vaultId, path))
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

  async record(entry: UploadIndexEntry): Promise<void> {
    const key = keyOf(entry.vaultId, entry.path)
    this.#entries.set(key, entry)
    this.#unhashable.delete(key)
    await this.#writer.write({ version: 1, entries: [...this.#entries.values()] })
  }

  /** Entries whose content hash is still to be computed. */
  unhashed(): UploadIndexEntry[] {
    return [...this.#entries.entries()]
      .filter(([k, e]) => !e.sha256 && !this.#unhashable.has(k))
      .map(([, e]) => e)
  }

  /**
   * Hashes uploaded files that have not been hashed yet, one at a time, stopping when `signal`
   * aborts. A file that changed since its upload gets no hash (it will count as changed).
   */
  async fillMissingHashes(signal: AbortSignal): Promise<void> {
    for (const entry of this.unhashed()) {
      if (signal.aborted) return
      const key = keyOf(entry.vaultId, entry.path)
      try {
        const before = await stat(entry.path)
        if (before.size !== entry.size || before.mtimeMs !== entry.mtimeMs) {
          this.#unhashable.add(key)
          continue
        }
        const sha256 = await sha256OfFile(entry.path, signal)
        const after = await stat(entry.path)
        if (after.size !== entry.size || after.mtimeMs !== entry.mtimeMs) {
          this.#unhashable.add(key)
          continue
        }
        const current = this.#entries.get(key)
        if (current?.assetId === entry.assetId) await this.record({ ...current, sha256 })
      } catch {
        if (signal.aborted) return
        // Gone or unreadable: it stays unhashed and counts as changed next time.
        this.#unhashable.add(key)
      }
    }
  }

  async forgetVault(vaultId: string): Promise<void> {
    for (const [k, e] of this.#entries) if (e.vaultId === vaultId) this.#entries.delete(k)
    await this.#writer.write({ version: 1, entries: [...this.#entries.values()] })
  }

  flush(): Promise<void> {
    return this.#writer.flush()
  }
}

function keyOf(vaultId: string, path: string): string {
  return `${vaultId}\u0000${path}`
}
