// A practice release end to end, and the promise behind it: the owner starts a practice with the
// app's practice letter against a self-hosted Vault Service (mail to an SMTP server on loopback); the
// heir, in a second, fresh app, collects the guardians' PRACTICE kits from their practice e-mails and
// recovers the practice file. Afterwards nothing the heir's side holds — the e-mails to the heir and
// the guardians, what the service serves to the practice code, the practice file, the proof, the heir
// app's own folder — equals or derives the vault key, nor holds a real kit.
// The heir's test starts from a fixture that takes the owner's steps on a service of its own, so it runs alone.
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import {
  combinePracticeWords,
  decodeOwnerKitWords,
  openEncryptedFile,
  rehearsalProof,
} from '../../../src/vault-format'
import { startBrowserModeApp } from '../support/browser-mode-app'
import { expect, test as journey } from '../support/fixtures'
import {
  type Mailbox,
  type SelfHostedService,
  startMailbox,
  startSelfHostedService,
} from '../support/loopback-services'
import { saveAndConfirmOwnerKit } from '../support/owner-kit-steps'

const PUBLIC_URL = 'https://vault.example.org'
const OWNER = 'owner@example.com'
const GUARDIANS = [
  ['Alice Martin', 'alice@example.com'],
  ['Bob Okafor', 'bob@example.com'],
  ['Chen Wu', 'chen@example.com'],
] as const
const HEIR = ['Sam Doe', 'sam@example.com'] as const

const shot = (target: Page, name: string) =>
  target.screenshot({ path: `test-results/screenshots/rehearsal-${name}.png`, fullPage: true })

/** Every line of an e-mail that is a kit's words (a long run of lowercase words). */
const kitLines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^[a-z]+( [a-z]+){20,}$/.test(line))

/** Every file below a folder, with its bytes. */
async function filesBelow(dir: string): Promise<{ path: string; bytes: Buffer }[]> {
  const out: { path: string; bytes: Buffer }[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...(await filesBelow(path)))
    else if (entry.isFile() && (await stat(path)).size < 50_000_000)
      out.push({ path, bytes: await readFile(path) })
  }
  return out
}

/**
 * The owner's side: an account and "Family papers", an heir, three guardians (their real kits read),
 * the owner kit confirmed, and a practice started with the practice letter.
 */
async function startPractice(
  page: Page,
  appUrl: string,
  service: SelfHostedService,
): Promise<{ vaultKey: Uint8Array; realKits: string[] }> {
  const realKits: string[] = []
  const { apiKey } = (await service.admin('create-account', '--email', OWNER)) as { apiKey: string }
  await page.goto(appUrl)
  await page.getByLabel('Service address').fill(service.url)
  await page.getByLabel('API key').fill(apiKey)
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  await expect(page.getByTestId('no-vaults')).toBeVisible({ timeout: 20_000 })
  await page.getByLabel(/Name/).fill('Family papers')
  await page.getByRole('button', { name: 'Create vault' }).click()
  await expect(page.getByRole('heading', { name: 'Family papers', level: 1 })).toBeVisible({
    timeout: 20_000,
  })

  await page.getByRole('tab', { name: 'Heirs' }).click()
  const heirs = page.getByRole('form', { name: 'Add heir' })
  await heirs.getByLabel('Name').fill(HEIR[0])
  await heirs.getByLabel('E-mail').fill(HEIR[1])
  await heirs.getByRole('button', { name: 'Add heir' }).click()
  await expect(page.getByTestId('heir-count')).toHaveText('1 of 5')

  await page.getByRole('tab', { name: 'Guardians' }).click()
  const form = page.getByRole('form', { name: 'Add guardian' })
  for (const [name, email] of GUARDIANS) {
    await form.getByLabel('Name').fill(name)
    await form.getByLabel('E-mail').fill(email)
    await form.getByRole('button', { name: 'Add guardian' }).click()
    await expect(page.getByRole('cell', { name, exact: true })).toBeVisible()
  }
  // The real kits and the owner kit, as the owner's app holds them (the test's stand-in for paper).
  for (const [index] of GUARDIANS.entries()) {
    await page.getByRole('button', { name: new RegExp(`View kit ${index + 1}`) }).click()
    const kit = page.frameLocator('iframe.kit-frame')
    await expect(kit.locator('ol.words .w').first()).toBeVisible()
    realKits.push((await kit.locator('ol.words .w').allTextContents()).join(' '))
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click()
  }
  await page.getByRole('tab', { name: 'Overview' }).click()
  const vaultKey = decodeOwnerKitWords((await saveAndConfirmOwnerKit(page)).join(' ')).vaultKey

  await page
    .getByTestId('readiness-item-rehearsal')
    .getByRole('button', { name: 'Start a practice run' })
    .click()
  const panel = page.locator('section.rehearsal-panel')
  await expect(panel.getByLabel('A practice letter the app writes')).toBeChecked()
  await panel.screenshot({ path: 'test-results/screenshots/rehearsal-panel.png' })
  await panel.getByRole('button', { name: 'Start practice' }).click()
  await expect(page.getByTestId('rehearsal-state')).toContainText(`Practice running with ${HEIR[0]}`)
  await expect(page.getByTestId('rehearsal-sample')).toContainText('Practice file - ')
  await panel.screenshot({ path: 'test-results/screenshots/rehearsal-panel-running.png' })
  return { vaultKey, realKits }
}

const test = journey.extend<{
  /** A self-hosted service of the test's own, its mail to a loopback mailbox. */
  loopback: { service: SelfHostedService; mailbox: Mailbox }
  /** `startPractice` taken on `ownApp` in the test's page: the vault key and the real kits' words. */
  practiceStarted: { vaultKey: Uint8Array; realKits: string[] }
}>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
  loopback: async ({}, use) => {
    const mailbox = await startMailbox()
    const service = await startSelfHostedService({ smtpPort: mailbox.port, publicUrl: PUBLIC_URL })
    await use({ service, mailbox })
    await service.stop()
    await mailbox.close()
  },
  practiceStarted: async ({ loopback, ownApp, page }, use) => {
    await use(await startPractice(page, ownApp.url, loopback.service))
  },
})

test.use({ appOptions: { secretStore: 'auto' }, viewport: { width: 1280, height: 900 } })

test('the owner starts a practice with the practice letter: guardians get practice kits, not a request for their real ones', async ({
  // The service before the app, as the owner's app always finds it running (see practiceStarted).
  loopback,
  ownApp,
  page,
}) => {
  await startPractice(page, ownApp.url, loopback.service)
})

test('the heir recovers the practice file with practice kits; nothing on the heir side derives the vault key', async ({
  browser,
  page,
  loopback: { service, mailbox },
  practiceStarted: { vaultKey, realKits },
}) => {
  const heirMail = await mailbox.waitFor(HEIR[1], /PRACTICE/)
  const guardianMails = []
  for (const [, email] of GUARDIANS) guardianMails.push(await mailbox.waitFor(email, /PRACTICE/))
  const practiceKits = guardianMails.map((mail) => kitLines(mail.text)[0]!)
  expect(practiceKits.every(Boolean)).toBe(true)
  const token = /hk_[A-Za-z0-9_-]{43}/.exec(heirMail.text)![0]
  const vaultId = /Vault id:\s+(\S+)/.exec(heirMail.text)![1]!

  const heirApp = await startBrowserModeApp({ secretStore: 'memory' })
  const heir = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  const outDir = join(heirApp.userDataDir, 'Practice')
  try {
    await heir.goto(heirApp.url)
    await heir.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Recovery' }).click()
    await heir.getByLabel('Vault Service address').fill(service.url)
    await heir.getByLabel(/personal access code/).fill(token)
    await heir.getByLabel(/Vault id/).fill(vaultId)
    // Two practice kits are enough, as two real kits would be on the day (2 of 3).
    await heir.getByLabel('Kit 1').fill(practiceKits[0]!)
    await heir.getByLabel('Kit 1').blur()
    await heir.getByRole('button', { name: 'Add another kit' }).click()
    await heir.getByLabel('Kit 2').fill(practiceKits[2]!)
    await heir.getByLabel('Kit 2').blur()
    await expect(heir.getByTestId('practice-mode')).toBeVisible()
    await heir.getByLabel('Folder for the recovered files').fill(outDir)
    await heir.getByRole('button', { name: 'Recover the practice file' }).click()
    await expect(heir.getByTestId('rehearsal-result')).toContainText(/passed/i, { timeout: 30_000 })
    await shot(heir, 'heir-passed')

    // The owner sees it passed (the panel follows a running practice).
    await expect(page.getByTestId('rehearsal-state')).toContainText('Passed', { timeout: 20_000 })
    await page
      .locator('section.rehearsal-panel')
      .screenshot({ path: 'test-results/screenshots/rehearsal-panel-passed.png' })

    // What the heir's side holds: every practice e-mail, what the practice code is served, the
    // practice file, the heir app's folder.
    const ticket = await fetch(`${service.url}/api/rehearsal`, { headers: { 'x-api-key': token } })
    expect(ticket.status).toBe(200)
    const served = await ticket.text()
    const vaultView = await (
      await fetch(`${service.url}/api/vault/${vaultId}`, { headers: { 'x-api-key': token } })
    ).text()
    const assets = await fetch(`${service.url}/api/vault/${vaultId}/asset`, {
      headers: { 'x-api-key': token },
    })
    expect(assets.status).toBe(403)
    const heard = [heirMail.text, ...guardianMails.map((m) => m.text), served, vaultView]
    const keyForms = [Buffer.from(vaultKey).toString('hex'), Buffer.from(vaultKey).toString('base64')]
    for (const text of heard) {
      for (const form of keyForms) expect(text).not.toContain(form)
      for (const kit of realKits) expect(text).not.toContain(kit)
      // Every kit an e-mail carries is a practice kit; none asks for a real one "as on the real day".
      expect(text).not.toMatch(/the way you would on the real day/)
    }
    for (const mail of [heirMail, ...guardianMails]) {
      for (const line of kitLines(mail.text)) expect(practiceKits).toContain(line)
    }

    // Combining every practice kit gives the practice key: not the vault key, and its proof is not the vault key's.
    const rebuilt = await combinePracticeWords(practiceKits)
    expect(Buffer.from(rebuilt.practiceKey).equals(Buffer.from(vaultKey))).toBe(false)
    const { challenge, sample } = JSON.parse(served).data as {
      challenge: string
      sample: { content: string }
    }
    expect(rehearsalProof(rebuilt.practiceKey, challenge)).not.toBe(rehearsalProof(vaultKey, challenge))
    // The practice file opens under the practice key only.
    const blob = Buffer.from(sample.content, 'base64')
    await expect(openEncryptedFile([blob], { vaultKey, vaultId })).rejects.toThrow()
    expect((await openEncryptedFile([blob], { vaultKey: rebuilt.practiceKey, vaultId })).kind).toBe('file')
    const recovered = (await readdir(outDir)).filter((name) => name.startsWith('Practice file - '))
    expect(recovered).toHaveLength(1)
    expect(await readFile(join(outDir, recovered[0]!), 'utf8')).toContain('Practice file for Family papers')

    // Nothing the heir app keeps holds the vault key (raw, hex or base64) or a real kit's words.
    const rawKey = Buffer.from(vaultKey)
    for (const file of await filesBelow(heirApp.userDataDir)) {
      expect(file.bytes.includes(rawKey), file.path).toBe(false)
      const text = file.bytes.toString('latin1')
      for (const form of keyForms) expect(text, file.path).not.toContain(form)
      for (const kit of realKits) expect(text, file.path).not.toContain(kit)
    }
  } finally {
    await heir.close()
    await heirApp.stop()
  }
})
