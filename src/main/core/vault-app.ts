// The one object both shells create and call (Electron: electron/index.ts and ipc-main-wiring.ts;
// browser mode: browser/browser-mode.ts and bridge-server.ts). Plain Node, no 'electron' import: the
// shell injects what only it has — safeStorage as a SecretBox, native pickers and printing, the
// embedded Vault Service — and calls onResume()/onUnlock() from powerMonitor.
//
//   const app = createVaultApp({ userDataDir, mode, version, secretBox?, shell?, localService?, ... })
//   app.handlers        every invoke channel of the contract (shared/ipc/contract.ts), for a transport
//   app.events          the contract's events for the window, for a transport to forward
//   app.settings        the settings file; changes reach the session and onSettingsChanged
//   await app.start()   opens the vault services and starts the timers: reminders (60 s), polling (when due)
//   app.on('tray' | 'notice' | 'upload-item' | ..., listener)    in-process events for the shell
//   app.vaults()        the vaults as the window last saw them (tray menu, notifications)
//   app.uploads()       the upload queue's items with their paths (browser mode's dropped files)
//   await app.onResume()   after sleep: re-evaluate reminders, poll now
//   await app.onUnlock()   the same, then the optional check-in on unlock
//   await app.close()      stop timers, put running uploads back in the queue, flush files, stop the local service
//
// The vault services (vault-session.ts) open lazily, on the first call that needs them (or start()),
// so app info and settings answer at once. Errors reach the window through the handler table.
import { EventEmitter } from 'node:events'
import { join } from 'node:path'
import type { AppInfo } from '../../shared/ipc/contract'
import { eventChannels } from '../../shared/ipc/contract'
import type { Settings, SettingsPatch } from '../../shared/ipc/settings'
import type { PickKind, SecretStoreKind, VaultView } from '../../shared/ipc/vault-types'
import { createActivityHandlers } from './ipc/activity-handlers'
import { createAppHandlers } from './ipc/app-handlers'
import { createConnectionHandlers } from './ipc/connection-handlers'
import { createExportHandlers } from './ipc/export-handlers'
import { createFileLibraryHandlers } from './ipc/file-library-handlers'
import { createFileRemovalHandlers } from './ipc/file-removal-handlers'
import { createFileSaveHandlers, emptyOpenedFiles, type OpenDecryptedFile } from './ipc/file-save-handlers'
import { EventHub, type HandlerTable } from './ipc/handler-table'
import { createLocalMailHandlers } from './ipc/local-mail-handlers'
import { createPeopleHandlers } from './ipc/people-handlers'
import { createRecoveryHandlers } from './ipc/recovery-handlers'
import { createRehearsalHandlers } from './ipc/rehearsal-handlers'
import { createUploadHandlers } from './ipc/upload-handlers'
import { createVaultHandlers } from './ipc/vault-handlers'
import type { LocalServiceOpener } from './local-service'
import type { SecretBox } from './storage/secret-store'
import { SettingsStore } from './storage/settings-store'
import { keepUserDataPrivate } from './storage/user-data-dir'
import type { UploadItem } from './uploads/upload-records'
import { type SessionEvents, VaultSession } from './vault-session'
import type { SystemConfirm } from './vaults/owner-kit-gate'
import type { UnlockOutcome } from './vaults/unlock-check-in'

/** What only the desktop shell can do; browser mode leaves these out and the UI says so. */
export interface ShellCapabilities {
  pickPaths?: (kind: PickKind) => Promise<string[]>
  printHtml?: (html: string, as: 'print' | 'pdf', suggestedName: string) => Promise<string | null>
  /** What becomes of a file the owner opens from the library, once decrypted. */
  openFile?: OpenDecryptedFile
  /** The system's own check before the owner kit is shown (Touch ID); null where there is none. */
  systemConfirm?: SystemConfirm | null
}

export interface VaultAppOptions {
  userDataDir: string
  mode: AppInfo['mode']
  version: string
  platform?: string
  /** Overrides the store reported in app info (tests); by default the store actually opened. */
  secretStore?: () => SecretStoreKind
  /** Electron safeStorage behind an interface; without it keys fall back to memory when no keychain. */
  secretBox?: SecretBox
  /** false: never try the OS keychain (tests, machines without a Secret Service). */
  useKeychain?: boolean
  shell?: ShellCapabilities
  /**
   * The Vault Service this process can run ("Start locally"), opened with the vault services and
   * stopped on close; main/local-service-host.ts in both shells. Without it nothing is local.
   */
  localService?: LocalServiceOpener
  /** Lets the shell apply settings that need the platform (launch at login). */
  onSettingsChanged?: (settings: Settings) => void
  /** The session's clock (tests move it to reach check-in deadlines). */
  now?: () => number
}

export interface VaultApp {
  readonly handlers: HandlerTable
  readonly events: EventHub
  readonly settings: SettingsStore
  on<K extends keyof SessionEvents>(event: K, listener: (...args: SessionEvents[K]) => void): void
  start(): Promise<void>
  onResume(): Promise<void>
  onUnlock(): Promise<UnlockOutcome[]>
  vaults(): VaultView[]
  uploads(): UploadItem[]
  close(): Promise<void>
}

export function createVaultApp(options: VaultAppOptions): VaultApp {
  const events = new EventHub()
  const shellEvents = new EventEmitter<SessionEvents>()
  // The data folder (names, e-mails, file names, notes) readable by its owner only, an older
  // version's 0755/0644 tightened, before the session reads or writes anything there.
  const privateData = keepUserDataPrivate(options.userDataDir).then(
    ({ failed }) => {
      if (failed.length > 0) console.error('[vault-desktop] could not make private:', failed.join('; '))
    },
    (error: unknown) => console.error('[vault-desktop] could not make the data folder private:', error),
  )
  const settings = new SettingsStore(options.userDataDir)
  let opening: Promise<VaultSession> | undefined
  let opened: VaultSession | undefined
  const open = async () => {
    await privateData
    const saved = await settings.get()
    const localService = await options.localService?.(options.userDataDir)
    opened = await VaultSession.open({
      userDataDir: options.userDataDir,
      settings: saved,
      window: events,
      events: shellEvents,
      ...(localService ? { localService } : {}),
      ...(options.secretBox ? { secretBox: options.secretBox } : {}),
      ...(options.useKeychain !== undefined ? { useKeychain: options.useKeychain } : {}),
      ...(options.now ? { now: options.now } : {}),
    })
    return opened
  }
  const session = () => {
    opening ??= open().catch((error: unknown) => {
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

  // Decrypted copies of opened files: none survives the app (a crash's are removed at the next start).
  const openedFilesDir = join(options.userDataDir, 'opened-files')
  void emptyOpenedFiles(openedFilesDir)

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
        secretStore: options.secretStore?.() ?? (await session()).secretStore.kind,
      }),
    }),
    ...createConnectionHandlers(session),
    ...createLocalMailHandlers(session),
    ...createVaultHandlers(session),
    ...createPeopleHandlers({
      session,
      printHtml: options.shell?.printHtml,
      systemConfirm: options.shell?.systemConfirm ?? null,
      ...(options.now ? { now: options.now } : {}),
    }),
    ...createUploadHandlers({ session, pickPaths: options.shell?.pickPaths }),
    ...createFileLibraryHandlers(session),
    ...createFileRemovalHandlers({ session, tempRoot: join(options.userDataDir, 'removal-temp') }),
    ...createFileSaveHandlers({ session, events, openedFilesDir, openFile: options.shell?.openFile }),
    ...createRecoveryHandlers({ events }),
    ...createExportHandlers({ session, events }),
    ...createRehearsalHandlers(session),
    ...createActivityHandlers({ session, settings: () => settings.get(), updateSettings }),
  }

  return {
    // Each operation records its own line in the activity history (vaults/*-operations.ts).
    handlers,
    events,
    settings,
    on: (event, listener) => {
      // Node's typed EventEmitter cannot relate a generic key to its listener; the signature above does.
      shellEvents.on(event, listener as Parameters<typeof shellEvents.on>[1])
    },
    start: async () => {
      ;(await session()).start()
    },
    onResume: async () => (await session()).onResume(),
    onUnlock: async () => (await session()).onUnlock(),
    vaults: () => opened?.snapshot().vaults ?? [],
    uploads: () => opened?.uploads.list() ?? [],
    close: async () => {
      const s = await opening?.catch(() => undefined)
      await s?.close()
      await emptyOpenedFiles(openedFilesDir)
    },
  }
}
