// The read cache of the service on PostgreSQL (postgres-read-cache.ts): answers kept per instance, dropped
// when any process commits a change (a trigger's pg_notify, heard on one LISTEN connection), bypassed while
// that connection is down, and never older than MAX_AGE_MS. Two instances on one database: A is a whole
// service (startService); B is the same HTTP server over a store the test can look into (its cache).

import { execFile } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildHttpServer } from '../../src/service/http-server'
import { type RunningService, type ServiceOptions, startService } from '../../src/service/index'
import { MAX_AGE_MS, type PostgresReadCache, UNWATCHED_TABLES } from '../../src/service/postgres-read-cache'
import { PostgresStore } from '../../src/service/postgres-store'
import { openServiceContext } from '../../src/service/service-context'
import type { SqlStore } from '../../src/service/sql-store'
import { call } from './harness'
import { postgresUnavailableReason, startTestPostgres, type TestPostgres } from './postgres-server'
import { statementsDuring } from './postgres-statements'
import { buildServiceCli } from './service-child'

const run = promisify(execFile)
const noPostgres = postgresUnavailableReason()
if (noPostgres) console.warn(`[postgres-read-cache.test] ${noPostgres}`)

let server: TestPostgres | undefined
let postgresUrl: string
let sql: pg.Client
let a: RunningService
let b: { url: string; app: FastifyInstance; db: SqlStore; cache: PostgresReadCache }
const dirs: string[] = []
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(dir)
  return dir
}

beforeAll(async () => {
  if (noPostgres) return
  server = await startTestPostgres()
  postgresUrl = await server.newDatabase()
  const blobs = tempDir('vault-read-cache-blobs-')
  const mailKeyFile = join(tempDir('vault-read-cache-mail-key-'), 'mail.key')
  const options: ServiceOptions = {
    dataDir: tempDir('vault-read-cache-a-'),
    postgresUrl,
    blobs: { kind: 'folder', path: blobs },
    mailKeyFile,
    rateLimits: false,
    tickIntervalMs: 3_600_000,
  }
  a = await startService(options)
  // B keeps the default rate limits, counted in the database on every request: that write must not drop
  // the cache (rate_windows is not watched).
  const { ctx, db } = await openServiceContext(tempDir('vault-read-cache-b-'), undefined, {
    postgresUrl,
    blobs: { kind: 'folder', path: blobs },
    mailKeyFile,
  })
  const app = buildHttpServer(ctx)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  b = { url: `http://127.0.0.1:${port}`, app, db, cache: db.readCache as PostgresReadCache }
  sql = new pg.Client({ connectionString: postgresUrl })
  await sql.connect()
})
afterAll(async () => {
  await sql?.end()
  await b?.app.close()
  await b?.db.close()
  await a?.close()
  await server?.stop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** Polls `condition` (a notification's delivery, a reconnection) until it holds, failing after `ms`. */
async function until(what: string, condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const heard = (table: string) => b.cache.notices.get(table) ?? 0

/** An owner with a vault, its GET answered by B and kept there (B listening). */
async function ownerKeptOnB(email: string) {
  // B starts listening at its first request (sync), as the service does.
  b.cache.sync()
  await until('B to listen', () => b.cache.keeping)
  const vaultsBefore = heard('vaults')
  const { accountId, apiKey } = await a.admin.createAccount({ email })
  const { vaultId } = await a.admin.createVault({ account: accountId, preset: 'standard' })
  // Notices come in commit order: once the vault's has come, none of these writes can drop what B keeps next.
  await until("the new vault's notice to reach B", () => heard('vaults') > vaultsBefore)
  expect((await getOnB(apiKey, vaultId)).status).toBe(200)
  return { accountId, apiKey, vaultId }
}

const getOnB = (key: string, vaultId: string) => call(b.url, 'GET', `/api/vault/${vaultId}`, { key })

/** The statements B's process sent to PostgreSQL that read the api_keys table while `work` ran. */
async function keyReadsDuring(work: () => Promise<unknown>): Promise<number> {
  return (await statementsDuring(work)).filter((text) => /FROM api_keys/.test(text)).length
}

describe.skipIf(noPostgres)('the read cache on PostgreSQL', () => {
  it('puts the change trigger on every table but those no kept answer reads', async () => {
    const { rows } = await sql.query<{ table: string; watched: boolean }>(
      `SELECT c.relname AS table,
         EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = 'vault_changes_notice') AS watched
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY 1`,
    )
    expect(rows.length).toBeGreaterThan(15)
    for (const { table, watched } of rows) {
      expect({ table, watched }).toEqual({ table, watched: !UNWATCHED_TABLES.includes(table) })
    }
  })

  it("keeps an owner's GET: the next one asks PostgreSQL nothing about the key, rate limits counted or not", async () => {
    const { apiKey, vaultId } = await ownerKeptOnB('kept@example.com')
    let status = 0
    const reads = await keyReadsDuring(async () => {
      status = (await getOnB(apiKey, vaultId)).status
    })
    expect(status).toBe(200)
    expect(reads).toBe(0)
  })

  it('a key revoked through instance A is refused by B on its next request after the notice arrives', async () => {
    const { apiKey, vaultId } = await ownerKeptOnB('through-a@example.com')
    const before = heard('api_keys')
    expect((await call(a.url, 'DELETE', '/api/key', { key: apiKey })).status).toBe(200)
    await until('the notice to reach B', () => heard('api_keys') > before)
    expect((await getOnB(apiKey, vaultId)).status).toBe(401)
  })

  it('a key revoked with the admin CLI (another process, no listener of its own) is refused by B', async () => {
    const { apiKey, vaultId } = await ownerKeptOnB('through-cli@example.com')
    const cli = await buildServiceCli()
    const before = heard('api_keys')
    const { stdout } = await run(process.execPath, [
      cli,
      'admin',
      'revoke-key',
      '--key',
      apiKey,
      '--data-dir',
      tempDir('vault-read-cache-cli-'),
      '--postgres-url',
      postgresUrl,
    ])
    expect(JSON.parse(stdout)).toEqual({ revoked: true })
    await until('the notice to reach B', () => heard('api_keys') > before)
    expect((await getOnB(apiKey, vaultId)).status).toBe(401)
  })

  it('a direct SQL write (a revoked key, a renamed vault) reaches B after its notice', async () => {
    const { apiKey, vaultId } = await ownerKeptOnB('through-sql@example.com')
    const renamedBefore = heard('vaults')
    await sql.query("UPDATE vaults SET name = 'Renamed in psql' WHERE id = $1", [vaultId])
    await until('the notice to reach B', () => heard('vaults') > renamedBefore)
    expect((await getOnB(apiKey, vaultId)).body.data.name).toBe('Renamed in psql')
    const before = heard('api_keys')
    await sql.query(
      "UPDATE api_keys SET revoked_at = '2026-01-01T00:00:00.000Z' WHERE account_id = (SELECT account_id FROM vaults WHERE id = $1)",
      [vaultId],
    )
    await until('the notice to reach B', () => heard('api_keys') > before)
    expect((await getOnB(apiKey, vaultId)).status).toBe(401)
  })

  it("B's own revocation is refused at once, without waiting for its notice", async () => {
    const { apiKey, vaultId } = await ownerKeptOnB('through-b@example.com')
    expect((await call(b.url, 'DELETE', '/api/key', { key: apiKey })).status).toBe(200)
    expect((await getOnB(apiKey, vaultId)).status).toBe(401)
  })

  it('keeps nothing while the LISTEN connection is down, and keeps again once it is back', async () => {
    const { apiKey, vaultId } = await ownerKeptOnB('listener-lost@example.com')
    const pid = b.cache.listenerPid
    expect(pid).toBeTypeOf('number')
    await sql.query('SELECT pg_terminate_backend($1)', [pid])
    await until('B to notice its listener is gone', () => !b.cache.keeping)
    // A read now is not kept: a change made while no notice can arrive is seen on the next request.
    expect((await getOnB(apiKey, vaultId)).status).toBe(200)
    await sql.query(
      "UPDATE api_keys SET revoked_at = '2026-01-01T00:00:00.000Z' WHERE account_id = (SELECT account_id FROM vaults WHERE id = $1)",
      [vaultId],
    )
    expect((await getOnB(apiKey, vaultId)).status).toBe(401)
    await until('B to listen again', () => b.cache.keeping)
    expect(b.cache.listenerPid).not.toBe(pid)
    const again = await ownerKeptOnB('listener-back@example.com')
    const reads = await keyReadsDuring(() => getOnB(again.apiKey, again.vaultId))
    expect(reads).toBe(0)
  })

  it(`refuses a revoked key within ${MAX_AGE_MS} ms even when no notice comes (a write that skips triggers)`, async () => {
    const { apiKey, vaultId } = await ownerKeptOnB('notice-lost@example.com')
    const writer = new pg.Client({ connectionString: postgresUrl })
    await writer.connect()
    try {
      // As a replica applying changes does: triggers do not fire, so no notice is sent.
      await writer.query('SET session_replication_role = replica')
      const before = heard('api_keys')
      await writer.query(
        "UPDATE api_keys SET revoked_at = '2026-01-01T00:00:00.000Z' WHERE account_id = (SELECT account_id FROM vaults WHERE id = $1)",
        [vaultId],
      )
      // Within the maximum age (and slack for a loaded machine); without it the kept answer would last.
      await until(
        'B to refuse the key',
        async () => (await getOnB(apiKey, vaultId)).status === 401,
        MAX_AGE_MS + 5_000,
      )
      // Refused by age, not by a notice, with the listener up all along.
      expect(heard('api_keys')).toBe(before)
      expect(b.cache.keeping).toBe(true)
    } finally {
      await writer.end()
    }
  })
})

/** A LISTEN connection that connects and then hears nothing: only the store's own drops move the cache. */
class SilentListener extends EventEmitter {
  processID = 0
  async connect() {}
  async query() {
    return { rows: [] }
  }
  async end() {}
}

describe.skipIf(noPostgres)("the read cache and this instance's own writes", () => {
  let store: PostgresStore
  let pool: pg.Pool
  let loads = 0
  const load = async () => ++loads
  /** Whether the answer for `key` was kept: asking again does not load. */
  const kept = async (key: string) => {
    const before = loads
    await store.readCache.get(key, load)
    return loads === before
  }

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: postgresUrl, max: 3 })
    store = new PostgresStore(pool, () => new SilentListener() as unknown as pg.Client)
    store.readCache.sync()
    await until('the silent listener', () => store.readCache.keeping)
  })
  afterAll(async () => {
    await store?.close()
  })

  it('a write drops what was kept, at once; the rate-limit count does not', async () => {
    await store.readCache.get('one', load)
    expect(await kept('one')).toBe(true)
    await store.run("UPDATE settings SET value = value WHERE key = 'nothing'")
    expect(await kept('one')).toBe(false)
    await store.get(
      'INSERT INTO rate_windows (id, window_start, count) VALUES (?, 1, 1) RETURNING count',
      'w',
    )
    expect(await kept('one')).toBe(true)
  })

  it('a transaction that wrote drops at its commit; one that only read keeps', async () => {
    await store.readCache.get('two', load)
    await store.transaction(() => store.get("SELECT value FROM settings WHERE key = 'nothing'"))
    expect(await kept('two')).toBe(true)
    await store.transaction(async () => {
      await store.run("DELETE FROM settings WHERE key = 'nothing'")
      // Inside the transaction nothing is kept: it could be its own uncommitted write.
      expect(await kept('inside')).toBe(false)
      expect(await kept('inside')).toBe(false)
    })
    expect(await kept('two')).toBe(false)
  })

  it('an answer loaded while a write committed is not kept (it may predate the write)', async () => {
    let release!: () => void
    const slow = store.readCache.get('three', async () => {
      await new Promise<void>((resolve) => {
        release = resolve
      })
      return 'read before the write'
    })
    await store.run("DELETE FROM settings WHERE key = 'nothing'")
    release()
    expect(await slow).toBe('read before the write')
    expect(await kept('three')).toBe(false)
  })
})
