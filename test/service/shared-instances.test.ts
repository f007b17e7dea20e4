// Two service instances on one PostgreSQL database and one shared blob folder serve one set of vaults as
// one service would: a key made on one works on the other, a file uploaded to one downloads from the
// other, credits are spent once, rate limits count across both, and each due release fires once.

import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SCHEMA_VERSION } from '../../src/service/database'
import { type RunningService, type ServiceOptions, startService } from '../../src/service/index'
import { readServiceConfig, writeServiceConfig } from '../../src/service/service-config'
import { openServiceContext } from '../../src/service/service-context'
import { type InitFlags, runInit } from '../../src/service/service-init'
import { uploadCostCredits } from '../../src/shared/api'
import { buildServiceCli, call, DAY_MS, serveChild, uploadForm } from './harness'
import { postgresUnavailableReason, startTestPostgres, type TestPostgres } from './postgres-server'

const run = promisify(execFile)
const noPostgres = postgresUnavailableReason()
if (noPostgres) console.warn(`[shared-instances.test] ${noPostgres}`)

let server: TestPostgres | undefined
const dirs: string[] = []
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(dir)
  return dir
}
beforeAll(async () => {
  if (!noPostgres) server = await startTestPostgres()
})
afterAll(async () => {
  await server?.stop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

interface Pair {
  a: RunningService
  b: RunningService
  advance(ms: number): void
  blobs: string
  close(): Promise<void>
}

async function startPair(extra: Partial<ServiceOptions> = {}): Promise<Pair> {
  const postgresUrl = await server!.newDatabase()
  const blobs = tempDir('vault-shared-blobs-')
  // Instances sharing a database share its mail key (outbox bodies are sealed with it).
  const mailKeyFile = join(tempDir('vault-shared-mail-key-'), 'mail.key')
  let now = Date.parse('2030-01-01T00:00:00.000Z')
  const options = (): ServiceOptions => ({
    dataDir: tempDir('vault-instance-'),
    postgresUrl,
    blobs: { kind: 'folder', path: blobs },
    mailKeyFile,
    clock: () => new Date(now),
    rateLimits: false,
    // Ticks only when the test says so.
    tickIntervalMs: 3_600_000,
    ...extra,
  })
  const [a, b] = await Promise.all([startService(options()), startService(options())])
  return {
    a,
    b,
    blobs,
    advance(ms) {
      now += ms
    },
    close: async () => void (await Promise.all([a.close(), b.close()])),
  }
}

describe.skipIf(noPostgres)('two instances on one PostgreSQL', () => {
  it('share accounts, keys, vaults and files; a key revoked on one is refused by the other at once', async () => {
    const { a, b, blobs, close } = await startPair()
    try {
      const { accountId, apiKey } = await a.admin.createAccount({ email: 'owner@example.com' })
      const { vaultId } = await b.admin.createVault({ account: accountId, preset: 'standard' })
      const viaB = await call(b.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })
      expect(viaB.status).toBe(200)
      expect(viaB.body.data.creditsBalance).toBe(100)

      const content = new Uint8Array(300_000).map((_, i) => i % 251)
      const up = await call(a.url, 'POST', `/api/vault/${vaultId}/asset`, {
        key: apiKey,
        body: uploadForm(content, { filename: 'letter.bin' }),
      })
      expect(up.status).toBe(201)
      const download = await fetch(`${b.url}/api/vault/${vaultId}/asset/${up.body.data.id}/content`, {
        headers: { 'x-api-key': apiKey },
      })
      expect(download.status).toBe(200)
      expect(new Uint8Array(await download.arrayBuffer())).toEqual(content)
      // The one blob is in the shared folder, not in either instance's data folder.
      expect(readdirSync(blobs).filter((name) => !name.startsWith('.'))).toHaveLength(1)

      await a.admin.revokeKey({ key: apiKey })
      expect((await call(b.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).status).toBe(401)
    } finally {
      await close()
    }
  })

  it('10 parallel uploads over both instances against a balance paying exactly 5: 5 stored, balance exact', async () => {
    const { a, b, close } = await startPair()
    try {
      const { accountId, apiKey } = await a.admin.createAccount({ email: 'race@example.com' })
      const { vaultId } = await a.admin.createVault({ account: accountId, preset: 'standard' })
      const size = 2_000_000
      const cost = uploadCostCredits(size)
      // The trial's 100 credits, spent down to exactly five uploads' worth by one larger upload.
      const fill = 100 - 5 * cost
      const filler = Math.floor((fill * 1e9) / 4650)
      expect(uploadCostCredits(filler)).toBe(fill)
      const first = await call(a.url, 'POST', `/api/vault/${vaultId}/asset`, {
        key: apiKey,
        body: uploadForm(new Uint8Array(filler), { filename: 'filler.bin' }),
      })
      expect(first.status).toBe(201)

      const race = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          call((i % 2 ? a : b).url, 'POST', `/api/vault/${vaultId}/asset`, {
            key: apiKey,
            body: uploadForm(new Uint8Array(size).fill(i + 1), { filename: `racer-${i}.bin` }),
          }),
        ),
      )
      expect(race.filter((r) => r.status === 201)).toHaveLength(5)
      expect(race.filter((r) => r.status === 402)).toHaveLength(5)
      const vault = (await call(b.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data
      expect(vault.creditsBalance).toBe(0)
      expect(vault.assetCount).toBe(6)
    } finally {
      await close()
    }
  })

  it('a scheduler tick run by both instances at once fires each due release once', async () => {
    const { a, b, advance, close } = await startPair()
    try {
      const vaults: { vaultId: string; apiKey: string }[] = []
      for (let i = 0; i < 6; i++) {
        const { accountId, apiKey } = await a.admin.createAccount({ email: `owner${i}@example.com` })
        const { vaultId } = await a.admin.createVault({ account: accountId, preset: 'standard' })
        const heir = await call(b.url, 'POST', `/api/vault/${vaultId}/heir`, {
          key: apiKey,
          json: { name: `Heir ${i}`, email: `heir${i}@example.com` },
        })
        expect(heir.status).toBe(201)
        await (i % 2 ? a : b).admin.startRelease({ vault: vaultId })
        vaults.push({ vaultId, apiKey })
      }
      advance(31 * DAY_MS)
      const [fromA, fromB] = await Promise.all([a.tick(), b.tick()])
      const released = [...fromA.released, ...fromB.released].map((r) => r.vaultId).sort()
      expect(released).toEqual(vaults.map((v) => v.vaultId).sort())
      const mails = (await a.admin.outbox()).messages.filter((m) => m.kind === 'heir_access')
      expect(mails).toHaveLength(6)
      expect(new Set(mails.map((m) => m.vaultId)).size).toBe(6)
      // Running again changes nothing.
      const again = await Promise.all([a.tick(), b.tick()])
      expect(again.flatMap((report) => report.released)).toEqual([])
    } finally {
      await close()
    }
  })

  it('rate limits count the requests of one key across both instances', async () => {
    const { a, b, close } = await startPair({ rateLimits: { getVault: 6 } })
    try {
      const { accountId, apiKey } = await a.admin.createAccount({ email: 'limits@example.com' })
      const { vaultId } = await a.admin.createVault({ account: accountId, preset: 'standard' })
      const statuses: number[] = []
      for (let i = 0; i < 8; i++) {
        statuses.push(
          (await call((i % 2 ? a : b).url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).status,
        )
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429])
    } finally {
      await close()
    }
  })
})

describe.skipIf(noPostgres)('the command line with shared storage', () => {
  let cli = ''
  beforeAll(async () => {
    cli = await buildServiceCli()
  })

  /** An admin command's exit code and its one JSON line (none for a usage error, told on stderr). */
  async function admin(...args: string[]): Promise<{ code: number; json: any; stderr: string }> {
    try {
      const { stdout, stderr } = await run(process.execPath, [cli, 'admin', ...args])
      return { code: 0, json: JSON.parse(stdout), stderr }
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string }
      return {
        code: failed.code,
        json: failed.stdout ? JSON.parse(failed.stdout) : null,
        stderr: failed.stderr,
      }
    }
  }

  it('admin and serve take the storage from the config file; two served instances share it', async () => {
    const postgresUrl = await server!.newDatabase()
    const blobs = tempDir('vault-cli-blobs-')
    const mailKeyFile = join(tempDir('vault-cli-mail-key-'), 'mail.key')
    const config = (dataDir: string) => {
      const file = join(tempDir('vault-cli-config-'), 'service-config.json')
      writeServiceConfig(file, {
        version: 1,
        dataDir,
        listen: { host: '127.0.0.1', port: 0 },
        publicUrl: 'http://127.0.0.1',
        storage: { postgresUrl, blobs: { kind: 'folder', path: blobs }, mailKeyFile },
      })
      return file
    }
    const [dirA, dirB] = [tempDir('vault-cli-a-'), tempDir('vault-cli-b-')]
    const [configA, configB] = [config(dirA), config(dirB)]
    const account = await admin(
      'create-account',
      '--email',
      'cli@example.com',
      '--config',
      configA,
      '--data-dir',
      dirA,
    )
    expect(account.code).toBe(0)
    // Made through A's config, seen through B's: one database.
    const vault = await admin(
      'create-vault',
      '--account',
      account.json.accountId,
      '--config',
      configB,
      '--data-dir',
      dirB,
    )
    expect(vault.code).toBe(0)

    const children = [serveChild(cli, '--config', configA), serveChild(cli, '--config', configB)]
    try {
      const urls = await Promise.all(children.map((c) => c.url))
      for (const url of urls) {
        const read = await call(url, 'GET', `/api/vault/${vault.json.vaultId}`, { key: account.json.apiKey })
        expect(read.status).toBe(200)
      }
      // Backups of a data folder do not cover PostgreSQL: refused, with what to use instead.
      const backup = await admin(
        'backup',
        '--to',
        join(tempDir('vault-cli-backup-'), 'copy'),
        '--config',
        configA,
        '--data-dir',
        dirA,
      )
      expect(backup.code).toBe(1)
      expect(backup.json.error).toMatch(/PostgreSQL.*pg_dump/)
    } finally {
      for (const child of children) child.child.kill('SIGTERM')
      await Promise.all(children.map((c) => c.exit))
    }
  })

  it('a wrong or unreachable PostgreSQL address is refused in words', async () => {
    const dir = tempDir('vault-cli-bad-')
    const wrong = await admin(
      'create-account',
      '--email',
      'a@example.com',
      '--data-dir',
      dir,
      '--postgres-url',
      'mysql://x',
    )
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toMatch(/--postgres-url must be a postgres:\/\/ address/)
    const unreachable = await admin(
      'create-account',
      '--email',
      'a@example.com',
      '--data-dir',
      dir,
      '--postgres-url',
      'postgres://vault:secret@127.0.0.1:1/vault',
    )
    expect(unreachable.code).toBe(1)
    expect(unreachable.json.error).toMatch(
      /cannot use the PostgreSQL database at postgres:\/\/vault:\*\*\*@127\.0\.0\.1:1\/vault/,
    )
    const served = await serveChild(
      cli,
      '--data-dir',
      dir,
      '--postgres-url',
      'postgres://vault:secret@127.0.0.1:1/vault',
    ).exit
    expect(served.code).toBe(1)
    expect(served.stderr).toMatch(/cannot use the PostgreSQL database/)
    expect(served.stderr).not.toContain('secret')
  })
})

describe.skipIf(noPostgres)('init with shared storage', () => {
  async function init(flags: InitFlags): Promise<{ code: number | undefined; error: unknown; text: string }> {
    const output = new PassThrough()
    let text = ''
    output.on('data', (chunk) => {
      text += chunk
    })
    try {
      const code = await runInit(flags, {
        input: new PassThrough(),
        output,
        interactive: false,
        nodePath: '/usr/bin/node',
        scriptPath: '/opt/vault/out/cli/service.js',
      })
      return { code, error: undefined, text }
    } catch (error) {
      return { code: undefined, error, text }
    }
  }
  const base = (dataDir: string): InitFlags => ({
    yes: true,
    'public-url': 'http://127.0.0.1:8787',
    'data-dir': dataDir,
    smtp: 'smtp://127.0.0.1:2525',
    'mail-from': 'vault@example.org',
    'skip-mail-test': true,
  })

  it('checks the database, brings its schema up to date and writes the storage into the config', async () => {
    const postgresUrl = await server!.newDatabase()
    const dataDir = tempDir('vault-init-pg-')
    const blobs = tempDir('vault-init-blobs-')
    const done = await init({ ...base(dataDir), 'postgres-url': postgresUrl, 'blobs-dir': blobs })
    expect(done.error).toBeUndefined()
    expect(done.text).toContain('The PostgreSQL database answers and its schema is up to date.')
    expect(done.text).toContain('More instances: give each machine this config with its own dataDir')
    expect(readServiceConfig(join(dataDir, 'service-config.json')).storage).toEqual({
      postgresUrl,
      blobs: { kind: 'folder', path: blobs },
      mailKeyFile: join(dataDir, 'mail.key'),
    })
    // Made at init, private, so it can be copied with the config before any instance starts.
    expect(statSync(join(dataDir, 'mail.key')).mode & 0o777).toBe(0o600)
    expect(done.text).toContain(`a copy of the mail key ${join(dataDir, 'mail.key')}`)
    const { db } = await openServiceContext(dataDir, undefined, { postgresUrl })
    try {
      expect(await db.get('SELECT version FROM schema_version')).toEqual({ version: SCHEMA_VERSION })
    } finally {
      await db.close()
    }
  })

  it('an unreachable database: says what to check, writes nothing', async () => {
    const dataDir = tempDir('vault-init-bad-')
    const failed = await init({
      ...base(dataDir),
      'postgres-url': 'postgres://vault:secret@127.0.0.1:1/vault',
    })
    expect((failed.error as Error).message).toMatch(
      /cannot use the PostgreSQL database at postgres:\/\/vault:\*\*\*@127\.0\.0\.1:1\/vault.*Nothing was written/s,
    )
    expect((failed.error as Error).message).not.toContain('secret')
    expect(existsSync(join(dataDir, 'service-config.json'))).toBe(false)
  })
})
