// On PostgreSQL every statement is a round trip to the database server, so an authenticated GET /vault/:id
// that the read cache does not hold reads the key and the vault in one statement (vaults.ts
// ownerKeyWithVaultView). What the cache keeps, and how a key revoked through another instance is refused,
// is postgres-read-cache.test.ts's.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningService, type ServiceOptions, startService } from '../../src/service/index'
import { call, type Reply } from './harness'
import { postgresUnavailableReason, startTestPostgres, type TestPostgres } from './postgres-server'
import { statementsDuring } from './postgres-statements'

const noPostgres = postgresUnavailableReason()
if (noPostgres) console.warn(`[postgres-read-path.test] ${noPostgres}`)

let server: TestPostgres | undefined
let a: RunningService
const dirs: string[] = []
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(dir)
  return dir
}

beforeAll(async () => {
  if (noPostgres) return
  server = await startTestPostgres()
  const postgresUrl = await server.newDatabase()
  const blobs = tempDir('vault-read-path-blobs-')
  const mailKeyFile = join(tempDir('vault-read-path-mail-key-'), 'mail.key')
  const options = (): ServiceOptions => ({
    dataDir: tempDir('vault-read-path-'),
    postgresUrl,
    blobs: { kind: 'folder', path: blobs },
    mailKeyFile,
    rateLimits: false,
    tickIntervalMs: 3_600_000,
  })
  a = await startService(options())
})
afterAll(async () => {
  await a?.close()
  await server?.stop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(noPostgres)('GET /vault/:id on PostgreSQL', () => {
  it('reads the key and the vault in one statement, for the owner and an agent key', async () => {
    const { accountId, apiKey } = await a.admin.createAccount({ email: 'owner@example.com' })
    const { vaultId } = await a.admin.createVault({ account: accountId, preset: 'standard' })
    const { apiKey: agentKey } = await a.admin.createKey({ account: accountId, kind: 'agent' })
    // The first request of a connection prepares its statements; count a later one. The warm-up reads
    // another vault, until the read cache answers it (it listens by then), so the reads counted below
    // are the cache's misses, never delayed by its LISTEN.
    const { vaultId: warmUp } = await a.admin.createVault({ account: accountId, preset: 'standard' })
    for (let i = 0; ; i++) {
      const sent = await statementsDuring(() => call(a.url, 'GET', `/api/vault/${warmUp}`, { key: apiKey }))
      if (sent.length === 0) break
      if (i === 200) throw new Error('the read cache never answered the warm-up GET')
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    for (const key of [apiKey, agentKey]) {
      let answer: Reply | undefined
      const sent = await statementsDuring(async () => {
        answer = await call(a.url, 'GET', `/api/vault/${vaultId}`, { key })
      })
      expect(answer!.status).toBe(200)
      expect(answer!.body.data).toMatchObject({ id: vaultId, creditsBalance: 100, state: 'active' })
      expect(sent).toHaveLength(1)
    }
  })

  it('another account, a missing vault and an unknown key are answered as before', async () => {
    const owner = await a.admin.createAccount({ email: 'one@example.com' })
    const other = await a.admin.createAccount({ email: 'two@example.com' })
    const { vaultId } = await a.admin.createVault({ account: owner.accountId, preset: 'standard' })
    const foreign = await call(a.url, 'GET', `/api/vault/${vaultId}`, { key: other.apiKey })
    expect(foreign.status).toBe(404)
    expect(foreign.body.error.message).toBe(`vault ${vaultId} does not exist or belongs to another account`)
    const missing = await call(a.url, 'GET', '/api/vault/vlt_nothing', { key: owner.apiKey })
    expect(missing.status).toBe(404)
    const unknown = await call(a.url, 'GET', `/api/vault/${vaultId}`, { key: 'sk_human_not-a-key' })
    expect(unknown.status).toBe(401)
    // An owner key presented with an agent's prefix is still refused.
    const relabelled = owner.apiKey.replace('sk_human_', 'sk_agent_')
    expect((await call(a.url, 'GET', `/api/vault/${vaultId}`, { key: relabelled })).status).toBe(401)
  })
})
