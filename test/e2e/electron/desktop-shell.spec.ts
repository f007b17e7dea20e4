// The desktop shell in the real Electron runtime: the tray, closing to the tray, a second launch,
// notifications and saving a kit as PDF. Runs only where the Electron binary exists.
//
// The app has no test hooks. The test wraps a few of Electron's own APIs in the main process
// (electronApp.evaluate) to see what the app asks of the desktop: the tray menu templates it builds, the
// notifications it shows, the windows it focuses. It also stands in for what a test machine cannot
// do: there is no notification server (showing one is recorded instead) and nobody to pick where to
// save a PDF (the save dialog answers with a temp file).
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ElectronApplication, expect, type JSHandle, type Page, test } from '@playwright/test'
import type { BrowserWindow, MenuItemConstructorOptions, Notification, SaveDialogOptions } from 'electron'
import { electronBinary, launchDesktopApp, launchSecondInstance, SKIP_REASON } from '../support/electron-app'
import { openOwnerKit } from '../support/owner-kit-steps'

test.skip(!electronBinary, SKIP_REASON)
test.describe.configure({ mode: 'serial' })

/** What the wrapped APIs saw, kept on the main process's globalThis as `shellRecord`. */
interface ShellRecord {
  menus: MenuItemConstructorOptions[][]
  notifications: Notification[]
  saveDialogs: SaveDialogOptions[]
  focusCalls: number
  secondInstances: number
}

let app: ElectronApplication
let page: Page
let mainWindow: JSHandle<BrowserWindow>
let userDataDir: string
let pdfDir: string
let pdfPath: string
/** The vault's label as the window shows it ("Vault ABC123"); the tray and notifications use the same. */
let label: string

const HIDDEN = { destroyed: false, visible: false }
const SHOWN = { destroyed: false, visible: true }

test.beforeAll(async () => {
  userDataDir = await mkdtemp(join(tmpdir(), 'vault-electron-shell-'))
  pdfDir = await mkdtemp(join(tmpdir(), 'vault-electron-pdf-'))
  pdfPath = join(pdfDir, 'owner kit.pdf')
  app = await launchDesktopApp(userDataDir)
  page = await app.firstWindow()
  mainWindow = await app.browserWindow(page)
  await app.evaluate(({ app: electronApp, BrowserWindow, dialog, Menu, Notification }, savePath) => {
    const record: ShellRecord = {
      menus: [],
      notifications: [],
      saveDialogs: [],
      focusCalls: 0,
      secondInstances: 0,
    }
    ;(globalThis as unknown as { shellRecord: ShellRecord }).shellRecord = record
    // The tray builds a new menu from a template on every state change: keep each template.
    const buildFromTemplate = Menu.buildFromTemplate.bind(Menu)
    Menu.buildFromTemplate = (template) => {
      record.menus.push(template as MenuItemConstructorOptions[])
      return buildFromTemplate(template)
    }
    Notification.isSupported = () => true
    Notification.prototype.show = function (this: Notification) {
      record.notifications.push(this)
    }
    dialog.showSaveDialog = (async (...args: unknown[]) => {
      record.saveDialogs.push(args.at(-1) as SaveDialogOptions)
      return { canceled: false, filePath: savePath }
    }) as typeof dialog.showSaveDialog
    const focus = BrowserWindow.prototype.focus
    BrowserWindow.prototype.focus = function (this: BrowserWindow) {
      record.focusCalls++
      return focus.call(this)
    }
    electronApp.on('second-instance', () => {
      record.secondInstances++
    })
  }, pdfPath)
})

test.afterAll(async () => {
  await app?.close()
  await rm(userDataDir, { recursive: true, force: true })
  await rm(pdfDir, { recursive: true, force: true })
})

/** The tray menu as last built, without separators: one label per item. */
function trayMenu(): Promise<string[]> {
  return app.evaluate(() => {
    const { menus } = (globalThis as unknown as { shellRecord: ShellRecord }).shellRecord
    const tray = menus.findLast((menu) => menu[0]?.label === 'Open Vault Desktop') ?? []
    return tray.filter((item) => item.type !== 'separator').map((item) => item.label ?? '')
  })
}

/** Clicks an item of the tray menu as last built, as a user choosing it would. */
function clickTrayItem(itemLabel: string): Promise<void> {
  return app.evaluate((_electron, wanted) => {
    const { menus } = (globalThis as unknown as { shellRecord: ShellRecord }).shellRecord
    const tray = menus.findLast((menu) => menu[0]?.label === 'Open Vault Desktop') ?? []
    const item = tray.find((candidate) => candidate.label === wanted)
    if (!item?.click) {
      throw new Error(
        `The tray menu has no item "${wanted}"; it has: ${tray.map((i) => i.label).join(' | ')}`,
      )
    }
    ;(item.click as () => void)()
  }, itemLabel)
}

function notifications(): Promise<{ title: string; body: string }[]> {
  return app.evaluate(() =>
    (globalThis as unknown as { shellRecord: ShellRecord }).shellRecord.notifications.map((n) => ({
      title: n.title,
      body: n.body,
    })),
  )
}

function windowState(): Promise<{ destroyed: boolean; visible: boolean }> {
  return mainWindow.evaluate((window) => ({
    destroyed: window.isDestroyed(),
    visible: !window.isDestroyed() && window.isVisible(),
  }))
}

function windowCount(): Promise<number> {
  return app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)
}

async function closeWindow(): Promise<void> {
  await mainWindow.evaluate((window) => window.close())
  await expect.poll(windowState).toEqual(HIDDEN)
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

test('start locally in the desktop app: a vault is made and the tray lists it', async () => {
  await expect(page.getByRole('heading', { name: 'Set up Vault Desktop', level: 1 })).toBeVisible()
  await page.getByLabel('Your e-mail address').fill('owner@example.com')
  await page.getByRole('button', { name: 'Start locally' }).click()
  const heading = page.getByRole('heading', { name: /^Vault /, level: 1 })
  await expect(heading).toBeVisible({ timeout: 20_000 })
  label = (await heading.textContent())?.trim() ?? ''
  // Each vault is listed with whether it is ready ("Vault ABC123: 8 steps left").
  await expect
    .poll(trayMenu)
    .toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${escapeRegExp(label)}: `))]))
  const menu = await trayMenu()
  expect(menu[0]).toBe('Open Vault Desktop')
  expect(menu.at(-1)).toBe('Quit')
  await page.screenshot({ path: 'test-results/screenshots/electron-vault.png' })
})

test('closing the window hides it to the tray, and "Open Vault Desktop" shows it again', async () => {
  await closeWindow()
  // Hidden, not closed: the app keeps running for reminders and the release alarm.
  expect(await windowCount()).toBe(1)
  expect(app.process().exitCode).toBeNull()
  await clickTrayItem('Open Vault Desktop')
  await expect.poll(windowState).toEqual(SHOWN)
  await expect(page.getByRole('heading', { name: label, level: 1 })).toBeVisible()
})

test('tray check-in: a notification says when the next one is due, and clicking it opens the vault', async () => {
  await page.getByRole('tab', { name: 'Release settings' }).click()
  await page.getByLabel(/Dead man's switch/).check()
  await page.getByLabel('Check in').selectOption('monthly')
  await page.getByRole('button', { name: 'Save release settings' }).click()
  await expect(page.getByTestId('release-saved')).toContainText("Dead man's switch, monthly")

  // With a check-in scheduled, the tray offers it.
  await expect.poll(trayMenu).toContain(`Check in now (${label})`)
  await clickTrayItem(`Check in now (${label})`)
  await expect.poll(notifications).toContainEqual({
    title: 'Checked in',
    body: expect.stringMatching(new RegExp(`^${escapeRegExp(label)}: next check-in due in \\d+ days\\.$`)),
  })

  // Clicking the notification while the window is hidden on another screen brings that vault up.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click()
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible()
  await closeWindow()
  await app.evaluate(() => {
    const { notifications: shown } = (globalThis as unknown as { shellRecord: ShellRecord }).shellRecord
    shown.findLast((n) => n.title === 'Checked in')?.emit('click')
  })
  await expect.poll(windowState).toEqual(SHOWN)
  await expect(page.getByRole('heading', { name: label, level: 1 })).toBeVisible()
})

test('the tray\'s "Open <vault>" item shows that vault', async () => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click()
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible()
  await clickTrayItem(`Open ${label}`)
  await expect(page.getByRole('heading', { name: label, level: 1 })).toBeVisible()
})

test('the owner kit is saved as a PDF to the file the save dialog returns', async () => {
  await page.getByRole('tab', { name: 'Overview' }).click()
  await openOwnerKit(page)
  const kitDialog = page.getByRole('dialog')
  await expect(page.frameLocator('iframe.kit-frame').locator('ol.words .w').first()).toBeVisible()
  await kitDialog.getByRole('button', { name: 'Save as PDF…' }).click()
  await expect(kitDialog.getByRole('status').filter({ hasText: /^Saved / })).toHaveText(`Saved ${pdfPath}`)

  const pdf = await readFile(pdfPath)
  expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-')
  // The kit holds the vault key: readable by its owner only.
  if (process.platform !== 'win32') expect((await stat(pdfPath)).mode & 0o777).toBe(0o600)
  const asked = await app.evaluate(() =>
    (globalThis as unknown as { shellRecord: ShellRecord }).shellRecord.saveDialogs.map((o) => o.defaultPath),
  )
  expect(asked).toEqual([`${label} - owner recovery kit.pdf`])
  // The hidden window that rendered the PDF is gone again.
  await expect.poll(windowCount).toBe(1)
  await kitDialog.getByRole('button', { name: 'Close' }).click()
})

test('a second launch hands over to the running app: it exits and the window comes forward', async () => {
  await closeWindow()
  const focusCallsBefore = await app.evaluate(
    () => (globalThis as unknown as { shellRecord: ShellRecord }).shellRecord.focusCalls,
  )
  const second = await launchSecondInstance(userDataDir)
  expect(second.code, `the second launch's output:\n${second.output}`).toBe(0)
  await expect
    .poll(() =>
      app.evaluate(() => (globalThis as unknown as { shellRecord: ShellRecord }).shellRecord.secondInstances),
    )
    .toBe(1)
  await expect.poll(windowState).toEqual(SHOWN)
  // Whether the window really has focus depends on a window manager (Xvfb has none), so what the app
  // asked for is checked: focus, after showing it.
  const focusCallsAfter = await app.evaluate(
    () => (globalThis as unknown as { shellRecord: ShellRecord }).shellRecord.focusCalls,
  )
  expect(focusCallsAfter).toBeGreaterThan(focusCallsBefore)
  expect(await windowCount()).toBe(1)
  await expect(page.getByRole('heading', { name: label, level: 1 })).toBeVisible()
})

test('"Quit" in the tray menu ends the app', async () => {
  const exited = app.waitForEvent('close')
  // Chosen after this call returns, so the test's connection is not cut while it waits for an answer.
  await app.evaluate(() => {
    const { menus } = (globalThis as unknown as { shellRecord: ShellRecord }).shellRecord
    const quit = menus
      .findLast((menu) => menu[0]?.label === 'Open Vault Desktop')
      ?.find((i) => i.label === 'Quit')
    if (!quit?.click) throw new Error('The tray menu has no "Quit" item')
    setTimeout(() => (quit.click as () => void)(), 0)
  })
  await exited
  expect(app.process().exitCode).toBe(0)
})
