// "Mail from the local trial" (issue 29, part 4): start locally, add a guardian, read the invitation
// the service on this computer would have e-mailed, follow its accept link in the same browser as the
// guardian would, and see the app show the guardian as accepted. Screenshots at 1280×800 and 820×560.
import type { Locator, Page } from '@playwright/test'
import { expect, test as journey, type LocalVault } from '../support/fixtures'
import { startLocally } from '../support/page-steps'

const shot = (target: Page, name: string) =>
  target.screenshot({ path: `test-results/screenshots/local-mail-${name}.png` })

/** Waits for the smooth scroll to a section to end (its position unchanged over two frames). */
const settled = async (target: Locator) => {
  let last = Number.NaN
  await expect
    .poll(async () => {
      const y = (await target.boundingBox())?.y ?? Number.NaN
      const still = y === last
      last = y
      return still
    })
    .toBe(true)
}

const test = journey.extend<{
  /** Alice and Bob added as guardians: two invitations in the local trial's mail. */
  twoInvited: LocalVault
}>({
  twoInvited: async ({ localVault, page }, use) => {
    await page.getByRole('tab', { name: 'Guardians' }).click()
    const form = page.getByRole('form', { name: 'Add guardian' })
    for (const [name, email] of [
      ['Alice Martin', 'alice@example.com'],
      ['Bob Okafor', 'bob@example.com'],
    ] as const) {
      await form.getByLabel('Name').fill(name)
      await form.getByLabel('E-mail').fill(email)
      await form.getByRole('button', { name: 'Add guardian' }).click()
      await expect(page.getByRole('cell', { name, exact: true })).toBeVisible()
    }
    await use(localVault)
  },
})

// The page fixture's context is the one browser: the guardian's tab and a second window of the app
// open in it.
// Errors the app's page logs fail each test, as they failed the journey before.
test.use({ viewport: { width: 1280, height: 800 }, failOnPageErrors: true })

test('the invitation a guardian would have got, read in the app and accepted from its link', async ({
  page,
  context,
  ownApp: app,
}) => {
  await page.goto(app.url)
  await startLocally(page)
  await page.getByRole('tab', { name: 'Guardians' }).click()
  const form = page.getByRole('form', { name: 'Add guardian' })
  await form.getByLabel('Name').fill('Alice Martin')
  await form.getByLabel('E-mail').fill('alice@example.com')
  await form.getByRole('button', { name: 'Add guardian' }).click()
  await expect(page.getByRole('cell', { name: 'Alice Martin', exact: true })).toBeVisible()
  await expect(page.getByText('Added, not told yet')).toBeVisible()
  await expect(page.getByTestId('guardian-change')).toBeVisible()
  await shot(page, 'guardians-1280')

  // The "no e-mail was sent" notice leads to the mail.
  await page.getByTestId('guardian-change').getByTestId('local-mail-link').click()
  const panel = page.getByTestId('local-mail')
  const heading = panel.getByRole('heading', { name: 'Mail from the local trial' })
  await expect(heading).toBeFocused()
  await settled(heading)
  await expect(panel.getByTestId('local-mail-privacy')).toContainText('personal links')
  const item = panel.getByTestId('local-mail-item')
  await expect(item).toHaveCount(1)
  await expect(item).toContainText('owner@example.com asks you to be a guardian')
  await expect(item).toContainText('alice@example.com')
  await expect(item).toContainText('Not sent: no e-mail server is set up on this computer')
  await shot(page, 'list-1280')

  // A second guardian's invitation appears by itself, on top (newest first), while the view is open.
  // (Added from a second window of the same app; this one stays on the mail.)
  const second = await context.newPage()
  await second.goto(app.url)
  await second.getByTestId('vault-card').getByRole('button').click()
  await second.getByRole('tab', { name: 'Guardians' }).click()
  const secondForm = second.getByRole('form', { name: 'Add guardian' })
  await secondForm.getByLabel('Name').fill('Bob Okafor')
  await secondForm.getByLabel('E-mail').fill('bob@example.com')
  await secondForm.getByRole('button', { name: 'Add guardian' }).click()
  await expect(second.getByRole('cell', { name: 'Bob Okafor', exact: true })).toBeVisible()
  await second.close()
  await expect(item).toHaveCount(2)
  await expect(item.first()).toContainText('bob@example.com')

  await item.nth(1).click()
  const dialog = page.getByRole('dialog', { name: /asks you to be a guardian/ })
  await expect(dialog).toBeVisible()
  await expect(dialog.getByTestId('local-mail-delivery')).toHaveText(
    'Not sent: no e-mail server is set up on this computer',
  )
  await expect(dialog.getByTestId('local-mail-body')).toContainText('Hello')
  const accept = dialog.getByRole('link', { name: /\/accept$/ })
  await expect(accept).toHaveAttribute('target', '_blank')
  await expect(accept).toHaveAttribute('rel', 'noopener')
  await shot(page, 'message-1280')

  // Play the guardian: the link opens a tab of the same browser on the service's accept page.
  const [guardianPage] = await Promise.all([context.waitForEvent('page'), accept.click()])
  await guardianPage.waitForLoadState()
  await expect(guardianPage.getByRole('heading', { name: 'Become a guardian' })).toBeVisible()
  await guardianPage.getByRole('button', { name: 'Accept' }).click()
  await expect(guardianPage.getByRole('heading', { name: 'You are a guardian' })).toBeVisible()
  await guardianPage.close()

  // Back in the app: the guardian's state is accepted.
  await dialog.getByRole('button', { name: 'Close' }).click()
  await page.getByRole('button', { name: 'Vaults' }).click()
  await page.getByTestId('vault-card').getByRole('button').click()
  await page.getByRole('tab', { name: 'Guardians' }).click()
  const alice = page.getByRole('row').filter({ hasText: 'Alice Martin' })
  await expect(alice.getByText('Accepted', { exact: true })).toBeVisible()
  const bob = page.getByRole('row').filter({ hasText: 'Bob Okafor' })
  await expect(bob.getByText('Added, not told yet')).toBeVisible()
  await shot(page, 'guardians-accepted-1280')
})

test('at 820×560 the list and the message fit', async ({
  page,
  twoInvited: _,
  pageErrors: consoleErrors,
}) => {
  await page.setViewportSize({ width: 820, height: 560 })
  await page.getByRole('button', { name: 'Settings' }).click()
  const panel = page.getByTestId('local-mail')
  await panel.scrollIntoViewIfNeeded()
  await expect(panel.getByTestId('local-mail-item')).toHaveCount(2)
  await panel.getByTestId('local-mail-item').first().scrollIntoViewIfNeeded()
  await shot(page, 'list-820')
  await panel.getByTestId('local-mail-item').first().click()
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeInViewport({ ratio: 1 })
  await shot(page, 'message-820')
  // Nothing wider than the window.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(820)
  await dialog.getByRole('button', { name: 'Close' }).click()
  expect(consoleErrors).toEqual([])
})
