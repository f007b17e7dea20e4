// The main window's options: the security baseline lives here so a test can assert it.
import type { BrowserWindowConstructorOptions } from 'electron'

export interface MainWindowPaths {
  preload: string
  icon?: string
}

export function mainWindowOptions(paths: MainWindowPaths): BrowserWindowConstructorOptions {
  return {
    width: 1180,
    height: 780,
    minWidth: 820,
    minHeight: 560,
    show: false,
    title: 'Vault Desktop',
    icon: paths.icon,
    autoHideMenuBar: true,
    backgroundColor: '#f6f4ef',
    webPreferences: {
      preload: paths.preload,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      experimentalFeatures: false,
    },
  }
}
