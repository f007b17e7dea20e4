// The service's one storage interface for its state: SQL run against SQLite (the embedded default, one
// instance) or PostgreSQL (several instances sharing one database). Domain code writes portable SQL with
// `?` placeholders; each implementation maps it onto its own database.
export type SqlValue = string | number | bigint | Buffer | null

export interface RunResult {
  /** Rows inserted, updated or deleted. */
  changes: number
}

export interface SqlStore {
  readonly kind: 'sqlite' | 'postgres'
  /** The first row, or undefined. */
  get<T>(sql: string, ...params: SqlValue[]): Promise<T | undefined>
  all<T>(sql: string, ...params: SqlValue[]): Promise<T[]>
  run(sql: string, ...params: SqlValue[]): Promise<RunResult>
  /**
   * Runs fn as one transaction that sees no other writer's changes half done (SQLite: one writer at a
   * time; PostgreSQL: SERIALIZABLE). Every query fn makes, in any function it calls, joins it; nested calls
   * join the outer one. On PostgreSQL fn may run again when another instance's transaction conflicted, so
   * fn only changes the database; files and mail are handled after it returns.
   */
  transaction<T>(fn: () => Promise<T>): Promise<T>
  /** Answers kept while nothing was written (read-cache.ts, postgres-read-cache.ts). */
  readonly readCache: ReadCacheLike
  close(): Promise<void>
}

/** Cache of read answers across requests (read-cache.ts for SQLite's, postgres-read-cache.ts for PostgreSQL's). */
export interface ReadCacheLike {
  /** Call at the start of each request: forgets everything another process may have changed. */
  sync(): void
  get<T>(key: string, load: () => Promise<T>): Promise<T>
}

export async function readSetting(db: SqlStore, key: string): Promise<string | undefined> {
  return (await db.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', key))?.value
}

export async function writeSetting(db: SqlStore, key: string, value: string): Promise<void> {
  await db.run(
    'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    key,
    value,
  )
}
