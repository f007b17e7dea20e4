// Browser mode has no paths for dropped files: their bytes stream to the backend over the bridge,
// then take the same confirmation, queue and encryption as any backup. A folder, a 200 MB file
// (the backend's memory stays flat), a cancel while receiving, and a decline at the confirmation;
// nothing dropped stays on disk once it is uploaded or given up.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, type Page, test } from '@playwright/test'
import { type BrowserModeApp, startBrowserModeApp } from '../support/browser-mode-app'
import { dropFiles, droppedFilesLeft } from '../support/drop-steps'
import { startLocally } from '../support/page-steps'

test.describe.configure({ mode: 'serial' })

const BIG_BYTES = Number(process.env.DROP_TEST_MIB ?? 200) * 1024 * 1024
let app: BrowserModeApp
let page: Page
let filesDir: string
const shot = (name: string) =>
  page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })

/** The backend's peak resident memory so far, in MiB. */
async function peakMiB(): Promise<number> {
  const status = await readFile(`/proc/${app.pid}/status`, 'utf8')
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024
}

/** Files left in the backend's drop folder. */
const droppedLeft = () => droppedFilesLeft(app.userDataDir)

/** Drops real files on the window the way a drag from the file manager does. */
const drop = (paths: string | string[], options: { folder?: boolean } = {}) => dropFiles(page, paths, options)

test.beforeAll(async ({ browser }) => {
  app = await startBrowserModeApp({ secretStore: 'auto' })
  filesDir = await mkdtemp(join(tmpdir(), 'vault-e2e-drop-'))
  await mkdir(join(filesDir, 'Letters', 'old'), { recursive: true })
  await writeFile(join(filesDir, 'Letters', 'to-anna.txt'), 'Dear Anna,\n'.repeat(100))
  await writeFile(join(filesDir, 'Letters', 'to-ben.txt'), 'Dear Ben,\n'.repeat(100))
  await writeFile(join(filesDir, 'Letters', 'old', '2019.txt'), 'An old letter.\n')
  // Not all zeros, so nothing downstream could shortcut it.
  const block = Buffer.alloc(1024 * 1024)
  for (let i = 0; i < block.length; i++) block[i] = (i * 31) & 0xff
  await writeFile(join(filesDir, 'video.mp4'), Buffer.concat(Array(BIG_BYTES / block.length).fill(block)))
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
})

test.afterAll(async () => {
  await page?.close()
  await app?.stop()
  await rm(filesDir, { recursive: true, force: true })
})

test('a dropped folder is backed up with its folders, and nothing of it is left behind', async () => {
  await page.goto(app.url)
  await startLocally(page)
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
  await shot('drop-folder')
})

test('Choose files… in browser mode sends the chosen files the same way', async () => {
  await page.getByRole('tab', { name: 'Assets' }).click()
  await expect(page.getByRole('button', { name: 'Choose files…' })).toBeEnabled()
  // A file the vault does not hold yet (one already there is left out: drop-again.spec.ts).
  await writeFile(join(filesDir, 'chosen.txt'), 'Chosen with the button.\n')
  await page.getByTestId('choose-files').setInputFiles(join(filesDir, 'chosen.txt'))
  const row = page.getByRole('row').filter({ hasText: 'chosen.txt' }).filter({ hasNotText: 'bundle' })
  await expect(row).toBeVisible({ timeout: 30_000 })
  await expect.poll(droppedLeft).toEqual([])
})

test('a 200 MB file streams in with the backend memory flat, is confirmed, uploaded and removed', async () => {
  await page.getByRole('button', { name: 'Settings' }).click()
  await page.getByLabel('Credits to add').fill('2000')
  await page.getByRole('button', { name: 'Add credits' }).click()
  // 2,100 less what the uploads before spent: files and, after each batch, the vault manifest.
  await expect(page.getByText(/2,09\d credits/).first()).toBeVisible()
  await page.getByRole('button', { name: 'Vaults' }).click()
  await page.getByRole('button', { name: /^Vault / }).click()
  await page.getByRole('tab', { name: 'Assets' }).click()

  const before = await peakMiB()
  await drop(join(filesDir, 'video.mp4'))
  const box = page.getByRole('region', { name: 'Receiving the dropped files' })
  await expect(box).toBeVisible()
  // Clear of the vault's title and tabs (it used to sit on them), with the pace once it is known.
  const boxTop = (await box.boundingBox())!.y
  const tabs = (await page.getByRole('tablist').boundingBox())!
  expect(boxTop).toBeGreaterThan(tabs.y + tabs.height)
  await expect(box.getByRole('status')).toContainText(/\/s, about .+ left/, { timeout: 20_000 })
  await shot('drop-receiving')
  const dialog = page.getByRole('dialog')
  await expect(dialog).toContainText('1 file', { timeout: 60_000 })
  await expect(dialog).toContainText('1 file, 210 MB')
  // Received in 512 KiB chunks, at most 4 MiB ahead of the disk: the file never sat in memory. V8
  // frees spent chunk buffers only once some tens of MiB piled up, hence a bound of half the file.
  // (The upload that follows is the same as any upload's, in the same process as the local service.)
  const growth = (await peakMiB()) - before
  test.info().annotations.push({ type: 'backend peak growth', description: `${growth.toFixed(1)} MiB` })
  console.log(`[drop] backend peak memory grew by ${growth.toFixed(1)} MiB receiving a 200 MiB drop`)
  expect(growth, `peak grew by ${growth.toFixed(0)} MiB for a 200 MiB file`).toBeLessThan(100)
  await dialog.getByRole('button', { name: /^Encrypt and upload/ }).click()
  await expect(page.getByTestId('upload-summary')).toContainText('5 stored', { timeout: 120_000 })
  await expect(page.getByRole('row').filter({ hasText: 'video.mp4' })).toBeVisible({ timeout: 20_000 })
  await expect.poll(droppedLeft).toEqual([])
})

test('cancelling while the file arrives keeps nothing and uploads nothing', async () => {
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

test('declining the cost at the confirmation deletes what was dropped', async () => {
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
