// Every screen, tab and dialog of the owner's journey, in the light and the dark theme, checked with
// axe-core against WCAG 2.1 A and AA: no serious or critical violation anywhere.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import type { Page } from '@playwright/test'
import { expect, test } from '../support/fixtures'
import { openOwnerKit } from '../support/owner-kit-steps'
import { startLocally } from '../support/page-steps'

const THEMES = ['light', 'dark'] as const

/** The serious and critical violations on the page as it is, one line each. */
async function violations(on: Page): Promise<string[]> {
  // The kits are shown in a sandboxed frame axe cannot enter; their pages are checked on their own.
  const results = await new AxeBuilder({ page: on })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .exclude('iframe.kit-frame')
    .analyze()
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(' | ')}`,
    )
}

/** The printable kit page shown in the dialog's frame, checked as the page it prints as. */
async function checkKitPage(page: Page, name: string) {
  const html = await page.locator('iframe.kit-frame').getAttribute('srcdoc')
  expect(html, name).toBeTruthy()
  const kitPage = await page.context().newPage()
  await kitPage.setContent(html!)
  expect.soft(await violations(kitPage), name).toEqual([])
  await kitPage.close()
}

/** Checks the page in both themes (contrast differs), then goes back to the system theme. */
async function checkScreen(page: Page, name: string) {
  console.log(`[a11y] ${name}`)
  for (const theme of THEMES) {
    await page.evaluate((t) => {
      document.documentElement.dataset.theme = t
    }, theme)
    expect.soft(await violations(page), `${name}, ${theme} theme`).toEqual([])
  }
  await page.evaluate(() => document.documentElement.removeAttribute('data-theme'))
}

// The keychain keeps the vault key (no owner-kit step before an upload); axe needs a page of its own
// context, which the page fixture is.
test.use({ appOptions: { secretStore: 'auto' }, viewport: { width: 1280, height: 900 } })

test('first run', async ({ page, ownApp }) => {
  await page.goto(ownApp.url)
  await expect(page.getByRole('button', { name: 'Start locally' })).toBeVisible()
  await checkScreen(page, 'first run')
  await startLocally(page)
})

test('every tab of a vault', async ({ page, localVault: _ }) => {
  for (const tab of await page.getByRole('tab').allTextContents()) {
    await page.getByRole('tab', { name: tab }).click()
    await expect(page.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true')
    await checkScreen(page, `vault tab ${tab}`)
  }
})

test('the dialogs: guardian form with errors, guardian kit, owner kit, upload cost', async ({
  page,
  localVault: _,
  workDir,
}) => {
  // Above the asking threshold (50 credits), so the cost confirmation shows.
  await writeFile(join(workDir, 'scans.pdf'), Buffer.alloc(15_000_000, 1))
  await page.getByRole('tab', { name: 'Guardians' }).click()
  const form = page.getByRole('form', { name: 'Add guardian' })
  await form.getByLabel('E-mail').fill('not-an-address')
  await form.getByRole('button', { name: 'Add guardian' }).click()
  await expect(form.getByText('Enter a name')).toBeVisible()
  await checkScreen(page, 'guardian form with errors')
  await form.getByLabel('Name').fill('Alice Martin')
  await form.getByLabel('E-mail').fill('alice@example.com')
  await form.getByRole('button', { name: 'Add guardian' }).click()
  await expect(page.getByRole('cell', { name: 'Alice Martin', exact: true })).toBeVisible()
  await checkScreen(page, 'guardians listed')
  await page
    .getByRole('button', { name: /View kit/ })
    .first()
    .click()
  await expect(page.getByRole('dialog').getByRole('heading', { name: 'Guardian kit' })).toBeVisible()
  await checkScreen(page, 'guardian kit dialog')
  await checkKitPage(page, 'guardian kit page')
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click()

  await page.getByRole('tab', { name: 'Overview' }).click()
  await openOwnerKit(page)
  await expect(page.frameLocator('iframe.kit-frame').locator('ol.words .w').first()).toBeVisible()
  await checkScreen(page, 'owner kit dialog')
  await checkKitPage(page, 'owner kit page')
  await page.keyboard.press('Escape')
  await expect(page.getByRole('dialog')).toBeHidden()

  await page.getByRole('tab', { name: 'Assets' }).click()
  await page
    .getByLabel('Path of a file or folder on the computer running Vault Desktop')
    .fill(join(workDir, 'scans.pdf'))
  await page.getByRole('button', { name: 'Back up' }).click()
  await expect(page.getByRole('dialog')).toContainText('1 file', { timeout: 20_000 })
  await checkScreen(page, 'upload cost dialog')
  await page.getByRole('dialog').getByRole('button', { name: 'Not now' }).click()
})

test('the vaults list, settings and recovery screens', async ({ page, localVault: _ }) => {
  for (const screen of ['Vaults', 'Settings', 'Recovery']) {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: screen }).click()
    await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible()
    await checkScreen(page, screen)
  }
})

test('a releasing vault: the start confirmation, the banner and the release panel', async ({
  page,
  localVault: _,
}) => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Vaults' }).click()
  await page.getByRole('button', { name: /^Vault / }).click()
  await page.getByRole('tab', { name: 'Release settings' }).click()
  await page.getByLabel(/Manual/).check()
  await page.getByRole('button', { name: 'Save release settings' }).click()
  await page.getByRole('button', { name: 'Start release now…' }).click()
  await checkScreen(page, 'start release confirmation')
  await page.getByRole('dialog').getByRole('button', { name: 'Start the release' }).click()
  await expect(page.getByTestId('release-status')).toBeVisible({ timeout: 10_000 })
  await checkScreen(page, 'release panel while releasing')
  await page.getByRole('tab', { name: 'Overview' }).click()
  await expect(page.getByTestId('releasing-banner')).toBeVisible()
  await checkScreen(page, 'overview while releasing')
})
