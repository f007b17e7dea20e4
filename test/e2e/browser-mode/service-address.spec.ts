// A service address typed the way people write it, without http://: the first-run form and the
// "Connect another service" form both accept "127.0.0.1:<port>" and connect to the real local service.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { type RunningService, startService } from '../../../src/service'
import { expect, test as journey } from '../support/fixtures'

interface ServiceAccount {
  service: RunningService
  port: string
  accountId: string
  humanKey: string
}

/** What the page throws (uncaught exceptions only, as this file always counted). */
function watchPageErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  return errors
}

const test = journey.extend<{
  /** A service of the test's own with one account holding one vault. */
  account: ServiceAccount
  /** `ownApp` connected to that account on first run, typed as 127.0.0.1:<port>. */
  connected: ServiceAccount
}>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
  account: async ({}, use) => {
    const serviceDir = await mkdtemp(join(tmpdir(), 'vault-e2e-address-'))
    const service = await startService({ dataDir: serviceDir, port: 0 })
    const created = await service.admin.createAccount({ email: 'address-owner@example.com' })
    await service.admin.createVault({ account: created.accountId, preset: 'standard' })
    await use({
      service,
      port: new URL(service.url).port,
      accountId: created.accountId,
      humanKey: created.apiKey,
    })
    await service.close()
    await rm(serviceDir, { recursive: true, force: true })
  },
  connected: async ({ account, ownApp, page }, use) => {
    await page.goto(ownApp.url)
    await page.getByLabel('Service address').fill(`127.0.0.1:${account.port}`)
    await page.getByLabel('API key').fill(account.humanKey)
    await page.getByRole('button', { name: 'Connect', exact: true }).click()
    await expect(page.getByTestId('vault-card')).toHaveCount(1)
    await use(account)
  },
})

test.use({ viewport: { width: 1280, height: 860 } })

test('first run: 127.0.0.1:<port> without a scheme connects', async ({ account, page, ownApp: app }) => {
  const { port, humanKey } = account
  await page.goto(app.url)
  await page.getByLabel('Service address').fill(`127.0.0.1:${port}`)
  await page.getByLabel('API key').fill(humanKey)
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  await expect(page.getByTestId('vault-card')).toHaveCount(1)
})

test('settings: another connection typed as localhost:<port> is stored with http://', async ({
  page,
  connected,
}) => {
  const { service, accountId, port } = connected
  const pageErrors = watchPageErrors(page)
  const otherKey = (await service.admin.createKey({ account: accountId, kind: 'agent' })).apiKey
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click()
  await page.getByRole('button', { name: 'Connect another service…' }).click()
  await page.locator('#add-url').fill(`localhost:${port}`)
  await page.locator('#add-key').fill(otherKey)
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  const inUse = page.getByTestId('connection').filter({ hasText: 'In use' })
  await expect(inUse).toContainText('agent key')
  await expect(inUse).toContainText(`http://localhost:${port}`)
  expect(pageErrors).toEqual([])
})
