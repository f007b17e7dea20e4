// Everything behind `window.vault`, assembled once per process and shared by both transports
// (Electron ipcMain and the browser-mode WebSocket bridge). The vault services open lazily on the
// first call that needs them (or at start()), so app info and settings answer at once.
import { type AppInfo, eventChannels } from '../../shared/ipc/contract'
import type { Settings, SettingsPatch } from '../../shared/ipc/settings'
import type { PickKind, SecretStoreKind } from '../../shared/ipc/vault-types'
import { DesktopSession } from './desktop-session'
import { createActivityHandlers, withActivity } from './ipc/activity-handlers'
import { createAppHandlers } from './ipc/app-handlers'
import { createConnectionHandlers } from './ipc/connection-handlers'
import { EventHub, type HandlerTable } from './ipc/handler-table'
import { createPeopleHandlers } from './ipc/people-handlers'
import { createRecoveryHandlers } from './ipc/recovery-handlers'
import { createRehearsalHandlers } from './ipc/rehearsal-handlers'
import { createUploadHandlers } from './ipc/upload-handlers'
import { createVaultHandlers } from './ipc/vault-handlers'
import type { SecretBox } from './storage/secret-store'
import { SettingsStore } from './storage/settings-store'

/** What only the desktop shell can do; browser mode leaves these out and the UI says so. */
export interface ShellCapabilities {
  pickPaths?: (kind: PickKind) => Promise<string[]>
  printHtml?: (html: string, as: 'print' | 'pdf', suggestedName: string) => Promise<string | null>
}

export interface AppBackendOptions {
  userDataDir: string
  mode: AppInfo['mode']
  version: string
  platform?: string
  /** Overrides the store reported in app info (tests); by default the store actually opened. */
  secretStore?: () => SecretStoreKind
  secretBox?: SecretBox
  /** false: never try the OS keychain (tests, machines without a Secret Service). */
  useKeychain?: boolean
  shell?: ShellCapabilities
  onSettingsChanged?: (settings: Settings) => void
  /** The session's clock (tests move it to reach check-in deadlines). */
  now?: () => number
}

export interface AppBackend {
  handlers: HandlerTable
  events: EventHub
  settings: SettingsStore
  /** Opens the vault services and starts polling and reminders. */
  start(): Promise<DesktopSession>
  close(): Promise<void>
}

export function createAppBackend(options: AppBackendOptions): AppBackend {
  const events = new EventHub()
  const settings = new SettingsStore(options.userDataDir)
  let opening: Promise<DesktopSession> | undefined
  const session = () => {
    opening ??= DesktopSession.open({
      userDataDir: options.userDataDir,
      events,
      settings: () => settings.get(),
      secretBox: options.secretBox,
      useKeychain: options.useKeychain,
      ...(options.now ? { now: options.now } : {}),
    }).catch((error: unknown) => {
      opening = undefined
      throw error
    })
    return opening
  }

  const settingsChanged = (next: Settings) => {
    options.onSettingsChanged?.(next)
    void opening?.then((s) => s.applySettings(next))
  }
  const updateSettings = async (patch: SettingsPatch) => {
    const next = await settings.update(patch)
    settingsChanged(next)
    events.emit(eventChannels.settingsChanged, next)
    return next
  }

  const handlers: HandlerTable = {
    ...createAppHandlers({
      settings,
      events,
      onSettingsChanged: settingsChanged,
      appInfo: async () => ({
        name: 'Vault Desktop',
        version: options.version,
        platform: options.platform ?? process.platform,
        mode: options.mode,
        secretStore: options.secretStore?.() ?? (await session()).core.secretStore.kind,
      }),
    }),
    ...createConnectionHandlers(session),
    ...createVaultHandlers(session),
    ...createPeopleHandlers({ session, printHtml: options.shell?.printHtml }),
    ...createUploadHandlers({ session, events, pickPaths: options.shell?.pickPaths }),
    ...createRecoveryHandlers({ events }),
    ...createRehearsalHandlers(session),
    ...createActivityHandlers({ session, settings: () => settings.get(), updateSettings }),
  }

  return {
    // The owner's actions are recorded in the activity history once they succeed.
    handlers: withActivity(handlers, session),
    events,
    settings,
    start: async () => {
      const s = await session()
      s.start()
      return s
    },
    close: async () => {
      const s = await opening?.catch(() => undefined)
      await s?.close()
    },
  }
}
