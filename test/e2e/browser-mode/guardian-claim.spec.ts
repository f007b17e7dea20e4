// A guardian claim reaches the whole circle (issue 29, point 3), end to end: a vault released by guardian
// claims (2 of 3), three guardians who accepted. Ana claims on her claim page (the link in her invitation,
// at a phone's size); the owner and the two other guardians get the e-mail (nothing in it opens anything);
// the owner's app, connected to the same service, raises the alarm; every guardian's claim page shows the
// claim with Ana's name. Then Bo's claim starts the release: every guardian is told when the heirs get
// access, and the pages say so. Screenshots: test-results/screenshots/guardian-claim-*.png.
import { expect, type Page, test } from '@playwright/test'
import { type Mail, type ReleaseWorld, startReleaseWorld } from '../../release/release-fixture'
import { type BrowserModeApp, startBrowserModeApp } from '../support/browser-mode-app'
import { collectPageErrors } from '../support/page-steps'

test.describe.configure({ mode: 'serial' })

let world: ReleaseWorld
let app: BrowserModeApp
let page: Page
let vaultId: string
const invitations = new Map<string, Mail>()
const consoleErrors: string[] = []
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

async function api(method: string, path: string, json?: unknown) {
  const response = await fetch(`${world.service.url}/api${path}`, {
    method,
    headers: { 'x-api-key': world.ownerKey, ...(json ? { 'content-type': 'application/json' } : {}) },
    ...(json ? { body: JSON.stringify(json) } : {}),
  })
  expect(response.status, `${method} ${path}`).toBeLessThan(300)
  return (await response.json()).data
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(60_000)
  world = await startReleaseWorld('owner@example.com')
  vaultId = (await world.service.admin.createVault({ account: world.accountId, preset: 'standard' })).vaultId
  await api('POST', `/vault/${vaultId}/release/config`, { trigger: 'guardian_claim' })
  for (const [name, email] of GUARDIANS) {
    await api('POST', `/vault/${vaultId}/guardian`, { name, email })
    const invitation = await world.mail.waitFor(email, (m) => /\/guardian\/gt_/.test(m.text))
    invitations.set(email, invitation)
    expect((await fetch(linkIn(invitation, 'accept'), { method: 'POST' })).status).toBe(200)
  }
  app = await startBrowserModeApp()
  page = await browser.newPage({ viewport: { width: 1180, height: 900 } })
  collectPageErrors(page, consoleErrors)
  await page.goto(app.url)
  await page.getByLabel('Service address').fill(world.service.url)
  await page.getByLabel('API key').fill(world.ownerKey)
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  await expect(page.getByTestId('vault-card')).toBeVisible()
})

test.afterAll(async () => {
  await page?.close()
  await app?.stop()
  await world?.close()
})

test('Ana claims on her page: it shows where the claim stands', async ({ browser }) => {
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

test('the owner and the two other guardians get the e-mail; Ana does not; nothing in it opens the vault', async () => {
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

test("the owner's app raises the alarm", async () => {
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
}) => {
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
