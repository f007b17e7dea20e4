// "Start locally" on a computer with no keychain, as a new owner would: the app says it is a trial,
// asks for the owner kit before the first upload, starts and cancels a manual release, and after a
// restart comes back connected with no key to type; the vault key comes back from the owner kit.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { expect, test as journey, startAgain } from '../support/fixtures'
import { openOwnerKit, saveAndConfirmOwnerKit } from '../support/owner-kit-steps'
import { backUpPath } from '../support/page-steps'

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/safe-local-${name}.png`, fullPage: true })
const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' })
const VIEWPORT = { width: 1280, height: 900 }

const test = journey.extend<{
  /** letter.txt in the test's folder. */
  filesDir: string
  /**
   * The app started again on the same folder after the owner kit was saved and letter.txt backed up:
   * its page, and the owner kit's words.
   */
  restarted: { page: Page; ownerWords: string[] }
}>({
  filesDir: async ({ workDir }, use) => {
    await writeFile(join(workDir, 'letter.txt'), 'To my family: the papers are in the blue folder.\n')
    await use(workDir)
  },
  restarted: async ({ localVault, page, filesDir, browser }, use) => {
    const ownerWords = await saveAndConfirmOwnerKit(page)
    await backUpPath(page, join(filesDir, 'letter.txt'), '1 stored')
    await page.close()
    const again = await startAgain(localVault.app, browser, { secretStore: 'memory', viewport: VIEWPORT })
    await use({ page: again.page, ownerWords })
    await again.page.close()
    await again.app.stop()
  },
})

test.use({ appOptions: { secretStore: 'memory' }, viewport: VIEWPORT })

test('start locally: a trial that says heirs cannot reach it, with the steps left', async ({
  page,
  ownApp,
}) => {
  await page.goto(ownApp.url)
  await page.getByLabel('Your e-mail address').fill('owner@example.com')
  await page.getByRole('button', { name: 'Start locally' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible({ timeout: 20_000 })
  await expect(page.getByTestId('trial-note')).toContainText(/heirs cannot reach this computer/i)
  await expect(page.getByTestId('readiness-summary')).toContainText(/\d+ steps? left/)
  await expect(page.getByTestId('readiness-item-reachable')).toHaveAttribute('data-met', 'false')
  await expect(page.getByTestId('readiness-item-key-storage')).toHaveAttribute('data-met', 'false')
  await expect(page.getByTestId('key-not-durable')).toBeVisible()
  await shot(page, '1-trial-overview')
})

test('no keychain: the first upload waits for the owner kit to be saved and confirmed', async ({
  page,
  localVault: _,
  filesDir,
}) => {
  await page.getByRole('tab', { name: 'Assets' }).click()
  await page
    .getByLabel('Path of a file or folder on the computer running Vault Desktop')
    .fill(join(filesDir, 'letter.txt'))
  await page.getByRole('button', { name: 'Back up' }).click()
  await expect(page.getByTestId('upload-needs-owner-kit')).toBeVisible()
  await shot(page, '2-upload-needs-owner-kit')

  await page.getByRole('tab', { name: 'Overview' }).click()
  await openOwnerKit(page)
  const kit = page.frameLocator('iframe.kit-frame')
  await expect(kit.locator('ol.words .w').first()).toBeVisible()
  const ownerWords = await kit.locator('ol.words .w').allTextContents()
  expect(ownerWords.length).toBeGreaterThan(20)
  await page.getByRole('dialog').getByRole('button', { name: 'I have saved it', exact: true }).click()
  const check = page.getByRole('dialog')
  // The words to check are chosen by main; wait until they are asked for.
  await expect(check.getByText(/^Word \d+ of \d+$/).first()).toBeVisible()
  const labels = await check.getByText(/^Word \d+ of \d+$/).allTextContents()
  expect(labels).toHaveLength(3)
  // One wrong word is named, and nothing is confirmed.
  for (const [i, label] of labels.entries()) {
    const position = Number(/Word (\d+)/.exec(label)?.[1])
    await check.getByLabel(label).fill(i === 0 ? 'zoo' : ownerWords[position - 1]!)
  }
  await check.getByRole('button', { name: 'Confirm' }).click()
  await expect(check.getByRole('alert')).toContainText('does not match')
  const first = Number(/Word (\d+)/.exec(labels[0]!)?.[1])
  await check.getByLabel(labels[0]!).fill(ownerWords[first - 1]!)
  await check.getByRole('button', { name: 'Confirm' }).click()
  await expect(page.getByTestId('owner-kit-confirmed')).toBeVisible()
  await check.getByRole('button', { name: 'Done' }).click()
  await expect(page.getByTestId('owner-kit-status')).toContainText('saved and checked')
  await expect(page.getByTestId('readiness-item-owner-kit')).toHaveAttribute('data-met', 'true')

  await page.getByRole('tab', { name: 'Assets' }).click()
  await page
    .getByLabel('Path of a file or folder on the computer running Vault Desktop')
    .fill(join(filesDir, 'letter.txt'))
  await page.getByRole('button', { name: 'Back up' }).click()
  await expect(page.getByTestId('upload-item').filter({ hasText: 'Stored' })).toHaveCount(1, {
    timeout: 20_000,
  })
  await shot(page, '3-uploaded')
})

test('manual trigger: the release is started with a confirmation, then cancelled', async ({
  page,
  localVault: _,
}) => {
  await page.getByRole('tab', { name: 'Release settings' }).click()
  await page.getByLabel(/Manual/).check()
  await page.getByRole('button', { name: 'Save release settings' }).click()
  await expect(page.getByTestId('release-saved')).toContainText('Manual')
  await page.getByRole('button', { name: 'Start release now…' }).click()
  const confirm = page.getByRole('dialog')
  await expect(confirm).toContainText('30-day contestation period')
  await expect(confirm).toContainText(/cancel/i)
  await shot(page, '4-start-release-confirm')
  await confirm.getByRole('button', { name: 'Start the release' }).click()
  await expect(page.getByTestId('releasing-banner')).toBeVisible({ timeout: 10_000 })
  await shot(page, '5-releasing')
  await page
    .getByTestId('releasing-banner')
    .getByRole('button', { name: /Cancel release/ })
    .click()
  const cancel = page.getByRole('dialog')
  if (await cancel.isVisible()) await cancel.getByRole('button', { name: /Cancel (the )?release/ }).click()
  await expect(page.getByTestId('releasing-banner')).toHaveCount(0, { timeout: 10_000 })
  await page.getByRole('tab', { name: 'Overview' }).click()
  await expect(page.getByTestId('state-badge').first()).toHaveText('Active')
})

test('restart without a keychain: no key to type, and the owner kit brings the vault key back', async ({
  restarted,
}) => {
  const { page, ownerWords } = restarted
  // Straight to the vaults: no first-run screen, no "enter the key again".
  await expect(page.getByTestId('vault-card')).toHaveCount(1, { timeout: 20_000 })
  await expect(page.getByText(/Enter the key again/i)).toHaveCount(0)
  await page.getByTestId('vault-card').getByRole('button').first().click()
  await expect(page.getByLabel('Words from the owner recovery kit')).toBeVisible()
  await shot(page, '6-after-restart')
  await page.getByLabel('Words from the owner recovery kit').fill(ownerWords.join(' '))
  await page.getByRole('button', { name: 'Import the key' }).click()
  await expect(page.getByTestId('owner-kit-status')).toContainText('saved and checked')
  await page.getByRole('tab', { name: 'Assets' }).click()
  // Its name from this computer's list of uploads: the service knows it only by a neutral name.
  const letter = page.getByRole('row').filter({ hasText: 'letter.txt' })
  await expect(letter.getByText('name hidden')).toHaveAttribute(
    'title',
    /knows this blob only as \u2068?file-[0-9a-f]{16}/,
  )
  await nav(page).getByRole('button', { name: 'Settings' }).click()
  await expect(page.getByTestId('key-storage')).toContainText(/only while the app runs/)
  await shot(page, '7-settings-key-storage')
})
