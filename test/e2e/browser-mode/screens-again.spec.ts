// Issue 30, the owner's screens tried again: each test is one point a newcomer met, on an app of its
// own, so any of them runs alone.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import type { Page } from '@playwright/test'
import { startService } from '../../../src/service'
import { SSS_PRESET_SHAPE } from '../../../src/shared/api'
import {
  collectBytes,
  encodeShareWords,
  encryptStream,
  generateVaultKey,
  splitVaultKey,
} from '../../../src/vault-format'
import { type BrowserModeApp, startBrowserModeApp } from '../support/browser-mode-app'
import { expect, test } from '../support/fixtures'
import { openOwnerKit } from '../support/owner-kit-steps'
import { collectPageErrors, startLocally } from '../support/page-steps'

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })

test('first run: an address without a domain is the owner’s to fix, said by its field; the local key is not typed again', async ({
  browser,
  ownApp: app,
}) => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  const errors: string[] = []
  collectPageErrors(page, errors)
  await page.goto(app.url)
  const field = page.getByLabel('Your e-mail address')
  await field.fill('owner@example')
  await page.getByRole('button', { name: 'Start locally' }).click()
  await expect(page.getByRole('alert')).toHaveText('Enter a valid e-mail address, like name@example.com')
  await expect(field).toHaveAttribute('aria-invalid', 'true')
  await expect(page.getByText('The app sent an invalid request')).toHaveCount(0)
  // No keychain here: the local service's key is made again at each start, nothing to type.
  const local = page.locator('form').filter({ has: field })
  await expect(local).toContainText('hands the app a new one at every start')
  await expect(local).not.toContainText('you will enter the key again')
  await shot(page, 'first-run-email')
  await field.fill('owner@example.com')
  await expect(page.getByRole('alert')).toHaveCount(0)
  await page.getByRole('button', { name: 'Start locally' }).click()
  await expect(page.getByRole('heading', { name: /^Vault /, level: 1 })).toBeVisible({ timeout: 20_000 })
  await page.getByRole('tab', { name: 'Activity' }).click()
  await expect(page.getByRole('table')).toContainText('Vault created')
  await page.close()
  expect(errors).toEqual([])
})

test('dark mode: a disabled button looks switched off, not like a paler button to press', async ({
  browser,
  ownApp: app,
}) => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' })
  await page.goto(app.url)
  await startLocally(page)
  await page.getByRole('tab', { name: 'Assets' }).click()
  const backUp = page.getByRole('button', { name: 'Back up' })
  await expect(backUp).toBeDisabled()
  const look = () =>
    backUp.evaluate((el) => {
      const style = getComputedStyle(el)
      return { background: style.backgroundColor, color: style.color, opacity: style.opacity }
    })
  const off = await look()
  await page.getByLabel('Path of a file or folder on the computer running Vault Desktop').fill('/tmp')
  await expect(backUp).toBeEnabled()
  const on = await look()
  expect(off.background).not.toBe(on.background)
  // The disabled one wears the page's neutral surface, not the accent at half strength.
  const surface = await page.evaluate(() => {
    const probe = document.createElement('div')
    probe.style.background = 'var(--surface-2)'
    document.body.append(probe)
    const value = getComputedStyle(probe).backgroundColor
    probe.remove()
    return value
  })
  expect(off.background).toBe(surface)
  expect(off.opacity).toBe('1')
  await page.getByLabel('Path of a file or folder on the computer running Vault Desktop').fill('')
  await shot(page, 'dark-disabled-button')
  await page.close()
})

test('release settings of a new vault: no trigger looks chosen, the tab says none is set, and Save waits for a choice', async ({
  browser,
  ownApp: app,
}) => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  await page.goto(app.url)
  await startLocally(page)
  await page.getByRole('tab', { name: 'Release settings' }).click()
  await expect(page.getByTestId('release-not-set')).toContainText('No release trigger is set yet')
  for (const name of [/Dead man's switch/, /^Manual/, /Guardian claim/]) {
    await expect(page.getByLabel(name)).not.toBeChecked()
  }
  const save = page.getByRole('button', { name: 'Save release settings' })
  await expect(save).toBeDisabled()
  await shot(page, 'release-not-set')
  await page.getByLabel(/^Manual/).check()
  await expect(save).toBeEnabled()
  await save.click()
  await expect(page.getByTestId('release-saved')).toContainText('Saved: Manual.')
  await expect(page.getByTestId('release-not-set')).toHaveCount(0)
  await page.close()
})

test('browser mode: when the backend stops, the page says so at once and stops offering stale screens', async ({
  browser,
  ownApp: app,
}) => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  const errors: string[] = []
  collectPageErrors(page, errors)
  await page.goto(app.url)
  await startLocally(page)
  await app.stop()
  const banner = page.getByTestId('backend-lost')
  await expect(banner).toContainText('Lost the connection to the Vault Desktop backend.')
  await expect(banner).toContainText('open the new link it prints')
  // The vault screen below can no longer be used: nothing in it takes a click.
  await expect(page.locator('main.content')).toHaveAttribute('inert', '')
  await expect(page.getByRole('tab', { name: 'Assets' }).click({ timeout: 1500 })).rejects.toThrow()
  await expect(page.getByRole('tab', { name: 'Overview' })).toHaveAttribute('aria-selected', 'true')
  await shot(page, 'backend-lost')
  await page.close()
  expect(errors.filter((e) => !e.includes('WebSocket'))).toEqual([])
})

test('the smallest window (820×560): Start locally comes first, the vault tabs keep one row, the owner kit dialog keeps its buttons in view', async ({
  browser,
  ownApp: app,
}) => {
  const page = await browser.newPage({ viewport: { width: 820, height: 560 } })
  await page.goto(app.url)
  const local = page.getByRole('button', { name: 'Start locally' })
  const connect = page.getByRole('button', { name: 'Connect' })
  const [localBox, connectBox] = [(await local.boundingBox())!, (await connect.boundingBox())!]
  // Before it: above it, or on the same row to its left.
  expect(localBox.y < connectBox.y || (localBox.y === connectBox.y && localBox.x < connectBox.x)).toBe(true)
  await shot(page, 'small-first-run')
  await startLocally(page)

  const tops = await page
    .getByRole('tab')
    .evaluateAll((tabs) => tabs.map((t) => Math.round(t.getBoundingClientRect().top)))
  expect(tops).toHaveLength(6)
  expect(new Set(tops).size).toBe(1)

  await openOwnerKit(page)
  const dialog = page.getByRole('dialog')
  await expect(page.frameLocator('iframe.kit-frame').locator('ol.words .w').first()).toBeVisible()
  for (const name of ['Close', /^Download/, 'I have saved it']) {
    const button = dialog.getByRole('button', { name, exact: typeof name === 'string' })
    const box = (await button.boundingBox())!
    expect(box.y + box.height, String(name)).toBeLessThanOrEqual(560)
    expect(box.y, String(name)).toBeGreaterThanOrEqual(0)
  }
  // The dialog does not scroll: only the kit's page inside its frame does.
  expect(await dialog.evaluate((d) => d.scrollHeight <= d.clientHeight + 1)).toBe(true)
  await page.screenshot({ path: 'test-results/screenshots/small-owner-kit.png' })
  await page.close()
})

test('the owner kit asks first, and its word check marks the wrong word', async ({
  browser,
  ownApp: app,
}) => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  await page.goto(app.url)
  await startLocally(page)
  await page.getByRole('button', { name: 'Owner recovery kit…' }).click()
  const gate = page.getByRole('dialog', { name: 'Show the vault key?' })
  await expect(gate).toContainText('whoever sees its words can open every file')
  await expect(page.locator('iframe.kit-frame')).toHaveCount(0)
  await gate.getByLabel(/^To show it, type the vault's name: /).fill('my vault')
  await gate.getByRole('button', { name: 'Show the owner kit' }).click()
  await expect(gate.getByRole('alert')).toContainText("Type the vault's name exactly as shown")
  await shot(page, 'owner-kit-gate')
  await page.keyboard.press('Escape')

  await openOwnerKit(page)
  await expect(page.getByTestId('owner-kit-confirmed-by')).toContainText("after you typed the vault's name")
  const kitWords = page.frameLocator('iframe.kit-frame').locator('ol.words .w')
  await expect(kitWords.first()).toBeVisible()
  const words = await kitWords.allTextContents()
  await page.getByRole('dialog').getByRole('button', { name: 'I have saved it', exact: true }).click()
  const check = page.getByRole('dialog')
  await expect(check.getByText(/^Word \d+ of \d+$/).first()).toBeVisible()
  const labels = await check.getByText(/^Word \d+ of \d+$/).allTextContents()
  for (const [i, label] of labels.entries()) {
    const word = words[Number(/Word (\d+)/.exec(label)?.[1]) - 1]!
    await check.getByLabel(label).fill(i === 1 ? `${word}x` : word)
  }
  await check.getByRole('button', { name: 'Confirm' }).click()
  await expect(check.getByLabel(labels[1]!)).toHaveAttribute('aria-invalid', 'true')
  await expect(check.getByLabel(labels[0]!)).not.toHaveAttribute('aria-invalid', 'true')
  await shot(page, 'owner-kit-wrong-word')
  await page.close()
})

test('the overview at 1280×800 shows the state, the next step and the check-in without scrolling; the rarely used sit apart', async ({
  browser,
  ownApp: app,
}) => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  await page.goto(app.url)
  await startLocally(page)
  await page.getByRole('tab', { name: 'Release settings' }).click()
  await page.getByLabel(/Dead man's switch/).check()
  await page.getByRole('button', { name: 'Save release settings' }).click()
  await expect(page.getByTestId('release-saved')).toBeVisible()
  await page.getByRole('tab', { name: 'Overview' }).click()
  const head = page.getByRole('region', { name: 'Where this vault stands' })
  await expect(head).toContainText('Active')
  await expect(page.getByTestId('next-step')).toContainText('Next step:')
  for (const [what, locator] of [
    ['state', head.getByText('Active', { exact: true })],
    ['next step', page.getByTestId('next-step').getByRole('button')],
    ['check-in', page.getByRole('button', { name: 'Check in', exact: true })],
  ] as const) {
    const box = (await locator.boundingBox())!
    expect(box.y + box.height, what).toBeLessThanOrEqual(800)
  }
  // Key and kit, the copy for the drawer and deleting: beside the main column, not in it.
  const main = (await page.locator('.overview-main').boundingBox())!
  const key = (await page.getByRole('button', { name: 'Owner recovery kit…' }).boundingBox())!
  expect(key.x).toBeGreaterThanOrEqual(main.x + main.width)
  await page.screenshot({ path: 'test-results/screenshots/overview-1280.png' })
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.screenshot({ path: 'test-results/screenshots/overview-1280-dark.png' })
  await page.setViewportSize({ width: 820, height: 560 })
  await page.emulateMedia({ colorScheme: 'light' })
  await expect(head.getByText('Active', { exact: true })).toBeInViewport()
  await page.screenshot({ path: 'test-results/screenshots/overview-820.png' })
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.screenshot({ path: 'test-results/screenshots/overview-820-dark.png', fullPage: true })
  await page.close()
})

test('guardians in the local trial: not "invited" when no e-mail left, and addresses break only after the @ or before a dot', async ({
  browser,
  ownApp: app,
}) => {
  const page = await browser.newPage({ viewport: { width: 820, height: 560 } })
  await page.goto(app.url)
  await startLocally(page)
  await page.getByRole('tab', { name: 'Guardians' }).click()
  const form = page.getByRole('form', { name: 'Add guardian' })
  await form.getByLabel('Name').fill('Carol')
  await form.getByLabel('E-mail').fill('carol.longname@example.com')
  await form.getByRole('button', { name: 'Add guardian' }).click()
  const row = page.getByRole('row').filter({ hasText: 'Carol' })
  await expect(row).toContainText('Added, not told yet')
  await expect(row).not.toContainText('Invited, no answer yet')
  const address = row.locator('.email-address')
  await expect(address).toHaveText('carol.longname@example.com')
  // Break opportunities after the @ and before each dot of the domain, and nowhere inside a word.
  expect(await address.evaluate((el) => el.innerHTML.split('<wbr>').length - 1)).toBe(2)
  expect(await row.locator('.email-cell').evaluate((el) => getComputedStyle(el).overflowWrap)).toBe(
    'break-word',
  )
  await row.scrollIntoViewIfNeeded()
  await page.screenshot({ path: 'test-results/screenshots/guardians-local-trial.png' })
  await page.close()
})

test('recovery with a kit of another vault says "different vaults" and does not count it as enough', async ({
  browser,
  ownApp: app,
}) => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  const ours = await splitVaultKey(generateVaultKey(), 'vlt_ours', SSS_PRESET_SHAPE.standard)
  const theirs = await splitVaultKey(generateVaultKey(), 'vlt_theirs', SSS_PRESET_SHAPE.standard)
  await page.goto(app.url)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Recovery' }).click()
  await page.getByText('I have the encrypted files on this computer').click()
  await page.getByLabel('Encrypted files or folders (one full path per line)').fill('/tmp')
  await page.getByLabel('Kit 1').fill(encodeShareWords(ours[0]!))
  await page.getByLabel('Kit 1').blur()
  await page.getByRole('button', { name: 'Add another kit' }).click()
  await page.getByLabel('Kit 2').fill(encodeShareWords(theirs[1]!))
  await page.getByLabel('Kit 2').blur()
  await expect(page.getByTestId('kits-mixed-vaults')).toContainText('These kits belong to different vaults')
  await expect(page.getByTestId('share-count')).toHaveText('2 kits entered.')
  await expect(page.getByTestId('share-count')).not.toContainText('enough')
  await expect(page.getByText('These kits come from different sets')).toHaveCount(0)
  await expect(page.getByText('Use the kits of one vault only (step 2).')).toBeVisible()
  await shot(page, 'recovery-mixed-vaults')
  await page.close()
})

test('Settings → Connections after a restart without a keychain: the gone key is said to be gone, and Check and save confirms', async ({
  browser,
}) => {
  const serviceDir = await mkdtemp(join(tmpdir(), 'vault-e2e-screens-service-'))
  const service = await startService({ dataDir: serviceDir, port: 0 })
  let app: BrowserModeApp | undefined
  try {
    const account = await service.admin.createAccount({ email: 'self-hosted@example.com' })
    app = await startBrowserModeApp()
    let page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    await page.goto(app.url)
    await page.getByLabel('Service address').fill(service.url)
    await page.getByLabel('API key').fill(account.apiKey)
    await page.getByRole('button', { name: 'Connect', exact: true }).click()
    await expect(page.getByRole('heading', { name: 'Vaults', level: 1 })).toBeVisible({ timeout: 20_000 })
    await page.close()
    const dataDir = app.userDataDir
    await app.stop({ keepData: true })
    app = await startBrowserModeApp({ userDataDir: dataDir })
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    await page.goto(app.url)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click()
    const entry = page.getByTestId('connection')
    await expect(entry.getByTestId('connection-key-missing')).toContainText('gone: it was kept in memory')
    await expect(entry).not.toContainText('kept in memory ·')
    await entry.getByRole('button', { name: 'Replace key' }).click()
    await entry.locator('input[type="password"]').fill(account.apiKey)
    await entry.getByRole('button', { name: 'Check and save' }).click()
    await expect(entry.getByTestId('connection-key-saved')).toContainText(
      `Checked and saved: the service accepted the key ending …${account.apiKey.slice(-4)}.`,
    )
    await expect(entry.getByTestId('connection-key-missing')).toHaveCount(0)
    await shot(page, 'connections-key-saved')
    await page.close()
  } finally {
    await app?.stop()
    await service.close()
    await rm(serviceDir, { recursive: true, force: true })
  }
})

test('Recovery: says why Show the files waits, brings the outcome into view, and folds a long list', async ({
  browser,
  ownApp: app,
}) => {
  const dir = await mkdtemp(join(tmpdir(), 'vault-e2e-screens-recovery-'))
  try {
    const vaultKey = generateVaultKey()
    const shares = await splitVaultKey(vaultKey, 'vlt_many', SSS_PRESET_SHAPE.standard)
    for (let n = 0; n < 24; n++) {
      const bytes = Buffer.from(`letter ${n}\n`)
      const blob = await collectBytes(
        encryptStream(Readable.from([bytes]), {
          vaultKey,
          vaultId: 'vlt_many',
          identity: { path: `letters/letter-${n}.txt`, size: bytes.length },
        }),
      )
      await writeFile(join(dir, `letter-${n}.vault`), blob)
    }
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    await page.goto(app.url)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Recovery' }).click()
    await page.getByLabel('Vault Service address').fill('https://vault.example.com')
    await page.getByLabel(/personal access code/).fill('hk_something')
    await expect(page.getByRole('button', { name: 'Show the files' })).toBeDisabled()
    await expect(page.getByText('Needs the vault id too')).toBeVisible()

    await page.getByText('I have the encrypted files on this computer').click()
    await page.getByLabel('Encrypted files or folders (one full path per line)').fill(dir)
    await page.getByLabel('Kit 1').fill(encodeShareWords(shares[0]!))
    await page.getByLabel('Kit 1').blur()
    await page.getByRole('button', { name: 'Add another kit' }).click()
    await page.getByLabel('Kit 2').fill(encodeShareWords(shares[2]!))
    await page.getByLabel('Kit 2').blur()
    await page.getByLabel('Folder for the recovered files').fill(join(dir, 'out'))
    await page.getByRole('button', { name: 'Verify and decrypt' }).click()
    const report = page.getByTestId('recovery-report')
    await expect(report).toContainText('All 24 files recovered and checked.', { timeout: 30_000 })
    await expect(report).toBeInViewport()
    const folded = report.getByTestId('recovery-results-folded')
    await expect(folded).toContainText('Show the outcome for each of the 24 files')
    await expect(folded.getByRole('listitem').first()).toBeHidden()
    await folded.getByText('Show the outcome for each of the 24 files').click()
    await expect(folded.getByRole('listitem')).toHaveCount(24)
    await page.screenshot({ path: 'test-results/screenshots/recovery-folded.png' })
    await page.close()
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
