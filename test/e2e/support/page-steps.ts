// Steps many journeys share: the first run on the local service, and watching the page for errors.
import { type ConsoleMessage, expect, type Page } from '@playwright/test'

/** First run: starts the vault service on this computer and waits for the vault it makes. */
export async function startLocally(page: Page, email = 'owner@example.com'): Promise<void> {
  await page.getByLabel('Your e-mail address').fill(email)
  await page.getByRole('button', { name: 'Start locally' }).click()
  await expect(page.getByRole('heading', { name: /^Vault /, level: 1 })).toBeVisible({ timeout: 20_000 })
}

/** Collects what the page logs as an error, and uncaught exceptions; journeys end expecting none. */
export function collectPageErrors(page: Page, into: string[]): void {
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') into.push(message.text())
  })
  page.on('pageerror', (error) => into.push(error.message))
}
