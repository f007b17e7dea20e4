// No usable token in the database's files: the guardian invitation's token, delivered or still waiting,
// is found in no encoding the link uses (the token, its base64url part, its raw bytes) in SQLite's file and
// WAL, nor in PostgreSQL's cluster (table files, WAL) after VACUUM and CHECKPOINT.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServiceOptions } from '../../src/service/index'
import { call, startTestService, type TestService } from './harness'
import { postgresUnavailableReason, startTestPostgres, type TestPostgres } from './postgres-server'
import { type SmtpSink, startSmtpSink } from './smtp-sink'

const TOKEN = /gt_[A-Za-z0-9_-]{43}/

let smtp: SmtpSink
beforeAll(async () => {
  smtp = await startSmtpSink()
})
afterAll(() => smtp.close())

/** Every form of the token a link or a decoder would give: the token, its base64url part, its 32 raw bytes. */
function encodings(token: string): Buffer[] {
  const part = token.slice('gt_'.length)
  return [Buffer.from(token), Buffer.from(part), Buffer.from(part, 'base64url')]
}

/** The files under `root` holding any of the needles (as bytes). */
function filesHolding(root: string, needles: Buffer[]): string[] {
  const found: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.isFile() && statSync(path).size > 0) {
        const bytes = readFileSync(path)
        if (needles.some((needle) => bytes.includes(needle))) found.push(path)
      }
    }
  }
  walk(root)
  return found
}

/** Invites two guardians: one invitation delivered (its token read from the mailbox), one still waiting. */
async function inviteBoth(t: TestService): Promise<{ delivered: string; waiting: string }> {
  const { apiKey, vaultId } = t.owner
  const invite = (name: string, email: string) =>
    call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, { key: apiKey, json: { name, email } })
  expect((await invite('Greta', 'greta@example.com')).status).toBe(201)
  const deadline = Date.now() + 10_000
  const arrived = () => smtp.received.map((m) => m.raw).find((m) => m.includes('greta@example.com'))
  while (!arrived()) {
    if (Date.now() > deadline) throw new Error('the invitation did not arrive')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  const mail = arrived()!
  await t.service.tick()
  const delivered = TOKEN.exec(mail)![0]
  // The second waits: the SMTP server is gone, so it stays in the outbox, unsent.
  await t.restart({ smtp: 'smtp://127.0.0.1:1' })
  expect((await invite('Hana', 'hana@example.com')).status).toBe(201)
  const outbox = (await t.service.admin.outbox({ vault: vaultId })).messages
  expect(outbox.find((m) => m.to === 'greta@example.com')!.sentAt).not.toBeNull()
  const pending = outbox.find((m) => m.to === 'hana@example.com')!
  expect(pending.sentAt).toBeNull()
  // The service itself can still read it (and send it once SMTP works).
  const waiting = TOKEN.exec(pending.body)![0]
  return { delivered, waiting }
}

describe('tokens at rest on SQLite', () => {
  let t: TestService
  beforeAll(async () => {
    // SQLite even when the suite runs on PostgreSQL (VAULT_TEST_STORE=postgres): its files are the point.
    t = await startTestService({ smtp: `smtp://127.0.0.1:${smtp.port}`, postgresUrl: undefined })
  })
  afterAll(() => t.stop())

  it('neither the database file nor its WAL holds a token, delivered or waiting', async () => {
    const { delivered, waiting } = await inviteBoth(t)
    // The files as they are while the service runs (the WAL not yet folded in) and after a checkpoint.
    const files = readdirSync(t.dataDir).filter((name) => name.startsWith('vault.sqlite3'))
    expect(files).toContain('vault.sqlite3')
    for (const token of [delivered, waiting]) {
      expect(filesHolding(t.dataDir, encodings(token))).toEqual([])
    }
    await t.rows('PRAGMA wal_checkpoint(TRUNCATE)')
    for (const token of [delivered, waiting]) {
      expect(filesHolding(t.dataDir, encodings(token))).toEqual([])
    }
  })
})

const noPostgres = postgresUnavailableReason()
describe.skipIf(noPostgres !== null || process.env.VAULT_TEST_POSTGRES_URL)(
  'tokens at rest on PostgreSQL',
  () => {
    let server: TestPostgres
    let t: TestService
    let postgresUrl: string
    beforeAll(async () => {
      server = await startTestPostgres()
      postgresUrl = await server.newDatabase()
      const options: Partial<ServiceOptions> = { smtp: `smtp://127.0.0.1:${smtp.port}`, postgresUrl }
      t = await startTestService(options)
    })
    afterAll(async () => {
      await t?.stop()
      await server?.stop()
    })

    it('no table file and no WAL segment holds a token after VACUUM and CHECKPOINT', async () => {
      const { delivered, waiting } = await inviteBoth(t)
      const client = new pg.Client({ connectionString: postgresUrl })
      await client.connect()
      let dataDirectory: string
      try {
        await client.query('VACUUM')
        await client.query('CHECKPOINT')
        dataDirectory = (await client.query('SHOW data_directory')).rows[0].data_directory
      } finally {
        await client.end()
      }
      expect(readdirSync(join(dataDirectory, 'pg_wal')).length).toBeGreaterThan(0)
      for (const token of [delivered, waiting]) {
        expect(filesHolding(dataDirectory, encodings(token))).toEqual([])
      }
    })
  },
)
