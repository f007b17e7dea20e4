// A dropped file named "photo" + U+202E + "gpj.exe" (drawn "photoexe.jpg" by any text renderer, the
// rest of its line mirrored) is refused for its name; the refusal, the queue row and the notice show
// it as "photo[U+202E]gpj.exe", in an isolate of its own, and the sentence reads in order.
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { dropFiles } from '../support/drop-steps'
import { expect, test as journey } from '../support/fixtures'

const DISGUISED = 'photo\u202Egpj.exe'
const SHOWN = 'photo[U+202E]gpj.exe'
/** Inside a sentence the name also sits between FSI and PDI (U+2068, U+2069). */
const isolated = (name: string) => `\u2068${name}\u2069`

const test = journey.extend<{
  /** The disguised name alone, and in Letters/ beside an ordinary file. */
  filesDir: string
}>({
  filesDir: async ({ workDir }, use) => {
    await writeFile(join(workDir, DISGUISED), 'MZ not really a program\n')
    await mkdir(join(workDir, 'Letters'))
    await writeFile(join(workDir, 'Letters', DISGUISED), 'MZ not really a program\n')
    await writeFile(join(workDir, 'Letters', 'to-anna.txt'), 'Dear Anna,\n')
    await use(workDir)
  },
})

test.use({ appOptions: { secretStore: 'auto' }, viewport: { width: 1280, height: 900 } })

test('a disguised name dropped alone is refused with its marker showing', async ({
  page,
  localVault: _,
  filesDir,
}) => {
  const drop = (path: string) => dropFiles(page, path)
  await drop(join(filesDir, DISGUISED))
  const refusal = page.getByRole('alert').filter({ hasText: 'Nothing to upload there' })
  await expect(refusal).toContainText(
    `${isolated(SHOWN)}: The file's path contains an invisible text-direction character`,
  )
  // One full stop between the reason and what to do.
  await expect(refusal).not.toContainText('..')
})

test('in a dropped folder, the queue row and the notice show the marker, the name isolated', async ({
  page,
  localVault: _,
  filesDir,
}) => {
  const drop = (path: string, options: { folder?: boolean }) => dropFiles(page, path, options)
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
