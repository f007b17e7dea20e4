// Starts a real service on port 0 with a temp data dir and a movable clock, plus small HTTP helpers.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { afterAll, afterEach } from 'vitest'
import { type RunningService, type ServiceOptions, startService } from '../../src/service/index'
import { answerProblems } from './openapi-response-check'
import { startTestPostgres, type TestPostgres } from './postgres-server'

export const DAY_MS = 86_400_000

export interface TestService {
  service: RunningService
  url: string
  dataDir: string
  /** The service's clock; advance it with advance(). */
  now: () => Date
  advance(ms: number): void
  /** An account with 100 trial credits, its human key and one standard vault. */
  owner: { accountId: string; apiKey: string; vaultId: string }
  restart(extra?: Partial<ServiceOptions>): Promise<void>
  stop(): Promise<void>
  /**
   * SQL straight on the service's database (SQLite file or PostgreSQL), beside the running service, as
   * another process would: the rows a query returns (none for a change).
   */
  rows<T>(sql: string, ...params: (string | number)[]): Promise<T[]>
}

/**
 * VAULT_TEST_STORE=postgres runs the service tests on PostgreSQL (one throwaway server per test file, a fresh
 * database per service) instead of the data folder's SQLite file: `npm test` does so for the API suites.
 */
const onPostgres = process.env.VAULT_TEST_STORE === 'postgres'
let postgres: Promise<TestPostgres> | undefined
if (onPostgres) {
  afterAll(async () => {
    await (await postgres)?.stop()
  })
}

async function storeOptions(): Promise<Partial<ServiceOptions>> {
  if (!onPostgres) return {}
  postgres ??= startTestPostgres()
  return { postgresUrl: await (await postgres).newDatabase() }
}

// ---- Every answer a Vault Service gives these tests is checked against its OpenAPI document ----
// fetch() (and so call()) is wrapped: an answer from a service started here, or carrying the service's
// x-request-id (one started by startService directly), is read from a copy and checked; what is wrong
// fails the test that received it, in afterEach. Requests over raw sockets or node:http are not seen.

/** Origins of the services startTestService started. */
const serviceOrigins = new Set<string>()
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const pendingChecks = new Set<Promise<void>>()
let answerFailures: string[] = []
let answersChecked = 0
/** How many answers were checked so far in this test file. */
export const checkedAnswerCount = () => answersChecked
/** How long afterEach waits for an answer's body to end (one the test left unread, cut or held open). */
const BODY_WAIT_MS = 10_000

const unchecked = globalThis.fetch
globalThis.fetch = async (input, init) => {
  const response = await unchecked(input, init)
  const url = response.url || (input instanceof Request ? input.url : String(input))
  const fromService =
    serviceOrigins.has(new URL(url).origin) || REQUEST_ID.test(response.headers.get('x-request-id') ?? '')
  if (!fromService) return response
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET')
  const copy = response.clone()
  const check = copy
    .arrayBuffer()
    .then((body) => {
      const status = response.status
      const contentType = response.headers.get('content-type')
      answersChecked++
      answerFailures.push(...answerProblems({ method, url, status, contentType, body: new Uint8Array(body) }))
    })
    // A body cut short (the test aborted, the service closed): nothing whole to check.
    .catch(() => undefined)
    .finally(() => pendingChecks.delete(check))
  pendingChecks.add(check)
  return response
}

/** Waits for the answers received so far to be checked (at most BODY_WAIT_MS for unfinished bodies). */
export async function settleAnswerChecks(): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, BODY_WAIT_MS)
  })
  await Promise.race([Promise.all(pendingChecks), waited])
  clearTimeout(timer)
}

/** The problems found since the last call, which are then forgotten (afterEach fails the test on them). */
export async function takeAnswerProblems(): Promise<string[]> {
  await settleAnswerChecks()
  const found = answerFailures
  answerFailures = []
  return found
}

afterEach(async () => {
  const found = await takeAnswerProblems()
  if (found.length > 0) {
    throw new Error(
      `the service answered outside its OpenAPI document (src/service/openapi); document the answer or fix it:\n${found.join('\n')}`,
    )
  }
})

export async function startTestService(extra: Partial<ServiceOptions> = {}): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vault-service-test-'))
  let now = Date.parse('2030-01-01T00:00:00.000Z')
  const clock = () => new Date(now)
  const options: ServiceOptions = { dataDir, clock, rateLimits: false, ...(await storeOptions()), ...extra }
  let service = await startService(options)
  serviceOrigins.add(new URL(service.url).origin)
  const { accountId, apiKey } = await service.admin.createAccount({ email: 'owner@example.com' })
  const { vaultId } = await service.admin.createVault({ account: accountId, preset: 'standard' })
  const t: TestService = {
    service,
    url: service.url,
    dataDir,
    now: clock,
    advance(ms) {
      now += ms
    },
    owner: { accountId, apiKey, vaultId },
    async restart(more = {}) {
      await service.close()
      service = await startService({ ...options, ...more })
      serviceOrigins.add(new URL(service.url).origin)
      t.service = service
      t.url = service.url
    },
    async stop() {
      await service.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
    async rows<T>(sql: string, ...params: (string | number)[]) {
      if (options.postgresUrl) {
        // BIGINT as numbers, as the service's own store reads them.
        const types = {
          getTypeParser: (oid: number, format?: 'text' | 'binary') =>
            oid === 20 ? Number : pg.types.getTypeParser(oid, format),
        } as pg.CustomTypesConfig
        const client = new pg.Client({ connectionString: options.postgresUrl, types })
        await client.connect()
        try {
          let n = 0
          return (
            await client.query(
              sql.replace(/\?/g, () => `$${++n}`),
              params,
            )
          ).rows as T[]
        } finally {
          await client.end()
        }
      }
      const db = new Database(join(dataDir, 'vault.sqlite3'))
      try {
        const statement = db.prepare(sql)
        if (statement.reader) return statement.all(...params) as T[]
        statement.run(...params)
        return []
      } finally {
        db.close()
      }
    },
  }
  return t
}

export interface Reply<T = any> {
  status: number
  headers: Headers
  body: T
}

export async function call<T = any>(
  url: string,
  method: string,
  path: string,
  opts: {
    key?: string | null
    json?: unknown
    body?: RequestInit['body']
    headers?: Record<string, string>
  } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) }
  if (opts.key) headers['x-api-key'] = opts.key
  let body = opts.body
  if (opts.json !== undefined) {
    headers['content-type'] ??= 'application/json'
    body = typeof opts.json === 'string' ? opts.json : JSON.stringify(opts.json)
  }
  const response = await fetch(`${url}${path}`, { method, headers, body: body ?? null })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {}
  return { status: response.status, headers: response.headers, body: parsed as T }
}

export function uploadForm(
  content: Uint8Array | string,
  fields: Record<string, string> = { filename: 'notes.txt' },
  fileField = 'file',
): FormData {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  form.append(fileField, new Blob([content]), 'blob.bin')
  return form
}

// In their own module so benchmarks can start a served child without this file's vitest hooks.
export { buildServiceCli, type ServeChild, serveChild } from './service-child'
