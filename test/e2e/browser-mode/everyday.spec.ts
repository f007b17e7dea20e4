// The owner's everyday journey on the local service ("The owner's everyday journey" issue): notices
// that go by themselves beside the page (never over it) and a reminder's one-step check-in, guardian
// kit advice that fits the situation, a guardians table that fits the minimum window width, focus
// back on what opened a dialog, a cost question for uploads nothing of which fits and for retries,
// the window title naming screen and vault, and the release panel once a release has started.
// Each test starts from a vault of its own (fixtures below build what it stands on), since most of
// them change what the whole app shares: settings, the account's credits, the release.
// Screenshots (light and dark): test-results/screenshots/everyday-*.png.
import { execFile } from 'node:child_process'
import { mkdir, readFile, truncate, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Locator, Page } from '@playwright/test'
import type { BrowserModeApp } from '../support/browser-mode-app'
import { expect, test as journey, type LocalVault } from '../support/fixtures'
import { saveAndConfirmOwnerKit } from '../support/owner-kit-steps'

const run = promisify(execFile)
const DAY_MS = 86_400_000
/** src/main/electron/window-options.ts */
const MIN_WINDOW = { width: 820, height: 560 }
const WIDE = { width: 1280, height: 800 }

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' })
const toasts = (page: Page) => page.getByTestId('toast')

/** One screenshot per theme of what is on screen now (the same data-theme Settings → Theme sets). */
async function shot(page: Page, name: string): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((t) => {
      document.documentElement.dataset.theme = t
    }, theme)
    await page.screenshot({ path: `test-results/screenshots/everyday-${name}-${theme}.png` })
  }
  await page.evaluate(() => document.documentElement.removeAttribute('data-theme'))
}

/** The embedded service's admin commands, on its data folder (as a self-hoster would run them). */
async function admin(app: BrowserModeApp, ...args: string[]): Promise<unknown> {
  const dataDir = join(app.userDataDir, 'local-service')
  const { stdout } = await run(process.execPath, [
    'out/cli/service.js',
    'admin',
    ...args,
    '--data-dir',
    dataDir,
  ])
  return JSON.parse(stdout)
}

async function addCredits(app: BrowserModeApp, credits: string): Promise<void> {
  const account = JSON.parse(await readFile(join(app.userDataDir, 'local-service.json'), 'utf8')).accountId
  await admin(app, 'add-credits', '--account', account, '--credits', credits)
}

async function openVault(page: Page, tab: string): Promise<void> {
  await nav(page).getByRole('button', { name: 'Vaults' }).click()
  await page.getByTestId('vault-card').getByRole('button').first().click()
  await page.getByRole('tab', { name: tab }).click()
}

/** Both boxes in the page, and whether they share any pixel. */
async function overlap(a: Locator, b: Locator): Promise<boolean> {
  const [x, y] = [await a.boundingBox(), await b.boundingBox()]
  if (!x || !y) throw new Error('an element to compare is not on screen')
  return x.x < y.x + y.width && y.x < x.x + x.width && x.y < y.y + y.height && y.y < x.y + x.height
}

/** Every notice lies beside the page's content, never over one of its controls. */
async function expectToastsBesideContent(page: Page): Promise<void> {
  const content = page.locator('main.content')
  for (const toast of await toasts(page).all()) {
    expect(await overlap(toast, content)).toBe(false)
    // And inside the window, fully readable.
    const box = (await toast.boundingBox())!
    const size = page.viewportSize()!
    expect(box.y).toBeGreaterThanOrEqual(0)
    expect(box.y + box.height).toBeLessThanOrEqual(size.height)
  }
}

async function setting(page: Page, label: string, value: string): Promise<void> {
  await nav(page).getByRole('button', { name: 'Settings' }).click()
  const field = page.getByLabel(label)
  if ((await field.evaluate((el) => el.tagName)) === 'SELECT') await field.selectOption(value)
  else {
    await field.fill(value)
    await field.blur()
  }
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible()
}

async function addGuardian(page: Page, name: string, email: string): Promise<void> {
  const form = page.getByRole('form', { name: 'Add guardian' })
  await form.getByLabel('Name').fill(name)
  await form.getByLabel('E-mail').fill(email)
  await form.getByRole('button', { name: 'Add guardian' }).click()
}

/** Two files to upload one after the other (one at a time): the large one first. */
async function makeTwoFiles(filesDir: string): Promise<string> {
  await mkdir(join(filesDir, 'two'))
  await writeFile(join(filesDir, 'two', 'a-large.bin'), '')
  await truncate(join(filesDir, 'two', 'a-large.bin'), 1_000_000_000)
  await writeFile(join(filesDir, 'two', 'b-small.bin'), '')
  await truncate(join(filesDir, 'two', 'b-small.bin'), 5_000_000)
  return join(filesDir, 'two')
}

/** Backs up the two files with nothing free to spend, confirming the cost. */
async function startTwoFiles(page: Page, app: BrowserModeApp, filesDir: string): Promise<void> {
  const two = await makeTwoFiles(filesDir)
  await setting(page, 'Ask before an upload costing more than (credits)', '0')
  await addCredits(app, '10000')
  // One upload at a time: the small file waits while the large one goes up.
  await setting(page, 'Files uploaded at the same time', '1')
  await openVault(page, 'Assets')
  await page.getByLabel('Path of a file or folder on the computer running Vault Desktop').fill(two)
  await page.getByRole('button', { name: 'Back up' }).click()
  await page
    .getByRole('dialog')
    .getByRole('button', { name: /^Encrypt and upload/ })
    .click()
}

const uploadItem = (page: Page, name: string) => page.getByTestId('upload-item').filter({ hasText: name })

const test = journey.extend<{
  /** The owner kit saved and confirmed, and Alice added as the first guardian (on the Guardians tab). */
  aliceAdded: LocalVault
  /** Alice, Bob and Chloé added, Alice's first kit handed over before Chloé's split. */
  threeGuardians: LocalVault
  /** Both files cancelled, then the small one retried and stored: its batch has just ended. */
  retriedUpload: LocalVault
}>({
  aliceAdded: async ({ ownerKitSaved, page }, use) => {
    await page.getByRole('tab', { name: 'Guardians' }).click()
    await addGuardian(page, 'Alice Martin', 'alice@example.com')
    await expect(page.getByRole('button', { name: 'View kit 1' })).toBeVisible()
    await use(ownerKitSaved)
  },
  threeGuardians: async ({ aliceAdded, page }, use) => {
    await addGuardian(page, 'Bob Okafor', 'bob@example.com')
    await expect(page.getByTestId('guardian-change')).toContainText('Bob Okafor was')
    await page.getByLabel('Kit 1 handed over to Alice Martin').click()
    await expect(page.getByLabel('Kit 1 handed over to Alice Martin')).toBeChecked()
    await addGuardian(page, 'Chloé Dubois-Lefèvre', 'chloe.dubois-lefevre@example.com')
    await expect(page.getByTestId('add-all-first')).toHaveCount(0)
    await use(aliceAdded)
  },
  retriedUpload: async ({ ownerKitSaved, page, workDir }, use) => {
    await startTwoFiles(page, ownerKitSaved.app, workDir)
    const [small, large] = [uploadItem(page, 'two/b-small.bin'), uploadItem(page, 'two/a-large.bin')]
    await small.getByRole('button', { name: 'Cancel' }).click()
    await expect(small).toContainText('Cancelled')
    await large.getByRole('button', { name: 'Cancel' }).click()
    await expect(large).toContainText('Cancelled')
    await small.getByRole('button', { name: 'Retry' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Encrypt and upload (24 credits)' }).click()
    await expect(small).toContainText('Stored', { timeout: 30_000 })
    await use(ownerKitSaved)
  },
})

test.use({ viewport: WIDE, failOnPageErrors: true })

test.describe('the owner everyday journey', () => {
  test('the window title names the screen and the vault', async ({ page, ownApp }) => {
    await page.goto(ownApp.url)
    await page.getByLabel('Your e-mail address').fill('owner@example.com')
    await page.getByRole('button', { name: 'Start locally' }).click()
    await expect(page.getByRole('heading', { name: /^Vault /, level: 1 })).toBeAttached({ timeout: 20_000 })
    const vaultLabel = (await page.getByRole('heading', { level: 1 }).textContent())!.trim()
    await expect(page).toHaveTitle(`${vaultLabel} — Overview — Vault Desktop`)
    await page.getByRole('tab', { name: 'Guardians' }).click()
    await expect(page).toHaveTitle(`${vaultLabel} — Guardians — Vault Desktop`)
    await nav(page).getByRole('button', { name: 'Settings' }).click()
    await expect(page).toHaveTitle('Settings — Vault Desktop')
    await nav(page).getByRole('button', { name: 'Vaults' }).click()
    await expect(page).toHaveTitle('Vaults — Vault Desktop')
  })

  test('a dialog gives focus back to the button that opened it', async ({ page, localVault: _ }) => {
    // The owner kit: two dialogs in a row (the kit, then the check), then back to the button.
    await openVault(page, 'Overview')
    await saveAndConfirmOwnerKit(page)
    await expect(page.getByRole('button', { name: 'Owner recovery kit…' })).toBeFocused()

    await page.getByRole('tab', { name: 'Guardians' }).click()
    const form = page.getByRole('form', { name: 'Add guardian' })
    await form.getByLabel('Name').fill('Alice Martin')
    await form.getByLabel('E-mail').fill('alice@example.com')
    await form.getByRole('button', { name: 'Add guardian' }).click()
    const viewKit = page.getByRole('button', { name: 'View kit 1' })
    await viewKit.click()
    await expect(page.getByRole('dialog').getByRole('heading', { name: 'Guardian kit' })).toBeVisible()
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click()
    await expect(page.getByRole('dialog')).toHaveCount(0)
    await expect(viewKit).toBeFocused()
    // Escape closes it the same way.
    await viewKit.click()
    await expect(page.getByRole('dialog')).toBeVisible()
    await page.keyboard.press('Escape')
    await expect(viewKit).toBeFocused()

    const remove = page.getByRole('button', { name: 'Remove guardian Alice Martin' })
    await remove.click()
    await page.getByRole('dialog').getByRole('button', { name: 'Keep as is' }).click()
    await expect(remove).toBeFocused()
  })

  test('guardians: no talk of earlier kits before any was made, and advice to add them all first', async ({
    page,
    aliceAdded: _,
  }) => {
    // Alice was the first guardian: there were no kits before her.
    const change = page.getByTestId('guardian-change')
    await expect(change).toContainText('Alice Martin was')
    await expect(change).toContainText('The key was split into 1 kit, one per guardian.')
    await expect(change).not.toContainText('no longer work')
    await expect(page.getByTestId('add-all-first')).toHaveText(
      '1 of 3 guardians added. Add all 3 before printing or handing over kits: each guardian you add splits the key again, and a kit of one split does not combine with a kit of another.',
    )
    await page.getByRole('button', { name: 'View kit 1' }).click()
    await expect(page.getByTestId('kit-not-final')).toContainText(
      'this kit is replaced when you add the next one',
    )
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click()
    await shot(page, 'guardians-first')

    const form = page.getByRole('form', { name: 'Add guardian' })
    await form.getByLabel('Name').fill('Bob Okafor')
    await form.getByLabel('E-mail').fill('bob@example.com')
    await form.getByRole('button', { name: 'Add guardian' }).click()
    await expect(change).toContainText('Bob Okafor was')
    await expect(change).toContainText(
      'None of the kits made before this change had been handed over: print only the new ones and destroy any old printout.',
    )
    await expect(page.getByTestId('add-all-first')).toContainText('2 of 3 guardians added.')

    // Alice holds her kit now; adding the third guardian replaces it, and what the old kit still does is said.
    // Ticked once the app has recorded it (a controlled checkbox): click, then wait for the tick.
    await page.getByLabel('Kit 1 handed over to Alice Martin').click()
    await expect(page.getByLabel('Kit 1 handed over to Alice Martin')).toBeChecked()
    await form.getByLabel('Name').fill('Chloé Dubois-Lefèvre')
    await form.getByLabel('E-mail').fill('chloe.dubois-lefevre@example.com')
    await form.getByRole('button', { name: 'Add guardian' }).click()
    await expect(change).toContainText(
      'A kit of the previous split was handed over. It still opens the vault together with any other kit of that split until they are destroyed: give every guardian their new kit',
    )
    await expect(page.getByTestId('add-all-first')).toHaveCount(0)
    await shot(page, 'guardians-all')
  })

  test('at the minimum window width the guardians table fits and Remove is fully visible', async ({
    page,
    threeGuardians: _,
  }) => {
    await page.setViewportSize(MIN_WINDOW)
    const box = page.locator('.people-table-box')
    await expect(box).toBeVisible()
    const sideways = await box.evaluate((el) => el.scrollWidth - el.clientWidth)
    expect(sideways).toBe(0)
    for (const remove of await page.getByRole('button', { name: /^Remove guardian / }).all()) {
      await remove.scrollIntoViewIfNeeded()
      const b = (await remove.boundingBox())!
      expect(b.x).toBeGreaterThanOrEqual(0)
      expect(b.x + b.width).toBeLessThanOrEqual(MIN_WINDOW.width)
      // Not cut by the table's own box either.
      const table = (await box.boundingBox())!
      expect(b.x + b.width).toBeLessThanOrEqual(table.x + table.width)
    }
    // Nor does anything else widen the page (the six tabs wrap).
    const pageSideways = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    )
    expect(pageSideways).toBe(0)
    await page.getByTestId('guardian-count').scrollIntoViewIfNeeded()
    await shot(page, 'guardians-min-width')
    await page.setViewportSize(WIDE)
  })

  test('nothing fits the balance: no "Upload what fits", but how many credits to add', async ({
    page,
    ownerKitSaved: _,
    workDir,
  }) => {
    // Sparse: its size is what counts for the cost.
    await writeFile(join(workDir, 'film.mov'), '')
    await truncate(join(workDir, 'film.mov'), 25_000_000)
    await setting(page, 'Ask before an upload costing more than (credits)', '0')
    await openVault(page, 'Assets')
    await page
      .getByLabel('Path of a file or folder on the computer running Vault Desktop')
      .fill(join(workDir, 'film.mov'))
    await page.getByRole('button', { name: 'Back up' }).click()
    const dialog = page.getByRole('dialog')
    await expect(
      dialog.getByRole('heading', { name: 'Not enough credits for any of these files' }),
    ).toBeVisible()
    await expect(dialog.getByRole('button', { name: /Upload what fits/ })).toHaveCount(0)
    // 25 MB cost 117 credits, and the vault's list of its files (manifest) going up beside it 1 more;
    // the trial's 100 pay for none of it.
    await expect(dialog).toContainText('Estimated cost: 118 credits ($1.18). Balance: 100 credits ($1.00).')
    await expect(dialog.getByTestId('nothing-fits')).toHaveText(
      'None of these files fits the balance of 100 credits ($1.00), so nothing would be uploaded. Add at least 18 credits ($0.18) in Settings, then back them up again.',
    )
    await expect(dialog.getByRole('button', { name: 'Add credits in Settings' })).toBeVisible()
    await shot(page, 'nothing-fits')
    await dialog.getByRole('button', { name: 'Not now' }).click()
    await expect(page.getByRole('dialog')).toHaveCount(0)
    // Declining keeps the path, so focus goes back to "Back up", ready to try again after adding credits.
    await expect(page.getByRole('button', { name: 'Back up' })).toBeFocused()
    await expect(
      page.getByLabel('Path of a file or folder on the computer running Vault Desktop'),
    ).toHaveValue(join(workDir, 'film.mov'))
  })

  test('retrying a cancelled upload asks for its cost again before it runs', async ({
    page,
    ownerKitSaved: vault,
    workDir,
  }) => {
    await startTwoFiles(page, vault.app, workDir)
    const small = page.getByTestId('upload-item').filter({ hasText: 'two/b-small.bin' })
    const large = page.getByTestId('upload-item').filter({ hasText: 'two/a-large.bin' })
    await expect(small).toContainText('Waiting')
    await small.getByRole('button', { name: 'Cancel' }).click()
    await expect(small).toContainText('Cancelled')
    await large.getByRole('button', { name: 'Cancel' }).click()
    await expect(large).toContainText('Cancelled')

    const retry = small.getByRole('button', { name: 'Retry' })
    await retry.click()
    const dialog = page.getByRole('dialog')
    await expect(dialog.getByRole('heading', { name: 'Upload these files?' })).toBeVisible()
    await expect(dialog).toContainText('1 file, 5.00 MB')
    await expect(dialog).toContainText('Estimated cost: 24 credits ($0.24)')
    await expect(dialog.getByTestId('retry-note')).toHaveText(
      'It was not stored before, so uploading it again is charged like a new upload.',
    )
    await shot(page, 'retry-confirm')
    // Declined: it stays cancelled, nothing runs.
    await dialog.getByRole('button', { name: 'Not now' }).click()
    await expect(retry).toBeFocused()
    await expect(small).toContainText('Cancelled')
    await retry.click()
    await page.getByRole('dialog').getByRole('button', { name: 'Encrypt and upload (24 credits)' }).click()
    await expect(small).toContainText('Stored', { timeout: 30_000 })
    await expect(large).toContainText('Cancelled')
  })

  test('finished backups: one notice beside the files, which goes by itself', async ({
    page,
    retriedUpload: _,
  }) => {
    // The retried file's batch ended: one notice for it, in the sidebar, not over the upload list.
    const done = toasts(page).filter({ hasText: 'Backup finished' })
    await expect(done).toHaveCount(1)
    await expectToastsBesideContent(page)
    await shot(page, 'notice-backup')
    await expect(done).toHaveCount(0, { timeout: 30_000 })
  })

  test("a reminder's notice checks in with one step and says the new due date", async ({
    page,
    localVault,
  }) => {
    await page.getByRole('tab', { name: 'Release settings' }).click()
    await page.getByLabel(/Dead man's switch/).check()
    await page.getByLabel('Check in').selectOption('weekly')
    await page.getByRole('button', { name: 'Save release settings' }).click()
    await expect(page.getByTestId('release-saved')).toContainText("Dead man's switch, weekly")
    // A reminder 7 days before a weekly deadline is due at once.
    await setting(page, 'Remind me before a check-in is due', '7,3,1')
    const reminder = toasts(page).filter({ has: page.getByRole('button', { name: 'Check in now' }) })
    await expect(reminder).toHaveCount(1, { timeout: 20_000 })
    await expectToastsBesideContent(page)
    await page.setViewportSize(MIN_WINDOW)
    await expectToastsBesideContent(page)
    await shot(page, 'notice-reminder-min-width')
    await page.setViewportSize(WIDE)
    await shot(page, 'notice-reminder')
    await reminder.getByRole('button', { name: 'Check in now' }).click()
    const checked = toasts(page).filter({ hasText: 'Checked in' })
    await expect(checked).toContainText(`${localVault.label}: next check-in due`)
    await expect(checked).toContainText('(in 7 days)')
    await expect(reminder).toHaveCount(0)
    await shot(page, 'notice-checked-in')
  })

  test('releasing: the start, the day heirs get access, days left and Cancel release; no settings', async ({
    page,
    ownerKitSaved: vault,
    pageErrors,
  }) => {
    await openVault(page, 'Release settings')
    await page.getByLabel(/Manual/).check()
    await page.getByRole('button', { name: 'Save release settings' }).click()
    await expect(page.getByTestId('release-saved')).toContainText('Manual')
    await page.getByRole('button', { name: 'Start release now…' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Start the release' }).click()
    const status = page.getByTestId('release-status')
    await expect(status).toBeVisible({ timeout: 10_000 })
    const day = new Intl.DateTimeFormat('en-US', { day: 'numeric', month: 'short', year: 'numeric' })
    const started = Date.now()
    await expect(status.getByTestId('release-started')).toHaveText(
      `The release started on ${day.format(started)}.`,
    )
    await expect(status.getByTestId('release-access')).toHaveText(
      `Your heirs get access on ${day.format(started + 30 * DAY_MS)}, unless you cancel before then.`,
    )
    await expect(status.getByTestId('release-days-left')).toHaveText('30 days left to cancel.')
    await expect(status.getByRole('button', { name: 'Cancel release' })).toBeEnabled()
    await expect(page.getByRole('button', { name: 'Save release settings' })).toHaveCount(0)
    await expect(page.getByLabel('Check in')).toHaveCount(0)
    // The banner on every tab says the same dates.
    await expect(page.getByTestId('releasing-banner').getByTestId('release-access')).toContainText(
      day.format(started + 30 * DAY_MS),
    )
    await shot(page, 'release-releasing')
    // The Overview says when heirs get access, not "if it starts", and offers no check-in.
    await page.getByRole('tab', { name: 'Overview' }).click()
    await expect(page.getByTestId('overview-release-dates').getByTestId('release-access')).toContainText(
      day.format(started + 30 * DAY_MS),
    )
    await expect(page.getByText('If it starts')).toHaveCount(0)
    await expect(page.getByRole('form', { name: 'Check in' })).toHaveCount(0)
    await shot(page, 'overview-releasing')
    await page.getByRole('tab', { name: 'Release settings' }).click()

    // The period ends (the service's clock moved past it): heirs are given access. The app reads its
    // vaults every 5 minutes on its own; the owner looking now refreshes.
    await admin(vault.app, 'tick', '--now', new Date(started + 30 * DAY_MS + 60 * 60_000).toISOString())
    await nav(page).getByRole('button', { name: 'Vaults' }).click()
    await page.getByRole('button', { name: 'Refresh' }).click()
    await openVault(page, 'Release settings')
    const released = page.getByTestId('released-banner')
    await expect(released).toBeVisible({ timeout: 10_000 })
    await expect(status.getByRole('heading', { name: 'Released to your heirs' })).toBeVisible()
    await expect(status.getByTestId('release-access')).toHaveText(
      `Your heirs were given access on ${day.format(started + 30 * DAY_MS + 60 * 60_000)}.`,
    )
    await expect(status.getByRole('button', { name: 'Cancel release' })).toHaveCount(0)
    await expect(page.getByRole('button', { name: 'Save release settings' })).toHaveCount(0)
    await expect(page.getByLabel('Check in')).toHaveCount(0)
    await shot(page, 'release-released')
    // The day came: the overview asks no more "Ready for the day?" (issue 30, point 11).
    await page.getByRole('tab', { name: 'Overview' }).click()
    await expect(page.getByTestId('readiness-panel')).toHaveCount(0)
    await expect(page.getByTestId('next-step')).toHaveCount(0)
    expect(pageErrors).toEqual([])
  })
})
