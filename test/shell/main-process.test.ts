// The Electron glue, proven without Electron: the built main process (out/main/index.js) and preload
// (out/preload/index.cjs) run against a recording stand-in for the `electron` module, with the real
// backend and local Vault Service behind them. Each test launches the bundle afresh, as a new process.
import { existsSync, readFileSync, statSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { APP_PAGE_URL, CONTENT_SECURITY_POLICY } from '../../src/main/renderer-files'
import { eventChannels, invokeChannels } from '../../src/shared/ipc/contract'
import type { FakeBrowserWindow, IpcEvent } from './support/electron-stand-in'
import {
  answer,
  type LaunchedShell,
  launchMain,
  PRELOAD_BUNDLE,
  RENDERER_DIR,
  runPreload,
  until,
} from './support/launch-main'

vi.mock('electron', async () => (await import('./support/electron-stand-in')).electronMainModule)

let shell: LaunchedShell | undefined
const scratch: string[] = []
afterEach(async () => {
  vi.useRealTimers()
  vi.restoreAllMocks()
  await shell?.quit()
  shell = undefined
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'vault-shell-files-'))
  scratch.push(dir)
  return dir
}

const mainWindowOf = (launched: LaunchedShell) => launched.world.windows[0] as FakeBrowserWindow
const fromPage = (window: FakeBrowserWindow, frame: IpcEvent['senderFrame']): IpcEvent => ({
  sender: window.webContents,
  senderFrame: frame,
})

/** Starts the local service through the window's own bridge; returns its vault, on a weekly check-in. */
async function localVault(launched: LaunchedShell) {
  const { vault } = runPreload(launched.world, mainWindowOf(launched))
  const started = await answer(vault.startLocally({ email: 'owner@example.com' }))
  const vaultId = started.vault.id
  await answer(vault.renameVault({ vaultId, name: 'Family papers' }))
  await answer(vault.configureRelease({ vaultId, trigger: 'dead_man_switch', checkInFrequency: 'weekly' }))
  const view = await answer(vault.refreshVault({ vaultId }))
  return { vault, vaultId, view, serviceUrl: started.connection.serviceUrl }
}

describe('launch', () => {
  it('registers app:// before ready, takes the single-instance lock once, and opens one sandboxed window on app://vault', async () => {
    shell = await launchMain()
    const { world } = shell
    const calls = world.calls
    expect(calls.indexOf('protocol:registerSchemesAsPrivileged')).toBeLessThan(calls.indexOf('app:ready'))
    expect(calls.filter((c) => c === 'app:requestSingleInstanceLock')).toHaveLength(1)
    expect(world.privilegedSchemes).toEqual([
      { scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) },
    ])

    expect(world.windows).toHaveLength(1)
    const window = mainWindowOf(shell)
    expect(window.options.webPreferences).toMatchObject({
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      webviewTag: false,
    })
    const preload = window.options.webPreferences?.preload as string
    expect(preload).toBe(PRELOAD_BUNDLE)
    expect(existsSync(preload)).toBe(true)
    expect(existsSync(window.options.icon as string), 'window icon').toBe(true)
    expect(window.isVisible()).toBe(true)
    expect(window.focused).toBe(true)

    // The page came through the app:// handler, with the CSP header, and every file it names is there.
    const [page] = window.loaded
    expect(page).toMatchObject({ url: APP_PAGE_URL, status: 200 })
    expect(page?.body).toContain('<div id="root"></div>')
    const handler = world.protocolHandlers.get('app')!
    const head = await handler(new Request(APP_PAGE_URL))
    expect(head.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
    const assets = [...(page?.body ?? '').matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => m[1])
    expect(assets.length).toBeGreaterThanOrEqual(2)
    for (const asset of assets) {
      const response = await handler(new Request(`app://vault/${asset}`))
      expect({ asset, status: response.status }).toEqual({ asset, status: 200 })
      expect(existsSync(join(RENDERER_DIR, asset!))).toBe(true)
    }
    expect((await handler(new Request('app://vault/../main/index.js'))).status).toBe(404)
  })

  it('guards the window: no navigation away, no new windows, no permissions, links only to allowed sites', async () => {
    shell = await launchMain()
    const { world } = shell
    const contents = mainWindowOf(shell).webContents
    const away = { defaultPrevented: false, preventDefault: () => (away.defaultPrevented = true) }
    contents.emit('will-navigate', away, 'https://evil.example/')
    expect(away.defaultPrevented).toBe(true)
    expect(contents.windowOpenHandler?.({ url: 'https://evil.example/' })).toEqual({ action: 'deny' })
    expect(contents.windowOpenHandler?.({ url: 'https://github.com/vault-desktop' })).toEqual({
      action: 'deny',
    })
    expect(world.externalLinks).toEqual(['https://github.com/vault-desktop'])
    const granted: boolean[] = []
    world.permissionHandlers.request?.(
      {} as never,
      'media' as never,
      ((g: boolean) => granted.push(g)) as never,
    )
    expect(granted).toEqual([false])
  })

  it('a second launch quits without a window or a backend, and the first instance comes to the front', async () => {
    const second = await launchMain({ lockAvailable: false, waitFor: 'nothing' })
    await until(() => second.world.quitted, 'the second instance to quit')
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(second.world.windows).toHaveLength(0)
    expect(second.world.trays).toHaveLength(0)
    expect(second.world.ipcHandlers.size).toBe(0)
    await second.quit()

    shell = await launchMain()
    const window = mainWindowOf(shell)
    window.minimize()
    window.hide()
    shell.world.app.emit('second-instance', {}, ['vault-desktop'], process.cwd())
    expect(window.isVisible()).toBe(true)
    expect(window.isMinimized()).toBe(false)
    expect(window.focused).toBe(true)
    expect(shell.world.windows).toHaveLength(1)
  })
})

describe('IPC', () => {
  it('registers every contract channel and answers the app window’s top-level page', async () => {
    shell = await launchMain()
    const { world } = shell
    expect([...world.ipcHandlers.keys()].sort()).toEqual(
      Object.values(invokeChannels)
        .map((c) => c.name)
        .sort(),
    )
    const window = mainWindowOf(shell)
    const getInfo = world.ipcHandlers.get(invokeChannels.getAppInfo.name)!
    const response = await getInfo(fromPage(window, { url: APP_PAGE_URL, parent: null }), undefined)
    expect(response).toMatchObject({ ok: true, value: { mode: 'electron', version: '0.0.0-shell-test' } })
  })

  it('refuses and logs calls from another window, a sub-frame, or another page, without their payload', async () => {
    // Before launch: the wiring takes console.warn as its log when it registers the handlers.
    const warnings: string[] = []
    vi.spyOn(console, 'warn').mockImplementation((line: string) => void warnings.push(line))
    shell = await launchMain()
    const { world } = shell
    const window = mainWindowOf(shell)
    const { BrowserWindow } = world.mainModule() as { BrowserWindow: new () => FakeBrowserWindow }
    const other = new BrowserWindow()
    const topFrame = { url: APP_PAGE_URL, parent: null }
    const checkIn = world.ipcHandlers.get(invokeChannels.checkIn.name)!
    const payload = { vaultId: 'vlt_secret', note: 'words of a kit' }
    for (const event of [
      fromPage(other, topFrame),
      fromPage(window, { url: APP_PAGE_URL, parent: topFrame }),
      fromPage(window, { url: 'https://evil.example/', parent: null }),
      fromPage(window, { url: 'file:///etc/passwd', parent: null }),
    ]) {
      expect(await checkIn(event, payload)).toMatchObject({ ok: false, error: { code: 'FORBIDDEN_SENDER' } })
    }
    expect(warnings).toHaveLength(4)
    for (const line of warnings) {
      expect(line).toContain(invokeChannels.checkIn.name)
      expect(line).not.toContain('words of a kit')
    }
  })

  it('the preload exposes exactly the contract as window.vault, and main’s events reach its listeners', async () => {
    shell = await launchMain()
    const { vault, exposedKeys } = runPreload(shell.world, mainWindowOf(shell))
    expect(exposedKeys).toEqual(['vault', 'vaultFiles'])
    expect(Object.keys(vault).sort()).toEqual([...Object.keys(invokeChannels), 'on'].sort())
    expect(Object.keys(vault.on).sort()).toEqual(Object.keys(eventChannels).sort())
    const info = await answer(vault.getAppInfo())
    expect(info.mode).toBe('electron')
    const seen: unknown[] = []
    const stop = vault.on.settingsChanged((settings) => seen.push(settings))
    await answer(vault.updateSettings({ reminderDaysBefore: [5] }))
    await until(() => seen.length === 1, 'the settings event')
    stop()
    await answer(vault.updateSettings({ reminderDaysBefore: [4] }))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(seen).toHaveLength(1)
  })
})

describe('tray, notifications and the window', () => {
  it('closing the window hides it to the tray; the tray brings it back; Quit really quits', async () => {
    shell = await launchMain()
    const { world } = shell
    const window = mainWindowOf(shell)
    const tray = world.trays[0]!
    expect(tray.image.exists, `tray icon ${tray.image.path}`).toBe(true)

    window.close()
    expect(window.isDestroyed()).toBe(false)
    expect(window.isVisible()).toBe(false)
    tray.emit('click')
    expect(window.isVisible()).toBe(true)

    window.close()
    world.trayItem('Open Vault Desktop').click?.()
    expect(window.isVisible()).toBe(true)

    const { serviceUrl } = await localVault(shell)
    expect((await fetch(`${serviceUrl}/v2/health`)).status).toBeLessThan(500)
    world.trayItem('Quit').click?.()
    await until(() => world.quitted, 'the app to quit')
    expect(window.isDestroyed()).toBe(true)
    expect(tray.destroyed).toBe(true)
    // The backend closed before the app went: the local service no longer answers.
    await expect(fetch(`${serviceUrl}/v2/health`)).rejects.toThrow()
  })

  it('the tray’s check-in checks in that vault and says so; its notification and "Open" show the vault', async () => {
    shell = await launchMain()
    const { world } = shell
    const window = mainWindowOf(shell)
    const { vault, vaultId } = await localVault(shell)
    const opened: string[] = []
    vault.on.openVault(({ vaultId: id }) => opened.push(id))

    const checkIn = await until(
      () => world.trayItem('Check in now (Family papers)'),
      'the tray check-in item',
    )
    expect(world.trays[0]?.tooltip).toMatch(/^Vault Desktop — /)
    const before = (await answer(vault.refreshVault({ vaultId }))).lastCheckIn
    checkIn.click?.()
    const notice = await until(
      () => world.notifications.find((n) => n.options.title === 'Checked in'),
      'the "Checked in" notification',
    )
    expect(notice.options.body).toMatch(/^Family papers: next check-in due in 7 days\.$/)
    const after = (await answer(vault.refreshVault({ vaultId }))).lastCheckIn
    expect(after).not.toBeNull()
    expect(after).not.toBe(before)

    window.close()
    notice.emit('click')
    expect(window.isVisible()).toBe(true)
    await until(() => opened.length === 1, 'the window to be asked to show the vault')
    expect(opened).toEqual([vaultId])

    window.close()
    world.trayItem('Open Family papers').click?.()
    expect(window.isVisible()).toBe(true)
    await until(() => opened.length === 2, 'the second open-vault request')
    expect(opened).toEqual([vaultId, vaultId])
  })

  it('waking from sleep re-checks reminders at once: a check-in due tomorrow raises its notification', async () => {
    shell = await launchMain()
    const { world } = shell
    const { view } = await localVault(shell)
    expect(view.nextCheckInDue).not.toBeNull()
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(world.notifications.filter((n) => /Check-in due/.test(n.options.title))).toEqual([])

    // The computer slept for six days: only the wake-up event can notice before the next timer tick.
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date(Date.parse(view.nextCheckInDue!) - 20 * 3600_000))
    world.powerMonitor.emit('resume')
    const reminder = await until(
      () => world.notifications.find((n) => /Check-in due/.test(n.options.title)),
      'the reminder notification',
    )
    expect(reminder.options.body).toContain('Family papers')
    const window = mainWindowOf(shell)
    window.close()
    const opened: string[] = []
    runPreload(world, window).vault.on.openVault(({ vaultId }) => opened.push(vaultId))
    reminder.emit('click')
    expect(window.isVisible()).toBe(true)
    await until(() => opened.length === 1, 'the reminder click to open the vault')
    expect(opened).toEqual([view.id])
  })

  it('Save as PDF of the owner kit prints from a hidden window without JavaScript and writes the file', async () => {
    shell = await launchMain()
    const { world } = shell
    const { vault, vaultId } = await localVault(shell)
    const target = join(await scratchDir(), 'owner kit.pdf')

    // Never printed before the owner confirmed; on Linux Electron offers no system check, so the
    // vault's name is typed.
    expect((await vault.printOwnerKit({ vaultId, as: 'pdf' })) as { ok: boolean }).toMatchObject({
      ok: false,
      error: { code: 'OWNER_KIT_LOCKED' },
    })
    const gate = await answer(vault.getOwnerKitGate({ vaultId }))
    expect(gate).toMatchObject({ method: 'typed', systemName: null })
    await answer(vault.openOwnerKitGate({ vaultId, typed: (gate as { typeThis: string }).typeThis }))

    world.dialogAnswers.save = undefined
    expect(await answer(vault.printOwnerKit({ vaultId, as: 'pdf' }))).toEqual({ saved: null })
    expect(existsSync(target)).toBe(false)

    world.dialogAnswers.save = target
    expect(await answer(vault.printOwnerKit({ vaultId, as: 'pdf' }))).toEqual({ saved: target })
    expect(readFileSync(target, 'latin1')).toMatch(/^%PDF-/)
    expect(statSync(target).mode & 0o777).toBe(0o600)
    const printers = world.windows.slice(1)
    expect(printers).toHaveLength(2)
    for (const printer of printers) {
      expect(printer.options).toMatchObject({ show: false })
      expect(printer.options.webPreferences).toMatchObject({ sandbox: true, javascript: false })
      expect(printer.options.webPreferences?.preload).toBeUndefined()
      expect(printer.isDestroyed()).toBe(true)
      expect(printer.loaded[0]?.body.includes('<title>Owner recovery kit'), 'the kit page was printed').toBe(
        true,
      )
    }
    expect(world.dialogs.filter((d) => d.kind === 'save')).toHaveLength(2)
  })

  it('a drop gives the files’ paths through webUtils, and main encrypts and uploads them', async () => {
    shell = await launchMain()
    const { world } = shell
    const { vault, vaultId } = await localVault(shell)
    const { vaultFiles } = runPreload(world, mainWindowOf(shell))
    const dir = await scratchDir()
    const path = join(dir, 'will.txt')
    await writeFile(path, 'My will, for my family.')
    const dropped = new File(['My will'], 'will.txt')
    world.droppedPaths.set(dropped, path)
    expect(vaultFiles.pathForFile(dropped)).toBe(path)

    const estimate = await answer(vault.estimateUpload({ vaultId, paths: [vaultFiles.pathForFile(dropped)] }))
    expect(estimate).toMatchObject({ files: 1, plaintextBytes: 23 })
    // A fresh local vault's 100 credits are all check-in reserve: this upload spends from it.
    await answer(vault.queueUpload({ vaultId, paths: [path], spendReserve: true }))
    await until(async () => (await answer(vault.listUploads())).some((u) => u.state === 'done'), 'the upload')
    const assets = await answer(vault.listAssets({ vaultId, limit: 10, offset: 0 }))
    expect(assets.assets.map((a) => a.displayName)).toEqual(['will.txt'])
  })
})
