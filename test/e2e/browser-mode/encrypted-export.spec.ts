// Issue 28, point 4. The owner backs up a folder, exports an encrypted copy into a folder they type
// (a USB stick), and a fresh app's Recovery screen, "I have the encrypted files", given exactly that
// folder and two guardians' kits, brings every file back byte for byte. A folder already in use is
// refused, and says so.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { SSS_PRESET_SHAPE } from '../../../src/shared/api'
import { decodeOwnerKitWords, encodeShareWords, splitVaultKey } from '../../../src/vault-format'
import { type BrowserModeApp, startBrowserModeApp } from '../support/browser-mode-app'
import { expect, test as journey } from '../support/fixtures'
import { saveAndConfirmOwnerKit } from '../support/owner-kit-steps'
import { backUpPath, collectPageErrors, startLocally } from '../support/page-steps'

const files: Record<string, Buffer> = {
  'will.txt': Buffer.from('My last will, signed.\n'.repeat(300)),
  'photos/house.jpg': Buffer.alloc(300_000, 0x5a),
}
const shot = (p: Page, name: string) =>
  p.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })

const test = journey.extend<{
  /** papers/ (the files above) in the test's folder. */
  dir: string
  /** A fresh app on another "computer" (no keychain), for the heir. */
  fresh: BrowserModeApp
}>({
  dir: async ({ workDir }, use) => {
    await mkdir(join(workDir, 'papers', 'photos'), { recursive: true })
    for (const [path, bytes] of Object.entries(files)) await writeFile(join(workDir, 'papers', path), bytes)
    await use(workDir)
  },
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
  fresh: async ({}, use) => {
    const app = await startBrowserModeApp()
    await use(app)
    await app.stop()
  },
})

test.use({ appOptions: { secretStore: 'auto' }, viewport: { width: 1280, height: 1000 } })

test('export an encrypted copy, then recover that folder in a fresh app', async ({
  browser,
  page,
  ownApp: app,
  dir,
  fresh,
}) => {
  const errors: string[] = []
  collectPageErrors(page, errors)
  await page.goto(app.url)
  await startLocally(page)
  const words = await saveAndConfirmOwnerKit(page)

  await backUpPath(page, join(dir, 'papers'))

  await page.getByRole('tab', { name: 'Overview' }).click()
  const usb = join(dir, 'usb-stick')
  const panel = page.getByTestId('encrypted-export')
  await panel.getByLabel('Folder for the copy (new or empty)').fill(usb)
  await panel.getByRole('button', { name: 'Export an encrypted copy…' }).click()
  await expect(page.getByTestId('encrypted-export-done')).toContainText('Exported', { timeout: 30_000 })
  await panel.scrollIntoViewIfNeeded()
  await shot(page, 'encrypted-export-done')
  const exported = await readdir(usb)
  // The recovery page too (npm test builds it before the journeys), for an heir with only a browser.
  expect(exported).toEqual(
    expect.arrayContaining([
      'README-FOR-HEIRS.txt',
      'RECOVERY.md',
      'FORMAT.md',
      'vault-recovery.html',
      'vault-recovery.html.sha256',
      'encrypted-files',
    ]),
  )
  expect((await readdir(join(usb, 'encrypted-files'))).every((n) => n.endsWith('.vault'))).toBe(true)

  // The same folder again: refused, with what to do.
  await panel.getByRole('button', { name: 'Export an encrypted copy…' }).click()
  await expect(panel).toContainText('is not empty')
  await shot(page, 'encrypted-export-refused')

  // A fresh app on another "computer": only the folder and two guardians' kits.
  const key = decodeOwnerKitWords(words.join(' '))
  const shares = await splitVaultKey(key.vaultKey, key.vaultId, SSS_PRESET_SHAPE.standard)
  const heir = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
  collectPageErrors(heir, errors)
  await heir.goto(fresh.url)
  await heir.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Recovery' }).click()
  await heir.getByText('I have the encrypted files on this computer').click()
  await heir.getByLabel('Kit 1').fill(encodeShareWords(shares[0]!))
  await heir.getByLabel('Kit 1').blur()
  await heir.getByRole('button', { name: 'Add another kit' }).click()
  await heir.getByLabel('Kit 2').fill(encodeShareWords(shares[2]!))
  await heir.getByLabel('Kit 2').blur()
  await heir.getByLabel('Encrypted files or folders (one full path per line)').fill(usb)
  await heir.getByLabel('Folder for the recovered files').fill(join(dir, 'recovered'))
  await heir.getByRole('button', { name: 'Verify and decrypt' }).click()
  await expect(heir.getByRole('heading', { name: /recovered and checked/ })).toBeVisible({ timeout: 30_000 })
  await shot(heir, 'encrypted-export-recovered')
  for (const [path, bytes] of Object.entries(files)) {
    expect((await readFile(join(dir, 'recovered', 'papers', path))).equals(bytes), path).toBe(true)
  }
  await heir.close()
  expect(errors).toEqual([])
})
