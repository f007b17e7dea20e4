// Answers read from the database, kept while the database has not changed since: a write by this
// service (total_changes) or a commit by another process on the same file (data_version, e.g.
// `service admin revoke-key` while the service runs) drops them all, so a revoked key or a changed
// vault is never answered from here. A run of reads then costs two tiny statements per request instead
// of the queries behind them (bench:service, authenticated GET /vault/:id).
import type Database from 'better-sqlite3'
import type { ReadCacheLike } from './sql-store'

export class ReadCache implements ReadCacheLike {
  readonly #changes: Database.Statement
  readonly #dataVersion: Database.Statement
  readonly #entries = new Map<string, unknown>()
  #seenChanges = -1
  #seenDataVersion = -1

  constructor(db: Database.Database) {
    // total_changes() costs ~0.05 µs; PRAGMA data_version ~2 µs (it reads the WAL index), so the
    // latter is read once per request (sync) and the former on every get.
    this.#changes = db.prepare('SELECT total_changes()').pluck()
    this.#dataVersion = db.prepare('PRAGMA data_version').pluck()
  }

  /** Call at the start of each request: drops everything if another process committed since. */
  sync(): void {
    const version = this.#dataVersion.get() as number
    if (version !== this.#seenDataVersion) {
      this.#entries.clear()
      this.#seenDataVersion = version
    }
  }

  /** The kept answer for `key`, or `load()`'s (kept unless undefined or null). */
  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const changes = this.#changes.get() as number
    if (changes !== this.#seenChanges) {
      this.#entries.clear()
      this.#seenChanges = changes
    }
    if (this.#entries.has(key)) return this.#entries.get(key) as T
    const value = await load()
    // A write while load() ran makes total_changes differ from what was seen: keep nothing then.
    if ((this.#changes.get() as number) !== this.#seenChanges) return value
    if (value !== undefined && value !== null) {
      // Bounded: many distinct keys (a scan of ids) must not grow memory without end.
      if (this.#entries.size >= 10_000) this.#entries.clear()
      this.#entries.set(key, value)
    }
    return value
  }
}
