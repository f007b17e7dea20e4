// Opens the service's SQLite database (WAL, foreign keys), brings its schema up to date, and serves it
// as the service's SqlStore.
import { AsyncLocalStorage } from 'node:async_hooks'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { makePrivateDir, makePrivateFile, PRIVATE_FILE_MODE, setMode } from './private-files'
import { ReadCache } from './read-cache'
import type { RunResult, SqlStore, SqlValue } from './sql-store'

export type Db = Database.Database

const statements = new WeakMap<Db, Map<string, Database.Statement>>()

/** A prepared statement, compiled once per database and SQL text (compiling is most of a small query's cost). */
export function prepared(db: Db, sql: string): Database.Statement {
  let cache = statements.get(db)
  if (!cache) {
    cache = new Map()
    statements.set(db, cache)
  }
  let statement = cache.get(sql)
  if (!statement) {
    statement = db.prepare(sql)
    cache.set(sql, statement)
  }
  return statement
}

// Each entry moves the schema one version forward; PRAGMA user_version records how far a file has come.
// Never edit a released migration: append a new one.
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    credits_balance INTEGER NOT NULL CHECK (credits_balance >= 0),
    created_at TEXT NOT NULL
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('human', 'agent')),
    key_hash BLOB NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );
  CREATE TABLE credit_ledger (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    delta INTEGER NOT NULL,
    reason TEXT NOT NULL,
    reference TEXT,
    created_at TEXT NOT NULL
  );
  CREATE TABLE vaults (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    sss_preset TEXT NOT NULL CHECK (sss_preset IN ('standard', 'enhanced')),
    state TEXT NOT NULL CHECK (state IN ('active', 'releasing', 'released')),
    release_trigger TEXT CHECK (release_trigger IN ('dead_man_switch', 'manual', 'guardian_claim')),
    check_in_frequency TEXT CHECK (check_in_frequency IN ('weekly', 'biweekly', 'monthly', 'quarterly')),
    next_check_in_due TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX vaults_account ON vaults(account_id);
  CREATE TABLE guardians (
    id TEXT PRIMARY KEY,
    vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    email_key TEXT NOT NULL,
    wallet_address TEXT,
    status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'declined')),
    token_hash BLOB NOT NULL UNIQUE,
    invited_at TEXT NOT NULL,
    accepted_at TEXT,
    declined_at TEXT,
    claimed_at TEXT,
    UNIQUE (vault_id, email_key)
  );
  CREATE TABLE heirs (
    id TEXT PRIMARY KEY,
    vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    email_key TEXT NOT NULL,
    wallet_address TEXT,
    added_at TEXT NOT NULL,
    UNIQUE (vault_id, email_key)
  );
  CREATE TABLE heir_tokens (
    id TEXT PRIMARY KEY,
    vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
    heir_id TEXT NOT NULL REFERENCES heirs(id) ON DELETE CASCADE,
    token_hash BLOB NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );
  CREATE TABLE assets (
    id TEXT PRIMARY KEY,
    vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
    filename TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    category TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    storage_tx_id TEXT NOT NULL,
    metadata TEXT,
    credits_consumed INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    seq INTEGER NOT NULL
  );
  CREATE INDEX assets_vault ON assets(vault_id, seq);
  CREATE INDEX assets_vault_category ON assets(vault_id, category, seq);
  CREATE INDEX assets_sha ON assets(sha256);
  CREATE TABLE audit_pulses (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
    note TEXT,
    credits_consumed INTEGER NOT NULL,
    next_check_in_due TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE releases (
    id TEXT PRIMARY KEY,
    vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
    reason TEXT NOT NULL,
    started_at TEXT NOT NULL,
    contestation_ends_at TEXT NOT NULL,
    cancelled_at TEXT,
    released_at TEXT
  );
  CREATE INDEX releases_vault ON releases(vault_id, started_at);
  CREATE TABLE release_alerts (
    release_id TEXT NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
    day INTEGER NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('sent', 'skipped')),
    at TEXT NOT NULL,
    PRIMARY KEY (release_id, day)
  );
  CREATE TABLE outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    vault_id TEXT,
    kind TEXT NOT NULL,
    to_address TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    sent_at TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,
    last_error TEXT
  );
  CREATE INDEX outbox_vault ON outbox(vault_id);
  CREATE INDEX outbox_unsent ON outbox(sent_at, next_attempt_at);
  CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  // 2: vault names, the last mail test per account, practice releases (rehearsals).
  `
  ALTER TABLE vaults ADD COLUMN name TEXT;
  CREATE TABLE mail_tests (
    account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    to_address TEXT NOT NULL,
    at TEXT NOT NULL,
    delivered INTEGER NOT NULL CHECK (delivered IN (0, 1)),
    error TEXT
  );
  CREATE TABLE rehearsals (
    id TEXT PRIMARY KEY,
    vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
    heir_id TEXT NOT NULL,
    heir_name TEXT NOT NULL,
    heir_email TEXT NOT NULL,
    asset_id TEXT NOT NULL,
    asset_filename TEXT NOT NULL,
    challenge TEXT NOT NULL,
    proof_hash TEXT NOT NULL,
    token_hash BLOB NOT NULL UNIQUE,
    guardians_notified INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    ended_at TEXT,
    opened_at TEXT,
    downloaded_at TEXT,
    passed_at TEXT,
    failed_reports INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX rehearsals_vault ON rehearsals(vault_id, started_at);
  `,
  // 3: one-step check-in links, one per vault and check-in deadline, sent in the reminder e-mail.
  `
  CREATE TABLE check_in_links (
    id TEXT PRIMARY KEY,
    vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
    due_at TEXT NOT NULL,
    token_hash BLOB NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    used_at TEXT,
    UNIQUE (vault_id, due_at)
  );
  `,
  // 4: an outbox message is claimed by the instance sending it, so two instances never send it twice;
  // rate-limit windows kept in the database, for instances that share one.
  `
  ALTER TABLE outbox ADD COLUMN claimed_by TEXT;
  ALTER TABLE outbox ADD COLUMN claimed_until TEXT;
  CREATE TABLE rate_windows (
    id TEXT PRIMARY KEY,
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL
  );
  `,
  // 5: when a blob store that confirms (Arweave) last confirmed an asset's blob is permanently stored;
  // NULL until then. Stores that need no confirmation (a folder) leave it NULL and never ask.
  `
  ALTER TABLE assets ADD COLUMN storage_confirmed_at TEXT;
  CREATE INDEX assets_unconfirmed ON assets(storage_confirmed_at, created_at);
  `,
  // 6: a rehearsal carries its own practice file (encrypted under a practice key, forgotten when the
  // practice ends) instead of opening a vault asset. Practices still running under the old scheme, whose
  // e-mails asked guardians for their real kits, are ended.
  `
  UPDATE rehearsals SET ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE ended_at IS NULL;
  ALTER TABLE rehearsals DROP COLUMN asset_id;
  ALTER TABLE rehearsals RENAME COLUMN asset_filename TO sample_filename;
  ALTER TABLE rehearsals ADD COLUMN sample_bytes INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE rehearsals ADD COLUMN sample_owner_file INTEGER NOT NULL DEFAULT 0 CHECK (sample_owner_file IN (0, 1));
  ALTER TABLE rehearsals ADD COLUMN sample BLOB;
  `,
  // 7: how each account's last mail test travelled (tls, loopback, insecure-plaintext); NULL before.
  `
  ALTER TABLE mail_tests ADD COLUMN security TEXT;
  `,
  // 8: one-step check-in links in reminders are the owner's choice per vault, off by default (a link
  // makes "proof of life" mean "access to the owner's mailbox"); existing vaults stop getting them too.
  `
  ALTER TABLE vaults ADD COLUMN check_in_links INTEGER NOT NULL DEFAULT 0 CHECK (check_in_links IN (0, 1));
  `,
  // 9: Arweave re-sends per asset (each may pay for a new transaction, so they are counted and capped),
  // when the last one was sent (its grace period starts then, across restarts), and when the asset was
  // flagged for the operator at the cap instead of paying again.
  `
  ALTER TABLE assets ADD COLUMN storage_resends INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE assets ADD COLUMN storage_resent_at TEXT;
  ALTER TABLE assets ADD COLUMN storage_resend_capped_at TEXT;
  `,
  // 10: credits an upload reserved before paying the blob store; the row goes when the asset is recorded or
  // the credits are refunded, so one left by a crash is found and refunded (accounts.ts).
  `
  CREATE TABLE upload_reservations (
    asset_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    credits INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  `,
  // 11: kit check codes (extension kit-check, FORMAT.md 5.5). Per vault, the splits the owner registered
  // (one current, the older ones superseded and kept to name an old kit); per guardian and split, only the
  // hash of the kit's check code and where the guardian stands: confirmed, reminded, the owner told once.
  // A reminder's link token is kept as a hash beside the guardian it confirms for.
  `
  CREATE TABLE kit_check_splits (
    vault_id TEXT NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
    split TEXT NOT NULL,
    registered_at TEXT NOT NULL,
    superseded_at TEXT,
    PRIMARY KEY (vault_id, split)
  );
  CREATE TABLE kit_check_codes (
    vault_id TEXT NOT NULL,
    split TEXT NOT NULL,
    guardian_id TEXT NOT NULL REFERENCES guardians(id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    confirmed_at TEXT,
    reminded_at TEXT,
    owner_told_at TEXT,
    PRIMARY KEY (vault_id, split, guardian_id),
    FOREIGN KEY (vault_id, split) REFERENCES kit_check_splits(vault_id, split) ON DELETE CASCADE
  );
  CREATE INDEX kit_check_codes_hash ON kit_check_codes(vault_id, code_hash);
  CREATE TABLE kit_check_links (
    token_hash BLOB PRIMARY KEY,
    guardian_id TEXT NOT NULL REFERENCES guardians(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL
  );
  `,
  // 12: when a one-step check-in link was voided because the owner turned links off after it was sent:
  // turning them on again must not bring it back (the mailbox the owner distrusted still holds it).
  `
  ALTER TABLE check_in_links ADD COLUMN voided_at TEXT;
  `,
]

/** How many schema versions this service knows (the PostgreSQL schema keeps the same numbering). */
export const SCHEMA_VERSION = MIGRATIONS.length

export const DATABASE_FILE = 'vault.sqlite3'

export function openDatabase(dataDir: string): Db {
  makePrivateDir(dataDir)
  const path = join(dataDir, DATABASE_FILE)
  // SQLite creates the -wal and -shm files with the database file's own mode, so a 0600 database keeps
  // them private whatever the umask; ones left 0644 by an older version are tightened after opening.
  makePrivateFile(path)
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  for (const suffix of ['-wal', '-shm']) setMode(`${path}${suffix}`, PRIVATE_FILE_MODE)
  // Deleted and overwritten content (e-mail bodies once their links are redacted) is zeroed, not left in
  // free space where a copy of the file would still show it.
  db.pragma('secure_delete = ON')
  db.pragma('foreign_keys = ON')
  db.pragma('synchronous = NORMAL')
  // Another process (the admin CLI) may hold the write lock for a moment.
  db.pragma('busy_timeout = 5000')
  migrate(db)
  return db
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number
  if (current > MIGRATIONS.length) {
    throw new Error(
      `The database schema is version ${current}, newer than this service understands (${MIGRATIONS.length}). Run a newer Vault Service.`,
    )
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!)
      db.pragma(`user_version = ${version + 1}`)
    }).immediate()
  }
}

/** The SQLite database of a data directory as the service's store: one connection, one writer at a time. */
export class SqliteStore implements SqlStore {
  readonly kind = 'sqlite'
  readonly readCache: ReadCache
  /** Set inside a transaction's async context; `open` turns false at its end, for work it left running. */
  readonly #transaction = new AsyncLocalStorage<{ open: boolean }>()
  #open: { open: boolean } | null = null
  #queue: Promise<void> = Promise.resolve()
  #idle: Promise<void> = Promise.resolve()

  constructor(readonly connection: Db) {
    this.readCache = new ReadCache(connection)
  }

  get<T>(sql: string, ...params: SqlValue[]): Promise<T | undefined> {
    return this.#now(() => prepared(this.connection, sql).get(...params) as T | undefined)
  }

  all<T>(sql: string, ...params: SqlValue[]): Promise<T[]> {
    return this.#now(() => prepared(this.connection, sql).all(...params) as T[])
  }

  run(sql: string, ...params: SqlValue[]): Promise<RunResult> {
    return this.#now(() => ({ changes: prepared(this.connection, sql).run(...params).changes }))
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#transaction.getStore()?.open) return fn()
    // One transaction at a time on the one connection; the others wait their turn.
    const previous = this.#queue
    let done!: () => void
    const ours = new Promise<void>((resolve) => {
      done = resolve
    })
    this.#queue = ours
    await previous
    const marker = { open: true }
    this.#open = marker
    this.#idle = ours
    try {
      this.connection.exec('BEGIN IMMEDIATE')
      try {
        const result = await this.#transaction.run(marker, fn)
        this.connection.exec('COMMIT')
        return result
      } catch (error) {
        if (this.connection.inTransaction) this.connection.exec('ROLLBACK')
        throw error
      }
    } finally {
      marker.open = false
      this.#open = null
      done()
    }
  }

  async close(): Promise<void> {
    await this.#queue
    this.connection.close()
  }

  /** Runs a statement now, unless another request's transaction is open on the connection: then after it. */
  #now<T>(statement: () => T): Promise<T> {
    if (this.#open && !this.#transaction.getStore()?.open) {
      return this.#idle.then(() => this.#now(statement))
    }
    try {
      return Promise.resolve(statement())
    } catch (error) {
      return Promise.reject(error)
    }
  }
}

export function openSqliteStore(dataDir: string): SqliteStore {
  return new SqliteStore(openDatabase(dataDir))
}
