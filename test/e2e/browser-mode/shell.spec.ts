import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, test } from '../support/fixtures'

// The file's one backend (fixture `app`): no test here makes a vault, so each finds the first-run choice.

test('the shell opens on the first-run choice when nothing is connected', async ({
  page,
  app,
  pageErrors: consoleErrors,
}) => {
  await page.goto(app.url)
  await expect(page.getByRole('heading', { name: 'Set up Vault Desktop', level: 1 })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Connect to a vault service' })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Start locally on this computer' })).toBeVisible()
  await page.screenshot({ path: 'test-results/screenshots/shell-vaults.png', fullPage: true })
  expect(consoleErrors).toEqual([])
})

test('navigation reaches every screen and marks the current one', async ({
  page,
  app,
  pageErrors: consoleErrors,
}) => {
  await page.goto(app.url)
  const nav = page.getByRole('navigation', { name: 'Main' })
  for (const [name, heading] of [
    ['Recovery', 'Recovery'],
    ['Settings', 'Settings'],
    ['Vaults', 'Set up Vault Desktop'],
  ] as const) {
    await nav.getByRole('button', { name }).click()
    await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible()
    await expect(nav.getByRole('button', { name })).toHaveAttribute('aria-current', 'page')
  }
  expect(consoleErrors).toEqual([])
})

test('settings round-trip through the real handlers and persist on disk', async ({
  page,
  app,
  pageErrors: consoleErrors,
}) => {
  await page.goto(app.url)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click()
  await page.getByLabel('Theme').selectOption('dark')
  await expect(page.getByRole('status')).toHaveText('Saved.')
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
  await page.getByLabel('When a check-in is overdue, remind me every').selectOption('6')
  await expect(page.getByRole('status')).toHaveText('Saved.')
  await page.screenshot({ path: 'test-results/screenshots/shell-settings-dark.png', fullPage: true })

  const stored = JSON.parse(await readFile(join(app.userDataDir, 'settings.json'), 'utf8'))
  expect(stored).toMatchObject({ theme: 'dark', overdueRepeatHours: 6 })

  await page.reload()
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click()
  await expect(page.getByLabel('Theme')).toHaveValue('dark')
  await expect(page.getByLabel('When a check-in is overdue, remind me every')).toHaveValue('6')
  expect(consoleErrors).toEqual([])
})

test('the bridge refuses a connection without the token', async ({ page, app }) => {
  const origin = new URL(app.url).origin
  await page.goto(`${origin}/`)
  await expect(page.getByRole('alert')).toContainText('needs the link printed by "npm start"')
  const refused = await page.evaluate(
    (wsUrl) =>
      new Promise<boolean>((resolve) => {
        const socket = new WebSocket(wsUrl)
        socket.onopen = () => resolve(false)
        socket.onerror = () => resolve(true)
      }),
    `${origin.replace('http', 'ws')}/bridge?token=wrong`,
  )
  expect(refused).toBe(true)
})
