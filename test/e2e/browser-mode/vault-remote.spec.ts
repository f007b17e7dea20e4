// The app against a Vault Service it did not start (the test owns it, as a remote service would be):
// connect with a key, the releasing alarm and its cancellation, an agent key's read-only mode, and
// an expired key offering to reconnect. The service's operator commands stand in for time passing.
// Each test starts a service of its own and builds the steps before it (fixtures), so any runs alone.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { type RunningService, startService } from '../../../src/service'
import { encodeOwnerKitWords, generateVaultKey } from '../../../src/vault-format'
import { expect, test as journey } from '../support/fixtures'
import { openOwnerKit } from '../support/owner-kit-steps'

/** A service the app did not start, with an owner's account, its vault, and an agent key. */
interface Remote {
  service: RunningService
  humanKey: string
  agentKey: string
  vaultId: string
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })
const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' })

async function connectWithOwnerKey(page: Page, appUrl: string, { service, humanKey }: Remote) {
  await page.goto(appUrl)
  await page.getByLabel('Service address').fill(service.url)
  await page.getByLabel('API key').fill('sk_human_not-a-real-key-000')
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  await expect(page.getByRole('alert')).toContainText(
    'did not accept this API key. Check that you copied the whole key',
  )
  await expect(page.getByRole('button', { name: 'Reconnect in Settings' })).toHaveCount(0)
  await shot(page, 'connect-wrong-key')
  await page.getByLabel('API key').fill(humanKey)
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  const card = page.getByTestId('vault-card')
  await expect(card).toHaveCount(1)
  await expect(card.getByTestId('vault-credits')).toHaveText('100 credits ($1.00)')
}

async function importKeyFromOwnerKit(page: Page, { vaultId }: Remote) {
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
  await shot(page, 'owner-kit')
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click()
  await page.getByRole('button', { name: '← All vaults' }).click()
}

async function checkAgentKeyIsReadOnly(page: Page, { service, agentKey }: Remote) {
  await nav(page).getByRole('button', { name: 'Settings' }).click()
  await page.getByRole('button', { name: 'Connect another service…' }).click()
  await page.locator('#add-url').fill(service.url)
  await page.locator('#add-key').fill(agentKey)
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  await expect(page.getByTestId('connection').filter({ hasText: 'In use' })).toContainText('agent key')
  await shot(page, 'settings-connections')

  await nav(page).getByRole('button', { name: 'Vaults' }).click()
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
  await shot(page, 'agent-read-only')
}

const test = journey.extend<{
  remote: Remote
  /** The app connected to `remote` with the owner's key (after a wrong key was refused). */
  connected: Remote
  /** `connected` with the vault's key imported from an owner kit, back on the list of vaults. */
  keyImported: Remote
  /** `keyImported`, then the agent key connected and checked read-only in every tab. */
  agentConnected: Remote
}>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
  remote: async ({}, use) => {
    const serviceDir = await mkdtemp(join(tmpdir(), 'vault-e2e-service-'))
    const service = await startService({ dataDir: serviceDir, port: 0 })
    const account = await service.admin.createAccount({ email: 'remote-owner@example.com' })
    const humanKey = account.apiKey
    const vaultId = (await service.admin.createVault({ account: account.accountId, preset: 'enhanced' }))
      .vaultId
    const agentKey = (await service.admin.createKey({ account: account.accountId, kind: 'agent' })).apiKey
    await use({ service, humanKey, agentKey, vaultId })
    await service.close()
    await rm(serviceDir, { recursive: true, force: true })
  },
  connected: async ({ remote, page, ownApp }, use) => {
    await connectWithOwnerKey(page, ownApp.url, remote)
    await use(remote)
  },
  keyImported: async ({ connected, page }, use) => {
    await importKeyFromOwnerKit(page, connected)
    await use(connected)
  },
  agentConnected: async ({ keyImported, page }, use) => {
    await checkAgentKeyIsReadOnly(page, keyImported)
    await use(keyImported)
  },
})

test.use({ viewport: { width: 1280, height: 860 } })

test('connect to a vault service with an owner key', async ({ page, ownApp, remote }) => {
  await connectWithOwnerKey(page, ownApp.url, remote)
})

test('a vault made elsewhere: its key is imported from the owner recovery kit', async ({
  page,
  connected,
}) => {
  await importKeyFromOwnerKit(page, connected)
})

test('a releasing vault is impossible to miss, and cancelling makes it active again', async ({
  page,
  keyImported: { service, vaultId },
}) => {
  await service.admin.startRelease({ vault: vaultId })
  await page.getByRole('button', { name: 'Refresh' }).click()
  const card = page.getByTestId('vault-card')
  await expect(card.getByTestId('state-badge')).toHaveText('Releasing')
  await expect(card).toContainText('30 days left to cancel')
  await expect(nav(page)).toContainText('1 releasing')
  await shot(page, 'vaults-releasing')
  await card.getByRole('button').click()
  for (const tab of ['Overview', 'Guardians', 'Assets']) {
    await page.getByRole('tab', { name: tab }).click()
    await expect(page.getByTestId('releasing-banner')).toContainText('30 days left to cancel')
  }
  await shot(page, 'vault-releasing-banner')
  await page.getByTestId('releasing-banner').getByRole('button', { name: 'Cancel release' }).click()
  const dialog = page.getByRole('dialog')
  await expect(dialog).toContainText('The vault goes back to active')
  await shot(page, 'cancel-release-confirm')
  await dialog.getByRole('button', { name: 'Cancel release' }).click()
  await expect(page.getByTestId('releasing-banner')).toHaveCount(0)
  await expect(page.getByTestId('state-badge').first()).toHaveText('Active')
  await expect(nav(page)).not.toContainText('releasing')
})

test('an agent key can read and check in only: every write control says why it is disabled', async ({
  page,
  keyImported,
}) => {
  await checkAgentKeyIsReadOnly(page, keyImported)
})

test('a revoked key: the error says so and offers to reconnect', async ({
  page,
  pageErrors,
  agentConnected: { service, agentKey },
}) => {
  await service.admin.revokeKey({ key: agentKey })
  await nav(page).getByRole('button', { name: 'Vaults' }).click()
  await page.getByRole('button', { name: 'Refresh' }).click()
  const alert = page.getByRole('alert').filter({ hasText: 'did not accept this API key' })
  await expect(alert).toBeVisible()
  await expect(alert.getByRole('button', { name: 'Reconnect in Settings' })).toBeVisible()
  await shot(page, 'revoked-key')
  await alert.getByRole('button', { name: 'Reconnect in Settings' }).click()
  await expect(page.getByRole('heading', { name: 'Connections' })).toBeVisible()
  // The only console errors allowed are the browser's own log lines for failed requests: there are none,
  // because every request goes over the bridge and failures come back as values.
  expect(pageErrors).toEqual([])
})
