// The command line: every admin command prints exactly one JSON object; errors exit non-zero. Help and
// mistakes in the command line are plain text for people; a second service on the same folder or port is refused.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildServiceCli, type ServeChild, serveChild as serveFromCli, startTestService } from './harness'

const run = promisify(execFile)
const root = join(import.meta.dirname, '../..')
const dataDir = mkdtempSync(join(tmpdir(), 'vault-service-cli-'))
let cli = ''
beforeAll(async () => {
  cli = await buildServiceCli()
})
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(cli, { force: true })
})

async function admin(...args: string[]): Promise<{ code: number; json: any }> {
  try {
    const { stdout } = await run(process.execPath, [cli, 'admin', ...args, '--data-dir', dataDir], {
      cwd: root,
    })
    const lines = stdout.trim().split('\n')
    expect(lines).toHaveLength(1)
    return { code: 0, json: JSON.parse(lines[0]!) }
  } catch (error) {
    const { code, stdout } = error as { code: number; stdout: string }
    return { code, json: JSON.parse(stdout.trim()) }
  }
}

describe('service admin CLI', () => {
  it('runs every command and reports errors as {"error"}', async () => {
    const account = await admin('create-account', '--email', 'cli@example.com')
    expect(account.json).toEqual({
      accountId: expect.stringMatching(/^acc_/),
      apiKey: expect.stringMatching(/^sk_human_/),
    })
    const { accountId } = account.json
    expect((await admin('create-key', '--account', accountId, '--kind', 'agent')).json.apiKey).toMatch(
      /^sk_agent_/,
    )
    const vault = await admin('create-vault', '--account', accountId, '--preset', 'enhanced')
    expect(vault.json.vaultId).toMatch(/^vlt_/)
    expect((await admin('add-credits', '--account', accountId, '--credits', '50')).json).toEqual({
      creditsBalance: 150,
    })
    // The operator's view of accounts: one line each, balances as the service keeps them.
    const other = await admin('create-account', '--email', 'second@example.com')
    const accounts = await admin('accounts')
    expect(accounts).toEqual({
      code: 0,
      json: {
        accounts: [
          {
            accountId,
            email: 'cli@example.com',
            creditsBalance: 150,
            vaults: 1,
            createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          },
          {
            accountId: other.json.accountId,
            email: 'second@example.com',
            creditsBalance: 100,
            vaults: 0,
            createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          },
        ],
      },
    })
    const started = await admin('start-release', '--vault', vault.json.vaultId)
    expect(started.json).toMatchObject({ id: vault.json.vaultId, state: 'releasing', sssPreset: 'enhanced' })
    const tick = await admin('tick', '--now', new Date(Date.now() + 31 * 86_400_000).toISOString())
    expect(tick.json.released).toEqual([{ vaultId: vault.json.vaultId, heirsNotified: 0 }])
    const outbox = await admin('outbox', '--vault', vault.json.vaultId)
    expect(outbox.json.messages.map((m: { kind: string }) => m.kind)).toEqual(['contestation_alert_day_0'])
    expect((await admin('revoke-key', '--key', account.json.apiKey)).json).toEqual({ revoked: true })

    const again = await admin('revoke-key', '--key', account.json.apiKey)
    expect(again.code).not.toBe(0)
    expect(again.json.error).toContain('no active key')
    const noAccount = await admin('create-vault', '--account', 'acc_missing')
    expect(noAccount.code).not.toBe(0)
    expect(noAccount.json.error).toContain('no account')
    const badEmail = await admin('create-account', '--email', 'nope')
    expect(badEmail.json.error).toContain('e-mail')
  })
})

describe('the operator view of accounts (admin.accounts, on either store)', () => {
  it('lists every account with its balance as a number, its vault count and when it was created', async () => {
    const t = await startTestService()
    try {
      t.advance(1000)
      const { accountId } = await t.service.admin.createAccount({ email: 'rich@example.com' })
      await t.service.admin.addCredits({ account: accountId, credits: 5_000_000_000 })
      await t.service.admin.createVault({ account: accountId, preset: 'standard' })
      await t.service.admin.createVault({ account: accountId, preset: 'enhanced' })
      expect(await t.service.admin.accounts()).toEqual({
        accounts: [
          {
            accountId: t.owner.accountId,
            email: 'owner@example.com',
            creditsBalance: 100,
            vaults: 1,
            createdAt: '2030-01-01T00:00:00.000Z',
          },
          {
            accountId,
            email: 'rich@example.com',
            creditsBalance: 5_000_000_100,
            vaults: 2,
            createdAt: '2030-01-01T00:00:01.000Z',
          },
        ],
      })
    } finally {
      await t.stop()
    }
  })
})

/** Runs the CLI with these arguments; never throws. */
async function cliRun(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], { cwd: root })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string }
    return { code, stdout, stderr }
  }
}

describe('service CLI for people', () => {
  it('prints the usage as plain text on stdout for --help, -h, help and admin --help, exit 0', async () => {
    for (const args of [['--help'], ['-h'], ['help'], ['admin', '--help'], ['serve', '-h']]) {
      const result = await cliRun(...args)
      expect(result, args.join(' ')).toMatchObject({ code: 0, stderr: '' })
      expect(result.stdout).toMatch(/^Usage:\n {2}npm run service -- serve --data-dir <dir>/)
      expect(result.stdout).toContain('\n    create-account --email E')
      expect(result.stdout).not.toContain('\\n')
    }
  })

  it('explains a wrong command line in plain words with the usage on stderr, exit 2', async () => {
    const cases: [string[], string][] = [
      [['--bogus'], 'service: unknown option --bogus.'],
      [[], 'service: say what to do: serve, or admin <command>.'],
      [['launch'], 'service: unknown mode "launch"; use serve or admin.'],
      [['admin', 'explode', '--data-dir', dataDir], 'service: unknown admin command "explode".'],
      [['admin', 'create-account', '--data-dir', dataDir], 'service: --email is required.'],
      [['serve'], 'service: --data-dir is required.'],
      [['serve', '--port'], 'service: --port needs a value.'],
      // Another option where a value belongs is a forgotten value, not "takes no value".
      [['serve', '--port', '--data-dir', dataDir], 'service: --port needs a value.'],
      [['serve', '--yes=no', '--data-dir', dataDir], 'service: --yes takes no value.'],
      // A value that starts with a dash is a value (parseArgs alone refuses it as ambiguous).
      [['serve', '--port', '-1', '--data-dir', dataDir], 'service: --port must be a whole number'],
      [['serve', '--port', '70000', '--data-dir', dataDir], 'service: --port must be a whole number'],
    ]
    for (const [args, message] of cases) {
      const result = await cliRun(...args)
      expect(result, args.join(' ')).toMatchObject({ code: 2, stdout: '' })
      expect(result.stderr.startsWith(message), result.stderr).toBe(true)
      expect(result.stderr).toContain('\n\nUsage:\n')
    }
  })

  it('npm run service -- --help goes through the launcher: usage on stdout, exit 0', async () => {
    const { stdout, stderr } = await run(
      process.execPath,
      [join(root, 'scripts/run-cli.mjs'), 'service', '--help'],
      { cwd: root },
    )
    expect(stdout).toMatch(/^Usage:\n/)
    expect(stdout).not.toMatch(/^\{/m)
    expect(stderr).toBe('')
  })
})

type Started = ServeChild

/** The port the service listens on, once it does. */
async function listening(started: Started): Promise<string> {
  return new URL(await started.url).port
}

async function stopped(started: Started): Promise<void> {
  started.child.kill('SIGTERM')
  expect((await started.exit).code).toBe(0)
}

describe('a second service', () => {
  const folders: string[] = []
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-service-twice-'))
    folders.push(dir)
    return dir
  }
  afterAll(() => {
    for (const dir of folders) rmSync(dir, { recursive: true, force: true })
  })

  it('on the same data folder exits 1 with one sentence and never says it is listening', async () => {
    const dir = folder()
    const first = serveFromCli(cli, '--port', '0', '--data-dir', dir)
    await listening(first)
    try {
      const second = await serveFromCli(cli, '--port', '0', '--data-dir', dir).exit
      expect(second.code).toBe(1)
      expect(second.stdout).toBe('')
      expect(second.stderr).toBe(
        `The data folder ${dir} is in use by another Vault Service (process ${first.child.pid}): stop that one first, or start this one with another --data-dir.\n`,
      )
    } finally {
      await stopped(first)
    }
  })

  it('on the same port exits 1 with one sentence and never says it is listening', async () => {
    const first = serveFromCli(cli, '--port', '0', '--data-dir', folder())
    const port = await listening(first)
    try {
      const second = await serveFromCli(cli, '--port', port, '--data-dir', folder()).exit
      expect(second.code).toBe(1)
      expect(second.stdout).toBe('')
      expect(second.stderr).toBe(
        `Another program, perhaps another Vault Service, is already using port ${port} on 127.0.0.1: stop it, or choose another --port (0 picks a free one).\n`,
      )
    } finally {
      await stopped(first)
    }
  })

  it('started at the same moment on one folder: exactly one of them serves', async () => {
    const dir = folder()
    const both = [
      serveFromCli(cli, '--port', '0', '--data-dir', dir),
      serveFromCli(cli, '--port', '0', '--data-dir', dir),
    ]
    // Whichever lost exits on its own; the winner is the one still running then.
    const loser = await Promise.race(both.map((s, i) => s.exit.then((result) => ({ i, result }))))
    expect(loser.result.code).toBe(1)
    expect(loser.result.stdout).toBe('')
    expect(loser.result.stderr).toMatch(/^The data folder .* is in use by another Vault Service/)
    const winner = both[1 - loser.i]!
    await listening(winner)
    await stopped(winner)
  })
})
