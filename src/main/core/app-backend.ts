// Everything behind `window.vault`, assembled once per process and shared by both transports
// (Electron ipcMain and the browser-mode WebSocket bridge).
import type { AppInfo, SecretStoreKind } from '../../shared/ipc/contract'
import type { Settings } from '../../shared/ipc/settings'
import { createAppHandlers } from './ipc/app-handlers'
import { EventHub, type HandlerTable } from './ipc/handler-table'
import { SettingsStore } from './settings-store'

export interface AppBackendOptions {
  userDataDir: string
  mode: AppInfo['mode']
  version: string
  platform?: string
  secretStore: () => SecretStoreKind
  onSettingsChanged?: (settings: Settings) => void
}

export interface AppBackend {
  handlers: HandlerTable
  events: EventHub
  settings: SettingsStore
}

export function createAppBackend(options: AppBackendOptions): AppBackend {
  const events = new EventHub()
  const settings = new SettingsStore(options.userDataDir)
  const handlers: HandlerTable = {
    ...createAppHandlers({
      settings,
      events,
      onSettingsChanged: options.onSettingsChanged,
      appInfo: () => ({
        name: 'Vault Desktop',
        version: options.version,
        platform: options.platform ?? process.platform,
        mode: options.mode,
        secretStore: options.secretStore(),
      }),
    }),
  }
  return { handlers, events, settings }
}
