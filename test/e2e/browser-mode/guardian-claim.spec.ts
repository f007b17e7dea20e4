// A guardian claim reaches the whole circle (issue 29, point 3), end to end: a vault released by guardian
// claims (2 of 3), three guardians who accepted. Ana claims on her claim page (the link in her invitation,
// at a phone's size); the owner and the two other guardians get the e-mail (nothing in it opens anything);
// the owner's app, connected to the same service, raises the alarm; every guardian's claim page shows the
// claim with Ana's name. Then Bo's claim starts the release: every guardian is told when the heirs get
// access, and the pages say so. Screenshots: test-results/screenshots/guardian-claim-*.png.
import type { Browser, Page } from '@playwright/test'
import { type Mail, type ReleaseWorld, startReleaseWorld } from '../../release/release-fixture'
import { expect, test as journey } from '../support/fixtures'

const shot = (p: Page, name: string) =>
  p.screenshot({ path: `test-results/screenshots/guardian-claim-${name}.png`, fullPage: true })

const GUARDIANS = [
  ['Ana Ruiz', 'ana@example.com'],
  ['Bo Chen', 'bo@example.com'],
  ['Cy Okafor', 'cy@example.com'],
] as const

const linkIn = (mail: Mail, action: 'accept' | 'claim') => {
  const link = new RegExp(`https?://\\S+/guardian/gt_[A-Za-z0-9_-]+/${action}`).exec(mail.text)?.[0]
  if (!link) throw new Error(`no ${action} link in the mail to ${mail.to.join(', ')}`)
  return link
}

/** Nothing in a circle e-mail opens anything: no personal link, no token of any kind. */
function expectNothingThatOpens(mail: Mail) {
  expect(mail.text).not.toContain('/guardian/')
  expect(mail.text).not.toMatch(/\b(gt|hk|ck|kc|sk_human|sk_agent)_[A-Za-z0-9]{8}/)
}

async function api(world: ReleaseWorld, method: string, path: string, json?: unknown) {
  const response = await fetch(`${world.service.url}/api${path}`, {
    method,
    headers: { 'x-api-key': world.ownerKey, ...(json ? { 'content-type': 'application/json' } : {}) },
    ...(json ? { body: JSON.stringify(json) } : {}),
  })
  expect(response.status, `${method} ${path}`).toBeLessThan(300)
  return (await response.json()).data
}

/** A vault released by guardian claims (2 of 3), its three guardians invited and accepted. */
interface Circle {
  world: ReleaseWorld
  vaultId: string
  invitations: Map<string, Mail>
}

/** Ana claims on her claim page, as her invitation's link opens it. */
async function anaClaims(browser: Browser, circle: Circle): Promise<void> {
  const ana = await browser.newPage({ viewport: { width: 390, height: 844 } })
  await ana.goto(linkIn(circle.invitations.get('ana@example.com')!, 'claim'))
  await ana.getByRole('button', { name: 'Claim a release' }).click()
  await expect(ana.getByRole('heading', { name: 'Claim recorded' })).toBeVisible()
  await ana.close()
}

const test = journey.extend<{
  circle: Circle
  /** Ana has claimed (the owner's app not started). */
  anaClaimed: Circle
  /** The owner's app connected to the service (on `page`), then Ana claimed. */
  ownerWatching: Circle
}>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
  circle: async ({}, use) => {
    const world = await startReleaseWorld('owner@example.com')
    const vaultId = (await world.service.admin.createVault({ account: world.accountId, preset: 'standard' }))
      .vaultId
    await api(world, 'POST', `/vault/${vaultId}/release/config`, { trigger: 'guardian_claim' })
    const invitations = new Map<string, Mail>()
    for (const [name, email] of GUARDIANS) {
      await api(world, 'POST', `/vault/${vaultId}/guardian`, { name, email })
      const invitation = await world.mail.waitFor(email, (m) => /\/guardian\/gt_/.test(m.text))
      invitations.set(email, invitation)
      expect((await fetch(linkIn(invitation, 'accept'), { method: 'POST' })).status).toBe(200)
    }
    await use({ world, vaultId, invitations })
    await world.close()
  },
  anaClaimed: async ({ circle, browser }, use) => {
    await anaClaims(browser, circle)
    await use(circle)
  },
  ownerWatching: async ({ circle, ownApp, page, browser }, use) => {
    await page.goto(ownApp.url)
    await page.getByLabel('Service address').fill(circle.world.service.url)
    await page.getByLabel('API key').fill(circle.world.ownerKey)
    await page.getByRole('button', { name: 'Connect', exact: true }).click()
    await expect(page.getByTestId('vault-card')).toBeVisible()
    await anaClaims(browser, circle)
    await use(circle)
  },
})

test.use({ viewport: { width: 1180, height: 900 } })

test('Ana claims on her page: it shows where the claim stands', async ({ browser, circle }) => {
  const { invitations } = circle
  const ana = await browser.newPage({ viewport: { width: 390, height: 844 } })
  await ana.goto(linkIn(invitations.get('ana@example.com')!, 'claim'))
  await expect(ana.locator('body')).toContainText('Where it stands: no guardian has claimed a release.')
  await shot(ana, '1-ana-before')
  await ana.getByRole('button', { name: 'Claim a release' }).click()
  await expect(ana.getByRole('heading', { name: 'Claim recorded' })).toBeVisible()
  await expect(ana.locator('body')).toContainText(/1 of 2 guardians have claimed: .?Ana Ruiz.? on /)
  await expect(ana.locator('body')).toContainText(
    "Guardians' names are shown only to the guardians of this vault",
  )
  await shot(ana, '2-ana-claimed')
  await ana.close()
})

test('the owner and the two other guardians get the e-mail; Ana does not; nothing in it opens the vault', async ({
  anaClaimed,
}) => {
  const { world } = anaClaimed
  const owner = await world.mail.waitFor('owner@example.com', (m) => m.text.includes('claimed a release'))
  expect(owner.text).toContain('claimed a release of your vault')
  expect(owner.text).toContain('1 of the 2 guardian claims needed')
  expect(owner.text).toContain('Cancel release')
  expect(owner.text).toContain('En espa')
  expectNothingThatOpens(owner)
  for (const email of ['bo@example.com', 'cy@example.com']) {
    const told = await world.mail.waitFor(email, (m) => m.text.includes('claimed a release'))
    expect(told.text).toContain('claimed a release of the vault of owner@example.com')
    expect(told.text).toContain('A release starts when 2 guardians have claimed')
    expectNothingThatOpens(told)
  }
  expect(world.mail.to('ana@example.com').filter((m) => m.text.includes('claimed a release'))).toEqual([])
})

test("the owner's app raises the alarm", async ({ page, ownerWatching: _ }) => {
  await page.getByRole('button', { name: 'Refresh' }).click()
  const alarm = page.getByTestId('toast').filter({ hasText: 'claimed' })
  await expect(alarm).toContainText(/Ana Ruiz.? claimed/)
  await expect(alarm).toContainText('1 of 2 claims needed')
  await expect(alarm).toContainText('If you are well, talk to your guardians now')
  await expect(page.getByTestId('card-claim')).toContainText(
    /Ana Ruiz.? claimed a release: 1 of 2 guardian claims needed/,
  )
  await shot(page, '3-owner-alarm')
  await page.getByTestId('vault-card').getByRole('button').first().click()
  const banner = page.getByTestId('claim-banner')
  await expect(banner).toContainText('A guardian says you can no longer act.')
  await expect(banner).toContainText(
    /Ana Ruiz.? claimed a release of this vault on .*1 of 2 guardian claims needed/,
  )
  await shot(page, '3b-owner-vault-banner')
  await page.getByRole('button', { name: '← All vaults' }).click()
})

test("every guardian's page shows the claim; Bo's claim starts the release and the pages say until when", async ({
  browser,
  page,
  ownerWatching,
  pageErrors: consoleErrors,
}) => {
  const { world, invitations } = ownerWatching
  const guardian = await browser.newPage({ viewport: { width: 390, height: 844 } })
  for (const [, email] of GUARDIANS) {
    await guardian.goto(linkIn(invitations.get(email)!, 'claim'))
    await expect(guardian.locator('body')).toContainText(/1 of 2 guardians have claimed: .?Ana Ruiz.? on /)
  }
  await guardian.goto(linkIn(invitations.get('bo@example.com')!, 'claim'))
  await shot(guardian, '4-bo-sees-ana')
  await guardian.getByRole('button', { name: 'Claim a release' }).click()
  await expect(guardian.getByRole('heading', { name: 'Release started' })).toBeVisible()
  await expect(guardian.locator('body')).toContainText('a release is under way. The heirs get access on')
  await shot(guardian, '5-bo-release-started')

  for (const [, email] of GUARDIANS) {
    const told = await world.mail.waitFor(email, (m) =>
      m.text.includes('It started because enough guardians claimed it'),
    )
    expect(told.text).toContain('contestation period')
    expectNothingThatOpens(told)
  }
  await world.mail.waitFor('owner@example.com', (m) => m.text.includes('These guardians claimed it'))

  await guardian.goto(linkIn(invitations.get('cy@example.com')!, 'claim'))
  await expect(guardian.locator('body')).toContainText('a release is under way')
  await expect(guardian.getByRole('button', { name: 'Claim a release' })).toHaveCount(0)
  await shot(guardian, '6-cy-under-way')
  await guardian.close()

  await page.getByRole('button', { name: 'Refresh' }).click()
  await page.getByTestId('vault-card').getByRole('button').first().click()
  await expect(page.getByTestId('releasing-banner')).toBeVisible()
  await shot(page, '7-owner-releasing')
  expect(consoleErrors).toEqual([])
})
