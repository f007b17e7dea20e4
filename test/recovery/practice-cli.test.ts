// The command-line recovery tool in a practice release: with the practice code from the [PRACTICE]
// e-mail and the guardians' practice kits it recovers the practice file and reports the proof; real
// guardian kits given with a practice code are refused before anything is combined (exit 2), and an
// expired practice kit is named. Against a real service, with the tool built alone into a temp folder.
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NODE_CIPHER_WORKERS } from '../../scripts/node-cipher-workers.mjs'
import { makePracticeMaterial } from '../../src/main/core/vaults/practice-material'
import { encodeShareWords, generateVaultKey, splitVaultKey } from '../../src/vault-format'
import { call, DAY_MS, startTestService, type TestService } from '../service/harness'

const run = promisify(execFile)
let t: TestService
let work: string
let cli: string

beforeAll(async () => {
  t = await startTestService()
  work = mkdtempSync(join(tmpdir(), 'vault-practice-cli-'))
  // Inside the checkout (out/ is build output), so the tool finds the project's packages.
  const outdir = join(process.cwd(), 'out', `practice-cli-${process.pid}`)
  cli = join(outdir, 'recover.js')
  await build({
    entryPoints: { recover: 'src/recovery/cli.ts', ...NODE_CIPHER_WORKERS },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    packages: 'external',
    logLevel: 'warning',
  })
}, 60_000)

afterAll(async () => {
  await t?.stop()
  if (work) rmSync(work, { recursive: true, force: true })
  if (cli) rmSync(join(cli, '..'), { recursive: true, force: true })
})

/** Runs the tool; resolves with its exit code and output whatever the code. */
async function recover(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], { cwd: work })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

/** A vault with two guardians and an heir, a running practice; its code and the guardians' practice kits. */
async function practice() {
  const vaultId = (await t.service.admin.createVault({ account: t.owner.accountId, preset: 'standard' }))
    .vaultId
  const key = t.owner.apiKey
  for (const [name, email] of [
    ['Gina', 'gina@example.com'],
    ['Gus', 'gus@example.com'],
  ]) {
    await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, { key, json: { name, email } })
  }
  const heir = await call(t.url, 'POST', `/api/vault/${vaultId}/heir`, {
    key,
    json: { name: 'Hana', email: 'hana@example.com' },
  })
  const guardians = (await call(t.url, 'GET', `/api/vault/${vaultId}/guardian`, { key })).body.data
  const { request } = await makePracticeMaterial({
    vaultId,
    vaultLabel: 'Family papers',
    preset: 'standard',
    guardians,
    heirId: heir.body.data.id,
    sample: { kind: 'letter' },
    now: t.now(),
  })
  expect((await call(t.url, 'POST', `/api/vault/${vaultId}/rehearsal`, { key, json: request })).status).toBe(
    201,
  )
  const mails = (await t.service.admin.outbox({ vault: vaultId })).messages
  const token = /(hk_[A-Za-z0-9_-]{43})/.exec(mails.find((m) => m.kind === 'rehearsal_heir')!.body)![1]!
  const kits = mails
    .filter((m) => m.kind === 'rehearsal_guardian')
    .map((m) =>
      m.body
        .split('\n')
        .find((line) => /^[a-z]+( [a-z]+){20,}$/.test(line.trim()))!
        .trim(),
    )
  return { vaultId, token, kits }
}

describe('recover with a practice code', () => {
  it('practice kits: the practice file is recovered and the practice passes (exit 0)', async () => {
    const p = await practice()
    const out = join(work, 'out-1')
    writeFileSync(join(work, 'kit-2.txt'), p.kits[1]!)
    const r = await recover(
      '--service',
      t.url,
      '--token',
      p.token,
      '--share-words',
      p.kits[0]!,
      '--share-file',
      join(work, 'kit-2.txt'),
      '--out',
      out,
    )
    expect(r.stderr).toContain('this is a practice')
    expect(r.stderr).toMatch(/Practice passed: The guardians' practice kits opened the practice file/)
    expect(r.code).toBe(0)
    const [name] = readdirSync(out)
    expect(name).toMatch(/^Practice file - /)
    expect(readFileSync(join(out, name!), 'utf8')).toContain('Practice file for Family papers')
    const state = await call(t.url, 'GET', `/api/vault/${p.vaultId}/rehearsal`, { key: t.owner.apiKey })
    expect(state.body.data.state).toBe('passed')
  })

  it('real guardian kits with a practice code: refused before they are combined (exit 2)', async () => {
    const p = await practice()
    const real = (await splitVaultKey(generateVaultKey(), p.vaultId, { threshold: 2, shares: 3 })).map(
      encodeShareWords,
    )
    const out = join(work, 'out-2')
    const r = await recover(
      '--service',
      t.url,
      '--token',
      p.token,
      '--share-words',
      real[0]!,
      '--share-words',
      real[1]!,
      '--out',
      out,
    )
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/access code is for a practice, and these are real guardian kits/)
    // Nothing was combined: no "Key rebuilt" line, no fingerprint, nothing written.
    expect(r.stderr).not.toMatch(/Key rebuilt|fingerprint/)
    expect(() => readdirSync(out)).toThrow()
    // A practice kit beside a real one: refused as well, the real kit named.
    const mixed = await recover(
      '--service',
      t.url,
      '--token',
      p.token,
      '--share-words',
      p.kits[0]!,
      '--share-words',
      real[1]!,
      '--out',
      out,
    )
    expect(mixed.code).toBe(2)
    expect(mixed.stderr).toMatch(/Kit 2: This is a real guardian kit/)
  })

  it('an expired practice: the code is refused with what to do (exit 2)', async () => {
    const p = await practice()
    t.advance(8 * DAY_MS)
    const r = await recover(
      '--service',
      t.url,
      '--token',
      p.token,
      '--share-words',
      p.kits[0]!,
      '--share-words',
      p.kits[1]!,
      '--out',
      join(work, 'out-3'),
    )
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/practice has ended|expired/)
  })
})
