// Handlers for app-level channels: app info and settings.
import { type AppInfo, eventChannels } from '../../../shared/ipc/contract'
import type { Settings } from '../../../shared/ipc/settings'
import type { SettingsStore } from '../storage/settings-store'
import type { EventHub, HandlerTable } from './handler-table'

export interface AppHandlerDeps {
  settings: SettingsStore
  events: EventHub
  appInfo: () => AppInfo | Promise<AppInfo>
  /** Lets the shell apply settings that need the platform (e.g. launch at login). */
  onSettingsChanged?: (settings: Settings) => void
}

export function createAppHandlers(
  deps: AppHandlerDeps,
): Pick<HandlerTable, 'getAppInfo' | 'getSettings' | 'updateSettings'> {
  return {
    getAppInfo: () => deps.appInfo(),
    getSettings: () => deps.settings.get(),
    updateSettings: async (patch) => {
      const next = await deps.settings.update(patch)
      deps.onSettingsChanged?.(next)
      deps.events.emit(eventChannels.settingsChanged, next)
      return next
    },
  }
}
