// Issue 28, points 2 and 3, as an owner would: back up a folder; find a file inside a bundle by name
// and open it (browser mode hands it over as a download); save a folder and the whole vault into
// folders they type (SHA-256 identical); delete a file, and the heirs' recovery of an encrypted copy
// (the command-line tool, with two guardians' kits) no longer brings it while every other file comes
// back byte for byte.
import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Page } from '@playwright/test'
import { SSS_PRESET_SHAPE } from '../../../src/shared/api'
import { decodeOwnerKitWords, encodeShareWords, splitVaultKey } from '../../../src/vault-format'
import { expect, test as journey } from '../support/fixtures'
import { saveAndConfirmOwnerKit } from '../support/owner-kit-steps'
import { backUpPath, collectPageErrors, startLocally } from '../support/page-steps'

const files: Record<string, Buffer> = {
  'Family/scan.pdf': randomBytes(2 * 1024 * 1024 + 5),
  'Family/Letters/to-anna.txt': Buffer.from('Dear Anna, the key is with Ben.\n'),
  'Family/Letters/to-ben.txt': Buffer.from('Dear Ben, look after the cat.\n'),
  'Family/Letters/old/2019.txt': Buffer.from('An old letter.\n'.repeat(40)),
}
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const shot = (p: Page, name: string) =>
  p.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })

async function tree(root: string, prefix = ''): Promise<string[]> {
  const out: string[] = []
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name
    if (entry.isDirectory()) out.push(...(await tree(root, rel)))
    else out.push(rel)
  }
  return out.sort()
}

const test = journey.extend<{
  /** home/Family (the files above) in the test's folder. */
  dir: string
}>({
  dir: async ({ workDir }, use) => {
    for (const [path, bytes] of Object.entries(files)) {
      await mkdir(join(workDir, 'home', path, '..'), { recursive: true })
      await writeFile(join(workDir, 'home', path), bytes)
    }
    await use(workDir)
  },
})

test.use({ appOptions: { secretStore: 'auto' } })

test('open, save and delete the files of a backed-up folder', async ({ browser, ownApp: app, dir }) => {
  test.setTimeout(240_000)
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 }, acceptDownloads: true })
  const errors: string[] = []
  collectPageErrors(page, errors)
  await page.goto(app.url)
  await startLocally(page)
  const words = await saveAndConfirmOwnerKit(page)
  const library = page.getByTestId('file-library')

  await test.step('back up a folder', async () => {
    await backUpPath(page, join(dir, 'home', 'Family'), '4 stored')
    await expect(library.getByRole('button', { name: 'Open folder Family' })).toBeVisible({ timeout: 20_000 })
    // Four files in two blobs (the scan alone, the letters in a bundle): the overview counts files.
    await page.getByRole('tab', { name: 'Overview' }).click()
    await expect(page.getByRole('definition').filter({ hasText: 'guardians' })).toContainText(/^4 files ·/)
    await page.getByRole('tab', { name: 'Assets' }).click()
  })

  await test.step('find a file inside a bundle by name and open it', async () => {
    await library.getByLabel('Find a file by name').fill('to-ben')
    const row = library.getByTestId('library-file').filter({ hasText: 'to-ben.txt' })
    await expect(row).toHaveCount(1)
    await expect(row).toContainText('bundle')
    const downloading = page.waitForEvent('download')
    await row.getByRole('button', { name: 'Open to-ben.txt' }).click()
    const download = await downloading
    expect(download.suggestedFilename()).toBe('to-ben.txt')
    expect(await readFile((await download.path())!)).toEqual(files['Family/Letters/to-ben.txt'])
    await expect(page.getByTestId('file-opened')).toContainText('handed to the browser as a download')
    await shot(page, 'own-files-opened')
  })

  await test.step('save a folder into a folder typed in, byte for byte', async () => {
    await library.getByLabel('Find a file by name').fill('')
    await library.getByRole('button', { name: 'Open folder Family' }).click()
    await library.getByRole('button', { name: 'Open folder Letters' }).click()
    await library.getByRole('button', { name: 'Save this folder…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Save decrypted files' })
    await expect(dialog).toContainText(/The folder \u2068?Letters\u2069?: 3 files/)
    await dialog.getByLabel('Save into this folder').fill(join(dir, 'saved-letters'))
    await dialog.getByRole('button', { name: 'Save', exact: true }).click()
    await expect(dialog.getByTestId('file-save-done')).toContainText('Saved 3 files', { timeout: 30_000 })
    await shot(page, 'own-files-saved-folder')
    expect(await tree(join(dir, 'saved-letters'))).toEqual([
      'Letters/old/2019.txt',
      'Letters/to-anna.txt',
      'Letters/to-ben.txt',
    ])
    for (const name of ['to-anna.txt', 'to-ben.txt', 'old/2019.txt']) {
      const saved = await readFile(join(dir, 'saved-letters', 'Letters', name))
      expect(sha(saved), name).toBe(sha(files[`Family/Letters/${name}`]!))
    }
    await dialog.getByRole('button', { name: 'Close' }).click()
  })

  await test.step('save the whole vault, byte for byte', async () => {
    await library.getByRole('button', { name: 'All files' }).click()
    await library.getByRole('button', { name: 'Save all files…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Save decrypted files' })
    await expect(dialog).toContainText('All 4 files of this vault')
    await dialog.getByLabel('Save into this folder').fill(join(dir, 'saved-all'))
    await dialog.getByRole('button', { name: 'Save', exact: true }).click()
    await expect(dialog.getByTestId('file-save-done')).toContainText('Saved 4 files', { timeout: 30_000 })
    expect(await tree(join(dir, 'saved-all'))).toEqual(Object.keys(files).sort())
    for (const [path, bytes] of Object.entries(files)) {
      expect(sha(await readFile(join(dir, 'saved-all', path))), path).toBe(sha(bytes))
    }
    // Saving again into the same folder (the dialog remembers it) replaces nothing, and says so.
    await dialog.getByRole('button', { name: 'Close' }).click()
    await library.getByRole('button', { name: 'Save all files…' }).click()
    await expect(dialog.getByLabel('Save into this folder')).toHaveValue(join(dir, 'saved-all'))
    await dialog.getByRole('button', { name: 'Save', exact: true }).click()
    await expect(dialog.getByTestId('file-save-done')).toContainText('4 files were already there')
    await dialog.getByRole('button', { name: 'Close' }).click()
  })

  await test.step('delete a file: the confirmation says what the heirs lose, and the library no longer lists it', async () => {
    await library.getByLabel('Find a file by name').fill('to-anna')
    const row = library.getByTestId('library-file').filter({ hasText: 'to-anna.txt' })
    await row.getByRole('button', { name: 'Delete to-anna.txt from the vault' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete this file from the vault?' })
    await expect(dialog).toContainText('Your heirs will no longer get this file')
    // It shares a bundle with two letters that stay: that bundle is stored again without it.
    await expect(dialog).toContainText('stored again without the deleted ones')
    await shot(page, 'own-files-delete-confirm')
    await dialog.getByRole('button', { name: 'Delete' }).click()
    await expect(dialog.getByTestId('file-removal-done')).toContainText('Deleted 1 file', { timeout: 30_000 })
    await dialog.getByRole('button', { name: 'Close' }).click()
    await library.getByLabel('Find a file by name').fill('')
    await library.getByRole('button', { name: 'Open folder Family' }).click()
    await library.getByRole('button', { name: 'Open folder Letters' }).click()
    await expect(library.getByTestId('library-file')).toHaveCount(1)
    await expect(library.getByTestId('library-file')).toContainText('to-ben.txt')
  })

  await test.step('at the smallest window the actions of a row stay on screen', async () => {
    await page.setViewportSize({ width: 820, height: 560 })
    const row = library.getByTestId('library-file').first()
    await row.scrollIntoViewIfNeeded()
    for (const name of [/^Open /, /^Save .* into a folder$/, /^Delete .* from the vault$/]) {
      const box = await row.getByRole('button', { name }).boundingBox()
      expect(box, String(name)).not.toBeNull()
      expect(box!.x + box!.width).toBeLessThanOrEqual(820)
    }
    await page.screenshot({ path: 'test-results/screenshots/own-files-small-window.png' })
    await page.setViewportSize({ width: 1280, height: 1000 })
  })

  await test.step("the heirs' recovery of an encrypted copy no longer brings it", async () => {
    await page.getByRole('tab', { name: 'Overview' }).click()
    const usb = join(dir, 'usb-stick')
    const panel = page.getByTestId('encrypted-export')
    await panel.getByLabel('Folder for the copy (new or empty)').fill(usb)
    await panel.getByRole('button', { name: 'Export an encrypted copy…' }).click()
    await expect(page.getByTestId('encrypted-export-done')).toContainText('Exported', { timeout: 30_000 })
    const key = decodeOwnerKitWords(words.join(' '))
    const shares = await splitVaultKey(key.vaultKey, key.vaultId, SSS_PRESET_SHAPE.standard)
    const recovered = join(dir, 'recovered')
    await promisify(execFile)(process.execPath, [
      'out/cli/recover.js',
      '--share-words',
      encodeShareWords(shares[0]!),
      '--share-words',
      encodeShareWords(shares[1]!),
      '--out',
      recovered,
      usb,
    ])
    const expected = Object.keys(files)
      .filter((p) => p !== 'Family/Letters/to-anna.txt')
      .sort()
    expect(await tree(recovered)).toEqual(expected)
    for (const path of expected) {
      expect(sha(await readFile(join(recovered, path))), path).toBe(sha(files[path]!))
    }
  })

  await page.close()
  expect(errors).toEqual([])
})
