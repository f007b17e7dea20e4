// A dropped file named "photo" + U+202E + "gpj.exe" (drawn "photoexe.jpg" by any text renderer, the
// rest of its line mirrored) is refused for its name; the refusal, the queue row and the notice show
// it as "photo[U+202E]gpj.exe", in an isolate of its own, and the sentence reads in order.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, type Page, test } from '@playwright/test'
import { type BrowserModeApp, startBrowserModeApp } from '../support/browser-mode-app'
import { dropFiles } from '../support/drop-steps'
import { startLocally } from '../support/page-steps'

const DISGUISED = 'photo\u202Egpj.exe'
const SHOWN = 'photo[U+202E]gpj.exe'
/** Inside a sentence the name also sits between FSI and PDI (U+2068, U+2069). */
const isolated = (name: string) => `\u2068${name}\u2069`
let app: BrowserModeApp
let page: Page
let filesDir: string

test.describe.configure({ mode: 'serial' })

test.beforeAll(async ({ browser }) => {
  app = await startBrowserModeApp({ secretStore: 'auto' })
  filesDir = await mkdtemp(join(tmpdir(), 'vault-e2e-untrusted-'))
  await writeFile(join(filesDir, DISGUISED), 'MZ not really a program\n')
  await mkdir(join(filesDir, 'Letters'))
  await writeFile(join(filesDir, 'Letters', DISGUISED), 'MZ not really a program\n')
  await writeFile(join(filesDir, 'Letters', 'to-anna.txt'), 'Dear Anna,\n')
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
})

test.afterAll(async () => {
  await page?.close()
  await app?.stop()
  await rm(filesDir, { recursive: true, force: true })
})

/** Drops files on the window as a drag from the file manager does. */
const drop = (path: string, options: { folder?: boolean } = {}) => dropFiles(page, path, options)

test('a disguised name dropped alone is refused with its marker showing', async () => {
  await page.goto(app.url)
  await startLocally(page)
  await drop(join(filesDir, DISGUISED))
  const refusal = page.getByRole('alert').filter({ hasText: 'Nothing to upload there' })
  await expect(refusal).toContainText(
    `${isolated(SHOWN)}: The file's path contains an invisible text-direction character`,
  )
  // One full stop between the reason and what to do.
  await expect(refusal).not.toContainText('..')
})

test('in a dropped folder, the queue row and the notice show the marker, the name isolated', async () => {
  await drop(join(filesDir, 'Letters'), { folder: true })
  const row = page.getByTestId('upload-item').filter({ hasText: `Letters/${SHOWN}` })
  await expect(row).toContainText('Failed', { timeout: 30_000 })
  // The sentence reads in order: the name, then why, then what to do.
  await expect(row).toContainText(
    `${isolated(`Letters/${SHOWN}`)} cannot be backed up under this name: The file's path contains an invisible text-direction character (U+202E)`,
  )
  await expect(row.locator('bdi.filename')).toHaveText(`Letters/${SHOWN}`)
  const toast = page.getByTestId('toast').filter({ hasText: '1 upload failed' })
  await expect(toast).toContainText(`${isolated(`Letters/${SHOWN}`)} cannot be backed up under this name`)
  // Nowhere on the page a raw override or embedding; the app's own isolates round names only.
  const raw = await page.evaluate(() =>
    /[\u061c\u200e\u200f\u202a-\u202e\u2066\u2067]/.test(document.body.textContent ?? ''),
  )
  expect(raw).toBe(false)
  await page.screenshot({ path: 'test-results/screenshots/untrusted-name-queue.png', fullPage: true })
})
