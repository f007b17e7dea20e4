// The owner's path on a fresh install with "start locally": the embedded service, a first vault with
// the trial credits, guardians (validation, kits), heirs up to the limit, a folder backup through
// the typed path, release settings and a check-in. One page, steps in order.
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { expect, test as journey, type LocalVault } from '../support/fixtures'
import { saveAndConfirmOwnerKit } from '../support/owner-kit-steps'
import { startLocally } from '../support/page-steps'

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })
const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' })

async function saveMonthlySwitch(page: Page): Promise<void> {
  await page.getByRole('tab', { name: 'Release settings' }).click()
  await page.getByLabel(/Dead man's switch/).check()
  await page.getByLabel('Check in').selectOption('monthly')
  await page.getByRole('button', { name: 'Save release settings' }).click()
  await expect(page.getByTestId('release-saved')).toContainText("Dead man's switch, monthly")
}

const test = journey.extend<{
  /** Taxes/ (two files and a .DS_Store) and diagnosis.pdf. */
  filesDir: string
  /** Every upload asks for its cost, and the owner kit is saved (this run has no keychain). */
  readyToUpload: LocalVault
  /** Release by dead man's switch, monthly, saved. */
  monthlySwitch: LocalVault
}>({
  filesDir: async ({ workDir }, use) => {
    await mkdir(join(workDir, 'Taxes', '2025'), { recursive: true })
    await writeFile(join(workDir, 'Taxes', 'return-2024.pdf'), `%PDF-1.4\n${'x'.repeat(20_000)}`)
    await writeFile(join(workDir, 'Taxes', '2025', 'notes.txt'), 'Letter to my family.\n')
    await writeFile(join(workDir, 'Taxes', '.DS_Store'), 'junk')
    await writeFile(join(workDir, 'diagnosis.pdf'), '%PDF-1.4\nprivate\n')
    await use(workDir)
  },
  readyToUpload: async ({ ownerKitSaved, page }, use) => {
    await nav(page).getByRole('button', { name: 'Settings' }).click()
    const threshold = page.getByLabel('Ask before an upload costing more than (credits)')
    await threshold.fill('0')
    await threshold.blur()
    await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible()
    await nav(page).getByRole('button', { name: 'Vaults' }).click()
    await page.getByTestId('vault-card').getByRole('button').first().click()
    await use(ownerKitSaved)
  },
  monthlySwitch: async ({ localVault, page }, use) => {
    await saveMonthlySwitch(page)
    await use(localVault)
  },
})

test.use({ viewport: { width: 1280, height: 860 }, failOnPageErrors: true })

test('first run: start locally makes a vault with the 100 trial credits', async ({ page, ownApp }) => {
  await page.goto(ownApp.url)
  await expect(page.getByRole('heading', { name: 'Set up Vault Desktop' })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Connect to a vault service' })).toBeVisible()
  await shot(page, 'first-run')
  await startLocally(page)
  await expect(page.getByTestId('overview-credits')).toHaveText('100 credits ($1.00)')
  await shot(page, 'vault-overview-new')
  await page.getByRole('button', { name: '← All vaults' }).click()
  const card = page.getByTestId('vault-card')
  await expect(card).toHaveCount(1)
  await expect(card.getByTestId('vault-credits')).toHaveText('100 credits ($1.00)')
  await expect(card.getByTestId('state-badge')).toHaveText('Active')
  await shot(page, 'vaults-list')
  await card.getByRole('button').click()
})

test('guardians: inline validation, adding makes kits, the kit can be viewed', async ({
  page,
  localVault: _,
}) => {
  await page.getByRole('tab', { name: 'Guardians' }).click()
  await expect(page.getByTestId('guardian-count')).toHaveText('0 of 3')
  const form = page.getByRole('form', { name: 'Add guardian' })
  await form.getByLabel('E-mail').fill('not-an-address')
  await form.getByLabel('Wallet address').fill('0x123')
  await form.getByRole('button', { name: 'Add guardian' }).click()
  await expect(form.getByText('Enter a name')).toBeVisible()
  await expect(form.getByText('Enter a valid e-mail address')).toBeVisible()
  await expect(form.getByText('A wallet address is 0x followed by 40 hexadecimal characters')).toBeVisible()
  await shot(page, 'guardians-validation')

  for (const [name, email] of [
    ['Alice Martin', 'alice@example.com'],
    ['Bob Okafor', 'bob@example.com'],
  ] as const) {
    await form.getByLabel('Name').fill(name)
    await form.getByLabel('E-mail').fill(email)
    await form.getByLabel('Wallet address').fill('')
    await form.getByRole('button', { name: 'Add guardian' }).click()
    await expect(page.getByRole('cell', { name, exact: true })).toBeVisible()
  }
  await expect(page.getByTestId('guardian-count')).toHaveText('2 of 3')
  await expect(page.getByText('Added, not told yet').first()).toBeVisible()
  await shot(page, 'guardians-list')

  await page
    .getByRole('button', { name: /View kit/ })
    .first()
    .click()
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByRole('heading', { name: 'Guardian kit' })).toBeVisible()
  await expect(dialog).toContainText('Alice Martin: share 1 of 3')
  await expect(dialog.getByText(/download the kit page and print it/)).toBeVisible()
  await shot(page, 'guardian-kit')
  await dialog.getByRole('button', { name: 'Close' }).click()
})

test('heirs: added up to the limit of 5, then the form says so', async ({ page, localVault: _ }) => {
  await page.getByRole('tab', { name: 'Heirs' }).click()
  await expect(page.getByText('Heirs are told nothing until a release completes')).toBeVisible()
  const form = page.getByRole('form', { name: 'Add heir' })
  for (let i = 1; i <= 5; i++) {
    await form.getByLabel('Name').fill(`Heir ${i}`)
    await form.getByLabel('E-mail').fill(`heir${i}@example.com`)
    await form.getByRole('button', { name: 'Add heir' }).click()
    await expect(page.getByTestId('heir-count')).toHaveText(`${i} of 5`)
  }
  await expect(page.getByTestId('heir-limit')).toBeVisible()
  await shot(page, 'heirs-full')
})

test('assets: a folder typed into the path field is encrypted, uploaded and listed after confirming the cost', async ({
  page,
  localVault: _,
  filesDir,
}) => {
  // Ask before any upload that costs credits, so the estimate dialog shows.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click()
  const threshold = page.getByLabel('Ask before an upload costing more than (credits)')
  await threshold.fill('0')
  await threshold.blur()
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible()
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Vaults' }).click()
  await page.getByTestId('vault-card').getByRole('button').first().click()

  // This run has no keychain: the owner kit is saved and checked before the first upload.
  await page.getByRole('tab', { name: 'Overview' }).click()
  await saveAndConfirmOwnerKit(page)

  await page.getByRole('tab', { name: 'Assets' }).click()
  await page
    .getByLabel('Path of a file or folder on the computer running Vault Desktop')
    .fill(join(filesDir, 'Taxes'))
  await page.getByRole('button', { name: 'Back up' }).click()
  const dialog = page.getByRole('dialog')
  await expect(dialog).toContainText('2 files')
  // Two small files travel as one encrypted bundle: the cost of their bytes, not 1 credit each.
  await expect(dialog).toContainText('Estimated cost: 1 credit ($0.01)')
  await expect(dialog.getByTestId('upload-bundles')).toContainText(
    '2 small files go in 1 bundle: this upload costs 1 credit ($0.01) instead of 2 credits ($0.02) one by one.',
  )
  await shot(page, 'upload-confirm')
  await dialog.getByRole('button', { name: 'Encrypt and upload (1 credit)' }).click()
  await expect(page.getByTestId('upload-item')).toHaveCount(2)
  await expect(page.getByTestId('upload-item').filter({ hasText: 'Stored' })).toHaveCount(2, {
    timeout: 20_000,
  })
  await expect(page.getByTestId('upload-item').first()).toContainText('in a bundle with 1 other file')
  await expect(page.getByTestId('upload-summary')).toContainText(
    '2 files (1 bundle of small files): 2 stored',
  )
  // The library lists the files, not the bundle: folder by folder, each with the blob holding it.
  const library = page.getByTestId('file-library')
  await library.getByRole('button', { name: 'Open folder Taxes' }).click()
  await expect(library.getByRole('row').filter({ hasText: 'return-2024.pdf' })).toContainText('bundle')
  await library.getByRole('button', { name: 'Open folder 2025' }).click()
  await expect(library.getByRole('row').filter({ hasText: 'notes.txt' })).toBeVisible()
  await library.getByRole('button', { name: 'All files' }).click()
  await page.getByLabel('Category').selectOption('image')
  await expect(page.getByText('No file here matches')).toBeVisible()
  await page.getByLabel('Category').selectOption({ label: 'All' })
  await expect(library.getByRole('button', { name: 'Open folder Taxes' })).toBeVisible()
  await shot(page, 'assets')
})

test('file names are hidden from the service by default; this computer still shows the real one', async ({
  page,
  readyToUpload: _,
  filesDir,
}) => {
  await page.getByRole('tab', { name: 'Assets' }).click()
  // Real names are an opt-in per vault, off unless the owner turns it on.
  await expect(
    page.getByLabel('Tell the service the real names of files uploaded to this vault'),
  ).not.toBeChecked()
  await page
    .getByLabel('Path of a file or folder on the computer running Vault Desktop')
    .fill(join(filesDir, 'diagnosis.pdf'))
  await page.getByRole('button', { name: 'Back up' }).click()
  await page
    .getByRole('dialog')
    .getByRole('button', { name: /Encrypt and upload/ })
    .click()
  // No type reaches the service (it files the blob under Other); the library knows the name here.
  await page.getByLabel('Category').selectOption('document')
  const row = page.getByRole('row').filter({ hasText: 'diagnosis.pdf' })
  await expect(row).toContainText('name hidden', { timeout: 20_000 })
  await expect(row.getByText('name hidden')).toHaveAttribute(
    'title',
    /knows this blob only as \u2068?file-[0-9a-f]{16}/,
  )
  await page.getByLabel('Category').selectOption({ label: 'All' })
  await shot(page, 'assets-name-hidden')
})

test('release settings: dead man switch, monthly, saved', async ({ page, localVault: _ }) => {
  await page.getByRole('tab', { name: 'Release settings' }).click()
  await expect(page.getByText('30 days to change your mind.')).toBeVisible()
  await page.getByLabel(/Dead man's switch/).check()
  await page.getByLabel('Check in').selectOption('monthly')
  await page.getByRole('button', { name: 'Save release settings' }).click()
  await expect(page.getByTestId('release-saved')).toContainText("Dead man's switch, monthly")
  await shot(page, 'release-settings')
})

test('check in: with a note, shows the next due date and days remaining', async ({
  page,
  monthlySwitch: _,
}) => {
  await page.getByRole('tab', { name: 'Overview' }).click()
  await page.getByLabel('Note (optional)').fill('All well')
  await page.getByRole('button', { name: 'Check in', exact: true }).click()
  await expect(page.getByTestId('checkin-result')).toContainText('30 days from now')
  await expect(page.getByTestId('last-checkin')).toContainText('All well')
  await expect(page.getByTestId('next-due')).toContainText('in 30 days')
  await shot(page, 'overview-checked-in')
})

test('keyboard: tabs move with the arrow keys and focus is visible; dark theme', async ({
  page,
  localVault: _,
}) => {
  await page.getByRole('tab', { name: 'Overview' }).focus()
  await page.keyboard.press('ArrowRight')
  await expect(page.getByRole('tab', { name: 'Guardians' })).toBeFocused()
  await expect(page.getByRole('tab', { name: 'Guardians' })).toHaveAttribute('aria-selected', 'true')
  const outline = await page
    .getByRole('tab', { name: 'Guardians' })
    .evaluate((el) => el.ownerDocument.defaultView?.getComputedStyle(el).outlineStyle)
  expect(outline).toBe('solid')
  await page.keyboard.press('Tab')
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click()
  await page.getByLabel('Theme').selectOption('dark')
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Vaults' }).click()
  await page.getByTestId('vault-card').getByRole('button').click()
  await shot(page, 'overview-dark')
  await page.getByRole('tab', { name: 'Guardians' }).click()
  await shot(page, 'guardians-dark')
})

test('recovery: a mistyped share is explained, a good one is counted', async ({
  page,
  app,
  pageErrors: consoleErrors,
}) => {
  await page.goto(app.url)
  await nav(page).getByRole('button', { name: 'Settings' }).click()
  await page.getByLabel('Theme').selectOption('dark')
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Recovery' }).click()
  const share = page.getByLabel('Kit 1')
  await share.fill('abandon ability able about above absent absorb')
  await share.blur()
  await expect(page.getByText(/word/i).first()).toBeVisible()
  await shot(page, 'recovery-dark')
  expect(consoleErrors).toEqual([])
})
