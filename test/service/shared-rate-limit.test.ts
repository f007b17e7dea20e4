// Instances sharing one database share one rate limit: the windows are counted in its rate_windows table
// (rate-limit.ts, DatabaseRateCounter), not in each instance's memory. Two "instances" here are two
// connections to one SQLite file, each with its own limiter; the same on PostgreSQL where it is installed.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { adminOperations } from '../../src/service/admin'
import { openSqliteStore } from '../../src/service/database'
import { buildHttpServer } from '../../src/service/http-server'
import { openPostgresStore } from '../../src/service/postgres-store'
import {
  AuthFailureLimiter,
  DatabaseRateCounter,
  MemoryRateCounter,
  RateLimiter,
} from '../../src/service/rate-limit'
import { openServiceContext } from '../../src/service/service-context'
import type { SqlStore } from '../../src/service/sql-store'
import { postgresUnavailableReason, startTestPostgres, type TestPostgres } from './postgres-server'

const MINUTE_MS = 60_000
/** 15 s into a minute: a window opened now ends in 45 s. */
const START = Date.parse('2030-01-01T00:00:15.000Z')

const noPostgres = postgresUnavailableReason()
if (noPostgres) console.warn(`[shared-rate-limit.test] PostgreSQL cases ${noPostgres}`)

let dataDir: string
let now: number
const clock = () => now
const stores: SqlStore[] = []
let postgres: TestPostgres | undefined
/** The running test's PostgreSQL database, shared by its instances (created by the first). */
let postgresUrl: string | undefined

beforeAll(async () => {
  if (!noPostgres) postgres = await startTestPostgres()
})
afterAll(async () => {
  await postgres?.stop()
})
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'vault-shared-rate-'))
  now = START
  postgresUrl = undefined
})
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close()
  rmSync(dataDir, { recursive: true, force: true })
})

const backends = [
  {
    name: 'SQLite',
    skip: false,
    /** One instance's own connection to the shared SQLite file. */
    open: async (): Promise<SqlStore> => {
      const store = openSqliteStore(dataDir)
      stores.push(store)
      return store
    },
  },
  {
    name: 'PostgreSQL',
    skip: noPostgres !== null,
    /** One instance's own pool on the shared PostgreSQL database. */
    open: async (): Promise<SqlStore> => {
      postgresUrl ??= await postgres!.newDatabase()
      const store = await openPostgresStore(postgresUrl, 2)
      stores.push(store)
      return store
    },
  },
]

describe.each(backends)('rate-limit windows kept in the database ($name)', ({ skip, open }) => {
  /** Two instances' request limiters, each counting through its own connection. */
  async function twoLimiters(limit: number): Promise<[RateLimiter, RateLimiter]> {
    const settings = { getVault: limit }
    return [
      new RateLimiter(settings, new DatabaseRateCounter(await open(), 'requests', clock)),
      new RateLimiter(settings, new DatabaseRateCounter(await open(), 'requests', clock)),
    ]
  }

  it.skipIf(skip)(
    'a limit of N a minute across two instances allows exactly N, then 429s until the next minute',
    async () => {
      const [a, b] = await twoLimiters(5)
      const remaining: number[] = []
      for (let i = 0; i < 5; i++) {
        const decision = await (i % 2 === 0 ? a : b).check('key-1', 'getVault')
        expect(decision.allowed).toBe(true)
        if (decision.allowed) remaining.push(decision.remaining)
      }
      // Each instance saw the other's requests: one count, not two.
      expect(remaining).toEqual([4, 3, 2, 1, 0])

      now += 5_000 // 00:00:20, 40 s before the minute ends
      for (const instance of [b, a]) {
        expect(await instance.check('key-1', 'getVault')).toEqual({
          allowed: false,
          limit: 5,
          retryAfterSeconds: 40,
        })
      }
      // Other keys and other patterns have windows of their own.
      expect(await a.check('key-2', 'getVault')).toMatchObject({ allowed: true, remaining: 4 })
      expect(await b.check('key-1', 'postRelease')).toMatchObject({ allowed: true })

      now = START - 15_000 + MINUTE_MS // 00:01:00, a new minute
      expect(await b.check('key-1', 'getVault')).toEqual({ allowed: true, limit: 5, remaining: 4 })
      expect(await a.check('key-1', 'getVault')).toEqual({ allowed: true, limit: 5, remaining: 3 })
    },
  )

  it.skipIf(skip)('counts every one of many requests made at once on both instances', async () => {
    const [a, b] = await twoLimiters(20)
    const decisions = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).check('key-1', 'getVault')),
    )
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(20)
  })

  it.skipIf(skip)('failed authentications from one address are counted across instances', async () => {
    const settings = { authFailures: 3 }
    const a = new AuthFailureLimiter(settings, new DatabaseRateCounter(await open(), 'auth-failures', clock))
    const b = new AuthFailureLimiter(settings, new DatabaseRateCounter(await open(), 'auth-failures', clock))
    await a.recordFailure('203.0.113.7')
    await b.recordFailure('203.0.113.7')
    expect(await a.refusal('203.0.113.7')).toBeNull()
    await a.recordFailure('203.0.113.7')
    expect(await b.refusal('203.0.113.7')).toEqual({ limit: 3, retryAfterSeconds: 45 })
    expect(await a.refusal('203.0.113.7')).toEqual({ limit: 3, retryAfterSeconds: 45 })
    expect(await b.refusal('198.51.100.1')).toBeNull()
    now += MINUTE_MS
    expect(await b.refusal('203.0.113.7')).toBeNull()
  })

  it.skipIf(skip)('ended windows are deleted as new ones are counted', async () => {
    const store = await open()
    await new DatabaseRateCounter(store, 'requests', clock).add('old')
    now += 3 * MINUTE_MS
    // A fresh counter (another instance starting) sweeps on its first count.
    await new DatabaseRateCounter(store, 'requests', clock).add('new')
    const ids = await store.all<{ id: string }>('SELECT id FROM rate_windows ORDER BY id')
    expect(ids.map((row) => row.id)).toEqual(['requests:new'])
  })
})

it('counted in memory, each instance would allow N of its own (what the shared table prevents)', async () => {
  const settings = { getVault: 2 }
  const a = new RateLimiter(settings, new MemoryRateCounter(clock))
  const b = new RateLimiter(settings, new MemoryRateCounter(clock))
  const allowed = []
  for (let i = 0; i < 4; i++) allowed.push((await (i % 2 === 0 ? a : b).check('key-1', 'getVault')).allowed)
  expect(allowed).toEqual([true, true, true, true])
})

describe('buildHttpServer with rateCounters: database', () => {
  const apps: FastifyInstance[] = []
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close()
  })

  /** An instance of the HTTP service on its own connection to the shared data directory. */
  async function instance() {
    const { ctx, db } = await openServiceContext(dataDir, () => new Date(now))
    stores.push(db)
    const app = buildHttpServer(ctx, { rateLimits: { getVault: 3 }, rateCounters: 'database' })
    apps.push(app)
    return { ctx, app }
  }

  it('two instances answer 429 with Retry-After once their requests together reach the limit', async () => {
    const first = await instance()
    const second = await instance()
    const { apiKey } = await adminOperations(first.ctx).createAccount({ email: 'owner@example.com' })
    const list = (app: FastifyInstance) =>
      app.inject({ method: 'GET', url: '/api/vault', headers: { 'x-api-key': apiKey } })

    const answers = []
    for (const app of [first.app, second.app, first.app]) answers.push(await list(app))
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200])
    expect(answers.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0'])

    const refused = await list(second.app)
    expect(refused.statusCode).toBe(429)
    expect(refused.headers['retry-after']).toBe('45')
    expect(refused.json().error.message).toContain('rate limit of 3 requests per minute')

    now += MINUTE_MS
    expect((await list(second.app)).statusCode).toBe(200)
  })
})
