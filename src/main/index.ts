// Electron main process: window, tray, single instance, IPC wiring. Everything else is in ./core.
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { app, BrowserWindow, safeStorage, session, shell } from 'electron'
import { createAppBackend } from './core/app-backend'
import { forwardEvents, registerIpcHandlers } from './ipc-main-wiring'
import { AppTray } from './tray'
import { denyAllPermissions, guardWebContents } from './web-contents-guard'
import { mainWindowOptions } from './window-options'

const here = import.meta.dirname
const resourcesDir = app.isPackaged ? process.resourcesPath : join(here, '../../resources')
const rendererUrl =
  process.env.ELECTRON_RENDERER_URL ?? pathToFileURL(join(here, '../renderer/index.html')).href

let mainWindow: BrowserWindow | undefined
let tray: AppTray | undefined
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
  guardWebContents(window.webContents, (url) => void shell.openExternal(url))
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
    guardWebContents(contents, (url) => void shell.openExternal(url))
  })

  void app.whenReady().then(() => {
    denyAllPermissions(session.defaultSession)
    const backend = createAppBackend({
      userDataDir: app.getPath('userData'),
      mode: 'electron',
      version: app.getVersion(),
      secretStore: () => (safeStorage.isEncryptionAvailable() ? 'encrypted-file' : 'memory'),
      onSettingsChanged: (settings) => {
        if (process.platform !== 'linux') app.setLoginItemSettings({ openAtLogin: settings.launchAtLogin })
      },
    })
    registerIpcHandlers(backend.handlers, () => ({ contents: mainWindow?.webContents, rendererUrl }))
    forwardEvents(backend.events, () => mainWindow?.webContents)
    tray = new AppTray(join(resourcesDir, 'tray'), {
      open: showMainWindow,
      quit: () => {
        quitting = true
        app.quit()
      },
    })
    showMainWindow()
    app.on('activate', showMainWindow)
  })
  app.on('will-quit', () => tray?.destroy())
}
