// Removing a guardian, then rotating the vault key in the window. The removal says what holds (the
// removed guardian's kit still opens the vault with another old kit) and offers the rotation; the
// rotation shows its cost first, re-encrypts every file and makes new kits, keeps the old copies (and
// says so) until the owner saves and confirms the new owner kit, then deletes them. Then, with the recovery
// library on every blob the local service keeps on disk: two old kits (the removed guardian's among
// them) rebuild the old key, which opens none of them, and two new kits recover every file.
// Screenshots: test-results/screenshots/key-rotation-*.png.
import { createHash } from 'node:crypto'
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { recoverFiles } from '../../../src/recovery/recover-files'
import { combineShareWords } from '../../../src/vault-format'
import type { BrowserModeApp } from '../support/browser-mode-app'
import { expect, test as journey } from '../support/fixtures'
import { passOwnerKitGate } from '../support/owner-kit-steps'
import { startLocally } from '../support/page-steps'

const files = new Map<string, Buffer>([
  ['Family/deeds.bin', createHash('sha512').update('deeds').digest().subarray(0, 16)],
  ['Family/letter.txt', Buffer.from('To whoever reads this: the boat is yours.\n'.repeat(50))],
  ['Family/video.bin', Buffer.alloc(5 * 1024 * 1024 + 17, 9)],
])

const test = journey.extend<{
  /** Family/ (the files above) in the test's folder. */
  dir: string
}>({
  dir: async ({ workDir }, use) => {
    await mkdir(join(workDir, 'Family'), { recursive: true })
    for (const [path, bytes] of files) await writeFile(join(workDir, path), bytes)
    await use(workDir)
  },
})

// The rotation keeps its new key across restarts, so it needs the keychain (npm test runs a private one).
test.use({ appOptions: { secretStore: 'auto' }, viewport: { width: 1280, height: 1000 } })

async function kitWords(page: Page, guardian: string): Promise<string> {
  await page
    .getByRole('row')
    .filter({ hasText: guardian })
    .getByRole('button', { name: /View kit/ })
    .click()
  const kit = page.frameLocator('iframe.kit-frame')
  await expect(kit.locator('ol.words .w').first()).toBeVisible()
  const words = (await kit.locator('ol.words .w').allTextContents()).join(' ')
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click()
  return words
}

/** Every blob the local service keeps on disk, copied out as encrypted files for the recovery library. */
async function blobsOnDisk(app: BrowserModeApp, dir: string): Promise<string> {
  const out = join(dir, `blobs-${Date.now()}`)
  await mkdir(out)
  const root = join(app.userDataDir, 'local-service', 'blobs')
  for (const shard of await readdir(root)) {
    for (const name of await readdir(join(root, shard))) {
      await copyFile(join(root, shard, name), join(out, `${name}.vault`))
    }
  }
  return out
}

test('remove a guardian, rotate the key: two old kits open nothing the service holds, the new kits recover every file', async ({
  page,
  ownApp: app,
  dir,
  pageErrors: consoleErrors,
}) => {
  test.setTimeout(180_000)
  await page.goto(app.url)
  await startLocally(page, 'rotation-owner@example.com')

  await page.getByRole('tab', { name: 'Assets' }).click()
  await page
    .getByLabel('Path of a file or folder on the computer running Vault Desktop')
    .fill(join(dir, 'Family'))
  await page.getByRole('button', { name: 'Back up' }).click()
  // Small enough to go without a confirmation (its cost is well inside the balance).
  await expect(page.getByTestId('upload-summary')).toContainText('3 stored', { timeout: 60_000 })

  await page.getByRole('tab', { name: 'Guardians' }).click()
  const form = page.getByRole('form', { name: 'Add guardian' })
  for (const [name, email] of [
    ['Alice Martin', 'alice@example.com'],
    ['Bob Okafor', 'bob@example.com'],
    ['Chloe Park', 'chloe@example.com'],
  ] as const) {
    await form.getByLabel('Name').fill(name)
    await form.getByLabel('E-mail').fill(email)
    await form.getByRole('button', { name: 'Add guardian' }).click()
    await expect(page.getByRole('cell', { name, exact: true })).toBeVisible()
  }
  const oldAlice = await kitWords(page, 'Alice Martin')
  const oldChloe = await kitWords(page, 'Chloe Park')

  // The removal says what holds, and does not claim the old kits stop working.
  await page.getByRole('button', { name: 'Remove guardian Chloe Park' }).click()
  const confirm = page.getByRole('dialog')
  await expect(confirm).toContainText('This alone does not lock the removed guardian out')
  await expect(confirm).not.toContainText('stops working')
  await confirm.getByRole('button', { name: 'Remove guardian' }).click()
  await expect(page.getByTestId('guardian-change')).toContainText(
    "The removed guardian's kit still opens the vault together with any other old kit until they are destroyed",
  )
  const panel = page.getByTestId('key-rotation')
  await expect(panel).toContainText('Rotate the vault key now so that the removed guardian')

  // The cost before anything starts: one upload per stored blob (5 MB file + one bundle).
  await panel.getByRole('button', { name: 'See what it costs' }).click()
  const estimate = panel.getByTestId('key-rotation-estimate')
  await expect(estimate).toContainText('Re-encrypting 2 stored files')
  await expect(estimate).toContainText(
    'and you have saved and confirmed the new owner kit, the old copies are deleted from the service.',
  )
  await panel.scrollIntoViewIfNeeded()
  await page.screenshot({ path: 'test-results/screenshots/key-rotation-cost.png', fullPage: true })
  await panel.getByTestId('key-rotation-start').click()

  // Every file is under the new key, but only this computer holds it: the old copies stay, and the
  // panel says so and asks for the new owner kit.
  const awaiting = panel.getByTestId('key-rotation-awaiting-owner-kit')
  await expect(awaiting).toBeVisible({ timeout: 120_000 })
  await expect(awaiting).toContainText('2 files are re-encrypted under the new key and read back')
  await expect(awaiting).toContainText('2 old copies stay on the service')
  await expect(awaiting).toContainText("the removed guardian's old kit, together with other old kits")
  await expect(awaiting).toContainText('2 new guardian kits were made')
  expect((await readdir(await blobsOnDisk(app, dir))).length).toBe(4)
  await panel.scrollIntoViewIfNeeded()
  await page.screenshot({ path: 'test-results/screenshots/key-rotation-awaiting.png', fullPage: true })

  // The owner saves the new owner kit and confirms it: the old copies go.
  await awaiting.getByRole('button', { name: 'Save the new owner kit' }).click()
  await passOwnerKitGate(page)
  const kit = page.frameLocator('iframe.kit-frame')
  await expect(kit.locator('ol.words .w').first()).toBeVisible()
  const ownerWords = await kit.locator('ol.words .w').allTextContents()
  await page.getByRole('dialog').getByRole('button', { name: 'I have saved it', exact: true }).click()
  const check = page.getByRole('dialog')
  await expect(check.getByText(/^Word \d+ of \d+$/).first()).toBeVisible()
  for (const label of await check.getByText(/^Word \d+ of \d+$/).allTextContents()) {
    await check.getByLabel(label).fill(ownerWords[Number(/Word (\d+)/.exec(label)?.[1]) - 1]!)
  }
  await check.getByRole('button', { name: 'Confirm' }).click()
  await check.getByRole('button', { name: 'Done' }).click()

  await expect(panel.getByTestId('key-rotation-done')).toBeVisible({ timeout: 60_000 })
  await expect(panel.getByTestId('key-rotation-done')).toContainText('2 files re-encrypted under the new key')
  await expect(panel.getByTestId('key-rotation-done')).toContainText('2 new guardian kits were made')
  await expect(panel.getByTestId('key-rotation-save-owner-kit')).toHaveCount(0)
  await page.screenshot({ path: 'test-results/screenshots/key-rotation-done.png', fullPage: true })

  const newAlice = await kitWords(page, 'Alice Martin')
  const newBob = await kitWords(page, 'Bob Okafor')
  expect(newAlice).not.toBe(oldAlice)

  // Two old kits, the removed guardian's among them, still rebuild the old key...
  const old = await combineShareWords([oldAlice, oldChloe])
  const fresh = await combineShareWords([newAlice, newBob])
  expect(old.vaultId).toBe(fresh.vaultId)
  expect(Buffer.from(old.vaultKey).equals(Buffer.from(fresh.vaultKey))).toBe(false)
  // ...which opens nothing the service holds.
  const blobs = await blobsOnDisk(app, dir)
  expect((await readdir(blobs)).length).toBe(2)
  const withOld = await recoverFiles({ ...old, inputs: [blobs], outDir: join(dir, 'with-old-kits') })
  expect(withOld.length).toBeGreaterThan(0)
  for (const result of withOld) expect(result).toMatchObject({ status: 'failed', reason: 'wrong-key' })

  // The new kits recover every file, byte for byte.
  const withNew = await recoverFiles({ ...fresh, inputs: [blobs], outDir: join(dir, 'with-new-kits') })
  expect(withNew.filter((r) => r.status === 'recovered')).toHaveLength(files.size)
  for (const [path, bytes] of files) {
    expect((await readFile(join(dir, 'with-new-kits', path))).equals(bytes), path).toBe(true)
  }

  // The vault key panel: the new key's owner kit is confirmed, and the rotation can be run again.
  await page.getByRole('tab', { name: 'Overview' }).click()
  const keyPanel = page.getByTestId('vault-key-panel')
  await expect(keyPanel.getByTestId('owner-kit-status')).not.toContainText('not confirmed')
  await expect(keyPanel.getByTestId('key-rotation-done')).toBeVisible()
  await keyPanel.getByRole('button', { name: 'Rotate again' }).click()
  await expect(keyPanel.getByTestId('key-rotation-estimate')).toContainText('Re-encrypting 2 stored files')
  await keyPanel.scrollIntoViewIfNeeded()
  await keyPanel.screenshot({ path: 'test-results/screenshots/key-rotation-key-panel.png' })
  expect(consoleErrors).toEqual([])
})
