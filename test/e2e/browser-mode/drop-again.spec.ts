// Issue 28, points 5 and 6. Dropping a file the vault already holds (a browser drop lands under a
// new name each time) is told "already backed up on ‹date›" and charges nothing unless the owner
// insists; a drop waiting on the cost confirmation survives a trip to Add credits and back.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import type { BrowserModeApp } from '../support/browser-mode-app'
import { dropFiles, droppedFilesLeft } from '../support/drop-steps'
import { expect, test as journey, type LocalVault } from '../support/fixtures'

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })
/** Files left in this backend's folder of dropped files. */
const droppedLeftIn = (app: BrowserModeApp) => () => droppedFilesLeft(app.userDataDir)

/** The vault's balance as its Overview shows it. */
const overviewBalance = (page: Page) => async (): Promise<string> => {
  await page.getByRole('tab', { name: 'Overview' }).click()
  return (await page.getByTestId('overview-credits').textContent()) ?? ''
}

const test = journey.extend<{
  /** will.txt (small) and scans.zip (30 MiB) in the test's folder. */
  filesDir: string
  /** will.txt dropped once and stored (the trial balance paid for it). */
  willStored: LocalVault
}>({
  filesDir: async ({ workDir }, use) => {
    await writeFile(join(workDir, 'will.txt'), 'My last will, signed.\n'.repeat(200))
    // 30 MiB costs about 147 credits: more than the trial balance, so the confirmation offers Add credits.
    const block = Buffer.alloc(1024 * 1024)
    for (let i = 0; i < block.length; i++) block[i] = (i * 17 + 5) & 0xff
    await writeFile(join(workDir, 'scans.zip'), Buffer.concat(Array(30).fill(block)))
    await use(workDir)
  },
  willStored: async ({ localVault, page, filesDir }, use) => {
    await page.getByRole('tab', { name: 'Assets' }).click()
    await dropFiles(page, join(filesDir, 'will.txt'))
    await expect(page.getByTestId('upload-summary')).toContainText('1 stored', { timeout: 30_000 })
    await expect.poll(droppedLeftIn(localVault.app)).toEqual([])
    await use(localVault)
  },
})

// The keychain keeps the vault key, so uploads need no owner kit saved first.
test.use({ appOptions: { secretStore: 'auto' }, viewport: { width: 1280, height: 900 } })

test('dropping the same file again is told it is already there, and no credits are spent', async ({
  page,
  localVault,
  filesDir,
}) => {
  const droppedLeft = droppedLeftIn(localVault.app)
  const balance = overviewBalance(page)
  const trial = await balance()
  await page.getByRole('tab', { name: 'Assets' }).click()
  await dropFiles(page, join(filesDir, 'will.txt'))
  // Small and cheap: no confirmation; stored.
  await expect(page.getByTestId('upload-summary')).toContainText('1 stored', { timeout: 30_000 })
  await expect.poll(droppedLeft).toEqual([])
  // The first copy was paid for (the shown balance follows the service a moment later).
  await expect.poll(balance).not.toBe(trial)
  const before = await balance()

  await page.getByRole('tab', { name: 'Assets' }).click()
  await dropFiles(page, join(filesDir, 'will.txt'))
  const dialog = page.getByRole('dialog', { name: 'Already backed up' })
  await expect(dialog).toBeVisible({ timeout: 30_000 })
  const today = new Intl.DateTimeFormat('en', { day: 'numeric', month: 'short', year: 'numeric' }).format(
    new Date(),
  )
  await expect(dialog.getByTestId('already-stored')).toContainText(`will.txt: already backed up on ${today}`)
  await expect(dialog).toContainText('1 file is already in this vault')
  await expect(dialog.getByRole('button', { name: /Encrypt and upload/ })).toHaveCount(0)
  await shot(page, 'drop-again-already')
  await dialog.getByRole('button', { name: 'Close' }).click()
  await expect(dialog).toBeHidden()
  await expect.poll(droppedLeft).toEqual([])
  expect(await balance()).toBe(before)
  await page.getByRole('tab', { name: 'Assets' }).click()
  await expect(page.getByRole('row').filter({ hasText: 'will.txt' })).toHaveCount(1)

  // The owner insists: the cost is asked for like any new upload.
  await dropFiles(page, join(filesDir, 'will.txt'))
  await expect(dialog).toBeVisible({ timeout: 30_000 })
  await dialog.getByRole('button', { name: 'Upload again anyway' }).click()
  const confirm = page.getByRole('dialog', { name: 'Upload these files?' })
  await expect(confirm.getByRole('button', { name: /^Encrypt and upload/ })).toBeVisible()
  await expect(confirm.getByTestId('upload-again-note')).toHaveText(
    'Another copy costs credits like a new upload.',
  )
  await shot(page, 'drop-again-insist')
  await confirm.getByRole('button', { name: 'Not now' }).click()
  await expect.poll(droppedLeft).toEqual([])
  expect(await balance()).toBe(before)
})

test('a drop waiting on the confirmation survives a trip to Add credits and back', async ({
  page,
  willStored,
  filesDir,
}) => {
  // Its waits (up to 60 s for the upload after the trip) need room beyond the 60 s default now that
  // the test stores will.txt for itself first.
  test.setTimeout(120_000)
  const droppedLeft = droppedLeftIn(willStored.app)
  await page.getByRole('tab', { name: 'Assets' }).click()
  await dropFiles(page, join(filesDir, 'scans.zip'))
  const short = page.getByRole('dialog', { name: 'Not enough credits for any of these files' })
  await expect(short).toBeVisible({ timeout: 60_000 })
  await short.getByRole('button', { name: 'Add credits in Settings' }).click()
  await expect(short).toBeHidden()
  await page.getByLabel('Credits to add').fill('2000')
  await page.getByRole('button', { name: 'Add credits' }).click()
  await expect(page.getByText(/Added\. The balance is now/)).toBeVisible()
  // Still waiting: the dropped file is kept while the owner is in Settings.
  expect(await droppedLeft()).toHaveLength(1)

  await page.getByRole('button', { name: 'Vaults' }).click()
  const confirm = page.getByRole('dialog', { name: 'Upload these files?' })
  await expect(confirm).toBeVisible({ timeout: 30_000 })
  await expect(confirm).toContainText(/1 file, 31\.\d MB/)
  await expect(confirm).toContainText(/Balance: 2,0\d\d credits/)
  await shot(page, 'drop-after-credits')
  await confirm.getByRole('button', { name: /^Encrypt and upload/ }).click()
  await page.getByRole('button', { name: /^Vault / }).click()
  await page.getByRole('tab', { name: 'Assets' }).click()
  await expect(page.getByRole('row').filter({ hasText: 'scans.zip' })).toBeVisible({ timeout: 60_000 })
  await expect.poll(droppedLeft).toEqual([])
})
