// The outbox's mail key: bodies are stored sealed and bound to their row, the key stays outside the
// database, a lost key strands only what it sealed, and PostgreSQL instances must share one key.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startService } from '../../src/service/index'
import { call, startTestService, type TestService } from './harness'
import { postgresUnavailableReason, startTestPostgres, type TestPostgres } from './postgres-server'
import { type SmtpSink, startSmtpSink } from './smtp-sink'

let smtp: SmtpSink
beforeAll(async () => {
  smtp = await startSmtpSink()
})
afterAll(() => smtp.close())

const invite = (t: TestService, name: string, email: string) =>
  call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/guardian`, {
    key: t.owner.apiKey,
    json: { name, email },
  })

interface Row {
  id: number
  to_address: string
  body: string
  sent_at: string | null
  last_error: string | null
}

describe('the mail key on SQLite', () => {
  let t: TestService
  beforeAll(async () => {
    // No SMTP at first: the messages wait in the outbox.
    // SQLite even when the suite runs on PostgreSQL (VAULT_TEST_STORE=postgres).
    t = await startTestService({ postgresUrl: undefined })
  })
  afterAll(() => t.stop())

  it('stores a waiting body sealed, keeps the key 0600 in the data folder, and admin outbox opens it', async () => {
    expect((await invite(t, 'Greta', 'greta@example.com')).status).toBe(201)
    const [row] = await t.rows<Row>("SELECT * FROM outbox WHERE to_address = 'greta@example.com'")
    expect(row!.body).toMatch(/^sealed-1\.[0-9a-f]{16}\.[A-Za-z0-9_-]+$/)
    expect(row!.body).not.toContain('gt_')
    expect(statSync(join(t.dataDir, 'mail.key')).mode & 0o777).toBe(0o600)
    const shown = (await t.service.admin.outbox({ vault: t.owner.vaultId })).messages[0]!
    expect(shown.body).toMatch(/\/guardian\/gt_[A-Za-z0-9_-]{43}\/accept/)
  })

  it('a row re-addressed in the database is not sent to the new address', async () => {
    expect((await invite(t, 'Hana', 'hana@example.com')).status).toBe(201)
    await t.rows("UPDATE outbox SET to_address = 'mallory@example.com' WHERE to_address = 'hana@example.com'")
    await t.restart({ smtp: `smtp://127.0.0.1:${smtp.port}` })
    await t.service.tick()
    const [moved] = await t.rows<Row>("SELECT * FROM outbox WHERE to_address = 'mallory@example.com'")
    expect(moved!.sent_at).toBeNull()
    expect(moved!.last_error).toMatch(/the row was changed in the database/)
    expect(smtp.received.some((m) => m.to.includes('mallory@example.com'))).toBe(false)
    // The untouched one went out, and its stored copy is the redacted text.
    const [greta] = await t.rows<Row>("SELECT * FROM outbox WHERE to_address = 'greta@example.com'")
    expect(greta!.sent_at).not.toBeNull()
    expect(greta!.body).toContain('[removed after delivery]')
    expect(greta!.body).not.toMatch(/gt_[A-Za-z0-9_-]{43}/)
  })

  it('with the key lost, the start says what is stranded and new mail is sealed under a new key', async () => {
    await t.restart({ smtp: 'smtp://127.0.0.1:1' })
    expect((await invite(t, 'Ida', 'ida@example.com')).status).toBe(201)
    const oldKey = readFileSync(join(t.dataDir, 'mail.key'))
    await t.service.close()
    unlinkSync(join(t.dataDir, 'mail.key'))
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      await t.restart({ smtp: 'smtp://127.0.0.1:1' })
      expect(logged.mock.calls.flat().join('\n')).toMatch(
        /mail key .*mail\.key is new .*: \d+ unsent e-mail\(s\) sealed with the old key cannot be sent; put back the old key file/,
      )
    } finally {
      logged.mockRestore()
    }
    expect(readFileSync(join(t.dataDir, 'mail.key')).equals(oldKey)).toBe(false)
    const ida = (await t.service.admin.outbox()).messages.find((m) => m.to === 'ida@example.com')!
    expect(ida.body).toMatch(/^\[cannot be read: sealed with another mail key/)
    // Putting the old key back makes it readable again.
    await t.service.close()
    writeFileSync(join(t.dataDir, 'mail.key'), oldKey, { mode: 0o600 })
    await t.restart({ smtp: 'smtp://127.0.0.1:1' })
    const again = (await t.service.admin.outbox()).messages.find((m) => m.to === 'ida@example.com')!
    expect(again.body).toMatch(/\/guardian\/gt_[A-Za-z0-9_-]{43}\/accept/)
  })
})

describe('mail stored in clear by an older version', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({ postgresUrl: undefined })
  })
  afterAll(() => t.stop())

  it('unsent mail an older version stored in clear is sealed at the next start, and still sent whole', async () => {
    expect((await invite(t, 'Jo', 'jo@example.com')).status).toBe(201)
    const shown = (await t.service.admin.outbox()).messages.find((m) => m.to === 'jo@example.com')!
    // As the previous version stored it: the body with its token in clear.
    await t.rows('UPDATE outbox SET body = ? WHERE to_address = ?', shown.body, 'jo@example.com')
    const token = /gt_[A-Za-z0-9_-]{43}/.exec(shown.body)![0]
    await t.service.close()
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      await t.restart()
      expect(logged.mock.calls.flat().join('\n')).toMatch(/sealed 1 unsent e-mail\(s\) stored in clear/)
    } finally {
      logged.mockRestore()
    }
    const [row] = await t.rows<Row>("SELECT * FROM outbox WHERE to_address = 'jo@example.com'")
    expect(row!.body).toMatch(/^sealed-1\./)
    expect(row!.body).not.toContain(token)
    expect(readFileSync(join(t.dataDir, 'vault.sqlite3')).includes(token)).toBe(false)
    await t.restart({ smtp: `smtp://127.0.0.1:${smtp.port}` })
    await t.service.tick()
    const sent = smtp.received.find((m) => m.to.includes('jo@example.com'))!
    expect(sent.raw.replace(/=\r?\n/g, '')).toContain(token)
  })
})

const skip = postgresUnavailableReason() !== null
describe.skipIf(skip)('the mail key on PostgreSQL', () => {
  let server: TestPostgres
  const dirs: string[] = []
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-mail-key-'))
    dirs.push(dir)
    return dir
  }
  beforeAll(async () => {
    server = await startTestPostgres()
  })
  afterAll(async () => {
    await server?.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it('an instance without the database’s key refuses to start and makes no key of its own', async () => {
    const postgresUrl = await server.newDatabase()
    const first = await startService({ dataDir: tempDir(), postgresUrl, rateLimits: false })
    try {
      const lonely = tempDir()
      await expect(startService({ dataDir: lonely, postgresUrl, rateLimits: false })).rejects.toThrow(
        /sealed with the mail key [0-9a-f]{16}, which .*mail\.key does not hold \(the file is missing\).*Copy the mail key file/,
      )
      expect(existsSync(join(lonely, 'mail.key'))).toBe(false)
      // A key of its own is no better: refused too.
      const other = tempDir()
      writeFileSync(join(other, 'mail.key'), `${Buffer.alloc(32, 7).toString('base64')}\n`, { mode: 0o600 })
      await expect(startService({ dataDir: other, postgresUrl, rateLimits: false })).rejects.toThrow(
        /which .*mail\.key is not: every instance sharing this database needs the same key/,
      )
    } finally {
      await first.close()
    }
  })
})
