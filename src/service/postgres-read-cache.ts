// Answers read from PostgreSQL, kept in this instance's memory while no process has changed the tables they
// come from. Every table but UNWATCHED_TABLES carries a statement-level trigger (installChangeNotices) that
// calls pg_notify(CHANGE_CHANNEL) on any INSERT, UPDATE, DELETE or TRUNCATE, whoever runs it: another
// instance, `service admin revoke-key`, an operator's psql. One LISTEN connection per instance hears it and
// drops everything. The bound on a revoked key (or any change) being answered from here:
//   - on the instance that wrote: none, its own writes drop the answers when they commit (PostgresStore);
//   - on any other instance: until the notification reaches it (commit-to-delivery, milliseconds);
//   - while the LISTEN connection is down or not yet listening: nothing is kept, every read asks the database;
//   - a notification lost on a connection that looks alive (a half-open TCP link), or a write that skips
//     triggers (session_replication_role = replica): MAX_AGE_MS, after which an answer is read again.
import type pg from 'pg'
import type { ReadCacheLike } from './sql-store'

export const CHANGE_CHANNEL = 'vault_changes'
/** Tables no kept answer reads: written on every request (rate_windows) or by the mail loop (outbox). */
export const UNWATCHED_TABLES: readonly string[] = ['rate_windows', 'outbox', 'schema_version']
/** The longest an answer is kept, even when no notification came. */
export const MAX_AGE_MS = 2_000
const TRIGGER = 'vault_changes_notice'
const NOTIFY_FUNCTION = 'vault_notify_change'
const MAX_ENTRIES = 10_000
const RETRY_MS = { first: 250, last: 5_000 }

/**
 * Creates the notice function and its trigger on every table that lacks it (all but UNWATCHED_TABLES), so a
 * table a later migration adds is watched from the next start on. Runs with the migrations, under their lock.
 */
export async function installChangeNotices(client: pg.ClientBase): Promise<void> {
  const missing = await client.query<{ table: string }>(
    `SELECT c.relname AS table FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT (c.relname = ANY($1::text[]))
       AND NOT EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = $2)`,
    [UNWATCHED_TABLES, TRIGGER],
  )
  if (missing.rows.length === 0) return
  await client.query('BEGIN')
  try {
    await client.query(
      `CREATE OR REPLACE FUNCTION ${NOTIFY_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_notify('${CHANGE_CHANNEL}', TG_TABLE_NAME);
         RETURN NULL;
       END $$`,
    )
    for (const { table } of missing.rows) {
      await client
        .query(
          `CREATE TRIGGER ${TRIGGER} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${quoteIdentifier(table)}
           FOR EACH STATEMENT EXECUTE FUNCTION ${NOTIFY_FUNCTION}()`,
        )
        .catch((error: Error) => {
          throw new Error(
            `cannot add the change-notice trigger to table ${table} (${error.message}); start the service once with a database role that owns the tables, and it adds the trigger`,
          )
        })
    }
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK')
    throw error
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

interface Entry {
  value: unknown
  /** performance.now() when its load started: its age counts from before the database was asked. */
  since: number
}

export class PostgresReadCache implements ReadCacheLike {
  readonly #entries = new Map<string, Entry>()
  /** Moves on every drop; an answer loaded under an older generation is never kept. */
  #generation = 0
  #listener: pg.Client | null = null
  #listening = false
  #started = false
  #closed = false
  #retryMs = RETRY_MS.first
  #retry: NodeJS.Timeout | undefined
  /** Whether the loss of the notices was already logged (once per outage, not at every retry). */
  #toldLost = false
  /** Notifications received, per table that changed: for tests and diagnostics. */
  readonly notices = new Map<string, number>()

  /**
   * `connect` makes the client the LISTEN runs on; `inTransaction` tells whether the caller is inside an
   * open transaction (its reads may see its own uncommitted writes, so nothing it reads is kept).
   */
  constructor(
    private readonly connect: () => pg.Client,
    private readonly inTransaction: () => boolean,
  ) {}

  /** Whether answers are kept now: false until LISTEN is in place and whenever its connection is lost. */
  get keeping(): boolean {
    return this.#listening
  }

  /** The listener's backend process id (pg_stat_activity.pid), or null when it is not listening. */
  get listenerPid(): number | null {
    return this.#listening ? ((this.#listener as { processID?: number } | null)?.processID ?? null) : null
  }

  /** Starts listening at the first request (the admin CLI, which never serves one, opens no connection for it). */
  sync(): void {
    if (!this.#started) {
      this.#started = true
      void this.#listen()
    }
  }

  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (!this.#listening || this.inTransaction()) return load()
    const now = performance.now()
    const entry = this.#entries.get(key)
    if (entry && now - entry.since < MAX_AGE_MS) return entry.value as T
    const generation = this.#generation
    const value = await load()
    // A change noticed (or the listener lost) while load() ran may postdate what it read: keep nothing then.
    if (value !== undefined && value !== null && this.#listening && this.#generation === generation) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear()
      this.#entries.set(key, { value, since: now })
    }
    return value
  }

  /** Forgets every answer: a change was committed, or may have been without a notice reaching here. */
  drop(): void {
    this.#generation++
    this.#entries.clear()
  }

  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#retry)
    this.#stopListening()
    const listener = this.#listener
    this.#listener = null
    await listener?.end().catch(() => {})
  }

  async #listen(): Promise<void> {
    const client = this.connect()
    this.#listener = client
    client.on('notification', (notice) => {
      const table = notice.payload ?? ''
      this.notices.set(table, (this.notices.get(table) ?? 0) + 1)
      this.drop()
    })
    client.on('error', (error) => this.#lost(client, error))
    client.on('end', () => this.#lost(client, new Error('the connection closed')))
    try {
      await client.connect()
      await client.query(`LISTEN ${CHANGE_CHANNEL}`)
    } catch (error) {
      this.#lost(client, error as Error)
      return
    }
    if (this.#listener !== client || this.#closed) {
      await client.end().catch(() => {})
      return
    }
    // Changes committed before LISTEN took effect were never announced: start from nothing.
    this.drop()
    this.#listening = true
    this.#retryMs = RETRY_MS.first
    this.#toldLost = false
  }

  #stopListening(): void {
    this.#listening = false
    this.drop()
  }

  #lost(client: pg.Client, error: Error): void {
    if (this.#listener !== client) return
    this.#listener = null
    this.#stopListening()
    void client.end().catch(() => {})
    if (this.#closed) return
    if (!this.#toldLost) {
      this.#toldLost = true
      console.error(
        `[vault-service] not hearing PostgreSQL's change notices (${error.message}): every read goes to the database until the LISTEN connection is back`,
      )
    }
    this.#retry = setTimeout(() => void this.#listen(), this.#retryMs)
    this.#retry.unref()
    this.#retryMs = Math.min(RETRY_MS.last, this.#retryMs * 2)
  }
}
