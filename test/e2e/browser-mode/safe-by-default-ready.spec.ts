// From "7 steps left" to "Ready" against a self-hosted Vault Service (its own process, mail to an
// SMTP server on loopback, a public address of its own), with the keys in a real keychain: an empty
// account, a test e-mail that arrives, an upload refused for eating the check-in reserve, guardians
// who accept by the links in their e-mails, kits handed over, the owner kit confirmed, an heir, and
// a practice release the heir completes in a second, fresh app with the two guardians' PRACTICE kits
// (read from their practice e-mails): the real kits are never asked for and never combined.
// Each test builds the owner's path up to its own step from the same step functions (fixtures), on a
// service, a mailbox and an app of its own, so any test runs alone.
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { startBrowserModeApp } from '../support/browser-mode-app'
import { expect, test as journey } from '../support/fixtures'
import {
  type Mailbox,
  type SelfHostedService,
  startMailbox,
  startSelfHostedService,
} from '../support/loopback-services'
import { saveAndConfirmOwnerKit } from '../support/owner-kit-steps'

// Heirs and guardians are sent to this address; in the test they reach the same service on loopback.
const PUBLIC_URL = 'https://vault.example.org'
const OWNER = 'owner@example.com'
const GUARDIANS = [
  ['Alice Martin', 'alice@example.com'],
  ['Bob Okafor', 'bob@example.com'],
] as const
const HEIR = ['Sam Doe', 'sam@example.com'] as const

/** What a test of this file works on: the owner's page and app, the service and its mail. */
interface Owner {
  page: Page
  service: SelfHostedService
  mailbox: Mailbox
  /** A 40 kB file to back up. */
  sample: string
}

const shot = (target: Page, name: string) =>
  target.screenshot({ path: `test-results/screenshots/safe-ready-${name}.png`, fullPage: true })
const item = (page: Page, id: string) => page.getByTestId(`readiness-item-${id}`)
/** What the owner does to see answers that came by e-mail: back to the list, Refresh, open the vault. */
async function reopenVault(page: Page) {
  await page.getByRole('button', { name: '← All vaults' }).click()
  await page.getByRole('button', { name: 'Refresh' }).click()
  await page.getByTestId('vault-card').getByRole('button').first().click()
}

/** An empty account connected in the app: what to do next, then "Family papers" created. */
async function createVault({ page, service }: Owner, appUrl: string) {
  const { apiKey } = (await service.admin('create-account', '--email', OWNER)) as { apiKey: string }
  await page.goto(appUrl)
  await page.getByLabel('Service address').fill(service.url)
  await page.getByLabel('API key').fill(apiKey)
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  await expect(page.getByTestId('no-vaults')).toBeVisible({ timeout: 20_000 })
  await expect(page.getByText('Loading your vaults…')).toHaveCount(0)
  await shot(page, '1-empty-account')
  await page.getByLabel(/Name/).fill('Family papers')
  await page.getByRole('button', { name: 'Create vault' }).click()
  await expect(page.getByRole('heading', { name: 'Family papers', level: 1 })).toBeVisible({
    timeout: 20_000,
  })
}

async function sendTestMail({ page, mailbox }: Owner) {
  await item(page, 'mail').getByRole('button', { name: 'Send a test e-mail' }).click()
  const mail = await mailbox.waitFor(OWNER)
  expect(mail.text).toMatch(/test/i)
  await expect(item(page, 'mail')).toHaveAttribute('data-met', 'true', { timeout: 10_000 })
}

/** Weekly check-ins refuse the upload for the reserve; monthly ones let it through. */
async function backUpBesideTheReserve({ page, sample }: Owner) {
  await page.getByRole('tab', { name: 'Release settings' }).click()
  await page.getByLabel(/Dead man's switch/).check()
  await page.getByLabel('Check in').selectOption('weekly')
  await page.getByRole('button', { name: 'Save release settings' }).click()
  await expect(page.getByTestId('release-saved')).toContainText("Dead man's switch, weekly")

  await page.getByRole('tab', { name: 'Assets' }).click()
  await page.getByLabel('Path of a file or folder on the computer running Vault Desktop').fill(sample)
  await page.getByRole('button', { name: 'Back up' }).click()
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByTestId('reserve-warning')).toBeVisible()
  await expect(dialog).toContainText('106')
  await shot(page, '3-reserve-warning')
  await dialog
    .getByRole('button', { name: /Cancel|Not now|Keep/ })
    .first()
    .click()
  await expect(page.getByTestId('upload-item')).toHaveCount(0)

  // Monthly check-ins need 26 credits for 12 months: the same upload fits beside the reserve.
  await page.getByRole('tab', { name: 'Release settings' }).click()
  await page.getByLabel('Check in').selectOption('monthly')
  await page.getByRole('button', { name: 'Save release settings' }).click()
  await expect(page.getByTestId('release-saved')).toContainText("Dead man's switch, monthly")
  await page.getByRole('tab', { name: 'Assets' }).click()
  await page.getByLabel('Path of a file or folder on the computer running Vault Desktop').fill(sample)
  await page.getByRole('button', { name: 'Back up' }).click()
  const confirm = page.getByRole('dialog')
  if (await confirm.isVisible().catch(() => false)) {
    await expect(confirm.getByTestId('reserve-warning')).toHaveCount(0)
    await confirm.getByRole('button', { name: /Encrypt and upload/ }).click()
  }
  await expect(page.getByTestId('upload-item').filter({ hasText: 'Stored' })).toHaveCount(1, {
    timeout: 20_000,
  })
}

/** An heir, and the two guardians, who accept by the links in their invitations. */
async function addTheCircle({ page, service, mailbox }: Owner) {
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
  for (const [, email] of GUARDIANS) {
    const invitation = await mailbox.waitFor(email)
    const link = /https:\/\/vault\.example\.org(\/guardian\/[^\s/]+\/accept)/.exec(invitation.text)?.[1]
    expect(link, invitation.text).toBeTruthy()
    const answer = await fetch(`${service.url}${link}`, { method: 'POST' })
    expect(answer.status).toBe(200)
  }
  await reopenVault(page)
  await expect(item(page, 'guardians')).toHaveAttribute('data-met', 'true', { timeout: 20_000 })
}

/** Both kits read and marked handed over, then the owner kit confirmed: the kits' words by guardian. */
async function handOverKits({ page }: Owner): Promise<Map<string, string>> {
  const kitWords = new Map<string, string>()
  await page.getByRole('tab', { name: 'Guardians' }).click()
  for (const [index, [name]] of GUARDIANS.entries()) {
    await page.getByRole('button', { name: new RegExp(`View kit ${index + 1}`) }).click()
    const kit = page.frameLocator('iframe.kit-frame')
    await expect(kit.locator('ol.words .w').first()).toBeVisible()
    kitWords.set(name, (await kit.locator('ol.words .w').allTextContents()).join(' '))
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click()
    // Checked once main has recorded it (the box follows the saved state).
    const handed = page.getByLabel(`Kit ${index + 1} handed over to ${name}`)
    await handed.click()
    await expect(handed).toBeChecked()
  }
  await shot(page, '4-kits-handed-over')
  await page.getByRole('tab', { name: 'Overview' }).click()
  await expect(item(page, 'kits')).toHaveAttribute('data-met', 'true', { timeout: 10_000 })

  await saveAndConfirmOwnerKit(page)
  await expect(page.getByTestId('readiness-summary')).toContainText('1 step left')
  await shot(page, '5-one-step-left')
  return kitWords
}

const test = journey.extend<{
  /** A self-hosted service of the test's own, its mail to a loopback mailbox; the owner's page. */
  owner: Owner
  /** `owner` connected to an empty account, where it created "Family papers". */
  vaultCreated: Owner
  /** Every step before the guardians: the test e-mail, the release settings and the upload. */
  filesBackedUp: Owner
  /** `filesBackedUp` with the heir and the guardians who accepted. */
  circleAccepted: Owner
  /** `circleAccepted` with the kits handed over and the owner kit confirmed; the kits' words. */
  kitsHandedOver: Owner & { kitWords: Map<string, string> }
}>({
  owner: async ({ page, workDir }, use) => {
    const mailbox = await startMailbox()
    const service = await startSelfHostedService({ smtpPort: mailbox.port, publicUrl: PUBLIC_URL })
    const sample = join(workDir, 'where-things-are.txt')
    await writeFile(sample, `The deeds are with the notary.\n${'x'.repeat(40_000)}\n`)
    await use({ page, service, mailbox, sample })
    await service.stop()
    await mailbox.close()
  },
  vaultCreated: async ({ owner, ownApp }, use) => {
    await createVault(owner, ownApp.url)
    await use(owner)
  },
  filesBackedUp: async ({ vaultCreated }, use) => {
    await sendTestMail(vaultCreated)
    await backUpBesideTheReserve(vaultCreated)
    await use(vaultCreated)
  },
  circleAccepted: async ({ filesBackedUp }, use) => {
    await addTheCircle(filesBackedUp)
    await use(filesBackedUp)
  },
  kitsHandedOver: async ({ circleAccepted }, use) => {
    const kitWords = await handOverKits(circleAccepted)
    await use({ ...circleAccepted, kitWords })
  },
})

test.use({ appOptions: { secretStore: 'auto' }, viewport: { width: 1280, height: 900 } })

test('an account with no vault shows what to do next, not "Loading" forever', async ({ owner, ownApp }) => {
  await createVault(owner, ownApp.url)
})

test('a fresh vault on an always-on service with a keychain: 7 steps left', async ({
  vaultCreated: { page },
}) => {
  await expect(page.getByTestId('readiness-summary')).toContainText('7 steps left')
  for (const met of ['reachable', 'runway', 'key-storage'])
    await expect(item(page, met)).toHaveAttribute('data-met', 'true')
  await expect(page.getByTestId('trial-note')).toHaveCount(0)
  await shot(page, '2-seven-steps')
})

test('a test e-mail arrives at the loopback SMTP server', async ({ vaultCreated }) => {
  await sendTestMail(vaultCreated)
})

test('weekly check-ins: an upload that eats the reserve is refused until the owner chooses', async ({
  vaultCreated,
}) => {
  await backUpBesideTheReserve(vaultCreated)
})

test('an heir, and guardians who accept through the links in their invitations', async ({
  filesBackedUp,
}) => {
  await addTheCircle(filesBackedUp)
})

test('kits handed over, and the owner kit confirmed', async ({ circleAccepted }) => {
  await handOverKits(circleAccepted)
})

test('a practice release: the heir recovers the practice file with practice kits in a fresh app; then Ready', async ({
  browser,
  kitsHandedOver: { page, mailbox, service, kitWords },
}) => {
  await item(page, 'rehearsal').getByRole('button', { name: 'Start a practice run' }).click()
  await page.getByLabel('Heir who practises').selectOption({ label: `${HEIR[0]} (${HEIR[1]})` })
  await expect(page.getByLabel('A practice letter the app writes')).toBeChecked()
  await page.getByLabel('A copy of one of my files').check()
  await expect(page.getByTestId('rehearsal-own-file-warning')).toContainText(
    'whoever runs the service could read this copy',
  )
  await page
    .locator('section.rehearsal-panel')
    .screenshot({ path: 'test-results/screenshots/safe-ready-6a-practice-panel.png' })
  await page.getByLabel('A practice letter the app writes').check()
  await page.getByRole('button', { name: 'Start practice' }).click()
  await expect(page.getByTestId('rehearsal-state')).toBeVisible()
  await expect(page.getByTestId('rehearsal-sample')).toContainText('Practice file - ')
  await shot(page, '6-practice-started')

  const heirMail = await mailbox.waitFor(HEIR[1], /^\[PRACTICE\]/)
  const practiceKits: string[] = []
  for (const [, email] of GUARDIANS) {
    const mail = await mailbox.waitFor(email, /PRACTICE/)
    const words = mail.text.split('\n').find((line) => /^[a-z]+( [a-z]+){20,}$/.test(line.trim()))
    expect(words, mail.text).toBeTruthy()
    practiceKits.push(words!.trim())
  }
  // No practice e-mail carries a real kit, nor asks for one.
  for (const text of [heirMail.text, ...practiceKits]) {
    for (const real of kitWords.values()) expect(text).not.toContain(real)
  }
  expect(heirMail.text).toContain('PRACTICE KITS, not the real guardian kits')
  const token = /hk_[A-Za-z0-9_-]+/.exec(heirMail.text)?.[0]
  const vaultId = /Vault id:\s+(\S+)/.exec(heirMail.text)?.[1]
  expect(token && vaultId, heirMail.text).toBeTruthy()

  const heirApp = await startBrowserModeApp({ secretStore: 'memory' })
  const heir = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  try {
    await heir.goto(heirApp.url)
    await heir.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Recovery' }).click()
    await heir.getByLabel('Vault Service address').fill(service.url)
    await heir.getByLabel(/personal access code/).fill(token!)
    await heir.getByLabel(/Vault id/).fill(vaultId!)
    await heir.getByRole('button', { name: 'Show the files' }).click()
    await expect(heir.getByTestId('heir-files')).toContainText('opens one practice file')
    await expect(heir.getByTestId('heir-files')).toContainText('Practice file - ')
    // A real kit given by mistake: refused before anything is combined.
    await heir.getByLabel('Kit 1').fill(kitWords.get(GUARDIANS[0][0])!)
    await heir.getByRole('button', { name: 'Add another kit' }).click()
    await heir.getByLabel('Kit 2').fill(kitWords.get(GUARDIANS[1][0])!)
    await heir.getByLabel('Kit 2').blur()
    const outDir = join(heirApp.userDataDir, 'Practice')
    await heir.getByLabel('Folder for the recovered files').fill(outDir)
    await heir.getByRole('button', { name: 'Recover the files' }).click()
    await expect(heir.getByRole('alert').filter({ hasText: 'never uses them' })).toBeVisible({
      timeout: 30_000,
    })
    // The practice kits from the guardians' e-mails.
    await heir.getByLabel('Kit 1').fill(practiceKits[0]!)
    await heir.getByLabel('Kit 1').blur()
    await heir.getByLabel('Kit 2').fill(practiceKits[1]!)
    await heir.getByLabel('Kit 2').blur()
    await expect(heir.getByTestId('practice-mode')).toBeVisible()
    await heir.getByRole('button', { name: 'Recover the practice file' }).click()
    await expect(heir.getByTestId('rehearsal-result')).toContainText(/passed/i, { timeout: 30_000 })
    await shot(heir, '7-heir-practice-passed')
    const recovered = (await readdir(outDir)).filter((name) => name.startsWith('Practice file - '))
    expect(recovered).toHaveLength(1)
    expect(await readFile(join(outDir, recovered[0]!), 'utf8')).toContain('Practice file for')
  } finally {
    await heir.close()
    await heirApp.stop()
  }

  await reopenVault(page)
  await expect(page.getByTestId('readiness-summary')).toContainText('Ready', { timeout: 20_000 })
  await expect(item(page, 'rehearsal')).toHaveAttribute('data-met', 'true')
  await shot(page, '8-ready')
  await page.getByRole('button', { name: '← All vaults' }).click()
  await expect(page.getByTestId('readiness-chip')).toContainText('Ready')
})
