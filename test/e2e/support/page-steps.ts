// Steps many journeys share: the first run on the local service, backing up a typed path, and
// watching the page for errors.
import { type ConsoleMessage, expect, type Page } from '@playwright/test'

/** First run: starts the vault service on this computer and waits for the vault it makes. */
export async function startLocally(page: Page, email = 'owner@example.com'): Promise<void> {
  await page.getByLabel('Your e-mail address').fill(email)
  await page.getByRole('button', { name: 'Start locally' }).click()
  await expect(page.getByRole('heading', { name: /^Vault /, level: 1 })).toBeVisible({ timeout: 20_000 })
}

/**
 * Backs up a file or folder by its path from the Assets tab, confirming the cost when asked, and waits
 * until `stored` (e.g. "4 stored") shows with nothing failed.
 */
export async function backUpPath(page: Page, path: string, stored = 'stored'): Promise<void> {
  await page.getByRole('tab', { name: 'Assets' }).click()
  await page.getByLabel('Path of a file or folder on the computer running Vault Desktop').fill(path)
  await page.getByRole('button', { name: 'Back up' }).click()
  const confirm = page.getByRole('dialog', { name: 'Upload these files?' })
  const summary = page.getByTestId('upload-summary')
  await expect(confirm.or(summary)).toBeVisible({ timeout: 30_000 })
  if (await confirm.isVisible()) await confirm.getByRole('button', { name: /^Encrypt and upload/ }).click()
  await expect(summary).toContainText(stored, { timeout: 30_000 })
  await expect(summary).not.toContainText('failed')
}

/** Collects what the page logs as an error, and uncaught exceptions; journeys end expecting none. */
export function collectPageErrors(page: Page, into: string[]): void {
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') into.push(message.text())
  })
  page.on('pageerror', (error) => into.push(error.message))
}
