// What this device already uploaded, per vault and file: lets a repeated folder backup skip files
// that have not changed (same path, size and modification time, or same SHA-256 when only the
// time moved) instead of paying for them twice.
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { join } from 'node:path'
import { JsonFileWriter, readJsonFile } from './json-file'

export interface UploadIndexEntry {
  vaultId: string
  path: string
  relativePath: string
  size: number
  mtimeMs: number
  sha256: string
  assetId: string
  uploadedAt: string
}

interface UploadIndexFile {
  version: 1
  entries: UploadIndexEntry[]
}

export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

export class UploadIndex {
  readonly #entries = new Map<string, UploadIndexEntry>()
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
    if ((await sha256OfFile(path)) !== entry.sha256) return undefined
    await this.record({ ...entry, mtimeMs })
    return entry
  }

  async record(entry: UploadIndexEntry): Promise<void> {
    this.#entries.set(keyOf(entry.vaultId, entry.path), entry)
    await this.#writer.write({ version: 1, entries: [...this.#entries.values()] })
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
