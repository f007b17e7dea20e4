// Deployment hardening of the local service: a private data directory without usable tokens once mail is
// delivered, `npm run service` stopping on SIGTERM, the Host allow-list, unframeable guardian pages and
// the limit on failed authentication per client address.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { request as httpRequest } from 'node:http'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startService } from '../../src/service/index'
import { type Mailbox, startMailbox } from '../e2e/support/loopback-services'
import { buildServiceCli, call, DAY_MS, startTestService, type TestService, uploadForm } from './harness'

const root = join(import.meta.dirname, '../..')

// ---------------------------------------------------------------------------------------------------
// Helpers

interface RawReply {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  // biome-ignore lint/suspicious/noExplicitAny: replies are checked field by field, as harness.ts's Reply does
  json: any
}

/** One HTTP request with full control over Host and the client's own address (127.0.0.x is all loopback). */
function rawRequest(
  url: string,
  opts: { method?: string; path: string; headers?: Record<string, string>; localAddress?: string },
): Promise<RawReply> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: hostname,
        port,
        method: opts.method ?? 'GET',
        path: opts.path,
        headers: { connection: 'close', ...(opts.headers ?? {}) },
        ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => {
          text += chunk
        })
        res.on('end', () => {
          let json: unknown = null
          try {
            json = JSON.parse(text)
          } catch {}
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json })
        })
      },
    )
    req.on('error', reject)
    req.end()
  })
}

function expectEnvelopeError(reply: RawReply, status: number, code: string) {
  expect(reply.status, reply.text).toBe(status)
  expect(reply.json).toEqual({ error: { code, message: expect.any(String), status } })
}

/** Every file and folder under root (root included), without following links. */
function walk(rootDir: string): { path: string; dir: boolean; mode: number }[] {
  const found: { path: string; dir: boolean; mode: number }[] = []
  const visit = (path: string) => {
    const stat = lstatSync(path)
    found.push({ path, dir: stat.isDirectory(), mode: stat.mode & 0o777 })
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name))
  }
  visit(rootDir)
  return found
}

function expectPrivate(dataDir: string) {
  const entries = walk(dataDir)
  const wrong = entries
    .filter((e) => e.mode !== (e.dir ? 0o700 : 0o600))
    .map((e) => `${e.path.slice(dataDir.length) || '/'} ${e.mode.toString(8)}`)
  expect(wrong).toEqual([])
  return entries
}

type Probed<T> = T | undefined | null | false

async function until<T>(what: string, probe: () => Probed<T> | Promise<Probed<T>>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

// ---------------------------------------------------------------------------------------------------
// 9: the data directory

describe('data directory privacy', () => {
  let smtp: Mailbox
  let t: TestService | undefined
  let savedUmask: number
  beforeAll(async () => {
    smtp = await startMailbox()
  })
  afterAll(() => smtp.close())
  afterEach(async () => {
    await t?.stop()
    t = undefined
  })

  /**
   * A realistic life of a vault: upload, guardians (one accepts), an heir, a practice release, a manual
   * release that completes 30 days later. Returns every token that left the service by mail.
   */
  async function liveThroughARelease(t: TestService) {
    smtp.received.length = 0
    const { apiKey, vaultId, accountId } = t.owner
    const agentKey = (await t.service.admin.createKey({ account: accountId, kind: 'agent' })).apiKey
    const upload = await call(t.url, 'POST', `/api/vault/${vaultId}/asset`, {
      key: apiKey,
      body: uploadForm(randomBytes(4096), { filename: 'photo.jpg.vault' }),
    })
    expect(upload.status).toBe(201)
    for (const [name, email] of [
      ['Gina', 'gina@example.com'],
      ['Gus', 'gus@example.com'],
    ]) {
      const r = await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, {
        key: apiKey,
        json: { name, email },
      })
      expect(r.status).toBe(201)
    }
    const heir = await call(t.url, 'POST', `/api/vault/${vaultId}/heir`, {
      key: apiKey,
      json: { name: 'Hana', email: 'hana@example.com' },
    })
    expect(heir.status).toBe(201)
    const guardians = (await call(t.url, 'GET', `/api/vault/${vaultId}/guardian`, { key: apiKey })).body.data
    const rehearsal = await call(t.url, 'POST', `/api/vault/${vaultId}/rehearsal`, {
      key: apiKey,
      json: {
        heirId: heir.body.data.id,
        practiceKits: guardians.map((g: { id: string }, i: number) => ({
          guardianId: g.id,
          words: `practice kit words ${['one', 'two'][i]}`,
        })),
        sample: {
          filename: 'Practice file.txt',
          content: randomBytes(64).toString('base64'),
          ownerFile: false,
        },
        challenge: randomBytes(16).toString('hex'),
        proofHash: createHash('sha256').update('proof').digest('hex'),
      },
    })
    expect(rehearsal.status).toBe(201)
    const gina = await until('the invitation to gina', () =>
      smtp.received.find((m) => m.to.includes('gina@example.com')),
    )
    const accept = new RegExp(`${t.url}/guardian/(gt_[A-Za-z0-9_-]+)/accept`).exec(gina.text)!
    expect((await fetch(accept[0], { method: 'POST' })).status).toBe(200)
    expect(
      (
        await call(t.url, 'POST', `/api/vault/${vaultId}/release/config`, {
          key: apiKey,
          json: { trigger: 'manual' },
        })
      ).status,
    ).toBe(200)
    expect((await call(t.url, 'POST', `/api/vault/${vaultId}/release/start`, { key: apiKey })).status).toBe(
      200,
    )
    t.advance(30 * DAY_MS + 60_000)
    expect((await t.service.tick()).released.map((r) => r.vaultId)).toEqual([vaultId])
    const heirMail = await until('the heir access mail', () =>
      smtp.received.find((m) => m.to.includes('hana@example.com') && !m.text.includes('[PRACTICE]')),
    )
    const heirToken = /(hk_[A-Za-z0-9_-]{43})/.exec(heirMail.text)![1]!
    // The token the heir received works: only the stored copy is redacted.
    expect((await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: heirToken })).status).toBe(200)
    // Every message is delivered and marked so (the mark may trail the SMTP server's receipt a moment).
    await t.service.tick()
    await until('every message marked sent', async () =>
      (await t.service.admin.outbox()).messages.every((m) => m.sentAt !== null),
    )
    const mailed = [
      ...new Set(smtp.received.flatMap((m) => m.text.match(/(?:gt|hk)_[A-Za-z0-9_-]{43}/g) ?? [])),
    ]
    // Three invitation links per guardian share one token: 2 guardian tokens, the practice and the heir token.
    expect(mailed.filter((s) => s.startsWith('gt_'))).toHaveLength(2)
    expect(mailed.filter((s) => s.startsWith('hk_'))).toHaveLength(2)
    return { tokens: [...mailed, apiKey, agentKey], vaultId }
  }

  it('makes every folder 0700 and every file 0600 (database, -wal, -shm, blobs, lock) even with umask 000', async () => {
    savedUmask = process.umask(0o000)
    try {
      t = await startTestService({ smtp: `smtp://127.0.0.1:${smtp.port}` })
      await liveThroughARelease(t)
      const entries = expectPrivate(t.dataDir)
      const names = entries.map((e) => e.path.slice(t!.dataDir.length))
      // The check covered what matters: the database with its WAL files, a stored blob and the lock.
      expect(names).toEqual(
        expect.arrayContaining([
          '',
          '/vault.sqlite3',
          '/vault.sqlite3-wal',
          '/vault.sqlite3-shm',
          '/service.lock',
          '/blobs',
          '/tmp',
        ]),
      )
      expect(names.filter((n) => /^\/blobs\/[0-9a-f]{2}\/[0-9a-f]{64}$/.test(n))).toHaveLength(1)
      // An admin command (its own connection, as the CLI opens one) keeps it so.
      await t.service.admin.createAccount({ email: 'second@example.com' })
      expectPrivate(t.dataDir)
    } finally {
      process.umask(savedUmask)
    }
  })

  it('tightens a data directory left with open modes (0755/0644) when the service starts', async () => {
    t = await startTestService()
    await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/asset`, {
      key: t.owner.apiKey,
      body: uploadForm('some ciphertext'),
    })
    await t.service.close()
    // As an older version (or a copy with default modes) left it, with a file of the operator's own.
    writeFileSync(join(t.dataDir, 'smtp-password.txt'), 'secret')
    mkdirSync(join(t.dataDir, 'blobs', 'extra'))
    for (const entry of walk(t.dataDir)) chmodSync(entry.path, entry.dir ? 0o755 : 0o644)
    expect(walk(t.dataDir).some((e) => e.mode === 0o644)).toBe(true)
    await t.restart()
    expectPrivate(t.dataDir)
    expect(existsSync(join(t.dataDir, 'smtp-password.txt'))).toBe(true)
  })

  it('keeps no usable token in the data directory once the mail carrying it is delivered', async () => {
    t = await startTestService({ smtp: `smtp://127.0.0.1:${smtp.port}` })
    const { tokens, vaultId } = await liveThroughARelease(t)

    // What `admin outbox` (a SELECT) shows: subject, kind and recipient kept, the secrets replaced.
    const messages = (await t.service.admin.outbox({ vault: vaultId })).messages
    expect(messages.map((m) => m.kind)).toEqual(
      expect.arrayContaining([
        'guardian_invitation',
        'heir_access',
        'rehearsal_heir',
        'contestation_alert_day_0',
      ]),
    )
    for (const message of messages) {
      for (const token of tokens) expect(message.body).not.toContain(token)
      expect(message.body).not.toMatch(/(?:gt|hk|sk_human|sk_agent)_[A-Za-z0-9_-]{20,}/)
    }
    const invitation = messages.find((m) => m.to === 'gina@example.com')!
    expect(invitation.subject).toContain('asks you to be a guardian')
    expect(invitation.body).toContain(`${t.url}/guardian/[removed after delivery]/accept`)
    const heirMail = messages.find((m) => m.kind === 'heir_access')!
    expect(heirMail.to).toBe('hana@example.com')
    expect(heirMail.body).toContain('[removed after delivery]')
    expect(heirMail.body).toContain(`Vault id:      ${vaultId}`)

    // A copy of the data directory, taken while the service runs, holds none of them anywhere: not in the
    // database file, not in its write-ahead log, not in free pages.
    const copy = mkdtempSync(join(tmpdir(), 'vault-dir-copy-'))
    try {
      cpSync(t.dataDir, copy, { recursive: true })
      const files = walk(copy).filter((e) => !e.dir)
      expect(files.map((f) => f.path.slice(copy.length))).toContain('/vault.sqlite3')
      for (const file of files) {
        const bytes = readFileSync(file.path)
        for (const token of tokens) {
          expect(bytes.includes(token), `${token.slice(0, 6)}... in ${file.path.slice(copy.length)}`).toBe(
            false,
          )
          // Nor its base64url body on its own (e.g. split from the prefix).
          expect(bytes.includes(token.slice(token.length - 43))).toBe(false)
        }
      }
      // The tokens' records are hashes: each matches SHA-256 of the mailed token, and only that.
      const db = new Database(join(copy, 'vault.sqlite3'), { readonly: true })
      try {
        const hashes = [
          ...db.prepare('SELECT key_hash AS h FROM api_keys').pluck().all(),
          ...db.prepare('SELECT token_hash AS h FROM guardians').pluck().all(),
          ...db.prepare('SELECT token_hash AS h FROM heir_tokens').pluck().all(),
          ...db.prepare('SELECT token_hash AS h FROM rehearsals').pluck().all(),
        ].map((h) => Buffer.from(h as Buffer).toString('hex'))
        for (const token of tokens) {
          expect(hashes).toContain(createHash('sha256').update(token).digest('hex'))
        }
      } finally {
        db.close()
      }
    } finally {
      rmSync(copy, { recursive: true, force: true })
    }
  })

  it('keeps the working links of mail that is not delivered yet (admin outbox)', async () => {
    // Nowhere to deliver to: a port with nothing listening.
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const deadPort = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    t = await startTestService({ smtp: `smtp://127.0.0.1:${deadPort}` })
    const { apiKey, vaultId } = t.owner
    await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, {
      key: apiKey,
      json: { name: 'Rita', email: 'rita@example.com' },
    })
    await t.service.tick()
    const [invitation] = (await t.service.admin.outbox({ vault: vaultId })).messages
    expect(invitation).toMatchObject({ sentAt: null, attempts: 1 })
    const accept = new RegExp(`${t.url}/guardian/gt_[A-Za-z0-9_-]{43}/accept`).exec(invitation!.body)
    expect(accept).not.toBeNull()
    expect((await fetch(accept![0], { method: 'POST' })).status).toBe(200)
  })
})

// ---------------------------------------------------------------------------------------------------
// 16: npm run service and signals

/** Processes whose command line mentions `text` (Linux /proc; empty elsewhere). */
function processesMentioning(text: string): number[] {
  if (!existsSync('/proc')) return []
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(text)) found.push(Number(name))
    } catch {}
  }
  return found.filter((pid) => pid !== process.pid)
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('npm run service', () => {
  it('stops on SIGTERM to npm: the port and the data-dir lock are free at once, no process is left', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vault-npm-serve-'))
    let npm: ChildProcess | undefined
    let servicePid = 0
    try {
      npm = spawn('npm', ['run', 'service', '--', 'serve', '--port', '0', '--data-dir', dataDir], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let output = ''
      const collect = (chunk: Buffer) => {
        output += chunk.toString()
      }
      npm.stdout!.on('data', collect)
      npm.stderr!.on('data', collect)
      const url = await until('"listening on"', () => /listening on (http:\/\/\S+)/.exec(output)?.[1], 60_000)
      const port = Number(new URL(url).port)
      servicePid = Number(readFileSync(join(dataDir, 'service.lock'), 'utf8'))
      expect(servicePid).not.toBe(npm.pid)

      const exited = new Promise<number | null>((resolve) => npm!.once('exit', (code) => resolve(code)))
      npm.kill('SIGTERM')
      await exited
      // The service itself received the signal and shut down cleanly.
      await until('the service process to end', () => !isAlive(servicePid), 5_000)
      expect(output).toContain('SIGTERM: shutting down')
      expect(processesMentioning(dataDir)).toEqual([])
      expect(existsSync(join(dataDir, 'service.lock'))).toBe(false)

      // The same port and data directory serve again.
      const again = await startService({ dataDir, port, rateLimits: false })
      try {
        expect(again.url).toBe(url)
      } finally {
        await again.close()
      }
    } finally {
      if (servicePid && isAlive(servicePid)) process.kill(servicePid, 'SIGKILL')
      if (npm?.exitCode === null) npm.kill('SIGKILL')
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

describe('npm run recover', () => {
  it('passes its arguments and exit code through the launcher', async () => {
    const run = (...args: string[]) =>
      promisify(execFile)('npm', ['run', '--silent', 'recover', '--', ...args], { cwd: root }).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
      )
    const help = await run('--help')
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Vault recovery tool')
    expect((await run('--no-such-option')).code).toBe(2)
  })
})

// ---------------------------------------------------------------------------------------------------
// 17: Host allow-list, unframeable guardian pages, failed-authentication limit

describe('Host allow-list', () => {
  it('answers a Host not on --allowed-hosts with 400 in the error envelope; listed names pass with any port', async () => {
    const t = await startTestService({ allowedHosts: ['vault.example.org', '127.0.0.1'] })
    try {
      const path = `/api/vault/${t.owner.vaultId}`
      const key = { 'x-api-key': t.owner.apiKey }
      const rebound = await rawRequest(t.url, { path, headers: { ...key, host: 'attacker.example:8080' } })
      expectEnvelopeError(rebound, 400, 'VALIDATION_ERROR')
      expect(rebound.json.error.message).toContain('"attacker.example"')
      expect(rebound.json.error.message).toContain('--allowed-hosts')
      for (const host of ['vault.example.org', 'VAULT.example.org:443', new URL(t.url).host]) {
        expect((await rawRequest(t.url, { path, headers: { ...key, host } })).status).toBe(200)
      }
      // Guardian pages and unknown routes are covered too.
      expectEnvelopeError(
        await rawRequest(t.url, { path: '/guardian/gt_x/accept', headers: { host: 'attacker.example' } }),
        400,
        'VALIDATION_ERROR',
      )
      // A name with a port could never match: refused before anything is opened.
      const unused = join(tmpdir(), `vault-hosts-unused-${process.pid}`)
      await expect(
        startService({ dataDir: unused, allowedHosts: ['vault.example.org:8443'] }),
      ).rejects.toThrow(/without scheme or port/)
      expect(existsSync(unused)).toBe(false)
    } finally {
      await t.stop()
    }
  })

  it('allows every Host when unset', async () => {
    const t = await startTestService()
    try {
      const r = await rawRequest(t.url, {
        path: `/api/vault/${t.owner.vaultId}`,
        headers: { 'x-api-key': t.owner.apiKey, host: 'anything.example' },
      })
      expect(r.status).toBe(200)
    } finally {
      await t.stop()
    }
  })

  it('serve --allowed-hosts on the command line; a malformed entry stops it with a message', async () => {
    const cli = await buildServiceCli()
    const dataDir = mkdtempSync(join(tmpdir(), 'vault-hosts-cli-'))
    const child = spawn(
      process.execPath,
      [cli, 'serve', '--port', '0', '--data-dir', dataDir, '--allowed-hosts', 'vault.example.org, 127.0.0.1'],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    try {
      let output = ''
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString()
      })
      const url = await until('"listening on"', () => /listening on (http:\/\/\S+)/.exec(output)?.[1], 20_000)
      const refused = await rawRequest(url, { path: '/api/vault', headers: { host: 'localhost' } })
      expectEnvelopeError(refused, 400, 'VALIDATION_ERROR')
      // A listed name reaches authentication (no key: 401).
      const listed = await rawRequest(url, { path: '/api/vault', headers: { host: 'vault.example.org' } })
      expectEnvelopeError(listed, 401, 'UNAUTHORIZED')

      const bad = await promisify(execFile)(process.execPath, [
        cli,
        'serve',
        '--port',
        '0',
        '--data-dir',
        mkdtempSync(join(tmpdir(), 'vault-hosts-bad-')),
        '--allowed-hosts',
        'https://vault.example.org',
      ]).then(
        () => ({ code: 0, stdout: '', stderr: '' }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      )
      expect(bad.code).toBe(1)
      expect(bad.stdout).toBe('')
      expect(bad.stderr).toMatch(
        /^The Vault Service did not start: --allowed-hosts entry "https:\/\/vault.example.org" is not a host name; list names without scheme or port/,
      )
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
      rmSync(dataDir, { recursive: true, force: true })
      rmSync(cli, { force: true })
    }
  })
})

describe('guardian pages', () => {
  it('may not be framed by another site: CSP frame-ancestors none and X-Frame-Options DENY', async () => {
    const t = await startTestService()
    try {
      const { apiKey, vaultId } = t.owner
      await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, {
        key: apiKey,
        json: { name: 'Greta', email: 'greta@example.com' },
      })
      const [invitation] = (await t.service.admin.outbox({ vault: vaultId })).messages
      const accept = new RegExp(`${t.url}(/guardian/gt_[A-Za-z0-9_-]{43}/accept)`).exec(invitation!.body)![1]!
      for (const [method, path] of [
        ['GET', accept],
        ['POST', accept],
        ['GET', '/guardian/gt_unknown/claim'],
      ] as const) {
        const page = await rawRequest(t.url, { method, path })
        expect(page.headers['content-type']).toMatch(/^text\/html/)
        expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'")
        expect(page.headers['x-frame-options']).toBe('DENY')
      }
    } finally {
      await t.stop()
    }
  })
})

describe('failed authentication limit', () => {
  /** The owner's key and vault, and the path of a real guardian link. */
  async function credentials(t: TestService) {
    const { apiKey, vaultId } = t.owner
    await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, {
      key: apiKey,
      json: { name: 'Greta', email: 'greta@example.com' },
    })
    const [invitation] = (await t.service.admin.outbox({ vault: vaultId })).messages
    const guardianPage = /\/guardian\/gt_[A-Za-z0-9_-]{43}\/accept/.exec(invitation!.body)![0]
    return { apiKey, vaultId, guardianPage }
  }

  const wrongKey = () => `sk_human_${randomBytes(32).toString('base64url')}`
  const wrongHeirToken = () => `hk_${randomBytes(32).toString('base64url')}`
  const wrongGuardianPage = () => `/guardian/gt_${randomBytes(32).toString('base64url')}/accept`

  it('refuses an address with 429 and Retry-After after repeated wrong keys, heir and guardian tokens; others keep working', async () => {
    const t = await startTestService({ rateLimits: { authFailures: 6 } })
    try {
      const { apiKey, vaultId, guardianPage } = await credentials(t)
      const attacker = '127.0.0.2'
      const vaultPath = `/api/vault/${vaultId}`
      // Six failures of every kind: a wrong API key, a wrong heir token, an unknown guardian link.
      for (let i = 0; i < 2; i++) {
        expectEnvelopeError(
          await rawRequest(t.url, {
            path: vaultPath,
            headers: { 'x-api-key': wrongKey() },
            localAddress: attacker,
          }),
          401,
          'UNAUTHORIZED',
        )
        expectEnvelopeError(
          await rawRequest(t.url, {
            path: vaultPath,
            headers: { 'x-api-key': wrongHeirToken() },
            localAddress: attacker,
          }),
          401,
          'UNAUTHORIZED',
        )
        const page = await rawRequest(t.url, {
          method: 'POST',
          path: wrongGuardianPage(),
          localAddress: attacker,
        })
        expect(page.status).toBe(404)
      }
      // Now a further wrong key is refused (429, not looked at as a 401)...
      const refused = await rawRequest(t.url, {
        path: vaultPath,
        headers: { 'x-api-key': wrongKey() },
        localAddress: attacker,
      })
      expectEnvelopeError(refused, 429, 'RATE_LIMITED')
      expect(refused.json.error.message).toMatch(/too many failed authentications/)
      const retryAfter = Number(refused.headers['retry-after'])
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(retryAfter).toBeLessThanOrEqual(60)
      const pageRefused = await rawRequest(t.url, { path: wrongGuardianPage(), localAddress: attacker })
      expect(pageRefused.status).toBe(429)
      expect(Number(pageRefused.headers['retry-after'])).toBeGreaterThanOrEqual(1)
      // ...but a valid key or link is never refused for failures, from that address either (on loopback
      // every local program shares it).
      const realPageThere = await rawRequest(t.url, { path: guardianPage, localAddress: attacker })
      expect(realPageThere.status, realPageThere.text).toBe(200)
      const ownerThere = await rawRequest(t.url, {
        path: vaultPath,
        headers: { 'x-api-key': apiKey },
        localAddress: attacker,
      })
      expect(ownerThere.status, ownerThere.text).toBe(200)

      // Another client address is not affected: right credentials work, a wrong one is a plain 401.
      const owner = await rawRequest(t.url, { path: vaultPath, headers: { 'x-api-key': apiKey } })
      expect(owner.status).toBe(200)
      expect((await rawRequest(t.url, { path: guardianPage })).status).toBe(200)
      expectEnvelopeError(
        await rawRequest(t.url, { path: vaultPath, headers: { 'x-api-key': wrongKey() } }),
        401,
        'UNAUTHORIZED',
      )

      // After the minute, the address may try again: a wrong key is a plain 401 once more.
      t.advance(61_000)
      expectEnvelopeError(
        await rawRequest(t.url, {
          path: vaultPath,
          headers: { 'x-api-key': wrongKey() },
          localAddress: attacker,
        }),
        401,
        'UNAUTHORIZED',
      )
    } finally {
      await t.stop()
    }
  })

  it('counts neither a valid key of the wrong kind nor a missing key as a failure', async () => {
    const t = await startTestService({ rateLimits: { authFailures: 2 } })
    try {
      const { apiKey, vaultId, accountId } = t.owner
      const agent = (await t.service.admin.createKey({ account: accountId, kind: 'agent' })).apiKey
      for (let i = 0; i < 4; i++) {
        // A permission refusal (403) and a missing header (401) are not guesses.
        expect((await call(t.url, 'DELETE', `/api/vault/${vaultId}`, { key: agent })).status).toBe(403)
        expect((await call(t.url, 'GET', `/api/vault/${vaultId}`)).status).toBe(401)
      }
      expect((await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).status).toBe(200)
    } finally {
      await t.stop()
    }
  })

  it('refuses wrong keys after 60 failures a minute by default; rateLimits: false (--no-rate-limits) lifts it', async () => {
    const t = await startTestService({ rateLimits: undefined })
    try {
      const path = `/api/vault/${t.owner.vaultId}`
      for (let i = 0; i < 60; i++) {
        expect((await rawRequest(t.url, { path, headers: { 'x-api-key': wrongKey() } })).status).toBe(401)
      }
      const refused = await rawRequest(t.url, { path, headers: { 'x-api-key': wrongKey() } })
      expectEnvelopeError(refused, 429, 'RATE_LIMITED')
      expect((await rawRequest(t.url, { path, headers: { 'x-api-key': t.owner.apiKey } })).status).toBe(200)
      await t.restart({ rateLimits: false })
      for (let i = 0; i < 70; i++) {
        expect((await rawRequest(t.url, { path, headers: { 'x-api-key': wrongKey() } })).status).toBe(401)
      }
      expect((await rawRequest(t.url, { path, headers: { 'x-api-key': t.owner.apiKey } })).status).toBe(200)
    } finally {
      await t.stop()
    }
  })

  it('with --trust-proxy, counts the client address the proxy reports, not the proxy', async () => {
    const t = await startTestService({ rateLimits: { authFailures: 3 }, trustProxy: ['127.0.0.1'] })
    try {
      const { apiKey, vaultId } = t.owner
      const path = `/api/vault/${vaultId}`
      for (let i = 0; i < 3; i++) {
        const r = await rawRequest(t.url, {
          path,
          headers: { 'x-api-key': wrongKey(), 'x-forwarded-for': '203.0.113.7' },
        })
        expect(r.status).toBe(401)
      }
      const refused = await rawRequest(t.url, {
        path,
        headers: { 'x-api-key': wrongKey(), 'x-forwarded-for': '203.0.113.7' },
      })
      expectEnvelopeError(refused, 429, 'RATE_LIMITED')
      // Another client behind the same proxy is not refused: its wrong key is a plain 401.
      const other = await rawRequest(t.url, {
        path,
        headers: { 'x-api-key': wrongKey(), 'x-forwarded-for': '198.51.100.2' },
      })
      expectEnvelopeError(other, 401, 'UNAUTHORIZED')
      expect(
        (
          await rawRequest(t.url, {
            path,
            headers: { 'x-api-key': apiKey, 'x-forwarded-for': '203.0.113.7' },
          })
        ).status,
      ).toBe(200)
    } finally {
      await t.stop()
    }
  })
})
