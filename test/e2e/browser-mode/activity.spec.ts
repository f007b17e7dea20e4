// The owner's everyday journey and its history: check in, add a guardian, back up a file, then read
// them in the vault's Activity tab (newest first, filtered by kind) and export it as CSV. Then the
// check-in on unlock in Settings: for the service on this computer the app makes the read-and-check-in
// key and keeps it in the keychain; for another service the owner pastes one, and a full-access key is
// refused. Keys live in the OS keychain of this run (scripts/with-keyring.sh).
// Each test builds its own starting state (fixtures), so any runs alone.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { type RunningService, startService } from '../../../src/service'
import { expect, test as journey, type LocalVault } from '../support/fixtures'

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })
const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' })

/** On a vault just made: a monthly check-in switch, a check-in with a note, a guardian, a backup; then Activity. */
async function makeHistory(page: Page, filesDir: string) {
  await page.getByRole('tab', { name: 'Release settings' }).click()
  await page.getByLabel(/Dead man's switch/).check()
  await page.getByLabel('Check in').selectOption('monthly')
  await page.getByRole('button', { name: 'Save release settings' }).click()
  await expect(page.getByTestId('release-saved')).toContainText("Dead man's switch, monthly")

  await page.getByRole('tab', { name: 'Overview' }).click()
  await page.getByLabel('Note (optional)').fill('Back from holiday')
  await page.getByRole('button', { name: 'Check in', exact: true }).click()
  await expect(page.getByTestId('checkin-result')).toContainText('30 days from now')

  await page.getByRole('tab', { name: 'Guardians' }).click()
  const form = page.getByRole('form', { name: 'Add guardian' })
  await form.getByLabel('Name').fill('Alice Martin')
  await form.getByLabel('E-mail').fill('alice@example.com')
  await form.getByRole('button', { name: 'Add guardian' }).click()
  await expect(page.getByRole('cell', { name: 'Alice Martin', exact: true })).toBeVisible()

  await page.getByRole('tab', { name: 'Assets' }).click()
  await page
    .getByLabel('Path of a file or folder on the computer running Vault Desktop')
    .fill(join(filesDir, 'letter-to-my-family.txt'))
  await page.getByRole('button', { name: 'Back up' }).click()
  await expect(page.getByTestId('upload-item').filter({ hasText: 'Stored' })).toHaveCount(1, {
    timeout: 20_000,
  })

  await page.getByRole('tab', { name: 'Activity' }).click()
}

/** Another service, its owner's account with one vault, a full-access and an agent key. */
interface Remote {
  service: RunningService
  humanKey: string
  agentKey: string
}

const test = journey.extend<{
  /** letter-to-my-family.txt in the test's folder. */
  filesDir: string
  /** A first-run vault with its history made (`makeHistory`), open on its Activity tab. */
  historyMade: LocalVault
  remote: Remote
}>({
  filesDir: async ({ workDir }, use) => {
    await writeFile(
      join(workDir, 'letter-to-my-family.txt'),
      'Dear all,\nthe papers are in the blue folder.\n',
    )
    await use(workDir)
  },
  historyMade: async ({ localVault, page, filesDir }, use) => {
    await makeHistory(page, filesDir)
    await use(localVault)
  },
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
  remote: async ({}, use) => {
    const remoteDir = await mkdtemp(join(tmpdir(), 'vault-e2e-activity-svc-'))
    const service = await startService({ dataDir: remoteDir, port: 0 })
    const account = await service.admin.createAccount({ email: 'owner@example.com' })
    const humanKey = account.apiKey
    await service.admin.createVault({ account: account.accountId, preset: 'standard' })
    const agentKey = (await service.admin.createKey({ account: account.accountId, kind: 'agent' })).apiKey
    await use({ service, humanKey, agentKey })
    await service.close()
    await rm(remoteDir, { recursive: true, force: true })
  },
})

test.use({
  appOptions: { secretStore: 'auto' },
  viewport: { width: 1280, height: 860 },
  colorScheme: 'light',
})

test('a check-in, a guardian and a backup appear in the activity history, newest first', async ({
  page,
  localVault: _,
  filesDir,
}) => {
  await makeHistory(page, filesDir)
  const entries = page.getByTestId('activity-entry')
  await expect(entries.first()).toHaveAttribute('data-kind', 'upload')
  await expect(entries).toHaveCount(5)
  await expect(entries.nth(0)).toContainText('Backup finished')
  await expect(entries.nth(0)).toContainText('1 file stored.')
  await expect(entries.nth(0)).toContainText('letter-to-my-family.txt')
  await expect(entries.nth(1)).toContainText('Guardian added')
  await expect(entries.nth(1)).toContainText('Alice Martin <alice@example.com>')
  await expect(entries.nth(2)).toContainText('Checked in')
  await expect(entries.nth(2)).toContainText('Note: Back from holiday')
  await expect(entries.nth(2)).toContainText('By hand')
  await expect(entries.nth(3)).toContainText('Release trigger set')
  await expect(entries.nth(3)).toContainText("Dead man's switch, check in monthly")
  // "Start locally" made the vault: that is where its history begins.
  await expect(entries.nth(4)).toContainText('Vault created')
  // Relative and absolute: "now" and the date with the time.
  await expect(entries.nth(2).locator('time')).toHaveText(/now|minute/)
  await expect(entries.nth(2).locator('time')).toHaveAttribute('datetime', /^\d{4}-\d\d-\d\dT/)
  await expect(page.getByTestId('activity-count')).toHaveText('5 entries')
  await shot(page, 'activity-tab')

  await page.getByLabel('Show', { exact: true }).selectOption({ label: 'Check-ins' })
  await expect(entries).toHaveCount(1)
  await expect(entries.first()).toHaveAttribute('data-kind', 'check-in')
  await page.getByLabel('Show', { exact: true }).selectOption({ label: 'Everything' })
  await expect(entries).toHaveCount(5)
})

test('the history exports as CSV with a header and one row per entry', async ({ page, historyMade: _ }) => {
  const downloading = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Export CSV' }).click()
  const file = await downloading
  const label = (await page.getByRole('heading', { level: 1 }).first().textContent())?.trim() ?? ''
  expect(label).toMatch(/^Vault /)
  expect(file.suggestedFilename()).toMatch(/ - activity \d{4}-\d\d-\d\d\.csv$/)
  expect(file.suggestedFilename().startsWith(`${label} - activity`)).toBe(true)
  const csv = await readFile(await file.path(), 'utf8')
  const lines = csv.trimEnd().split('\r\n')
  expect(lines[0]).toBe('time,kind,source,description,detail')
  expect(lines).toHaveLength(6)
  // Oldest first, as a spreadsheet reads.
  expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual([
    'vault-created',
    'release-configured',
    'check-in',
    'guardian-added',
    'upload',
  ])
  expect(lines[3]).toContain('this computer')
  expect(lines[3]).toContain('(note: Back from holiday)')
  expect(lines[4]).toContain('Guardian added: Alice Martin <alice@example.com>')
  expect(lines[5]).toContain('Uploaded 1 file')
  expect(lines[5]).toContain('letter-to-my-family.txt')
  await expect(page.getByRole('status').filter({ hasText: file.suggestedFilename() })).toBeVisible()
})

test('check-in on unlock: the app makes a read-and-check-in key for its own service and keeps it in the keychain', async ({
  page,
  pageErrors,
  localVault: _,
}) => {
  await nav(page).getByRole('button', { name: 'Settings' }).click()
  const toggle = page.getByLabel('Check in when I unlock this computer')
  await expect(toggle).not.toBeChecked()
  await toggle.check()
  const keyStatus = page.getByTestId('agent-key-status')
  await expect(keyStatus).toContainText(
    /A read-and-check-in key ending in \S{4} was made by the app for the service on this computer and is kept in the system keychain\./,
  )
  await expect(toggle).toBeChecked()
  const panel = page.locator('#unlock-check-in')
  await panel.scrollIntoViewIfNeeded()
  await panel.screenshot({ path: 'test-results/screenshots/settings-unlock-check-in.png' })
  await shot(page, 'settings-unlock-on')

  // Still on after a reload: the setting and the key are kept.
  await page.reload()
  await nav(page).getByRole('button', { name: 'Settings' }).click()
  await expect(page.getByLabel('Check in when I unlock this computer')).toBeChecked()
  await expect(page.getByTestId('agent-key-status')).toBeVisible()

  await page.getByLabel('Check in when I unlock this computer').uncheck()
  await expect(page.getByRole('status').filter({ hasText: 'Turned off' })).toBeVisible()
  await expect(page.getByTestId('agent-key-status')).toHaveCount(0)
  expect(pageErrors).toEqual([])
})

test('another service: a full-access key pasted for unlocking is refused; an sk_agent_ key is kept', async ({
  page,
  pageErrors,
  ownApp,
  remote: { service: remote, humanKey, agentKey },
}) => {
  await page.goto(ownApp.url)
  await page.getByLabel('Service address').fill(remote.url)
  await page.getByLabel('API key').fill(humanKey)
  await page.getByRole('button', { name: 'Connect', exact: true }).click()
  await expect(page.getByTestId('vault-card')).toHaveCount(1)

  await nav(page).getByRole('button', { name: 'Settings' }).click()
  await page.getByLabel('Check in when I unlock this computer').check()
  const keyField = page.getByLabel('Read-and-check-in key (sk_agent_…)')
  await keyField.fill(humanKey)
  await page.getByRole('button', { name: 'Turn on' }).click()
  await expect(page.getByRole('alert')).toContainText(
    'This is a full-access key (it starts with sk_human_): kept for unlocking, it could change or delete the vault.',
  )
  await expect(page.getByRole('alert')).toContainText('paste that one. Nothing was stored.')
  await shot(page, 'settings-unlock-human-key-refused')

  await keyField.fill(agentKey)
  await page.getByRole('button', { name: 'Turn on' }).click()
  await expect(page.getByTestId('agent-key-status')).toHaveText(
    `Your read-and-check-in key ending in ${agentKey.slice(-4)} is kept in the system keychain.`,
  )
  await expect(page.getByLabel('Check in when I unlock this computer')).toBeChecked()
  await shot(page, 'settings-unlock-agent-key')
  expect(pageErrors).toEqual([])
})
