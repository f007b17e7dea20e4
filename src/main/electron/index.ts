// Electron main process: window, tray, notifications, single instance, IPC wiring. Everything else
// is the core's facade (../core/vault-app.ts), which browser mode creates the same way.
import { join } from 'node:path'
import { app, BrowserWindow, Notification, powerMonitor, safeStorage, session, shell } from 'electron'
import { eventChannels } from '../../shared/ipc/contract'
import type { AppNotice, TrayView } from '../../shared/ipc/vault-types'
import { desktopLanguage, desktopText, setDesktopLocale } from '../core/desktop-text'
import { asAppError } from '../core/ipc/handler-table'
import { createVaultApp, type VaultApp } from '../core/vault-app'
import { LocalServiceHost } from '../local-service-host'
import { APP_PAGE_URL } from '../renderer-files'
import { registerAppScheme, serveAppProtocol } from './app-protocol'
import { forwardEvents, registerIpcHandlers } from './ipc-main-wiring'
import { safeStorageSecretBox } from './safe-storage-box'
import { desktopShellCapabilities } from './shell-capabilities'
import { AppTray } from './tray'
import { TrayShown, trayMenuItems } from './tray-menu'
import { chooseRendererUrl } from './trusted-renderer'
import { denyAllPermissions, guardWebContents } from './web-contents-guard'
import { mainWindowOptions } from './window-options'

const here = import.meta.dirname
const resourcesDir = app.isPackaged ? process.resourcesPath : join(here, '../../resources')
const rendererUrl = chooseRendererUrl({
  isPackaged: app.isPackaged,
  devServerUrl: process.env.ELECTRON_RENDERER_URL,
  builtPageUrl: APP_PAGE_URL,
})
registerAppScheme()

let mainWindow: BrowserWindow | undefined
let tray: AppTray | undefined
let vaultApp: VaultApp | undefined
/** The service "Start locally" runs here, once opened: links to its pages open in the browser. */
let localServiceHost: LocalServiceHost | undefined
const localServiceUrl = () => localServiceHost?.currentUrl ?? null
let quitting = false

function showMainWindow(): void {
  if (!mainWindow || mainWindow.isDestroyed()) mainWindow = createMainWindow()
  if (mainWindow.isMinimized()) mainWindow.restore()
  mainWindow.show()
  mainWindow.focus()
}

function createMainWindow(): BrowserWindow {
  const window = new BrowserWindow(
    mainWindowOptions({ preload: join(here, '../preload/index.cjs'), icon: join(resourcesDir, 'icon.png') }),
  )
  guardWebContents(window.webContents, (url) => void shell.openExternal(url), localServiceUrl)
  window.once('ready-to-show', () => window.show())
  // Closing hides to the tray: reminders and the release alarm must keep working.
  window.on('close', (event) => {
    if (!quitting) {
      event.preventDefault()
      window.hide()
    }
  })
  void window.loadURL(rendererUrl)
  return window
}

if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  app.on('second-instance', () => showMainWindow())
  app.on('before-quit', () => {
    quitting = true
  })
  app.on('window-all-closed', () => {
    // Stay in the tray; quitting is explicit (tray menu or app menu).
  })
  app.on('web-contents-created', (_event, contents) => {
    guardWebContents(contents, (url) => void shell.openExternal(url), localServiceUrl)
  })

  void app.whenReady().then(async () => {
    denyAllPermissions(session.defaultSession)
    // The tray's and notifications' words follow the system's language (the window's follow the page's).
    setDesktopLocale(app.getLocale())
    serveAppProtocol(join(here, '../renderer'))
    const applyLoginItem = (launchAtLogin: boolean) => {
      // Linux has no login-item API in Electron; the setting is kept for desktop-entry based autostart.
      if (process.platform !== 'linux') app.setLoginItemSettings({ openAtLogin: launchAtLogin })
    }
    const running = createVaultApp({
      userDataDir: app.getPath('userData'),
      mode: 'electron',
      version: app.getVersion(),
      secretBox: safeStorageSecretBox(safeStorage, process.platform),
      shell: desktopShellCapabilities(() => mainWindow),
      localService: async (userDataDir) => {
        localServiceHost = await LocalServiceHost.open(userDataDir)
        return localServiceHost
      },
      onSettingsChanged: (settings) => applyLoginItem(settings.launchAtLogin),
    })
    vaultApp = running
    registerIpcHandlers(running.handlers, () => ({ contents: mainWindow?.webContents, rendererUrl }))
    forwardEvents(running.events, () => mainWindow?.webContents)
    tray = new AppTray(join(resourcesDir, 'tray'), {
      open: showMainWindow,
      quit: () => {
        quitting = true
        app.quit()
      },
    })
    showMainWindow()
    app.on('activate', showMainWindow)
    applyLoginItem((await running.settings.get()).launchAtLogin)

    await running.start()
    running.on('tray', updateTray)
    running.on('notice', (notice) => notify(notice))
    // Timers stall during sleep: re-check reminders and re-poll the vaults on wake.
    powerMonitor.on('resume', () => void running.onResume())
    // Also the optional check-in on unlock (an sk_agent_ key; at most once per period).
    powerMonitor.on('unlock-screen', () => void running.onUnlock())
  })

  /** Shows a vault in the window (from a notification or the tray). */
  const openVault = (vaultId: string) => {
    showMainWindow()
    vaultApp?.events.emit(eventChannels.openVault, { vaultId })
  }

  const notify = (notice: AppNotice) => {
    if (!Notification.isSupported()) return
    const checkInHere = notice.kind === 'reminder' && notice.vaultId !== undefined
    const notification = new Notification({
      title: notice.title,
      body: notice.body,
      urgency: notice.kind === 'releasing' ? 'critical' : 'normal',
      // One-step check-in from the reminder (buttons show on macOS; elsewhere the window's notice has it).
      ...(checkInHere
        ? { actions: [{ type: 'button' as const, text: desktopText().notifications.checkInNow }] }
        : {}),
    })
    notification.on('click', () => (notice.vaultId ? openVault(notice.vaultId) : showMainWindow()))
    if (checkInHere) {
      notification.on('action', () => {
        const label = vaultApp?.vaults().find((v) => v.id === notice.vaultId)?.label
        checkInFrom('reminder', notice.vaultId!, label ?? notice.title)
      })
    }
    notification.show()
  }

  const checkInFrom = (source: 'tray' | 'reminder', vaultId: string, label: string) => {
    if (!vaultApp) return
    void Promise.resolve(vaultApp.handlers.checkIn({ vaultId, source }))
      .then((result) =>
        notify({
          kind: 'reminder',
          title: desktopText().notifications.checkedInTitle,
          body: desktopText().notifications.checkedInBody(label, result.daysRemaining),
          vaultId,
          lang: desktopLanguage(),
        }),
      )
      .catch((error: unknown) =>
        notify({
          kind: 'reminder',
          title: desktopText().notifications.checkInFailedTitle,
          body: `${label}: ${asAppError(error).userMessage}`,
          vaultId,
          lang: desktopLanguage(),
        }),
      )
  }

  const trayShown = new TrayShown()
  const updateTray = (view: TrayView) => {
    const vaults = vaultApp?.vaults() ?? []
    if (!tray || !trayShown.changes(view, vaults)) return
    tray.setState(
      view.level,
      desktopText().tray.tooltip(view.text),
      trayMenuItems(view, vaults, {
        checkIn: (vaultId, label) => checkInFrom('tray', vaultId, label),
        openVault,
      }),
    )
  }

  // Let the upload queue and the local service stop cleanly (their state files flushed) before exit.
  let closed = false
  app.on('before-quit', (event) => {
    if (closed || !vaultApp) return
    event.preventDefault()
    void vaultApp.close().finally(() => {
      closed = true
      app.quit()
    })
  })
  app.on('will-quit', () => tray?.destroy())
}
