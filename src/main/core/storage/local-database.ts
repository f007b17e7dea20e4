// The app's own SQLite files (uploads, activity): opened in WAL with a quick check and numbered
// migrations. A damaged file is set aside and a new one started; one that cannot be written falls back
// to memory. Never throws: the caller gets a database and, when something went wrong, a sentence.
import { chmodSync, closeSync, openSync } from 'node:fs'
import { chmod, mkdir, rename } from 'node:fs/promises'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './user-data-dir'

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** SQLite's words for a file that is not (or no longer) a readable database. */
function isDamaged(error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
}

/** The database file and the two SQLite keeps beside it in WAL mode. */
const SQLITE_SUFFIXES = ['', '-wal', '-shm'] as const

/**
 * The database file made owner-only before SQLite opens it: SQLite creates its -wal and -shm files
 * with the database file's own mode (and undoes the umask to do so), so they are private from the
 * first byte. An empty file is a valid empty database. An existing file is tightened too.
 */
function privateDatabaseFile(file: string): void {
  if (file === ':memory:' || process.platform === 'win32') return
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE))
  chmodSync(file, PRIVATE_FILE_MODE)
}

export function openDatabase(file: string, migrations: readonly string[]): Database.Database {
  privateDatabaseFile(file)
  const db = new Database(file)
  try {
    db.pragma('journal_mode = WAL')
    // WAL with NORMAL: a commit is an append to the log, synced at checkpoints; a power cut may lose
    // the last changes, never the database.
    db.pragma('synchronous = NORMAL')
    db.pragma('busy_timeout = 5000')
    const check = db.pragma('quick_check', { simple: true })
    if (check !== 'ok') {
      throw Object.assign(new Error(`the database is damaged (${String(check)})`), { code: 'SQLITE_CORRUPT' })
    }
    const version = db.pragma('user_version', { simple: true }) as number
    for (let v = version; v < migrations.length; v++) {
      db.transaction(() => {
        db.exec(migrations[v]!)
        db.pragma(`user_version = ${v + 1}`)
      })()
    }
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

/** What the owner is told, in the words of the store that failed. */
export interface DatabaseProblems {
  /** The file was damaged, kept as `copy`, and a new one started. */
  setAside(reason: string, copy: string): string
  /** After `problem`, a new file could not be made either. */
  newFailed(problem: string, reason: string): string
  /** The file could not be opened for another reason. */
  unopenable(reason: string): string
  /** Appended when only memory is left. */
  memoryOnly(problem: string): string
}

export interface OpenedDatabase {
  db: Database.Database
  /** false: kept in memory until the app closes. */
  persistent: boolean
  problem?: string
}

export async function openLocalDatabase(
  file: string,
  migrations: readonly string[],
  problems: DatabaseProblems,
  now: () => number = Date.now,
): Promise<OpenedDatabase> {
  await mkdir(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE }).catch(() => undefined)
  const inMemory = (problem: string): OpenedDatabase => ({
    db: openDatabase(':memory:', migrations),
    persistent: false,
    problem: problems.memoryOnly(problem),
  })
  let opened: OpenedDatabase
  try {
    opened = { db: openDatabase(file, migrations), persistent: true }
  } catch (error) {
    if (isDamaged(error)) {
      const copy = `${file}.damaged-${now()}`
      for (const suffix of SQLITE_SUFFIXES) {
        await rename(`${file}${suffix}`, `${copy}${suffix}`).catch(() => undefined)
      }
      const problem = problems.setAside(messageOf(error), copy)
      try {
        opened = { db: openDatabase(file, migrations), persistent: true, problem }
      } catch (again) {
        opened = inMemory(problems.newFailed(problem, messageOf(again)))
      }
    } else {
      opened = inMemory(problems.unopenable(messageOf(error)))
    }
  }
  if (opened.persistent && process.platform !== 'win32') {
    // -wal and -shm left by an older version (0644) keep their mode when SQLite reuses them.
    for (const suffix of SQLITE_SUFFIXES)
      await chmod(`${file}${suffix}`, PRIVATE_FILE_MODE).catch(() => undefined)
  }
  return opened
}

/** Prepared statements kept by their SQL: each is compiled once per database. */
export function statementCache(db: Database.Database): (sql: string) => Database.Statement {
  const statements = new Map<string, Database.Statement>()
  return (sql) => {
    let statement = statements.get(sql)
    if (!statement) {
      statement = db.prepare(sql)
      statements.set(sql, statement)
    }
    return statement
  }
}
