// A folder of many small files: the confirmation shows what bundling saves, the queue of 2,000 items
// stays usable (virtualized) and finishes, and the assets tab shows the bundle with the files inside;
// a second folder gets its own line in the queue.
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { expect, test as journey, type LocalVault } from '../support/fixtures'

const FILES = 2000
const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })
const pathField = (page: Page) =>
  page.getByLabel('Path of a file or folder on the computer running Vault Desktop')

const test = journey.extend<{
  /** Photos/2024 and Photos/2025 (2,000 small files between them) and Letters (3 files). */
  filesDir: string
  /** The Photos upload confirmed (95 credits) and under way. */
  photosConfirmed: LocalVault
  /** The Photos upload finished: 2,000 stored. */
  photosStored: LocalVault
  /** Letters backed up after Photos: 2,003 stored. */
  lettersStored: LocalVault
}>({
  filesDir: async ({ workDir }, use) => {
    for (const year of ['2024', '2025']) await mkdir(join(workDir, 'Photos', year), { recursive: true })
    await mkdir(join(workDir, 'Letters'))
    for (const name of ['to-anna.txt', 'to-ben.txt', 'passwords-hint.txt']) {
      await writeFile(join(workDir, 'Letters', name), `${name}\n`.repeat(200))
    }
    const content = Buffer.alloc(10_000, 7)
    for (let n = 0; n < FILES; n++) {
      const year = n % 2 === 0 ? '2024' : '2025'
      await writeFile(join(workDir, 'Photos', year, `IMG_${String(n).padStart(4, '0')}.jpg`), content)
    }
    await use(workDir)
  },
  photosConfirmed: async ({ localVault, page, filesDir }, use) => {
    await page.getByRole('tab', { name: 'Assets' }).click()
    await pathField(page).fill(join(filesDir, 'Photos'))
    await page.getByRole('button', { name: 'Back up' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Encrypt and upload (95 credits)' }).click()
    await use(localVault)
  },
  photosStored: async ({ photosConfirmed, page }, use) => {
    await expect(page.getByTestId('upload-summary')).toContainText('2,000 stored', { timeout: 60_000 })
    await use(photosConfirmed)
  },
  lettersStored: async ({ photosStored, page, filesDir }, use) => {
    await pathField(page).fill(join(filesDir, 'Letters'))
    await page.getByRole('button', { name: 'Back up' }).click()
    await expect(page.getByTestId('upload-summary')).toContainText('2,003 stored', { timeout: 30_000 })
    await use(photosStored)
  },
})

// The keychain of npm test's private session holds the key, so no owner-kit step is needed.
test.use({ appOptions: { secretStore: 'auto' }, viewport: { width: 1280, height: 900 } })

test('2,000 small files cost what their bytes cost, and the confirmation says so', async ({
  page,
  localVault: _,
  filesDir,
}) => {
  await page.getByRole('tab', { name: 'Assets' }).click()
  await page
    .getByLabel('Path of a file or folder on the computer running Vault Desktop')
    .fill(join(filesDir, 'Photos'))
  await page.getByRole('button', { name: 'Back up' }).click()
  const dialog = page.getByRole('dialog')
  await expect(dialog).toContainText('2,000 files', { timeout: 20_000 })
  // 94 credits of files, and 1 for the vault manifest (115 kB) that rides inside the bundle.
  await expect(dialog).toContainText('Estimated cost: 95 credits ($0.95)')
  await expect(dialog.getByTestId('upload-bundles')).toContainText(
    '2,000 small files go in 1 bundle: this upload costs 95 credits ($0.95) instead of 2,000 credits ($20.00) one by one.',
  )
  await shot(page, 'bundles-confirm')
  await dialog.getByRole('button', { name: 'Encrypt and upload (95 credits)' }).click()
})

test('the queue of 2,000 files shows a summary, renders only what is in view, and finishes', async ({
  page,
  photosConfirmed: _,
}) => {
  const summary = page.getByTestId('upload-summary')
  await expect(summary).toContainText('2,000 files (1 bundle of small files)')
  await shot(page, 'bundles-queue-running')
  await expect(summary).toContainText('2,000 stored', { timeout: 60_000 })
  // One batch: no header line inside the list, the summary says it all.
  await expect(page.getByTestId('upload-batch')).toHaveCount(0)
  const rows = await page.getByTestId('upload-item').count()
  expect(rows).toBeGreaterThan(0)
  expect(rows).toBeLessThan(100)
  await expect(page.getByTestId('upload-item').first()).toContainText('in a bundle with 1,999 other files')
  // Scrolling to the end brings the last files into view.
  await page.locator('.upload-scroller').evaluate((el) => el.scrollTo(0, el.scrollHeight))
  await expect(page.getByTestId('upload-item').filter({ hasText: 'IMG_1999.jpg' })).toBeVisible()
  await shot(page, 'bundles-queue')
})

test('the file library lists the 2,000 files inside the bundle, a few rows in the page, and finds one by name', async ({
  page,
  photosStored: _,
}) => {
  const library = page.getByTestId('file-library')
  await expect(library.getByRole('button', { name: 'Open folder Photos' })).toBeVisible({ timeout: 20_000 })
  await expect(library.getByRole('row').filter({ hasText: 'Photos' })).toContainText('2,000 files')
  await library.getByLabel('Find a file by name').fill('img_')
  await expect(library).toContainText('2,000 shown of 2,000 files')
  // Virtualized: only the rows in view are in the page.
  const inPage = await library.getByTestId('library-file').count()
  expect(inPage).toBeGreaterThan(0)
  expect(inPage).toBeLessThan(100)
  await library.getByLabel('Find a file by name').fill('IMG_1999.jpg')
  const found = library.getByRole('row').filter({ hasText: 'IMG_1999.jpg' })
  await expect(found).toHaveCount(1)
  await expect(found).toContainText('bundle')
  await expect(found).toContainText(/Photos\//)
  await shot(page, 'bundles-assets')
  // Charged 95 of the 100 trial credits: one upload, not 2,000.
  await page.getByRole('tab', { name: 'Overview' }).click()
  await expect(page.getByTestId('overview-credits')).toHaveText('5 credits ($0.05)')
})

test('a second folder gets its own line in the queue, with its own counts', async ({
  page,
  photosStored: _,
  filesDir,
}) => {
  await page.getByRole('tab', { name: 'Assets' }).click()
  await page
    .getByLabel('Path of a file or folder on the computer running Vault Desktop')
    .fill(join(filesDir, 'Letters'))
  // 1 credit: under the asking threshold, so no confirmation.
  await page.getByRole('button', { name: 'Back up' }).click()
  const summary = page.getByTestId('upload-summary')
  await expect(summary).toContainText('2,003 files (2 bundles of small files)')
  await expect(summary).toContainText('2,003 stored', { timeout: 30_000 })
  const scroller = page.locator('.upload-scroller')
  await scroller.evaluate((el) => el.scrollTo(0, 0))
  const photos = page.getByTestId('upload-batch').filter({ hasText: 'Photos' })
  await expect(photos).toContainText('2,000 files (1 bundle of small files): 2,000 stored · 95 credits spent')
  await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight))
  const letters = page.getByTestId('upload-batch').filter({ hasText: 'Letters' })
  await expect(letters).toContainText('3 files (1 bundle of small files): 3 stored · 1 credit spent')
  await expect(page.getByTestId('upload-item').last()).toContainText('in a bundle with 2 other files')
  await shot(page, 'bundles-queue-batches')
})

test('a changed file goes up again, and the library lists its newer copy once, in its own blob', async ({
  page,
  lettersStored: _,
  filesDir,
}) => {
  await writeFile(join(filesDir, 'Letters', 'to-anna.txt'), 'Dear Anna, the key is with Ben.\n')
  await page
    .getByLabel('Path of a file or folder on the computer running Vault Desktop')
    .fill(join(filesDir, 'Letters'))
  await page.getByRole('button', { name: 'Back up' }).click()
  const library = page.getByTestId('file-library')
  await library.getByLabel('Find a file by name').fill('')
  await library.getByRole('button', { name: 'Open folder Letters' }).click()
  const anna = library.getByRole('row').filter({ hasText: 'to-anna.txt' })
  const others = library.getByTestId('library-file').filter({ hasNotText: 'to-anna.txt' })
  await expect(others).toHaveCount(2)
  const bundleId = await others.first().locator('code.storage-id').getAttribute('title')
  // The newer copy went up alone: another blob than the bundle still holding the other two.
  await expect(anna).toHaveCount(1)
  await expect(anna.locator('code.storage-id')).not.toHaveAttribute('title', bundleId ?? '', {
    timeout: 20_000,
  })
  await expect(anna).toContainText('32 B')
  await shot(page, 'bundles-superseded')
})
