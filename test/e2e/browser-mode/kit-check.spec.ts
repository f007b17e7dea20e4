// Kit checks, end to end: the owner connects the app to a service (its clock under the test's control,
// its e-mail caught), adds two guardians in the Guardians tab, and the kits are made with their check
// codes registered. Ana reads the check code off her kit and types it on her guardian page (the link in
// her invitation); the owner's readiness and Guardians tab say "kit confirmed". Bo never checks: the
// service reminds him, and 30 days later he is named to the owner (e-mail, readiness, Guardians tab).
// A guardian also checks a kit from the app's Recovery screen with the words and the link.
// Screenshots: test-results/screenshots/kit-check-*.png.
import type { Browser, Page } from '@playwright/test'
import { encodeOwnerKitWords, generateVaultKey } from '../../../src/vault-format'
import { DAY_MS, type ReleaseWorld, startReleaseWorld } from '../../release/release-fixture'
import { expect, test as journey } from '../support/fixtures'

const shot = (p: Page, name: string) =>
  p.screenshot({ path: `test-results/screenshots/kit-check-${name}.png`, fullPage: true })

const checkLink = (text: string) => /https?:\/\/\S+\/guardian\/gt_[A-Za-z0-9_-]{43}\/check/.exec(text)?.[0]

async function refreshAndOpen(page: Page, tab: 'Overview' | 'Guardians') {
  await page.getByRole('button', { name: '← All vaults' }).click()
  await page.getByRole('button', { name: 'Refresh' }).click()
  await page.getByTestId('vault-card').getByRole('button').first().click()
  await page.getByRole('tab', { name: tab }).click()
}

/** The check code printed on a guardian's kit, read off the kit shown in the Guardians tab. */
async function kitCheckCode(page: Page, guardian: string): Promise<string> {
  await page
    .getByRole('row', { name: new RegExp(guardian) })
    .getByRole('button', { name: /View kit/ })
    .click()
  const code = (
    await page.frameLocator('iframe.kit-frame').locator('[data-kit-check-code]').innerText()
  ).trim()
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click()
  return code
}

/** Ana types her kit's check code on her guardian page, from the link in her invitation. */
async function anaChecks(browser: Browser, world: ReleaseWorld, code: string): Promise<void> {
  const invitation = await world.mail.waitFor('ana@example.com', (m) => !!checkLink(m.text))
  const guardian = await browser.newPage({ viewport: { width: 390, height: 844 } })
  await guardian.goto(checkLink(invitation.text)!)
  await guardian.getByLabel('Check code').fill(code)
  await guardian.getByRole('button', { name: 'Check my kit' }).click()
  await expect(guardian.locator('body')).toContainText(/confirmed/i)
  await guardian.close()
}

const test = journey.extend<{
  /** A service (its clock and mail under the test's control) with the owner's account and one vault. */
  ownerAccount: { world: ReleaseWorld; vaultId: string }
  /** The owner's app connected to the service and the vault's key imported (on `page`). */
  ownerConnected: ReleaseWorld
  /** Then Ana and Bo added in the Guardians tab. */
  guardiansAdded: ReleaseWorld
  /** Then Ana confirmed her kit on her guardian page. */
  anaConfirmed: ReleaseWorld
  /** Then Bo, who never checked, was reminded and, 31 days later, named to the owner (Guardians tab open). */
  boOverdue: ReleaseWorld
}>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
  ownerAccount: async ({}, use) => {
    const world = await startReleaseWorld('owner@example.com')
    const { vaultId } = await world.service.admin.createVault({
      account: world.accountId,
      preset: 'standard',
    })
    await use({ world, vaultId })
    await world.close()
  },
  ownerConnected: async ({ ownerAccount, ownApp, page }, use) => {
    const { world, vaultId } = ownerAccount
    await page.goto(ownApp.url)
    await page.getByLabel('Service address').fill(world.service.url)
    await page.getByLabel('API key').fill(world.ownerKey)
    await page.getByRole('button', { name: 'Connect', exact: true }).click()
    await page.getByTestId('vault-card').getByRole('button').first().click()
    await page
      .getByLabel('Words from the owner recovery kit')
      .fill(encodeOwnerKitWords({ vaultKey: generateVaultKey(), vaultId }))
    await page.getByRole('button', { name: 'Import the key' }).click()
    await use(world)
  },
  guardiansAdded: async ({ ownerConnected: world, page }, use) => {
    await expect(page.getByRole('button', { name: 'Owner recovery kit…' })).toBeVisible()
    await page.getByRole('tab', { name: 'Guardians' }).click()
    const form = page.getByRole('form', { name: 'Add guardian' })
    for (const [name, email] of [
      ['Ana Ruiz', 'ana@example.com'],
      ['Bo Chen', 'bo@example.com'],
    ] as const) {
      await form.getByLabel('Name').fill(name)
      await form.getByLabel('E-mail').fill(email)
      await form.getByRole('button', { name: 'Add guardian' }).click()
      await expect(page.getByRole('cell', { name, exact: true })).toBeVisible()
    }
    await use(world)
  },
  anaConfirmed: async ({ guardiansAdded: world, page, browser }, use) => {
    await anaChecks(browser, world, await kitCheckCode(page, 'Ana Ruiz'))
    await use(world)
  },
  boOverdue: async ({ anaConfirmed: world, page }, use) => {
    await world.service.tick()
    await world.mail.waitFor('bo@example.com', (m) => /\/kit-check\/kc_/.test(m.text))
    world.advance(31 * DAY_MS)
    await world.service.tick()
    await world.mail.waitFor(world.ownerEmail, (m) => /Bo Chen/.test(m.text) && /kit/i.test(m.subject))
    await refreshAndOpen(page, 'Guardians')
    await use(world)
  },
})

test.use({ viewport: { width: 1180, height: 900 } })

test('the owner adds guardians: their kits show a check code, registered with the service', async ({
  page,
  ownerConnected: _,
}) => {
  await expect(page.getByRole('button', { name: 'Owner recovery kit…' })).toBeVisible()

  await page.getByRole('tab', { name: 'Guardians' }).click()
  const form = page.getByRole('form', { name: 'Add guardian' })
  for (const [name, email] of [
    ['Ana Ruiz', 'ana@example.com'],
    ['Bo Chen', 'bo@example.com'],
  ]) {
    await form.getByLabel('Name').fill(name!)
    await form.getByLabel('E-mail').fill(email!)
    await form.getByRole('button', { name: 'Add guardian' }).click()
    await expect(page.getByRole('cell', { name: name!, exact: true })).toBeVisible()
  }
  await expect(page.getByTestId('guardian-kit-check')).toHaveText([
    'Kit not confirmed yet',
    'Kit not confirmed yet',
  ])
  await shot(page, '1-guardians-not-yet')
})

test('Ana types the check code from her kit on her guardian page; the owner sees it confirmed', async ({
  browser,
  page,
  guardiansAdded: world,
}) => {
  await page
    .getByRole('row', { name: /Ana Ruiz/ })
    .getByRole('button', { name: /View kit/ })
    .click()
  const kit = page.frameLocator('iframe.kit-frame')
  const code = (await kit.locator('[data-kit-check-code]').innerText()).trim()
  expect(code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]$/)
  await expect(kit.locator('.check-code')).toContainText('not needed for recovery')
  await shot(page, '2-kit-with-code')
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click()

  const invitation = await world.mail.waitFor('ana@example.com', (m) => !!checkLink(m.text))
  const guardian = await browser.newPage({ viewport: { width: 390, height: 844 } })
  await guardian.goto(checkLink(invitation.text)!)
  // A typo first (one character changed): named as such, nothing recorded.
  const typo = `${code.slice(0, -1)}${code.endsWith('0') ? '1' : '0'}`
  await guardian.getByLabel('Check code').fill(typo)
  await guardian.getByRole('button', { name: 'Check my kit' }).click()
  await expect(guardian.locator('body')).toContainText(/typo|mistyped|check the code/i)
  await guardian.getByLabel('Check code').fill(code.toLowerCase())
  await guardian.getByRole('button', { name: 'Check my kit' }).click()
  await expect(guardian.locator('body')).toContainText(/confirmed/i)
  await shot(guardian, '3-guardian-page-confirmed')
  await guardian.close()

  await refreshAndOpen(page, 'Overview')
  const lines = page.getByTestId('readiness-lines-kits')
  await expect(lines).toContainText(/Ana Ruiz: kit confirmed \d{1,2} [A-Z][a-z]{2} \d{4}/)
  await expect(lines).toContainText('Bo Chen: not confirmed yet')
  await lines.scrollIntoViewIfNeeded()
  await shot(page, '4-readiness-confirmed')
})

test('Bo never checks: reminded, then named to the owner by e-mail, in readiness and on the Guardians tab', async ({
  page,
  anaConfirmed: world,
}) => {
  await world.service.tick()
  const reminder = await world.mail.waitFor('bo@example.com', (m) => /\/kit-check\/kc_/.test(m.text))
  expect(reminder.text).not.toContain('ana@example.com')
  world.advance(31 * DAY_MS)
  await world.service.tick()
  const told = await world.mail.waitFor(
    world.ownerEmail,
    (m) => /Bo Chen/.test(m.text) && /kit/i.test(m.subject),
  )
  expect(told.text).toContain('Bo Chen')

  await refreshAndOpen(page, 'Overview')
  const kits = page.getByTestId('readiness-item-kits')
  await expect(kits).toHaveAttribute('data-met', 'false')
  await expect(kits).toContainText('Ask Bo Chen to check their kit')
  await expect(page.getByTestId('readiness-lines-kits')).toContainText(
    /Bo Chen: not confirmed since \d{1,2} [A-Z][a-z]{2} \d{4} — reminded \d{1,2} [A-Z][a-z]{2} \d{4}/,
  )
  await kits.scrollIntoViewIfNeeded()
  await shot(page, '5-readiness-overdue')
  await page.getByRole('tab', { name: 'Guardians' }).click()
  await expect(page.getByRole('row', { name: /Bo Chen/ }).getByTestId('guardian-kit-check')).toContainText(
    'Ask Bo Chen to check their kit',
  )
  await shot(page, '6-guardians-overdue')
})

test("Bo checks his kit from the app's Recovery screen with his words and the reminder's link", async ({
  page,
  boOverdue: world,
  pageErrors: consoleErrors,
}) => {
  await page
    .getByRole('row', { name: /Bo Chen/ })
    .getByRole('button', { name: /View kit/ })
    .click()
  const kit = page.frameLocator('iframe.kit-frame')
  const code = (await kit.locator('[data-kit-check-code]').innerText()).trim()
  await expect(kit.locator('ol.words .w').first()).toBeVisible()
  const words = (await kit.locator('ol.words .w').allInnerTexts()).join(' ')
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click()
  const reminder = await world.mail.waitFor('bo@example.com', (m) => /\/kit-check\/kc_/.test(m.text))
  const link = /https?:\/\/\S+\/kit-check\/kc_[A-Za-z0-9_-]{43}/.exec(reminder.text)![0]

  await page.getByRole('navigation').getByRole('button', { name: 'Recovery' }).click()
  const panel = page.getByTestId('kit-check-panel')
  await panel.locator('summary').click()
  await panel.getByLabel(/Your kit’s words/).fill(words)
  await panel.getByRole('button', { name: 'Show the check code' }).click()
  await expect(panel.getByTestId('kit-check-code')).toHaveText(code)
  await panel.getByLabel(/check my kit/).fill(link)
  await panel.getByRole('button', { name: 'Show and confirm' }).click()
  await expect(panel.getByTestId('kit-check-outcome')).toContainText('now knows you still have this kit')
  await shot(page, '7-app-kit-check')

  await page
    .getByRole('navigation')
    .getByRole('button', { name: /Vaults/ })
    .click()
  await page.getByRole('button', { name: 'Refresh' }).click()
  await page.getByTestId('vault-card').getByRole('button').first().click()
  await page.getByRole('tab', { name: 'Overview' }).click()
  await expect(page.getByTestId('readiness-lines-kits')).toContainText(/Bo Chen: kit confirmed/)
  await expect(page.getByTestId('readiness-item-kits')).not.toContainText('Ask Bo Chen')
  expect(consoleErrors).toEqual([])
})
