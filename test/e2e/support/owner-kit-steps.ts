// The owner's steps to save the owner kit and confirm it by typing back the words asked for,
// from the vault Overview. Returns the kit's words (the test's stand-in for the printed copy).
import { expect, type Page } from '@playwright/test'

/**
 * Opens the owner kit from the Overview: the app first asks the owner to confirm, here (no system
 * check in browser mode) by typing the vault's name shown in the question.
 */
export async function openOwnerKit(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Owner recovery kit…' }).click()
  await passOwnerKitGate(page)
}

/** Answers the question the app asks before it shows the owner kit, however the kit was opened. */
export async function passOwnerKitGate(page: Page): Promise<void> {
  const gate = page.getByRole('dialog', { name: 'Show the vault key?' })
  const field = gate.getByLabel(/^To show it, type the vault's name: /)
  const label = (await gate.locator('label[for="owner-kit-gate-name"]').textContent()) ?? ''
  await field.fill(label.replace(/^To show it, type the vault's name: /, ''))
  await gate.getByRole('button', { name: 'Show the owner kit' }).click()
}

export async function saveAndConfirmOwnerKit(page: Page): Promise<string[]> {
  await openOwnerKit(page)
  const kit = page.frameLocator('iframe.kit-frame')
  await expect(kit.locator('ol.words .w').first()).toBeVisible()
  const words = await kit.locator('ol.words .w').allTextContents()
  await page.getByRole('dialog').getByRole('button', { name: 'I have saved it', exact: true }).click()
  const check = page.getByRole('dialog')
  // The words to check are chosen by main; wait until they are asked for.
  await expect(check.getByText(/^Word \d+ of \d+$/).first()).toBeVisible()
  for (const label of await check.getByText(/^Word \d+ of \d+$/).allTextContents()) {
    await check.getByLabel(label).fill(words[Number(/Word (\d+)/.exec(label)?.[1]) - 1]!)
  }
  await check.getByRole('button', { name: 'Confirm' }).click()
  await check.getByRole('button', { name: 'Done' }).click()
  return words
}
