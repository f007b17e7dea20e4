// A key rotation's progress, one row per vault and one per blob, in key-rotations.sqlite (WAL) in the
// user-data folder: a blob re-encrypted is recorded the moment the service answers, so a restart, a
// crash or a cancel continues where it stopped instead of paying for the same upload twice.
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import type { KeyRotationPhase } from '../../../shared/ipc/key-rotation'
import { openLocalDatabase, statementCache } from '../storage/local-database'

export const KEY_ROTATION_DB_FILE = 'key-rotations.sqlite'

// Each entry moves the schema one version forward (PRAGMA user_version); append, never edit.
const MIGRATIONS: string[] = [
  `
  CREATE TABLE rotations (
    vault_id TEXT PRIMARY KEY,
    connection_id TEXT,
    phase TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    estimated_credits INTEGER NOT NULL,
    old_fingerprint TEXT NOT NULL,
    new_fingerprint TEXT NOT NULL,
    store_permanent INTEGER,
    kits_made INTEGER,
    problem TEXT
  );
  CREATE TABLE rotation_blobs (
    vault_id TEXT NOT NULL,
    old_asset_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    size_bytes INTEGER NOT NULL,
    new_asset_id TEXT,
    new_size_bytes INTEGER,
    credits_consumed INTEGER,
    old_deleted INTEGER NOT NULL DEFAULT 0,
    content_removed INTEGER,
    unreadable TEXT,
    PRIMARY KEY (vault_id, old_asset_id)
  ) WITHOUT ROWID;
  CREATE INDEX rotation_blobs_new ON rotation_blobs (vault_id, new_asset_id);
  `,
  // A new copy is read back whole under the new key before its old copy may go.
  `
  ALTER TABLE rotation_blobs ADD COLUMN new_verified INTEGER NOT NULL DEFAULT 0;
  `,
]

export interface RotationRecord {
  vaultId: string
  connectionId: string | null
  phase: KeyRotationPhase
  startedAt: string
  finishedAt: string | null
  estimatedCredits: number
  oldFingerprint: string
  newFingerprint: string
  /** What the service said of its store when the rotation started (null: it did not say). */
  storePermanent: boolean | null
  /** Guardian kits made of the new key at the switch (null: not yet). */
  kitsMade: number | null
  problem: string | null
}

export interface RotationBlob {
  oldAssetId: string
  seq: number
  sizeBytes: number
  newAssetId: string | null
  newSizeBytes: number | null
  creditsConsumed: number | null
  /** The new copy was downloaded and authenticated whole under the new key. */
  newVerified: boolean
  oldDeleted: boolean
  /** The service removed the old blob's bytes (false: a permanent store kept them). */
  contentRemoved: boolean | null
  /** Why the blob opens under neither key and was left as it is. */
  unreadable: string | null
}

interface RotationRow {
  vault_id: string
  connection_id: string | null
  phase: string
  started_at: string
  finished_at: string | null
  estimated_credits: number
  old_fingerprint: string
  new_fingerprint: string
  store_permanent: number | null
  kits_made: number | null
  problem: string | null
}

interface BlobRow {
  old_asset_id: string
  seq: number
  size_bytes: number
  new_asset_id: string | null
  new_size_bytes: number | null
  credits_consumed: number | null
  new_verified: number
  old_deleted: number
  content_removed: number | null
  unreadable: string | null
}

const PHASES: readonly KeyRotationPhase[] = ['re-encrypting', 'switched', 'awaiting-owner-kit', 'done']

function toRecord(row: RotationRow): RotationRecord {
  return {
    vaultId: row.vault_id,
    connectionId: row.connection_id,
    phase: PHASES.includes(row.phase as KeyRotationPhase) ? (row.phase as KeyRotationPhase) : 're-encrypting',
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    estimatedCredits: row.estimated_credits,
    oldFingerprint: row.old_fingerprint,
    newFingerprint: row.new_fingerprint,
    storePermanent: row.store_permanent === null ? null : row.store_permanent === 1,
    kitsMade: row.kits_made,
    problem: row.problem,
  }
}

function toBlob(row: BlobRow): RotationBlob {
  return {
    oldAssetId: row.old_asset_id,
    seq: row.seq,
    sizeBytes: row.size_bytes,
    newAssetId: row.new_asset_id,
    newSizeBytes: row.new_size_bytes,
    creditsConsumed: row.credits_consumed,
    newVerified: row.new_verified === 1,
    oldDeleted: row.old_deleted === 1,
    contentRemoved: row.content_removed === null ? null : row.content_removed === 1,
    unreadable: row.unreadable,
  }
}

export class KeyRotationStore {
  readonly #db: Database.Database
  readonly #sql: (sql: string) => Database.Statement
  /** Set when the file could not be used: progress then lasts only while the app runs. */
  readonly problem: string | undefined

  private constructor(db: Database.Database, problem: string | undefined) {
    this.#db = db
    this.#sql = statementCache(db)
    this.problem = problem
  }

  static async open(userDataDir: string, now?: () => number): Promise<KeyRotationStore> {
    const opened = await openLocalDatabase(
      join(userDataDir, KEY_ROTATION_DB_FILE),
      MIGRATIONS,
      {
        setAside: (reason, copy) =>
          `The record of key rotations could not be read (${reason}); it was kept as ${copy} and a new one started.`,
        newFailed: (problem, reason) => `${problem} A new record could not be made either (${reason}).`,
        unopenable: (reason) => `The record of key rotations could not be opened (${reason}).`,
        memoryOnly: (problem) =>
          `${problem} A rotation started now is remembered only until the app closes; after a restart it starts over.`,
      },
      now,
    )
    return new KeyRotationStore(opened.db, opened.problem)
  }

  rotation(vaultId: string): RotationRecord | undefined {
    const row = this.#sql('SELECT * FROM rotations WHERE vault_id = ?').get(vaultId) as
      | RotationRow
      | undefined
    return row ? toRecord(row) : undefined
  }

  /** Rotations not yet done (to resume at start). */
  unfinished(): RotationRecord[] {
    return (this.#sql("SELECT * FROM rotations WHERE phase != 'done'").all() as RotationRow[]).map(toRecord)
  }

  /** A new rotation with the vault's blobs as listed now; an earlier finished one is forgotten. */
  begin(
    record: Omit<RotationRecord, 'phase' | 'finishedAt' | 'problem' | 'kitsMade'>,
    blobs: ReadonlyArray<{ assetId: string; sizeBytes: number }>,
  ): void {
    this.#db.transaction(() => {
      this.#sql('DELETE FROM rotation_blobs WHERE vault_id = ?').run(record.vaultId)
      this.#sql('DELETE FROM rotations WHERE vault_id = ?').run(record.vaultId)
      this.#sql(
        `INSERT INTO rotations (vault_id, connection_id, phase, started_at, estimated_credits,
           old_fingerprint, new_fingerprint, store_permanent)
         VALUES (?, ?, 're-encrypting', ?, ?, ?, ?, ?)`,
      ).run(
        record.vaultId,
        record.connectionId,
        record.startedAt,
        record.estimatedCredits,
        record.oldFingerprint,
        record.newFingerprint,
        record.storePermanent === null ? null : record.storePermanent ? 1 : 0,
      )
      this.#addBlobs(record.vaultId, blobs)
    })()
  }

  /** Blobs found after the start (uploaded meanwhile under the old key). */
  addBlobs(
    vaultId: string,
    blobs: ReadonlyArray<{ assetId: string; sizeBytes: number; unreadable?: string }>,
  ): void {
    this.#db.transaction(() => this.#addBlobs(vaultId, blobs))()
  }

  #addBlobs(
    vaultId: string,
    blobs: ReadonlyArray<{ assetId: string; sizeBytes: number; unreadable?: string }>,
  ): void {
    const last = this.#sql('SELECT MAX(seq) AS seq FROM rotation_blobs WHERE vault_id = ?').get(vaultId) as {
      seq: number | null
    }
    let seq = (last.seq ?? 0) + 1
    const insert = this.#sql(
      `INSERT OR IGNORE INTO rotation_blobs (vault_id, old_asset_id, seq, size_bytes, unreadable)
       VALUES (?, ?, ?, ?, ?)`,
    )
    for (const b of blobs) insert.run(vaultId, b.assetId, seq++, b.sizeBytes, b.unreadable ?? null)
  }

  blobs(vaultId: string): RotationBlob[] {
    return (
      this.#sql('SELECT * FROM rotation_blobs WHERE vault_id = ? ORDER BY seq').all(vaultId) as BlobRow[]
    ).map(toBlob)
  }

  reencrypted(
    vaultId: string,
    oldAssetId: string,
    asset: { id: string; sizeBytes: number; creditsConsumed: number },
  ): void {
    this.#sql(
      `UPDATE rotation_blobs SET new_asset_id = ?, new_size_bytes = ?,
         credits_consumed = COALESCE(credits_consumed, 0) + ?, new_verified = 0
       WHERE vault_id = ? AND old_asset_id = ?`,
    ).run(asset.id, asset.sizeBytes, asset.creditsConsumed, vaultId, oldAssetId)
  }

  newVerified(vaultId: string, oldAssetId: string): void {
    this.#sql('UPDATE rotation_blobs SET new_verified = 1 WHERE vault_id = ? AND old_asset_id = ?').run(
      vaultId,
      oldAssetId,
    )
  }

  /**
   * A new copy that did not read back (deleted from the service by the caller): the blob is moved
   * again. Its credits stay counted, they were spent.
   */
  newCopyFailed(vaultId: string, oldAssetId: string): void {
    this.#sql(
      `UPDATE rotation_blobs SET new_asset_id = NULL, new_size_bytes = NULL, new_verified = 0
       WHERE vault_id = ? AND old_asset_id = ?`,
    ).run(vaultId, oldAssetId)
  }

  markUnreadable(vaultId: string, oldAssetId: string, reason: string): void {
    this.#sql('UPDATE rotation_blobs SET unreadable = ? WHERE vault_id = ? AND old_asset_id = ?').run(
      reason,
      vaultId,
      oldAssetId,
    )
  }

  oldDeleted(vaultId: string, oldAssetId: string, contentRemoved: boolean): void {
    this.#sql(
      'UPDATE rotation_blobs SET old_deleted = 1, content_removed = ? WHERE vault_id = ? AND old_asset_id = ?',
    ).run(contentRemoved ? 1 : 0, vaultId, oldAssetId)
  }

  setPhase(vaultId: string, phase: KeyRotationPhase, finishedAt?: string): void {
    this.#sql('UPDATE rotations SET phase = ?, finished_at = ? WHERE vault_id = ?').run(
      phase,
      finishedAt ?? null,
      vaultId,
    )
  }

  kitsMade(vaultId: string, count: number): void {
    this.#sql('UPDATE rotations SET kits_made = ? WHERE vault_id = ?').run(count, vaultId)
  }

  setProblem(vaultId: string, problem: string | null): void {
    this.#sql('UPDATE rotations SET problem = ? WHERE vault_id = ?').run(problem, vaultId)
  }

  /** An abandoned rotation leaves no trace. */
  forget(vaultId: string): void {
    this.#db.transaction(() => {
      this.#sql('DELETE FROM rotation_blobs WHERE vault_id = ?').run(vaultId)
      this.#sql('DELETE FROM rotations WHERE vault_id = ?').run(vaultId)
    })()
  }

  close(): void {
    this.#db.close()
  }
}
