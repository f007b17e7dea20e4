// The app against a Vault Service it did not start (the test owns it, as a remote service would be):
// connect with a key, the releasing alarm and its cancellation, an agent key's read-only mode, and
// an expired key offering to reconnect. The service's operator commands stand in for time passing.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ConsoleMessage, expect, type Page, test } from '@playwright/test'
import { type RunningService, startService } from '../../../src/service'
import { encodeOwnerKitWords, generateVaultKey } from '../../../src/vault-format'
import { type BrowserModeApp, startBrowserModeApp } from '../support/browser-mode-app'
import { openOwnerKit } from '../support/owner-kit-steps'

test.describe.configure({ mode: 'serial' })

let app: BrowserModeApp
let service: RunningService
let serviceDir: string
let page: Page
let humanKey: string
let agentKey: string
let vaultId: string
const consoleErrors: string[] = []
const shot = (name: string) =>
  page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })
const nav = () => page.getByRole('navigation', { name: 'Main' })

test.beforeAll(async ({ browser }) => {
  serviceDir = await mkdtemp(join(tmpdir(), 'vault-e2e-service-'))
  service = await startService({ dataDir: serviceDir, port: 0 })
  const account = await service.admin.createAccount({ email: 'remote-owner@example.com' })
  humanKey = account.apiKey
  vaultId = (await service.admin.createVault({ account: account.accountId, preset: 'enhanced' })).vaultId
  agentKey = (await service.admin.createKey({ account: account.accountId, kind: 'agent' })).apiKey
  app = await startBrowserModeApp()
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } })
  page.on('console', (message: ConsoleMessage) => {
    // 401s from the revoked-key step are expected answers, not page errors.
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  page.on('pageerror', (error) => consoleErrors.push(error.message))
})

test.afterAll(async () => {
  await page?.close()
  await app?.stop()
  await service?.close()
  await rm(serviceDir, { recursive: true, force: true })
})

test('connect to a vault service with an owner key', async () => {
  await page.goto(app.url)
  await page.getByLabel('Service address').fill(service.url)
  await page.getByLabel('API key').fill('sk_human_not-a-real-key-000')
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  await expect(page.getByRole('alert')).toContainText(
    'did not accept this API key. Check that you copied the whole key',
  )
  await expect(page.getByRole('button', { name: 'Reconnect in Settings' })).toHaveCount(0)
  await shot('connect-wrong-key')
  await page.getByLabel('API key').fill(humanKey)
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  const card = page.getByTestId('vault-card')
  await expect(card).toHaveCount(1)
  await expect(card.getByTestId('vault-credits')).toHaveText('100 credits ($1.00)')
})

test('a vault made elsewhere: its key is imported from the owner recovery kit', async () => {
  await page.getByTestId('vault-card').getByRole('button').click()
  await expect(page.getByText("This device does not hold this vault's key")).toBeVisible()
  await page.getByLabel('Words from the owner recovery kit').fill('these are not the words')
  await page.getByRole('button', { name: 'Import the key' }).click()
  await expect(page.getByRole('alert')).toBeVisible()
  await page
    .getByLabel('Words from the owner recovery kit')
    .fill(encodeOwnerKitWords({ vaultKey: generateVaultKey(), vaultId }))
  await page.getByRole('button', { name: 'Import the key' }).click()
  await expect(page.getByRole('button', { name: 'Owner recovery kit…' })).toBeVisible()
  await openOwnerKit(page)
  await expect(page.getByRole('dialog')).toContainText('whoever holds these words can open the vault')
  await shot('owner-kit')
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click()
  await page.getByRole('button', { name: '← All vaults' }).click()
})

test('a releasing vault is impossible to miss, and cancelling makes it active again', async () => {
  await service.admin.startRelease({ vault: vaultId })
  await page.getByRole('button', { name: 'Refresh' }).click()
  const card = page.getByTestId('vault-card')
  await expect(card.getByTestId('state-badge')).toHaveText('Releasing')
  await expect(card).toContainText('30 days left to cancel')
  await expect(nav()).toContainText('1 releasing')
  await shot('vaults-releasing')
  await card.getByRole('button').click()
  for (const tab of ['Overview', 'Guardians', 'Assets']) {
    await page.getByRole('tab', { name: tab }).click()
    await expect(page.getByTestId('releasing-banner')).toContainText('30 days left to cancel')
  }
  await shot('vault-releasing-banner')
  await page.getByTestId('releasing-banner').getByRole('button', { name: 'Cancel release' }).click()
  const dialog = page.getByRole('dialog')
  await expect(dialog).toContainText('The vault goes back to active')
  await shot('cancel-release-confirm')
  await dialog.getByRole('button', { name: 'Cancel release' }).click()
  await expect(page.getByTestId('releasing-banner')).toHaveCount(0)
  await expect(page.getByTestId('state-badge').first()).toHaveText('Active')
  await expect(nav()).not.toContainText('releasing')
})

test('an agent key can read and check in only: every write control says why it is disabled', async () => {
  await nav().getByRole('button', { name: 'Settings' }).click()
  await page.getByRole('button', { name: 'Connect another service…' }).click()
  await page.locator('#add-url').fill(service.url)
  await page.locator('#add-key').fill(agentKey)
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  await expect(page.getByTestId('connection').filter({ hasText: 'In use' })).toContainText('agent key')
  await shot('settings-connections')

  await nav().getByRole('button', { name: 'Vaults' }).click()
  const reason = 'This key can read and check in only'
  await expect(page.getByText(reason)).toBeVisible()
  await expect(page.getByRole('button', { name: 'Create vault' })).toBeDisabled()
  await page.getByTestId('vault-card').getByRole('button').click()

  await page.getByRole('tab', { name: 'Guardians' }).click()
  await expect(page.getByTestId('read-only-note')).toContainText(reason)
  await expect(page.getByRole('button', { name: 'Add guardian' })).toBeDisabled()
  await page.getByRole('tab', { name: 'Heirs' }).click()
  await expect(page.getByRole('button', { name: 'Add heir' })).toBeDisabled()
  await page.getByRole('tab', { name: 'Assets' }).click()
  await expect(page.getByTestId('read-only-note')).toContainText(reason)
  await expect(page.getByRole('button', { name: 'Back up' })).toBeDisabled()
  await page.getByRole('tab', { name: 'Release settings' }).click()
  await expect(page.getByRole('button', { name: 'Save release settings' })).toBeDisabled()
  await expect(page.getByTestId('read-only-note')).toContainText(reason)
  await shot('agent-read-only')
})

test('a revoked key: the error says so and offers to reconnect', async () => {
  await service.admin.revokeKey({ key: agentKey })
  await nav().getByRole('button', { name: 'Vaults' }).click()
  await page.getByRole('button', { name: 'Refresh' }).click()
  const alert = page.getByRole('alert').filter({ hasText: 'did not accept this API key' })
  await expect(alert).toBeVisible()
  await expect(alert.getByRole('button', { name: 'Reconnect in Settings' })).toBeVisible()
  await shot('revoked-key')
  await alert.getByRole('button', { name: 'Reconnect in Settings' }).click()
  await expect(page.getByRole('heading', { name: 'Connections' })).toBeVisible()
  // The only console errors allowed are the browser's own log lines for failed requests: there are none,
  // because every request goes over the bridge and failures come back as values.
  expect(consoleErrors).toEqual([])
})
