// The owner's activity history per vault, kept on this device only (activity.sqlite in the user-data
// folder): check-ins, finished uploads, guardian and heir changes, kit hand-overs, release events and
// key events, each with its time, kind, source and a short structured detail. Append-only: the table
// refuses updates and deletes. A database that cannot be read never stops the app (as uploads.sqlite):
// it is kept aside, a new history starts, and `problem` says so in a sentence for the owner.
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import {
  ACTIVITY_KINDS,
  ACTIVITY_SOURCES,
  type ActivityDetail,
  type ActivityEntry,
  type ActivityKind,
  type ActivitySource,
} from '../../../shared/ipc/vault-types'
import { messageOf, openLocalDatabase, statementCache } from '../storage/local-database'

export const ACTIVITY_DB_FILE = 'activity.sqlite'

// Each entry moves the schema one version forward (PRAGMA user_version); append, never edit.
const MIGRATIONS: string[] = [
  `
  CREATE TABLE activity (
    id INTEGER PRIMARY KEY,
    vault_id TEXT NOT NULL,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    source TEXT NOT NULL,
    detail TEXT NOT NULL,
    -- Set for events that may be seen more than once (a batch's end, a release observed again):
    -- the second sighting adds nothing.
    ref TEXT
  );
  CREATE INDEX activity_vault ON activity (vault_id, id);
  CREATE INDEX activity_vault_kind ON activity (vault_id, kind, id);
  CREATE UNIQUE INDEX activity_ref ON activity (vault_id, ref) WHERE ref IS NOT NULL;
  CREATE TRIGGER activity_no_update BEFORE UPDATE ON activity
    BEGIN SELECT RAISE(ABORT, 'the activity history is append-only'); END;
  CREATE TRIGGER activity_no_delete BEFORE DELETE ON activity
    BEGIN SELECT RAISE(ABORT, 'the activity history is append-only'); END;
  `,
]

/** Names of an upload batch kept in an entry: enough to recognise it, not a copy of the list. */
export const MAX_NAMES = 5

export interface ActivityInput {
  vaultId: string
  kind: ActivityKind
  source: ActivitySource
  detail?: ActivityDetail
  /** Defaults to now. */
  at?: string
  /** An entry with the same ref for the vault was already recorded: nothing is added. */
  ref?: string
}

export interface ActivityQuery {
  kinds?: readonly ActivityKind[]
  limit: number
  offset: number
}

interface Row {
  id: number
  vault_id: string
  at: string
  kind: string
  source: string
  detail: string
}

function toEntry(row: Row): ActivityEntry | undefined {
  if (!(ACTIVITY_KINDS as readonly string[]).includes(row.kind)) return undefined
  if (!(ACTIVITY_SOURCES as readonly string[]).includes(row.source)) return undefined
  let detail: ActivityDetail
  try {
    const parsed = JSON.parse(row.detail) as unknown
    detail = parsed && typeof parsed === 'object' ? (parsed as ActivityDetail) : {}
  } catch {
    detail = {}
  }
  return {
    id: row.id,
    vaultId: row.vault_id,
    at: row.at,
    kind: row.kind as ActivityKind,
    source: row.source as ActivitySource,
    detail,
  }
}

export class ActivityLog {
  readonly #db: Database.Database
  readonly #statement: (sql: string) => Database.Statement
  readonly #now: () => number
  #problem: string | undefined
  readonly file: string
  readonly persistent: boolean

  private constructor(
    db: Database.Database,
    file: string,
    persistent: boolean,
    now: () => number,
    problem?: string,
  ) {
    this.#db = db
    this.#statement = statementCache(db)
    this.file = file
    this.persistent = persistent
    this.#now = now
    this.#problem = problem
  }

  /** Opens (or creates) the history; never throws. */
  static async open(userDataDir: string, now: () => number = Date.now): Promise<ActivityLog> {
    const file = join(userDataDir, ACTIVITY_DB_FILE)
    const { db, persistent, problem } = await openLocalDatabase(
      file,
      MIGRATIONS,
      {
        setAside: (reason, copy) =>
          `The activity history on this computer could not be read (${reason}); it was kept as ${copy} and a new history was started. Your vaults are not affected; only the list of past activity starts again from now.`,
        newFailed: (problem, reason) => `${problem} A new history could not be created either (${reason}).`,
        unopenable: (reason) => `The activity history could not be opened (${reason}).`,
        memoryOnly: (problem) =>
          `${problem} Activity is recorded only until the app closes. Check that ${file} can be written, then restart the app.`,
      },
      now,
    )
    const log = new ActivityLog(db, file, persistent, now, problem)
    if (problem) console.warn(problem)
    return log
  }

  /** Set when the history could not be read or written: a sentence for the owner. */
  get problem(): string | undefined {
    return this.#problem
  }

  #failed(what: 'saved' | 'read', error: unknown): void {
    const problem = `The activity history could not be ${what} (${messageOf(error)}). The vaults work as before, but this computer's list of past activity may miss entries. Check free disk space and that ${this.file} can be written.`
    if (problem !== this.#problem) console.error(problem)
    this.#problem = problem
  }

  /** Adds an entry; returns it, or undefined when its ref was already recorded or the write failed. */
  append(input: ActivityInput): ActivityEntry | undefined {
    const at = input.at ?? new Date(this.#now()).toISOString()
    const detail = JSON.stringify(input.detail ?? {})
    try {
      const result = this.#statement(
        'INSERT OR IGNORE INTO activity (vault_id, at, kind, source, detail, ref) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(input.vaultId, at, input.kind, input.source, detail, input.ref ?? null)
      if (result.changes === 0) return undefined
      return {
        id: Number(result.lastInsertRowid),
        vaultId: input.vaultId,
        at,
        kind: input.kind,
        source: input.source,
        detail: input.detail ?? {},
      }
    } catch (error) {
      this.#failed('saved', error)
      return undefined
    }
  }

  /** Newest first (by the order recorded), optionally of some kinds only. */
  list(vaultId: string, query: ActivityQuery): { items: ActivityEntry[]; total: number } {
    const kinds = query.kinds?.length ? [...new Set(query.kinds)] : undefined
    const where = kinds ? `vault_id = ? AND kind IN (${kinds.map(() => '?').join(', ')})` : 'vault_id = ?'
    const params = kinds ? [vaultId, ...kinds] : [vaultId]
    try {
      const total = (
        this.#statement(`SELECT COUNT(*) AS n FROM activity WHERE ${where}`).get(...params) as { n: number }
      ).n
      const rows = this.#statement(
        `SELECT id, vault_id, at, kind, source, detail FROM activity WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`,
      ).all(...params, query.limit, query.offset) as Row[]
      return { items: rows.map(toEntry).filter((e) => e !== undefined), total }
    } catch (error) {
      this.#failed('read', error)
      return { items: [], total: 0 }
    }
  }

  /** Every entry of a vault, oldest first (for export). */
  all(vaultId: string): ActivityEntry[] {
    try {
      const rows = this.#statement(
        'SELECT id, vault_id, at, kind, source, detail FROM activity WHERE vault_id = ? ORDER BY id',
      ).all(vaultId) as Row[]
      return rows.map(toEntry).filter((e) => e !== undefined)
    } catch (error) {
      this.#failed('read', error)
      return []
    }
  }

  /** The latest entry of a kind (and source) for a vault. */
  latest(vaultId: string, kind: ActivityKind, source?: ActivitySource): ActivityEntry | undefined {
    try {
      const row = (
        source
          ? this.#statement(
              'SELECT id, vault_id, at, kind, source, detail FROM activity WHERE vault_id = ? AND kind = ? AND source = ? ORDER BY id DESC LIMIT 1',
            ).get(vaultId, kind, source)
          : this.#statement(
              'SELECT id, vault_id, at, kind, source, detail FROM activity WHERE vault_id = ? AND kind = ? ORDER BY id DESC LIMIT 1',
            ).get(vaultId, kind)
      ) as Row | undefined
      return row ? toEntry(row) : undefined
    } catch (error) {
      this.#failed('read', error)
      return undefined
    }
  }

  close(): void {
    if (this.#db.open) this.#db.close()
  }
}

// ---- export ----

const SOURCE_WORDS: Record<ActivitySource, string> = {
  window: 'this computer',
  tray: 'the tray menu',
  reminder: 'a reminder',
  unlock: 'unlocking this computer',
  service: 'seen on the service',
}

/** One line in English for the exported file (the window words entries from its own catalogue). */
export function describeActivity(entry: ActivityEntry): string {
  const d = entry.detail
  const who = d.person ? `${d.person}${d.email ? ` <${d.email}>` : ''}` : 'someone'
  switch (entry.kind) {
    case 'vault-created':
      return `Vault created${d.note ? `: ${d.note}` : ''}`
    case 'vault-renamed':
      return `Vault renamed${d.note ? ` to ${d.note}` : ''}`
    case 'credits-added':
      return `${d.credits ?? 0} credit${d.credits === 1 ? '' : 's'} added to the account`
    case 'practice-started':
      return `Practice release started with ${who}`
    case 'practice-passed':
      return `Practice passed: ${who} rebuilt the practice key from the practice kits`
    case 'check-in':
      return `Checked in${entry.source === 'unlock' ? ' on unlock' : ''}${d.nextCheckInDue ? `; next check-in due ${d.nextCheckInDue}` : ''}${d.note ? ` (note: ${d.note})` : ''}`
    case 'check-in-failed':
      return `Check-in did not go through${d.error ? `: ${d.error}` : ''}`
    case 'upload': {
      const files = d.files ?? 0
      const failed = d.failed ?? 0
      return `Uploaded ${files} file${files === 1 ? '' : 's'}${failed ? `, ${failed} failed` : ''}${d.credits !== undefined ? ` for ${d.credits} credit${d.credits === 1 ? '' : 's'}` : ''}${d.names?.length ? ` (${d.names.join(', ')}${files > d.names.length ? ', …' : ''})` : ''}`
    }
    case 'files-deleted': {
      const files = d.files ?? 0
      return `Deleted ${files} file${files === 1 ? '' : 's'} from the vault${d.credits ? ` (re-packing cost ${d.credits} credit${d.credits === 1 ? '' : 's'})` : ''}${d.names?.length ? ` (${d.names.join(', ')}${files > d.names.length ? ', …' : ''})` : ''}`
    }
    case 'guardian-added':
      return `Guardian added: ${who}`
    case 'guardian-removed':
      return `Guardian removed: ${who}`
    case 'heir-added':
      return `Heir added: ${who}`
    case 'heir-removed':
      return `Heir removed: ${who}`
    case 'kit-handed-over':
      return `Kit handed over to ${d.person ?? 'a guardian'}`
    case 'kit-taken-back':
      return `Kit hand-over to ${d.person ?? 'a guardian'} taken back`
    case 'release-configured':
      return `Release trigger set: ${d.trigger ?? 'unknown'}${d.checkInFrequency ? `, check in ${d.checkInFrequency}` : ''}`
    case 'release-started':
      return 'Release started'
    case 'release-cancelled':
      return 'Release cancelled'
    case 'released':
      return 'Vault released to the heirs'
    case 'owner-kit-confirmed':
      return 'Owner kit saved and confirmed'
    case 'vault-key-imported':
      return 'Vault key put on this computer from the owner kit'
    case 'vault-key-replaced':
      return 'Lost vault key replaced by a new one; guardian kits made again'
  }
}

/** A spreadsheet cell: quoted, and never read as a formula (a name starting with = + - @). */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) || safe !== value ? `"${safe.replace(/"/g, '""')}"` : safe
}

export const CSV_COLUMNS = ['time', 'kind', 'source', 'description', 'detail'] as const

/** The history of a vault as CSV (header, then oldest first) or JSON. */
export function exportActivityText(
  vaultId: string,
  entries: readonly ActivityEntry[],
  format: 'csv' | 'json',
): string {
  if (format === 'json') {
    return `${JSON.stringify(
      {
        vaultId,
        entries: entries.map((e) => ({ at: e.at, kind: e.kind, source: e.source, detail: e.detail })),
      },
      null,
      2,
    )}\n`
  }
  const lines = [CSV_COLUMNS.join(',')]
  for (const e of entries) {
    lines.push(
      [e.at, e.kind, SOURCE_WORDS[e.source], describeActivity(e), JSON.stringify(e.detail)]
        .map(csvCell)
        .join(','),
    )
  }
  return `${lines.join('\r\n')}\r\n`
}
