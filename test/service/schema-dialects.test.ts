// The schema is written twice, once per dialect (database.ts for SQLite, postgres-store.ts for PostgreSQL),
// numbered alike: version N of one must hold what version N of the other holds. This derives each version's
// tables, columns (type class, nullability) and unique/plain indexes from both, migration by migration, so a
// migration added to one dialect only, or written differently, fails here.
import Database from 'better-sqlite3'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/service/database'
import { POSTGRES_MIGRATIONS } from '../../src/service/postgres-store'
import { postgresUnavailableReason, startTestPostgres, type TestPostgres } from './postgres-server'

const noPostgres = postgresUnavailableReason()
if (noPostgres) console.warn(`[schema-dialects.test] ${noPostgres}`)

/** table -> sorted "column type null|not-null" lines and sorted "unique|index (columns)" lines. */
type Shape = Record<string, { columns: string[]; indexes: string[] }>

/** One word per storage class, so SQLite's INTEGER and PostgreSQL's BIGINT compare equal. */
function typeClass(declared: string): string {
  const type = declared.toLowerCase()
  if (/int/.test(type)) return 'integer'
  if (/text|char|clob/.test(type)) return 'text'
  if (/blob|bytea/.test(type)) return 'bytes'
  if (/real|double|float|numeric/.test(type)) return 'real'
  return `unknown(${type})`
}

function sqliteShape(db: Database.Database): Shape {
  const shape: Shape = {}
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[]
  for (const table of tables) {
    const columns = db.prepare(`PRAGMA table_info(${table})`).all() as {
      name: string
      type: string
      notnull: number
      pk: number
    }[]
    const indexes = (
      db.prepare(`PRAGMA index_list(${table})`).all() as { name: string; unique: number; origin: string }[]
    )
      .filter((index) => index.origin !== 'pk')
      .map((index) => {
        const names = (db.prepare(`PRAGMA index_info(${index.name})`).all() as { name: string }[]).map(
          (c) => c.name,
        )
        return `${index.unique ? 'unique' : 'index'} (${names.join(', ')})`
      })
    shape[table] = {
      // A primary key is never null (SQLite would allow it for a TEXT key; the service never stores one).
      columns: columns
        .map((c) => `${c.name} ${typeClass(c.type)} ${c.notnull || c.pk ? 'not-null' : 'null'}`)
        .sort(),
      indexes: indexes.sort(),
    }
  }
  return shape
}

async function postgresShape(client: pg.Client): Promise<Shape> {
  const shape: Shape = {}
  const columns = await client.query<{
    table_name: string
    column_name: string
    data_type: string
    is_nullable: string
  }>(
    `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
     WHERE table_schema = 'public' AND table_name <> 'schema_version'`,
  )
  for (const c of columns.rows) {
    // PostgreSQL tables that are listed in insertion order carry the rowid SQLite gives every table.
    if (c.column_name === 'rowid') continue
    shape[c.table_name] ??= { columns: [], indexes: [] }
    shape[c.table_name]!.columns.push(
      `${c.column_name} ${typeClass(c.data_type)} ${c.is_nullable === 'NO' ? 'not-null' : 'null'}`,
    )
  }
  const indexes = await client.query<{ table: string; unique: boolean; columns: string[] }>(
    `SELECT t.relname AS table, i.indisunique AS unique,
       array(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n)
             JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.n)::text[] AS columns
     FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace s ON s.oid = t.relnamespace
     WHERE s.nspname = 'public' AND NOT i.indisprimary AND t.relname <> 'schema_version'`,
  )
  for (const index of indexes.rows) {
    shape[index.table]?.indexes.push(`${index.unique ? 'unique' : 'index'} (${index.columns.join(', ')})`)
  }
  for (const table of Object.values(shape)) {
    table.columns.sort()
    table.indexes.sort()
  }
  return Object.fromEntries(Object.entries(shape).sort(([a], [b]) => a.localeCompare(b)))
}

let server: TestPostgres | undefined
beforeAll(async () => {
  if (!noPostgres) server = await startTestPostgres()
})
afterAll(async () => {
  await server?.stop()
})

describe('the SQLite and PostgreSQL schemas', () => {
  it('have as many versions', () => {
    expect(POSTGRES_MIGRATIONS.length).toBe(SCHEMA_VERSION)
  })

  it.skipIf(noPostgres)('hold the same tables, columns and indexes at every version', async () => {
    const sqlite = new Database(':memory:')
    const client = new pg.Client({ connectionString: await server!.newDatabase() })
    await client.connect()
    try {
      for (let version = 0; version < SCHEMA_VERSION; version++) {
        sqlite.exec(MIGRATIONS[version]!)
        await client.query(POSTGRES_MIGRATIONS[version]!)
        expect({ version: version + 1, shape: await postgresShape(client) }).toEqual({
          version: version + 1,
          shape: sqliteShape(sqlite),
        })
      }
    } finally {
      sqlite.close()
      await client.end()
    }
  })
})
