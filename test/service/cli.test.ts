// The command line: every admin command prints exactly one JSON object; errors exit non-zero.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildServiceCli } from './harness'

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
    const unknown = await admin('explode')
    expect(unknown.json.error).toContain('unknown admin command')
  })
})
