// Removing a guardian in the window: the app says the old kits still open the vault together until
// they are destroyed (a new split of the same key cannot change that; key-rotation.spec.ts rotates
// the key), splits the key again, and asks the owner to give every remaining guardian their new kit;
// the kits it shows afterwards belong to a new set. (That old and new kits never combine is tested in
// test/release/release-branches.test.ts.) Screenshot: test-results/screenshots/owner-resplit-*.png.
import type { Page } from '@playwright/test'
import { expect, test } from '../support/fixtures'
import { startLocally } from '../support/page-steps'

test.use({ viewport: { width: 1280, height: 900 } })

async function shareSetOfFirstKit(page: Page): Promise<string> {
  await page
    .getByRole('button', { name: /View kit/ })
    .first()
    .click()
  const dialog = page.getByRole('dialog')
  const text =
    (await dialog
      .getByText(/Share set \w+/)
      .first()
      .textContent()) ?? ''
  await dialog.getByRole('button', { name: 'Close' }).click()
  const set = /Share set (\w+)/.exec(text)?.[1]
  if (!set) throw new Error(`no share set in "${text}"`)
  return set
}

test('removing a guardian re-splits the key and asks for the new kits to be handed out', async ({
  page,
  ownApp: app,
  pageErrors: consoleErrors,
}) => {
  await page.goto(app.url)
  await startLocally(page, 'resplit-owner@example.com')
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
  await expect(page.getByTestId('guardian-count')).toHaveText('3 of 3')
  const before = await shareSetOfFirstKit(page)

  await page.getByRole('button', { name: 'Remove guardian Chloe Park' }).click()
  const confirm = page.getByRole('dialog')
  await expect(confirm).toContainText('This alone does not lock the removed guardian out')
  await page.screenshot({ path: 'test-results/screenshots/owner-resplit-confirm.png', fullPage: true })
  await confirm.getByRole('button', { name: 'Remove guardian' }).click()

  const status = page.getByRole('status').filter({ hasText: 'The key was split again' })
  await expect(status).toContainText('2 new kits')
  // None was handed over yet: nothing to take back, only new kits to print.
  await expect(status).toContainText('None of the kits made before this change had been handed over')
  await expect(status).toContainText("The removed guardian's kit still opens the vault")
  await expect(page.getByTestId('guardian-count')).toHaveText('2 of 3')
  await page.screenshot({ path: 'test-results/screenshots/owner-resplit-done.png', fullPage: true })
  const after = await shareSetOfFirstKit(page)
  expect(after).not.toBe(before)
  expect(consoleErrors).toEqual([])
})
