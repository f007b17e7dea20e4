// The command-line kit check: --kit-check reads one guardian kit (words, file or QR) and prints its check
// code, the one printed on the kit; with --guardian-link (from the guardian's e-mail) it confirms the code
// with the real service, sending only the code and the link's token. A wrong kit is named; bad input is
// refused before anything is sent. The tool is built alone into a temp folder, as in practice-cli.test.ts.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { NODE_CIPHER_WORKERS } from '../../scripts/node-cipher-workers.mjs'
import { encodeShareWords, type GuardianShare, generateVaultKey, splitVaultKey } from '../../src/vault-format'
import { kitCheckCode, kitCheckCodeHash } from '../../src/vault-format/kit-check'
import { call, startTestService, type TestService } from '../service/harness'

const run = promisify(execFile)
let t: TestService
let work: string
let cli: string

beforeAll(async () => {
  t = await startTestService()
  work = mkdtempSync(join(tmpdir(), 'vault-kit-check-cli-'))
  const outdir = join(process.cwd(), 'out', `kit-check-cli-${process.pid}`)
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

async function recover(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], { cwd: work })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

const codeOf = (share: GuardianShare) => kitCheckCode(share.share, share.vaultId)

it('prints the kit check code and confirms it through the guardian link; the words are never sent', async () => {
  const { vaultId, apiKey: key } = t.owner
  const guardians: { id: string; email: string }[] = []
  for (const name of ['Gina', 'Gus']) {
    const email = `${name.toLowerCase()}@example.com`
    const added = await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, { key, json: { name, email } })
    guardians.push({ id: added.body.data.id, email })
  }
  const shares = await splitVaultKey(generateVaultKey(), vaultId, { threshold: 2, shares: 2 })
  const registered = await call(t.url, 'PUT', `/api/vault/${vaultId}/kit-checks`, {
    key,
    json: {
      split: shares[0]!.splitId,
      guardians: guardians.map((g, i) => ({
        guardianId: g.id,
        codeHash: kitCheckCodeHash(codeOf(shares[i]!), vaultId),
      })),
    },
  })
  expect(registered.status).toBe(200)
  const invitations = (await t.service.admin.outbox({ vault: vaultId })).messages
  const linkOf = (email: string) =>
    /https?:\/\/\S+\/guardian\/gt_[A-Za-z0-9_-]{43}\/check/.exec(
      invitations.find((m) => m.to === email)!.body,
    )![0]
  const words = encodeShareWords(shares[0]!)

  // The code alone, offline.
  const printed = await recover('--kit-check', '--share-words', words)
  expect(printed.code).toBe(0)
  expect(printed.stdout.trim()).toBe(`Check code: ${codeOf(shares[0]!)}`)
  expect(printed.stderr).toContain(shares[0]!.fingerprint)

  // From a file of the words, confirmed with Gina's link.
  const file = join(work, 'gina.txt')
  writeFileSync(file, words)
  const confirmed = await recover(
    '--kit-check',
    '--share-file',
    file,
    '--guardian-link',
    linkOf('gina@example.com'),
  )
  expect(confirmed.stderr).toContain(shares[0]!.fingerprint)
  expect(confirmed.code).toBe(0)
  expect(confirmed.stdout).toMatch(/Confirmed on .*: the owner's service now knows you still have this kit/)
  const listed = await call(t.url, 'GET', `/api/vault/${vaultId}/guardian`, { key })
  const gina = listed.body.data.find((g: { id: string }) => g.id === guardians[0]!.id)
  expect(gina.kitCheck.confirmedAt).not.toBeNull()
  expect(
    listed.body.data.find((g: { id: string }) => g.id === guardians[1]!.id).kitCheck.confirmedAt,
  ).toBeNull()

  // Gina's kit typed with Gus's link: named, not confirmed.
  const wrong = await recover(
    '--kit-check',
    '--share-words',
    words,
    '--guardian-link',
    linkOf('gus@example.com'),
  )
  expect(wrong.code).toBe(1)
  expect(wrong.stderr).toContain("another guardian's kit of this vault")

  // The service never saw the words: not in its database, mail or logs of the check.
  const stored = await t.rows<Record<string, unknown>>('SELECT * FROM kit_check_codes')
  expect(JSON.stringify(stored)).not.toContain(words.split(' ')[1]!)
  expect(JSON.stringify(stored)).not.toContain(codeOf(shares[0]!))
})

it('refuses what is not one guardian kit, and a link that is not a guardian link, before sending anything', async () => {
  const shares = await splitVaultKey(generateVaultKey(), t.owner.vaultId, { threshold: 2, shares: 2 })
  const two = await recover(
    '--kit-check',
    '--share-words',
    encodeShareWords(shares[0]!),
    '--share-words',
    encodeShareWords(shares[1]!),
  )
  expect(two.code).toBe(2)
  expect(two.stderr).toContain('one guardian kit at a time; 2 were given')
  const none = await recover('--kit-check')
  expect(none.code).toBe(2)
  expect(none.stderr).toContain('--share-words')
  const typo = encodeShareWords(shares[0]!).split(' ')
  typo[4] = 'zzzz'
  const bad = await recover('--kit-check', '--share-words', typo.join(' '))
  expect(bad.code).toBe(2)
  expect(bad.stderr).toMatch(/^Share words: /)
  const link = await recover(
    '--kit-check',
    '--share-words',
    encodeShareWords(shares[0]!),
    '--guardian-link',
    'https://vault.example.com/recover',
  )
  expect(link.code).toBe(1)
  expect(link.stderr).toContain('not a guardian page link')
  const plain = await recover(
    '--kit-check',
    '--share-words',
    encodeShareWords(shares[0]!),
    '--guardian-link',
    `http://vault.example.com/guardian/gt_${'a'.repeat(43)}`,
  )
  expect(plain.code).toBe(1)
  expect(plain.stderr).toContain('guardian e-mail')
  const alone = await recover('--guardian-link', 'https://vault.example.com/guardian/x')
  expect(alone.code).toBe(2)
  expect(alone.stderr).toContain('--guardian-link goes with --kit-check')
})
