// The app against a Vault Service that keeps its files on Arweave (arlocal here) and names no credits
// page: the delete confirmation says the files stay public and open to a threshold of kits for ever
// (never that the kits stop mattering), Settings says to ask the operator for credits (no dead link),
// and the Release tab offers the one-step check-in link as an opt-in that says its trade-off first.
// Each test starts the network, the service and an app of its own (fixtures), so any runs alone.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { type RunningService, startService } from '../../../src/service'
import { encodeOwnerKitWords, generateVaultKey } from '../../../src/vault-format'
import { startLocalArweave } from '../../service/local-arweave'
import { expect, test as journey } from '../support/fixtures'

/** A service storing on arlocal, an owner's account and its vault (monthly check-ins). */
interface PermanentService {
  service: RunningService
  humanKey: string
  vaultId: string
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })
const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' })

async function connectAndImportKey(
  page: Page,
  appUrl: string,
  { service, humanKey, vaultId }: PermanentService,
) {
  await page.goto(appUrl)
  await page.getByLabel('Service address').fill(service.url)
  await page.getByLabel('API key').fill(humanKey)
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  await page.getByTestId('vault-card').getByRole('button').click()
  await page
    .getByLabel('Words from the owner recovery kit')
    .fill(encodeOwnerKitWords({ vaultKey: generateVaultKey(), vaultId }))
  await page.getByRole('button', { name: 'Import the key' }).click()
  await expect(page.getByRole('button', { name: 'Owner recovery kit…' })).toBeVisible()
}

const test = journey.extend<{
  permanent: PermanentService
  /** The app connected to `permanent`, the vault open with its key imported from an owner kit. */
  keyImported: PermanentService
}>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
  permanent: async ({}, use) => {
    const network = await startLocalArweave('permanent-store-e2e-')
    const serviceDir = await mkdtemp(join(tmpdir(), 'vault-e2e-permanent-'))
    const service = await startService({
      dataDir: serviceDir,
      port: 0,
      blobs: { kind: 'arweave', gateway: network.gateway, walletFile: network.walletFile },
    })
    const account = await service.admin.createAccount({ email: 'permanent-owner@example.com' })
    const humanKey = account.apiKey
    const vaultId = (await service.admin.createVault({ account: account.accountId, preset: 'standard' }))
      .vaultId
    const configured = await fetch(`${service.url}/api/vault/${vaultId}/release/config`, {
      method: 'POST',
      headers: { 'x-api-key': humanKey, 'content-type': 'application/json' },
      body: JSON.stringify({ trigger: 'dead_man_switch', config: { checkInFrequency: 'monthly' } }),
    })
    expect(configured.status).toBe(200)
    await use({ service, humanKey, vaultId })
    await service.close()
    await network.stop()
    await rm(serviceDir, { recursive: true, force: true })
  },
  keyImported: async ({ permanent, page, ownApp }, use) => {
    await connectAndImportKey(page, ownApp.url, permanent)
    await use(permanent)
  },
})

test.use({ viewport: { width: 1280, height: 900 } })

test('connect, and bring the vault key from the owner kit', async ({ page, ownApp, permanent }) => {
  await connectAndImportKey(page, ownApp.url, permanent)
})

test('the delete confirmation on a permanent store: files stay public, the kits keep mattering', async ({
  page,
  keyImported: _,
}) => {
  await page.getByRole('button', { name: 'Delete vault…' }).click()
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByTestId('delete-vault-permanent')).toContainText(
    'deleting the vault does not erase them. The encrypted files stay public for ever',
  )
  await expect(dialog).toContainText("the guardians' kits and your owner kit keep mattering")
  await expect(dialog).not.toContainText('stop mattering')
  await expect(dialog).not.toContainText('can be destroyed')
  await expect(dialog).toContainText('The service forgets')
  await dialog.scrollIntoViewIfNeeded()
  await page.screenshot({ path: 'test-results/screenshots/delete-vault-permanent.png' })
  await dialog.getByRole('button', { name: 'Keep as is' }).click()
  await expect(page.getByRole('dialog')).toHaveCount(0)
  await expect(page.getByRole('button', { name: 'Delete vault…' })).toBeVisible()
})

test('the one-step check-in link is off, and turning it on says the trade-off first', async ({
  page,
  keyImported: { service, humanKey, vaultId },
}) => {
  await page.getByRole('tab', { name: 'Release settings' }).click()
  const panel = page.getByTestId('check-in-links')
  await expect(panel.getByTestId('check-in-links-state')).toContainText('Off (safer)')
  await panel.getByRole('button', { name: 'Put a check-in link in reminders…' }).click()
  const dialog = page.getByRole('dialog')
  await expect(dialog).toContainText('Anyone who can read your mail can check in for you.')
  await shot(page, 'check-in-links-confirm')
  await dialog.getByRole('button', { name: 'Put the link in reminders' }).click()
  await expect(panel.getByTestId('check-in-links-state')).toContainText('On: each reminder e-mail')
  const read = await fetch(`${service.url}/api/vault/${vaultId}`, { headers: { 'x-api-key': humanKey } })
  expect(((await read.json()) as { data: { checkInLinks: boolean } }).data.checkInLinks).toBe(true)
  await panel.getByRole('button', { name: 'Take the link out of reminders' }).click()
  await expect(panel.getByTestId('check-in-links-state')).toContainText('Off (safer)')
})

test('credits: no credits page named, so the owner is told to ask the operator (no link)', async ({
  page,
  keyImported: _,
}) => {
  await nav(page).getByRole('button', { name: 'Settings' }).click()
  await expect(page.getByText('ask the operator of this service')).toBeVisible()
  await expect(page.getByRole('link', { name: /Buy credits/ })).toHaveCount(0)
})
