// Opening a session's parts from the user-data folder: the secret store, the connections with one
// request pacer each, vault keys, deadlines, reminders, the watcher, the upload queue, device
// records, the history and key rotations; and the local service started (with a fresh key of its own
// when the keychain forgot the old one) before anything asks it for vaults.
import { EventEmitter } from 'node:events'
import { join } from 'node:path'
import { type RetryNotice, VaultApiClient, type VaultDetails } from '../../service-client'
import { RequestPacer } from '../../service-client/request-pacer'
import { eventChannels } from '../../shared/ipc/contract'
import { DEFAULT_SETTINGS, type Settings } from '../../shared/ipc/settings'
import type { AppNotice, KeyStorageInfo, TrayView } from '../../shared/ipc/vault-types'
import { ConnectionRegistry, type ConnectionSummary } from './connections'
import { EventHub } from './ipc/handler-table'
import { type LocalService, NO_LOCAL_SERVICE, requireOwnServiceAt } from './local-service'
import { describeSecretStore, openSecretStore, type SecretBox } from './storage/secret-store'
import { VaultKeyRecords, VaultKeyStore } from './storage/vault-key-store'
import { UploadQueue } from './uploads/upload-queue'
import type { UploadItem } from './uploads/upload-records'
import { ActivityLog } from './vaults/activity-log'
import { CheckInDeadlines } from './vaults/checkin-deadlines'
import { CheckInReminders, type ReminderConfig, type ReminderDue } from './vaults/checkin-schedule'
import { DeviceRecords } from './vaults/device-records'
import { KeyRotationStore } from './vaults/key-rotation-store'
import type { ClaimAlarm, ReleaseAlarm, VaultStateChange } from './vaults/vault-watcher'
import { VaultWatcher } from './vaults/vault-watcher'

/** The session's events in this process (the shells use 'tray', 'notice' and 'upload-item'). */
export interface SessionEvents {
  /** What the tray shows, after every change of the vaults the window sees. */
  tray: [TrayView]
  /** A notice for a desktop notification (only when the owner allows notifications). */
  notice: [AppNotice]
  /** An upload item changed (with its path on this computer). */
  'upload-item': [UploadItem]
  vault: [VaultDetails]
  'vault-state': [VaultStateChange]
  reminder: [ReminderDue]
  alarm: [ReleaseAlarm]
  'claim-alarm': [ClaimAlarm]
  retrying: [RetryNotice & { connectionId: string }]
  connections: [ConnectionSummary[]]
}

export interface VaultSessionOptions {
  userDataDir: string
  /** Electron safeStorage behind an interface; without it keys fall back to memory when no keychain. */
  secretBox?: SecretBox
  /** false: skip the OS keychain (tests, or a machine without a Secret Service). */
  useKeychain?: boolean
  now?: () => number
  /** The settings as saved (the defaults otherwise). */
  settings?: Settings
  /** The Vault Service this process can run ("Start locally"); without it nothing is local. */
  localService?: LocalService
  /** Where contract events for the window go (the facade's hub). */
  window?: EventHub
  /** Where the session's own events go (the facade's, so a shell can listen before it opens). */
  events?: EventEmitter<SessionEvents>
}

export interface SessionParts {
  events: EventEmitter<SessionEvents>
  window: EventHub
  registry: ConnectionRegistry
  pacers: Map<string, RequestPacer>
  /** Where API and vault keys are kept, and why not in the keychain when they are not. */
  secretStore: KeyStorageInfo & { fallbackReasons: string[] }
  vaultKeys: VaultKeyStore
  deadlines: CheckInDeadlines
  reminders: CheckInReminders
  watcher: VaultWatcher
  queue: UploadQueue
  records: DeviceRecords
  activity: ActivityLog
  localService: LocalService
  rotations: KeyRotationStore
}

/** Every part opened, before the session wires them together. */
export async function openSessionParts(options: VaultSessionOptions): Promise<SessionParts> {
  const { userDataDir } = options
  const now = options.now ?? clockNow
  const settings = options.settings ?? DEFAULT_SETTINGS
  const events = options.events ?? new EventEmitter<SessionEvents>()
  const window = options.window ?? new EventHub()
  const localService = options.localService ?? NO_LOCAL_SERVICE
  const opened = await openSecretStore({
    userDataDir,
    ...(options.secretBox ? { secretBox: options.secretBox } : {}),
    ...(options.useKeychain === false ? { loadKeytar: null } : {}),
  })
  const secrets = opened.store
  // One pacer per connection: the service's limits are per API key.
  const pacers = new Map<string, RequestPacer>()
  const registry = await ConnectionRegistry.open({
    userDataDir,
    secrets,
    createClient: (c) => {
      requireOwnServiceAt(localService, c.serviceUrl)
      let pacer = pacers.get(c.id)
      if (!pacer) {
        pacer = new RequestPacer()
        pacers.set(c.id, pacer)
      }
      return new VaultApiClient({
        baseUrl: c.serviceUrl,
        apiKey: c.apiKey,
        ...(c.prefix ? { prefix: c.prefix } : {}),
        pacer,
        onRetry: (notice) => {
          events.emit('retrying', { ...notice, connectionId: c.id })
          window.emit(eventChannels.retrying, { text: notice.text, waitSeconds: notice.waitSeconds })
        },
      })
    },
  })
  const vaultKeys = new VaultKeyStore(
    secrets,
    await VaultKeyRecords.open(join(userDataDir, 'vault-keys.json')),
  )
  const deadlines = await CheckInDeadlines.open(userDataDir)
  const reminders = await CheckInReminders.open({
    userDataDir,
    clock: { now },
    config: reminderConfig(settings),
  })
  const watcher = await VaultWatcher.open({ userDataDir, client: () => registry.client(), now })
  const queue = await UploadQueue.open({
    userDataDir,
    clientFor: (connectionId) => registry.client(connectionId),
    vaultKeys,
    concurrency: settings.uploadConcurrency,
    realNameVaults: settings.realNameVaults,
    now,
  })
  // The local service must be up before anything asks it for vaults.
  const local = registry.list().find((c) => localService.isLocal(c.serviceUrl))
  if (local) {
    await localService.start().catch((error: unknown) => {
      console.error('[vault-desktop] the local Vault Service did not start:', error)
    })
    // Without a keychain the key is gone after a restart; the app owns the local service, so it
    // issues itself a new one instead of asking the owner for a key "Start locally" never showed.
    if (localService.currentUrl && !(await registry.hasKey(local.id))) {
      await localService
        .issueKey()
        .then(async (apiKey) => {
          await registry.replaceKey(local.id, apiKey)
          pacers.delete(local.id)
          // As after any key change of the active connection: its vaults are read from scratch.
          if (registry.active()?.id === local.id) readAfresh(watcher, reminders)
        })
        .catch((error: unknown) => {
          console.error('[vault-desktop] could not issue a new key for the local service:', error)
        })
    }
  }
  const records = await DeviceRecords.open(userDataDir)
  const activity = await ActivityLog.open(userDataDir, options.now)
  const rotations = await KeyRotationStore.open(userDataDir, options.now)
  return {
    events,
    window,
    registry,
    pacers,
    secretStore: {
      kind: secrets.kind,
      fallbackReasons: opened.fallbackReasons,
      ...describeSecretStore(secrets.kind),
    },
    vaultKeys,
    deadlines,
    reminders,
    watcher,
    queue,
    records,
    activity,
    localService,
    rotations,
  }
}

/**
 * After a key change or a switch of the active connection: the vaults read with the old key are
 * forgotten (and their reminders), `listed` tells the window, and the new account is read.
 */
export function readAfresh(watcher: VaultWatcher, reminders: CheckInReminders, listed?: () => void): void {
  watcher.reset()
  for (const v of reminders.vaults()) reminders.removeVault(v.vaultId)
  listed?.()
  void watcher.pollNow()
}

/** Read at each call: a clock faked or moved after opening (tests) is followed. */
export const clockNow = () => Date.now()

export function reminderConfig(settings: Settings): Partial<ReminderConfig> {
  const config: Partial<ReminderConfig> = {}
  if (settings.reminderDaysBefore.length) config.reminderDaysBefore = settings.reminderDaysBefore
  if (settings.overdueRepeatHours) config.overdueRepeatHours = settings.overdueRepeatHours
  return config
}
