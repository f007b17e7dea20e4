// Browser mode has no paths for dropped files: their bytes stream to the backend over the bridge,
// then take the same confirmation, queue and encryption as any backup. A folder, a 200 MB file
// (the backend's memory stays flat), a cancel while receiving, and a decline at the confirmation;
// nothing dropped stays on disk once it is uploaded or given up.
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import type { BrowserModeApp } from '../support/browser-mode-app'
import { dropFiles, droppedFilesLeft } from '../support/drop-steps'
import { expect, test as journey, type LocalVault } from '../support/fixtures'

const BIG_BYTES = Number(process.env.DROP_TEST_MIB ?? 200) * 1024 * 1024
const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })

/** The backend's peak resident memory so far, in MiB. */
async function peakMiB(app: BrowserModeApp): Promise<number> {
  const status = await readFile(`/proc/${app.pid}/status`, 'utf8')
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024
}

/** Files left in the backend's drop folder. */
const droppedLeftIn = (app: BrowserModeApp) => () => droppedFilesLeft(app.userDataDir)

/** Drops real files on the window the way a drag from the file manager does. */
const dropOn =
  (page: Page) =>
  (paths: string | string[], options: { folder?: boolean } = {}) =>
    dropFiles(page, paths, options)

const test = journey.extend<{
  /** Letters/ (three small files, one in old/) and video.mp4 (200 MiB, DROP_TEST_MIB). */
  filesDir: string
  /** Letters dropped as a folder and stored (3 files). */
  lettersStored: LocalVault
  /** Then chosen.txt sent with Choose files… and stored. */
  chosenStored: LocalVault
  /** Then video.mp4 dropped, confirmed and stored (2,000 credits added first). */
  videoStored: LocalVault
}>({
  filesDir: async ({ workDir }, use) => {
    await mkdir(join(workDir, 'Letters', 'old'), { recursive: true })
    await writeFile(join(workDir, 'Letters', 'to-anna.txt'), 'Dear Anna,\n'.repeat(100))
    await writeFile(join(workDir, 'Letters', 'to-ben.txt'), 'Dear Ben,\n'.repeat(100))
    await writeFile(join(workDir, 'Letters', 'old', '2019.txt'), 'An old letter.\n')
    // Not all zeros, so nothing downstream could shortcut it.
    const block = Buffer.alloc(1024 * 1024)
    for (let i = 0; i < block.length; i++) block[i] = (i * 31) & 0xff
    await writeFile(join(workDir, 'video.mp4'), Buffer.concat(Array(BIG_BYTES / block.length).fill(block)))
    await use(workDir)
  },
  lettersStored: async ({ localVault, page, filesDir }, use) => {
    await dropFiles(page, join(filesDir, 'Letters'), { folder: true })
    await expect(page.getByTestId('upload-summary')).toContainText('3 stored', { timeout: 30_000 })
    await use(localVault)
  },
  chosenStored: async ({ lettersStored, page, filesDir }, use) => {
    await page.getByRole('tab', { name: 'Assets' }).click()
    await writeFile(join(filesDir, 'chosen.txt'), 'Chosen with the button.\n')
    await page.getByTestId('choose-files').setInputFiles(join(filesDir, 'chosen.txt'))
    await expect(page.getByTestId('upload-summary')).toContainText('4 stored', { timeout: 30_000 })
    await use(lettersStored)
  },
  videoStored: async ({ chosenStored, page, filesDir }, use) => {
    await page.getByRole('button', { name: 'Settings' }).click()
    await page.getByLabel('Credits to add').fill('2000')
    await page.getByRole('button', { name: 'Add credits' }).click()
    await expect(page.getByText(/Added\. The balance is now/)).toBeVisible()
    await page.getByRole('button', { name: 'Vaults' }).click()
    await page.getByRole('button', { name: /^Vault / }).click()
    await page.getByRole('tab', { name: 'Assets' }).click()
    await dropFiles(page, join(filesDir, 'video.mp4'))
    const dialog = page.getByRole('dialog')
    await expect(dialog).toContainText('1 file, 210 MB', { timeout: 60_000 })
    await dialog.getByRole('button', { name: /^Encrypt and upload/ }).click()
    await expect(page.getByTestId('upload-summary')).toContainText('5 stored', { timeout: 120_000 })
    await use(chosenStored)
  },
})

// The keychain keeps the vault key, so uploads need no owner kit saved first.
test.use({ appOptions: { secretStore: 'auto' }, viewport: { width: 1280, height: 900 } })

test('a dropped folder is backed up with its folders, and nothing of it is left behind', async ({
  page,
  localVault,
  filesDir,
}) => {
  const drop = dropOn(page)
  const droppedLeft = droppedLeftIn(localVault.app)
  await drop(join(filesDir, 'Letters'), { folder: true })
  // Three small files: one bundle, under the asking threshold, so no confirmation.
  const summary = page.getByTestId('upload-summary')
  await expect(summary).toContainText('3 stored', { timeout: 30_000 })
  const library = page.getByTestId('file-library')
  await library.getByRole('button', { name: 'Open folder Letters' }).click({ timeout: 20_000 })
  await library.getByRole('button', { name: 'Open folder old' }).click()
  await expect(library.getByRole('row').filter({ hasText: '2019.txt' })).toContainText('bundle')
  await library.getByRole('button', { name: 'All files' }).click()
  await expect.poll(droppedLeft).toEqual([])
  await shot(page, 'drop-folder')
})

test('Choose files… in browser mode sends the chosen files the same way', async ({
  page,
  lettersStored,
  filesDir,
}) => {
  const droppedLeft = droppedLeftIn(lettersStored.app)
  await page.getByRole('tab', { name: 'Assets' }).click()
  await expect(page.getByRole('button', { name: 'Choose files…' })).toBeEnabled()
  // A file the vault does not hold yet (one already there is left out: drop-again.spec.ts).
  await writeFile(join(filesDir, 'chosen.txt'), 'Chosen with the button.\n')
  await page.getByTestId('choose-files').setInputFiles(join(filesDir, 'chosen.txt'))
  const row = page.getByRole('row').filter({ hasText: 'chosen.txt' }).filter({ hasNotText: 'bundle' })
  await expect(row).toBeVisible({ timeout: 30_000 })
  await expect.poll(droppedLeft).toEqual([])
})

test('a 200 MB file streams in with the backend memory flat, is confirmed, uploaded and removed', async ({
  page,
  chosenStored,
  filesDir,
}) => {
  // A 210 MB drop and upload: ~35 s on a quiet machine; its steps allow up to 120 s.
  test.setTimeout(180_000)
  const drop = dropOn(page)
  const droppedLeft = droppedLeftIn(chosenStored.app)
  const peak = () => peakMiB(chosenStored.app)
  await page.getByRole('button', { name: 'Settings' }).click()
  await page.getByLabel('Credits to add').fill('2000')
  await page.getByRole('button', { name: 'Add credits' }).click()
  // 2,100 less what the uploads before spent: files and, after each batch, the vault manifest.
  await expect(page.getByText(/2,09\d credits/).first()).toBeVisible()
  await page.getByRole('button', { name: 'Vaults' }).click()
  await page.getByRole('button', { name: /^Vault / }).click()
  await page.getByRole('tab', { name: 'Assets' }).click()

  const before = await peak()
  await drop(join(filesDir, 'video.mp4'))
  const box = page.getByRole('region', { name: 'Receiving the dropped files' })
  await expect(box).toBeVisible()
  // Clear of the vault's title and tabs (it used to sit on them), with the pace once it is known.
  const boxTop = (await box.boundingBox())!.y
  const tabs = (await page.getByRole('tablist').boundingBox())!
  expect(boxTop).toBeGreaterThan(tabs.y + tabs.height)
  await expect(box.getByRole('status')).toContainText(/\/s, about .+ left/, { timeout: 20_000 })
  await shot(page, 'drop-receiving')
  const dialog = page.getByRole('dialog')
  await expect(dialog).toContainText('1 file', { timeout: 60_000 })
  await expect(dialog).toContainText('1 file, 210 MB')
  // Received in 512 KiB chunks, at most 4 MiB ahead of the disk: the file never sat in memory. V8
  // frees spent chunk buffers only once some tens of MiB piled up, hence a bound of half the file.
  // (The upload that follows is the same as any upload's, in the same process as the local service.)
  const growth = (await peak()) - before
  test.info().annotations.push({ type: 'backend peak growth', description: `${growth.toFixed(1)} MiB` })
  console.log(`[drop] backend peak memory grew by ${growth.toFixed(1)} MiB receiving a 200 MiB drop`)
  expect(growth, `peak grew by ${growth.toFixed(0)} MiB for a 200 MiB file`).toBeLessThan(100)
  await dialog.getByRole('button', { name: /^Encrypt and upload/ }).click()
  await expect(page.getByTestId('upload-summary')).toContainText('5 stored', { timeout: 120_000 })
  await expect(page.getByRole('row').filter({ hasText: 'video.mp4' })).toBeVisible({ timeout: 20_000 })
  await expect.poll(droppedLeft).toEqual([])
})

test('cancelling while the file arrives keeps nothing and uploads nothing', async ({
  page,
  lettersStored,
  filesDir,
}) => {
  const drop = dropOn(page)
  const droppedLeft = droppedLeftIn(lettersStored.app)
  await page
    .getByRole('button', { name: 'Clear finished' })
    .click()
    .catch(() => undefined)
  await drop(join(filesDir, 'video.mp4'))
  const receiving = page.getByRole('region', { name: 'Receiving the dropped files' })
  await expect(receiving).toBeVisible()
  await receiving.getByRole('button', { name: 'Cancel' }).click()
  await expect(page.getByText('The drop was cancelled; nothing was kept or uploaded.')).toBeVisible()
  await expect(receiving).toBeHidden()
  await expect(page.getByRole('dialog')).toBeHidden()
  await expect.poll(droppedLeft).toEqual([])
})

test('declining the cost at the confirmation deletes what was dropped', async ({
  page,
  videoStored,
  filesDir,
}) => {
  // Two drops of 210 MB and one upload of it, with the service in the same process: 56-59 s on a quiet
  // machine against the 60 s default, while the fixture's own steps allow up to 120 s.
  test.setTimeout(180_000)
  const drop = dropOn(page)
  const droppedLeft = droppedLeftIn(videoStored.app)
  await drop(join(filesDir, 'video.mp4'))
  const dialog = page.getByRole('dialog')
  // Stored above: the vault holds its bytes, so the owner must ask to upload it again to be charged.
  await expect(dialog).toContainText('video.mp4: already backed up on', { timeout: 60_000 })
  await dialog.getByRole('button', { name: 'Upload again anyway' }).click()
  await expect(dialog).toContainText('1 file, 210 MB', { timeout: 60_000 })
  expect((await droppedLeft()).length).toBe(1)
  await dialog.getByRole('button', { name: 'Not now' }).click()
  await expect(dialog).toBeHidden()
  await expect.poll(droppedLeft).toEqual([])
})
