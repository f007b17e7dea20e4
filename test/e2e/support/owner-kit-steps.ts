// The owner's steps to save the owner kit and confirm it by typing back the words asked for,
// from the vault Overview. Returns the kit's words (the test's stand-in for the printed copy).
import { expect, type Page } from '@playwright/test'

export async function saveAndConfirmOwnerKit(page: Page): Promise<string[]> {
  await page.getByRole('button', { name: 'Owner recovery kit…' }).click()
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
