// The upload queue's items and the upload index as rows of one SQLite database in the user-data dir
// (uploads.sqlite, WAL): a state change writes one row, a batch or a finished bundle one transaction,
// however long the queue. Earlier versions kept both in JSON files rewritten whole on every change;
// those are imported on open and then renamed aside. A database that cannot be read never stops the
// app: it is kept aside and the lists start empty, with a message saying so.
import { rename } from 'node:fs/promises'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import type { UploadState } from '../../../shared/ipc/vault-types'
import { readJsonFile } from '../storage/json-file'
import { messageOf, openLocalDatabase, statementCache } from '../storage/local-database'
import type { UploadIndexEntry, UploadItem } from './upload-records'

export const UPLOAD_DB_FILE = 'uploads.sqlite'
const LEGACY_QUEUE_FILE = 'upload-queue.json'
const LEGACY_INDEX_FILE = 'upload-index.json'

const STATES: readonly UploadState[] = [
  'queued',
  'checking',
  'uploading',
  'done',
  'skipped',
  'failed',
  'cancelled',
]

// Each entry moves the schema one version forward (PRAGMA user_version); append, never edit.
const MIGRATIONS: string[] = [
  `
  CREATE TABLE upload_items (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    batch_id TEXT NOT NULL,
    bundle_id TEXT,
    state TEXT NOT NULL,
    item TEXT NOT NULL
  );
  CREATE TABLE upload_index (
    vault_id TEXT NOT NULL,
    path TEXT NOT NULL,
    relative_path TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ms REAL NOT NULL,
    sha256 TEXT,
    asset_id TEXT NOT NULL,
    uploaded_at TEXT NOT NULL,
    unhashable INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (vault_id, path)
  ) WITHOUT ROWID;
  CREATE INDEX upload_index_asset ON upload_index (vault_id, asset_id);
  CREATE INDEX upload_index_unhashed ON upload_index (vault_id, path) WHERE sha256 IS NULL AND unhashable = 0;
  `,
  // The write time sealed in each copy (format 3), listed in the vault manifest; and per vault the
  // manifest sequence last taken and what the newest stored manifest lists (vault-manifests.ts).
  `
  ALTER TABLE upload_index ADD COLUMN written_at_ms INTEGER;
  CREATE TABLE vault_manifests (
    vault_id TEXT PRIMARY KEY,
    sequence INTEGER NOT NULL,
    stored_sequence INTEGER,
    stored_listing TEXT,
    stored_asset_id TEXT,
    stored_at TEXT,
    carried TEXT
  ) WITHOUT ROWID;
  `,
  // The fingerprint of the key the stored manifest is under: after a key change it is written again.
  `
  ALTER TABLE vault_manifests ADD COLUMN stored_key TEXT;
  `,
  // Files of the same size are the only ones a dropped file can duplicate (checked by content hash).
  `
  CREATE INDEX upload_index_size ON upload_index (vault_id, size) WHERE sha256 IS NOT NULL;
  `,
]

interface IndexRow {
  vault_id: string
  path: string
  relative_path: string
  size: number
  mtime_ms: number
  sha256: string | null
  asset_id: string
  uploaded_at: string
  written_at_ms: number | null
}

/**
 * Per vault: the last manifest sequence taken; the newest manifest stored (its sequence, listing
 * digest, asset and when the service took it); the files of the newest manifest another computer
 * wrote that this computer's index does not know (JSON of ManifestEntry[]).
 */
export interface ManifestState {
  sequence: number
  storedSequence: number | null
  storedListing: string | null
  storedAssetId: string | null
  storedAt: string | null
  /** The fingerprint of the vault key the stored manifest is encrypted under. */
  storedKey: string | null
  carried: string | null
}

function toEntry(row: IndexRow): UploadIndexEntry {
  return {
    vaultId: row.vault_id,
    path: row.path,
    relativePath: row.relative_path,
    size: row.size,
    mtimeMs: row.mtime_ms,
    ...(row.sha256 ? { sha256: row.sha256 } : {}),
    assetId: row.asset_id,
    uploadedAt: row.uploaded_at,
    ...(row.written_at_ms !== null && row.written_at_ms !== undefined
      ? { writtenAtMs: row.written_at_ms }
      : {}),
  }
}

function validItem(raw: unknown): raw is UploadItem {
  const i = raw as Partial<UploadItem> | null
  return (
    typeof i === 'object' &&
    i !== null &&
    typeof i.id === 'string' &&
    typeof i.batchId === 'string' &&
    typeof i.vaultId === 'string' &&
    typeof i.path === 'string' &&
    typeof i.relativePath === 'string' &&
    STATES.includes(i.state as UploadState)
  )
}

function validEntry(raw: unknown): raw is UploadIndexEntry {
  const e = raw as Partial<UploadIndexEntry> | null
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.vaultId === 'string' &&
    typeof e.path === 'string' &&
    typeof e.relativePath === 'string' &&
    Number.isFinite(e.size) &&
    Number.isFinite(e.mtimeMs) &&
    typeof e.assetId === 'string' &&
    typeof e.uploadedAt === 'string' &&
    (e.sha256 === undefined || typeof e.sha256 === 'string')
  )
}

/** An item read back, with its place in the queue (the order items were added). */
export interface StoredItem {
  seq: number
  item: UploadItem
}

export class UploadStore {
  readonly #db: Database.Database
  readonly #statement: (sql: string) => Database.Statement
  readonly #transaction: Database.Transaction<(fn: () => void) => void>
  #depth = 0
  /** What went wrong with the database, in words for the user; undefined while all is well. */
  #problem: string | undefined
  readonly file: string
  readonly persistent: boolean

  private constructor(db: Database.Database, file: string, persistent: boolean, problem?: string) {
    this.#db = db
    this.#statement = statementCache(db)
    this.file = file
    this.persistent = persistent
    this.#problem = problem
    this.#transaction = db.transaction((fn: () => void) => fn())
  }

  /** Opens (or creates) the database, imports the JSON files of earlier versions, never throws. */
  static async open(userDataDir: string, now: () => number = Date.now): Promise<UploadStore> {
    const file = join(userDataDir, UPLOAD_DB_FILE)
    const { db, persistent, problem } = await openLocalDatabase(
      file,
      MIGRATIONS,
      {
        setAside: (reason, copy) =>
          `The list of uploads and of files already backed up could not be read (${reason}); it was kept as ${copy} and a new list was started. Files already in the vault are safe. Add any files still waiting to upload again; files uploaded before will be uploaded again once.`,
        newFailed: (problem, reason) => `${problem} A new list could not be created either (${reason}).`,
        unopenable: (reason) => `The list of uploads could not be opened (${reason}).`,
        memoryOnly: (problem) =>
          `${problem} Uploads work, but the list is kept only until the app closes. Check that ${file} can be written, then restart the app.`,
      },
      now,
    )
    const store = new UploadStore(db, file, persistent, problem)
    await store.#importLegacy(userDataDir, now)
    if (store.#problem) console.warn(store.#problem)
    return store
  }

  /** Set when the database could not be read or written: a sentence for the user. */
  get problem(): string | undefined {
    return this.#problem
  }

  /**
   * Runs writes as one transaction (nested calls join the outer one). A failing write does not stop
   * uploads: it is reported once and the queue carries on in memory.
   */
  write(fn: () => void): void {
    if (this.#depth > 0) {
      fn()
      return
    }
    this.#depth++
    try {
      this.#transaction(fn)
    } catch (error) {
      this.#failed('saved', error)
    } finally {
      this.#depth--
    }
  }

  #read<T>(fn: () => T, fallback: T): T {
    try {
      return fn()
    } catch (error) {
      if (this.#depth > 0) throw error
      this.#failed('read', error)
      return fallback
    }
  }

  #failed(what: 'saved' | 'read', error: unknown): void {
    const problem = `The list of uploads could not be ${what} (${messageOf(error)}). Uploads go on, but after a restart some may have to be added again and already uploaded files may be uploaded again. Check free disk space and that ${this.file} can be written.`
    if (problem !== this.#problem) console.error(problem)
    this.#problem = problem
  }

  /** Rows inserted, changed or deleted since the database was opened (SQLite's total_changes()). */
  rowsWritten(): number {
    return (this.#statement('SELECT total_changes() AS n').get() as { n: number }).n
  }

  close(): void {
    if (this.#db.open) this.#db.close()
  }

  // ---- queue items ----

  items(): StoredItem[] {
    return this.#read(() => {
      const out: StoredItem[] = []
      for (const row of this.#statement(
        'SELECT seq, item FROM upload_items ORDER BY seq',
      ).iterate() as Iterable<{
        seq: number
        item: string
      }>) {
        try {
          const item = JSON.parse(row.item) as unknown
          if (validItem(item)) out.push({ seq: row.seq, item })
        } catch {
          // A row that cannot be parsed is left out; the others still load.
        }
      }
      return out
    }, [])
  }

  /** Adds an item at its place in the queue (`seq`: larger than every place before). */
  insertItem(seq: number, item: UploadItem): void {
    this.write(() => {
      this.#statement(
        'INSERT INTO upload_items (seq, id, batch_id, bundle_id, state, item) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(seq, item.id, item.batchId, item.bundleId ?? null, item.state, JSON.stringify(item))
    })
  }

  saveItem(item: UploadItem): void {
    this.write(() => {
      this.#statement(
        'UPDATE upload_items SET batch_id = ?, bundle_id = ?, state = ?, item = ? WHERE id = ?',
      ).run(item.batchId, item.bundleId ?? null, item.state, JSON.stringify(item), item.id)
    })
  }

  deleteItem(id: string): void {
    this.write(() => {
      this.#statement('DELETE FROM upload_items WHERE id = ?').run(id)
    })
  }

  // ---- index ----

  entry(vaultId: string, path: string): UploadIndexEntry | undefined {
    return this.#read(() => {
      const row = this.#statement('SELECT * FROM upload_index WHERE vault_id = ? AND path = ?').get(
        vaultId,
        path,
      )
      return row ? toEntry(row as IndexRow) : undefined
    }, undefined)
  }

  /** The files whose latest upload from this computer is this asset (one, or a bundle's). */
  entriesOfAsset(vaultId: string, assetId: string): UploadIndexEntry[] {
    return this.#read(
      () =>
        (
          this.#statement(
            'SELECT * FROM upload_index WHERE vault_id = ? AND asset_id = ? ORDER BY relative_path',
          ).all(vaultId, assetId) as IndexRow[]
        ).map(toEntry),
      [],
    )
  }

  /** A vault's uploads from here of files this size whose content hash is known (dedupe candidates). */
  hashedOfSize(vaultId: string, size: number): UploadIndexEntry[] {
    return this.#read(
      () =>
        (
          this.#statement(
            'SELECT * FROM upload_index WHERE vault_id = ? AND size = ? AND sha256 IS NOT NULL ORDER BY uploaded_at',
          ).all(vaultId, size) as IndexRow[]
        ).map(toEntry),
      [],
    )
  }

  /** Records a file's latest upload, replacing (superseding) the one before. */
  putEntry(e: UploadIndexEntry): void {
    this.write(() => {
      this.#statement(
        `INSERT INTO upload_index (vault_id, path, relative_path, size, mtime_ms, sha256, asset_id, uploaded_at, unhashable, written_at_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?)
         ON CONFLICT (vault_id, path) DO UPDATE SET relative_path = excluded.relative_path, size = excluded.size,
           mtime_ms = excluded.mtime_ms, sha256 = excluded.sha256, asset_id = excluded.asset_id,
           uploaded_at = excluded.uploaded_at, unhashable = 0, written_at_ms = excluded.written_at_ms`,
      ).run(
        e.vaultId,
        e.path,
        e.relativePath,
        e.size,
        e.mtimeMs,
        e.sha256 ?? null,
        e.assetId,
        e.uploadedAt,
        e.writtenAtMs ?? null,
      )
    })
  }

  /** Entries still to be hashed (and not found unhashable since the app started). */
  unhashed(limit: number): UploadIndexEntry[] {
    return this.#read(
      () =>
        (
          this.#statement('SELECT * FROM upload_index WHERE sha256 IS NULL AND unhashable = 0 LIMIT ?').all(
            limit,
          ) as IndexRow[]
        ).map(toEntry),
      [],
    )
  }

  /** Stores a file's hash, if the entry is still the upload that was hashed. */
  setHash(e: UploadIndexEntry, sha256: string): void {
    this.write(() => {
      this.#statement(
        'UPDATE upload_index SET sha256 = ? WHERE vault_id = ? AND path = ? AND asset_id = ? AND size = ? AND mtime_ms = ?',
      ).run(sha256, e.vaultId, e.path, e.assetId, e.size, e.mtimeMs)
    })
  }

  /** The file changed or cannot be read since its upload: not hashed again until the app restarts. */
  markUnhashable(e: UploadIndexEntry): void {
    this.write(() => {
      this.#statement('UPDATE upload_index SET unhashable = 1 WHERE vault_id = ? AND path = ?').run(
        e.vaultId,
        e.path,
      )
    })
  }

  /** A new run tries the files that could not be hashed last time again. */
  resetUnhashable(): void {
    this.write(() => {
      this.#statement('UPDATE upload_index SET unhashable = 0 WHERE unhashable = 1').run()
    })
  }

  /** Every file of a vault this computer uploaded and still points at an asset. */
  entriesOfVault(vaultId: string): UploadIndexEntry[] {
    return this.#read(
      () =>
        (
          this.#statement('SELECT * FROM upload_index WHERE vault_id = ? ORDER BY relative_path').all(
            vaultId,
          ) as IndexRow[]
        ).map(toEntry),
      [],
    )
  }

  /** The asset left the vault: its files are no longer there. */
  forgetAsset(vaultId: string, assetId: string): void {
    this.write(() => {
      this.#statement('DELETE FROM upload_index WHERE vault_id = ? AND asset_id = ?').run(vaultId, assetId)
    })
  }

  forgetVault(vaultId: string): void {
    this.write(() => {
      this.#statement('DELETE FROM upload_index WHERE vault_id = ?').run(vaultId)
      this.#statement('DELETE FROM vault_manifests WHERE vault_id = ?').run(vaultId)
    })
  }

  // ---- vault manifests ----

  manifestState(vaultId: string): ManifestState | undefined {
    return this.#read(() => {
      const row = this.#statement(
        'SELECT sequence, stored_sequence, stored_listing, stored_asset_id, stored_at, stored_key, carried FROM vault_manifests WHERE vault_id = ?',
      ).get(vaultId) as
        | {
            sequence: number
            stored_sequence: number | null
            stored_listing: string | null
            stored_asset_id: string | null
            stored_at: string | null
            stored_key: string | null
            carried: string | null
          }
        | undefined
      return row
        ? {
            sequence: row.sequence,
            storedSequence: row.stored_sequence,
            storedListing: row.stored_listing,
            storedAssetId: row.stored_asset_id,
            storedAt: row.stored_at,
            storedKey: row.stored_key,
            carried: row.carried,
          }
        : undefined
    }, undefined)
  }

  /** Takes `sequence` for a manifest about to be written (never given out twice). */
  takeManifestSequence(vaultId: string, sequence: number): void {
    this.write(() => {
      this.#statement(
        `INSERT INTO vault_manifests (vault_id, sequence) VALUES (?, ?)
         ON CONFLICT (vault_id) DO UPDATE SET sequence = MAX(sequence, excluded.sequence)`,
      ).run(vaultId, sequence)
    })
  }

  /** A manifest reached the service: remembered when it is the newest stored. */
  manifestStored(
    vaultId: string,
    stored: { sequence: number; listing: string; assetId: string; at: string; key: string },
  ): void {
    this.write(() => {
      this.#statement(
        `UPDATE vault_manifests SET stored_sequence = ?, stored_listing = ?, stored_asset_id = ?, stored_at = ?, stored_key = ?
         WHERE vault_id = ? AND (stored_sequence IS NULL OR stored_sequence < ?)`,
      ).run(stored.sequence, stored.listing, stored.assetId, stored.at, stored.key, vaultId, stored.sequence)
    })
  }

  /**
   * The newest manifest another computer stored: its sequence is taken, its files carried into the
   * next manifest from here, and what it lists counts as stored.
   */
  manifestAdopted(
    vaultId: string,
    adopted: { sequence: number; listing: string; assetId: string; at: string; key: string; carried: string },
  ): void {
    this.write(() => {
      this.#statement(
        `INSERT INTO vault_manifests (vault_id, sequence, stored_sequence, stored_listing, stored_asset_id, stored_at, stored_key, carried)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (vault_id) DO UPDATE SET sequence = MAX(sequence, excluded.sequence),
           stored_sequence = excluded.stored_sequence, stored_listing = excluded.stored_listing,
           stored_asset_id = excluded.stored_asset_id, stored_at = excluded.stored_at,
           stored_key = excluded.stored_key, carried = excluded.carried`,
      ).run(
        vaultId,
        adopted.sequence,
        adopted.sequence,
        adopted.listing,
        adopted.assetId,
        adopted.at,
        adopted.key,
        adopted.carried,
      )
    })
  }

  /** The files carried from another computer's manifest, after some of them left the vault. */
  setCarried(vaultId: string, carried: string): void {
    this.write(() => {
      this.#statement('UPDATE vault_manifests SET carried = ? WHERE vault_id = ?').run(carried, vaultId)
    })
  }

  /** Forgets this computer's upload of a file (deleted from the vault elsewhere). */
  forgetEntry(vaultId: string, path: string): void {
    this.write(() => {
      this.#statement('DELETE FROM upload_index WHERE vault_id = ? AND path = ?').run(vaultId, path)
    })
  }

  // ---- the JSON files of earlier versions ----

  async #importLegacy(userDataDir: string, now: () => number): Promise<void> {
    for (const name of [LEGACY_QUEUE_FILE, LEGACY_INDEX_FILE]) {
      const file = join(userDataDir, name)
      let data: { items?: unknown; entries?: unknown } | null
      try {
        // A file that is not valid JSON is renamed aside by readJsonFile (kept for diagnosis).
        data = await readJsonFile<{ items?: unknown; entries?: unknown } | null>(file, null)
      } catch (error) {
        this.#problem = `${name} from an earlier version could not be read (${messageOf(error)}); it was left in place and will be read again at the next start.`
        continue
      }
      if (!data) continue
      const before = this.#problem
      this.write(() => {
        if (name === LEGACY_QUEUE_FILE && Array.isArray(data.items)) {
          const stamp = new Date(now()).toISOString()
          const insert = this.#statement(
            'INSERT OR IGNORE INTO upload_items (id, batch_id, bundle_id, state, item) VALUES (?, ?, NULL, ?, ?)',
          )
          for (const raw of data.items) {
            if (!validItem(raw)) continue
            const item: UploadItem = {
              ...raw,
              force: raw.force === true,
              sentBytes: Number.isFinite(raw.sentBytes) ? raw.sentBytes : 0,
              createdAt: typeof raw.createdAt === 'string' ? raw.createdAt : stamp,
              updatedAt: typeof raw.updatedAt === 'string' ? raw.updatedAt : stamp,
            }
            insert.run(item.id, item.batchId, item.state, JSON.stringify(item))
          }
        }
        if (name === LEGACY_INDEX_FILE && Array.isArray(data.entries)) {
          const insert = this.#statement(
            `INSERT OR IGNORE INTO upload_index (vault_id, path, relative_path, size, mtime_ms, sha256, asset_id, uploaded_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          for (const e of data.entries) {
            if (!validEntry(e)) continue
            insert.run(
              e.vaultId,
              e.path,
              e.relativePath,
              e.size,
              e.mtimeMs,
              e.sha256 ?? null,
              e.assetId,
              e.uploadedAt,
            )
          }
        }
      })
      // Renamed aside only once its rows are safely in the database (an import repeated after a
      // crash adds nothing twice: rows are matched by id and by path).
      if (this.persistent && this.#problem === before) {
        await rename(file, `${file}.imported`).catch(() => undefined)
      }
    }
  }
}
