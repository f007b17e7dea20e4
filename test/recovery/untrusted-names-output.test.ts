// Names from outside the app in what it writes for people: the recovery tool's report lines, the
// service's e-mails and the printed kits show hidden and reordering characters as markers and keep
// each name's direction to itself. The CLI runs as a child process from an esbuild bundle made as
// scripts/build-cli.mjs makes it.
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NODE_CIPHER_WORKERS } from '../../scripts/node-cipher-workers.mjs'
import { renderGuardianKitHtml, renderOwnerKitHtml } from '../../src/main/core/printable/kit-pages'
import { guardianInvitation, heirNotification, rehearsalHeirMessage } from '../../src/service/mail-messages'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
import { FSI, isolateName, PDI } from '../../src/shared/untrusted-text'
import {
  collectBytes,
  encodeOwnerKitWords,
  encryptStream,
  generateVaultKey,
  splitVaultKey,
} from '../../src/vault-format/index'

const run = promisify(execFile)
/** Drawn as "photoexe.jpg", the rest of the line mirrored after it. */
const DISGUISED = 'photo\u202Egpj.exe'
const SHOWN = 'photo[U+202E]gpj.exe'
/** Reordering controls other than the FSI/PDI pair the app writes round names; control characters but line breaks and tabs. */
const RAW = /[\u061c\u200e\u200f\u202a-\u202e\u2066\u2067]|\p{Cc}(?<![\n\t])/u

const vaultKey = generateVaultKey()
const vaultId = '7d1c2a9e-4b0f-4e8a-9c3d-2f6b8a1e0c55'
let work: string
let cli: string

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vault-untrusted-'))
  // Its own output folder: recovery.test.ts builds out/cli at the same time in another worker.
  cli = join(process.cwd(), 'out/test-untrusted-cli/recover.js')
  await build({
    entryPoints: { recover: 'src/recovery/cli.ts', ...NODE_CIPHER_WORKERS },
    outdir: join(process.cwd(), 'out/test-untrusted-cli'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    packages: 'external',
    logLevel: 'warning',
  })
})

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
  rmSync(join(process.cwd(), 'out/test-untrusted-cli'), { recursive: true, force: true })
})

describe('the recovery tool', () => {
  it('shows a blob named with U+202E and ESC with markers, each name isolated', async () => {
    // The heir's folder holds what a hostile source handed over: names the disk accepts, the blob
    // itself in order (it records the plain name "photo.txt").
    const folder = join(work, 'downloaded')
    mkdirSync(folder)
    const identity = { path: 'photo.txt', size: 5 }
    const blob = await collectBytes(encryptStream([Buffer.from('hello')], { vaultKey, vaultId, identity }))
    writeFileSync(join(folder, `${DISGUISED}.vault`), blob)
    writeFileSync(
      join(folder, 'title\u001b]0;owned\u0007.vault'),
      Buffer.from('not a blob at all, long enough'),
    )
    const out = join(work, 'out')
    let stdout: string
    let stderr: string
    try {
      ;({ stdout, stderr } = await run(process.execPath, [
        cli,
        '--owner-kit',
        encodeOwnerKitWords({ vaultKey, vaultId }),
        '--out',
        out,
        folder,
      ]))
    } catch (error) {
      ;({ stdout, stderr } = error as { stdout: string; stderr: string })
    }
    const lines = stdout.trim().split('\n')
    expect(lines).toContain(
      `ok       ${isolateName(join(folder, `${DISGUISED}.vault`))} -> ${isolateName(join(out, 'photo.txt'))} (5 bytes)`,
    )
    expect(lines.find((line) => line.includes('title'))).toContain(
      `${FSI}${join(folder, 'title[U+001B]]0;owned[U+0007].vault')}${PDI}`,
    )
    expect(stdout).toContain(SHOWN)
    expect(stdout).not.toMatch(RAW)
    expect(stderr).not.toMatch(RAW)
  })
})

describe('the e-mails', () => {
  const common = {
    ownerEmail: 'owner@example.com',
    vaultId,
    preset: 'standard' as const,
    baseUrl: 'https://vault.example.org',
    token: 'hk_test',
  }

  it('isolate names and show their hidden characters in plain text', () => {
    const invitation = guardianInvitation({ ...common, guardianName: `Gina ${DISGUISED}` })
    expect(invitation.body).toContain(`Hello ${FSI}Gina ${SHOWN}${PDI},`)
    const heir = heirNotification({
      ...common,
      heirName: DISGUISED,
      guardians: [{ name: `\u202EMay`, email: 'may@example.com' }],
    })
    expect(heir.body).toContain(`Hello ${FSI}${SHOWN}${PDI},`)
    expect(heir.body).toContain(`  - ${FSI}[U+202E]May${PDI} <may@example.com>`)
    const practice = rehearsalHeirMessage({
      ...common,
      heirName: 'Hana',
      guardians: [],
      sampleFilename: DISGUISED,
      expiresAt: '2026-12-01T00:00:00.000Z',
    })
    expect(practice.body).toContain(`"${FSI}${SHOWN}${PDI}"`)
    for (const mail of [invitation, heir, practice]) {
      expect(mail.body).not.toMatch(RAW)
      expect(mail.subject).not.toMatch(RAW)
    }
  })
})

describe('the printed kits', () => {
  it('escape and isolate the guardian and owner names', async () => {
    const [share] = await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)
    const guardian = renderGuardianKitHtml({
      guardianName: `<b>${DISGUISED}`,
      share: share!,
      ownerName: DISGUISED,
    })
    expect(guardian).toContain(`<h1>Share for <bdi>&lt;b&gt;${SHOWN}</bdi></h1>`)
    expect(guardian).toContain(`<bdi>${SHOWN}</bdi> chose you as a guardian`)
    expect(guardian).not.toMatch(RAW)
    const owner = renderOwnerKitHtml({ vaultKey, vaultId, ownerName: DISGUISED })
    expect(owner).toContain(`Vault key of <bdi>${SHOWN}</bdi>`)
    expect(owner).not.toMatch(RAW)
  })
})
