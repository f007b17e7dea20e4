// The two SqlStore implementations keep the same promises: portable SQL, transactions that roll back
// whole, nested calls that join, and read-modify-write transactions that never lose an update when
// several run at once (SQLite: one writer; PostgreSQL: SERIALIZABLE with retries, several instances).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openSqliteStore, SCHEMA_VERSION } from '../../src/service/database'
import { openPostgresStore, redactedUrl } from '../../src/service/postgres-store'
import type { SqlStore } from '../../src/service/sql-store'
import { postgresUnavailableReason, startTestPostgres, type TestPostgres } from './postgres-server'

const noPostgres = postgresUnavailableReason()
if (noPostgres) console.warn(`[sql-store.test] PostgreSQL store: ${noPostgres}`)

let server: TestPostgres | undefined
const dirs: string[] = []
beforeAll(async () => {
  if (!noPostgres) server = await startTestPostgres()
})
afterAll(async () => {
  await server?.stop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

interface Opened {
  stores: SqlStore[]
  close(): Promise<void>
}

/** Two stores on one database: two instances for PostgreSQL; for SQLite the one store twice. */
const kinds: { name: string; skip: string | null; open(): Promise<Opened> }[] = [
  {
    name: 'SQLite',
    skip: null,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'vault-sql-store-'))
      dirs.push(dir)
      const store = openSqliteStore(dir)
      return { stores: [store, store], close: () => store.close() }
    },
  },
  {
    name: 'PostgreSQL',
    skip: noPostgres,
    async open() {
      const url = await server!.newDatabase()
      // Started together: both migrate the same empty database, in turn.
      const stores = await Promise.all([openPostgresStore(url), openPostgresStore(url)])
      return { stores, close: async () => void (await Promise.all(stores.map((s) => s.close()))) }
    },
  },
]

for (const kind of kinds) {
  describe.skipIf(kind.skip)(`${kind.name} store`, () => {
    it('runs portable SQL: insert, read back numbers and bytes, count changes', async () => {
      const { stores, close } = await kind.open()
      const [db] = stores as [SqlStore]
      try {
        await db.run(
          'INSERT INTO accounts (id, email, credits_balance, created_at) VALUES (?, ?, ?, ?)',
          'acc_1',
          'a@example.com',
          6_000_000_000,
          '2026-01-01T00:00:00.000Z',
        )
        await db.run(
          'INSERT INTO api_keys (id, account_id, kind, key_hash, created_at) VALUES (?, ?, ?, ?, ?)',
          'key_1',
          'acc_1',
          'human',
          Buffer.from([1, 2, 3]),
          '2026-01-01T00:00:00.000Z',
        )
        expect(
          await db.get<{ b: number }>('SELECT credits_balance AS b FROM accounts WHERE id = ?', 'acc_1'),
        ).toEqual({ b: 6_000_000_000 })
        const key = await db.get<{ key_hash: Buffer }>('SELECT key_hash FROM api_keys WHERE id = ?', 'key_1')
        expect(Buffer.from(key!.key_hash)).toEqual(Buffer.from([1, 2, 3]))
        expect(await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM accounts')).toEqual({ n: 1 })
        expect(await db.get('SELECT * FROM accounts WHERE id = ?', 'nobody')).toBeUndefined()
        const changed = await db.run('UPDATE accounts SET email = ? WHERE id = ?', 'b@example.com', 'acc_1')
        expect(changed.changes).toBe(1)
        expect((await db.run('UPDATE accounts SET email = ? WHERE id = ?', 'x', 'nobody')).changes).toBe(0)
      } finally {
        await close()
      }
    })

    it('rolls a failed transaction back whole, and nested transactions join the outer one', async () => {
      const { stores, close } = await kind.open()
      const [db] = stores as [SqlStore]
      try {
        const insert = (id: string) =>
          db.run(
            'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
            id,
            'v',
          )
        await expect(
          db.transaction(async () => {
            await insert('a')
            await db.transaction(async () => insert('b'))
            throw new Error('boom')
          }),
        ).rejects.toThrow('boom')
        expect(await db.all('SELECT key FROM settings')).toEqual([])
        await db.transaction(async () => {
          await insert('a')
          await db.transaction(async () => insert('b'))
        })
        expect(
          (await db.all<{ key: string }>('SELECT key FROM settings ORDER BY key')).map((r) => r.key),
        ).toEqual(['a', 'b'])
      } finally {
        await close()
      }
    })

    it('loses no update when read-modify-write transactions run at once on every instance', async () => {
      const { stores, close } = await kind.open()
      try {
        await stores[0]!.run("INSERT INTO settings (key, value) VALUES ('counter', '0')")
        const increment = (db: SqlStore) =>
          db.transaction(async () => {
            const row = await db.get<{ value: string }>("SELECT value FROM settings WHERE key = 'counter'")
            // A pause between the read and the write, so the transactions overlap.
            await new Promise((resolve) => setTimeout(resolve, 1))
            await db.run(
              "UPDATE settings SET value = ? WHERE key = 'counter'",
              String(Number(row!.value) + 1),
            )
          })
        await Promise.all(Array.from({ length: 40 }, (_, i) => increment(stores[i % stores.length]!)))
        const row = await stores[1]!.get<{ value: string }>(
          "SELECT value FROM settings WHERE key = 'counter'",
        )
        expect(row!.value).toBe('40')
      } finally {
        await close()
      }
    })
  })
}

describe.skipIf(noPostgres)('PostgreSQL schema', () => {
  it('is at the same version as SQLite’s, and a newer database is refused with a plain message', async () => {
    const url = await server!.newDatabase()
    const store = await openPostgresStore(url)
    expect(await store.get<{ version: number }>('SELECT version FROM schema_version')).toEqual({
      version: SCHEMA_VERSION,
    })
    await store.run('UPDATE schema_version SET version = ?', SCHEMA_VERSION + 1)
    await store.close()
    await expect(openPostgresStore(url)).rejects.toThrow(/newer than this service understands/)
  })

  it('names an unreachable server without its password', async () => {
    await expect(openPostgresStore('postgres://vault:secret@127.0.0.1:1/vault')).rejects.toThrow(
      /cannot use the PostgreSQL database at postgres:\/\/vault:\*\*\*@127\.0\.0\.1:1\/vault/,
    )
    expect(redactedUrl('postgres://u:p@h/db')).toBe('postgres://u:***@h/db')
  })
})
