// A folder of many small files: the confirmation shows what bundling saves, the queue of 2,000 items
// stays usable (virtualized) and finishes, and the assets tab shows the bundle with the files inside;
// a second folder gets its own line in the queue.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, type Page, test } from '@playwright/test'
import { type BrowserModeApp, startBrowserModeApp } from '../support/browser-mode-app'
import { startLocally } from '../support/page-steps'

test.describe.configure({ mode: 'serial' })

const FILES = 2000
let app: BrowserModeApp
let page: Page
let filesDir: string
const shot = (name: string) =>
  page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })

test.beforeAll(async ({ browser }) => {
  // The keychain of npm test's private session holds the key, so no owner-kit step is needed.
  app = await startBrowserModeApp({ secretStore: 'auto' })
  filesDir = await mkdtemp(join(tmpdir(), 'vault-e2e-bundles-'))
  for (const year of ['2024', '2025']) await mkdir(join(filesDir, 'Photos', year), { recursive: true })
  await mkdir(join(filesDir, 'Letters'))
  for (const name of ['to-anna.txt', 'to-ben.txt', 'passwords-hint.txt']) {
    await writeFile(join(filesDir, 'Letters', name), `${name}\n`.repeat(200))
  }
  const content = Buffer.alloc(10_000, 7)
  for (let n = 0; n < FILES; n++) {
    const year = n % 2 === 0 ? '2024' : '2025'
    await writeFile(join(filesDir, 'Photos', year, `IMG_${String(n).padStart(4, '0')}.jpg`), content)
  }
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
})

test.afterAll(async () => {
  await page?.close()
  await app?.stop()
  await rm(filesDir, { recursive: true, force: true })
})

test('2,000 small files cost what their bytes cost, and the confirmation says so', async () => {
  await page.goto(app.url)
  await startLocally(page)
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
  await shot('bundles-confirm')
  await dialog.getByRole('button', { name: 'Encrypt and upload (95 credits)' }).click()
})

test('the queue of 2,000 files shows a summary, renders only what is in view, and finishes', async () => {
  const summary = page.getByTestId('upload-summary')
  await expect(summary).toContainText('2,000 files (1 bundle of small files)')
  await shot('bundles-queue-running')
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
  await shot('bundles-queue')
})

test('the assets tab shows one bundle and, on request, the files inside', async () => {
  const bundle = page.getByRole('row').filter({ hasText: 'Photos: 2,000 files in one bundle' })
  await expect(bundle).toBeVisible({ timeout: 20_000 })
  await bundle.getByRole('button', { name: 'Files in Photos: 2,000 files in one bundle' }).click()
  const inside = bundle.getByRole('list', { name: 'Files in Photos: 2,000 files in one bundle' })
  await expect(inside.getByRole('listitem')).toHaveCount(201)
  await expect(inside).toContainText('Photos/2024/IMG_0000.jpg')
  await inside.getByRole('button', { name: 'Show 200 more' }).click()
  await expect(inside.getByRole('listitem')).toHaveCount(401)
  await shot('bundles-assets')
  // Charged 95 of the 100 trial credits: one upload, not 2,000.
  await page.getByRole('tab', { name: 'Overview' }).click()
  await expect(page.getByTestId('overview-credits')).toHaveText('5 credits ($0.05)')
})

test('a second folder gets its own line in the queue, with its own counts', async () => {
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
  await shot('bundles-queue-batches')
})

test('a changed file goes up again, and its older bundle says that copy was replaced', async () => {
  await writeFile(join(filesDir, 'Letters', 'to-anna.txt'), 'Dear Anna, the key is with Ben.\n')
  await page
    .getByLabel('Path of a file or folder on the computer running Vault Desktop')
    .fill(join(filesDir, 'Letters'))
  await page.getByRole('button', { name: 'Back up' }).click()
  const letters = page.getByRole('row').filter({ hasText: 'Letters: 3 files in one bundle' })
  await expect(letters.getByTestId('bundle-superseded')).toHaveText(
    '1 of them replaced since by a newer upload; recovery gives back the newer copy.',
    { timeout: 20_000 },
  )
  await letters.getByRole('button', { name: 'Files in Letters: 3 files in one bundle' }).click()
  const inside = letters.getByRole('list', { name: 'Files in Letters: 3 files in one bundle' })
  await expect(inside.getByRole('listitem')).toHaveCount(2)
  await expect(inside).not.toContainText('to-anna.txt')
  await shot('bundles-superseded')
})
