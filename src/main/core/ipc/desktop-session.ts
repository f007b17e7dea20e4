// The services behind the vault channels, opened once per process: secret store, connections,
// vault keys, the embedded local service, the vault watcher, reminders and the upload queue. It
// turns their events into contract events for the window and into notices/tray state for the shell.
import { EventEmitter } from 'node:events'
import { eventChannels } from '../../../shared/ipc/contract'
import type { Settings } from '../../../shared/ipc/settings'
import type {
  AppNotice,
  ConnectionInfo,
  ConnectionStatus,
  TrayView,
  UploadItemView,
  VaultsSnapshot,
  VaultView,
} from '../../../shared/ipc/vault-types'
import { VaultApiClient, type VaultDetails } from '../api-client'
import { CheckInReminders } from '../checkin-schedule'
import {
  ConnectionRegistry,
  type ConnectionSummary,
  type ConnectionRegistry as Registry,
} from '../connections'
import { openSecretStore, type SecretBox, type SecretStore } from '../secret-store'
import { deriveTrayState } from '../tray-state'
import { type UploadItem, UploadQueue } from '../upload-queue'
import { VaultKeyStore } from '../vault-key-store'
import { VaultWatcher } from '../vault-watcher'
import { DeviceRecords } from './device-records'
import type { EventHub } from './handler-table'
import { LocalServiceHost } from './local-service-host'

export interface SessionOptions {
  userDataDir: string
  events: EventHub
  settings: () => Promise<Settings>
  secretBox?: SecretBox
  /** false: skip the OS keychain (tests, or a machine without a Secret Service). */
  useKeychain?: boolean
  now?: () => number
  /** Watcher tick; tests shorten it. */
  pollTickMs?: number
}

export interface ShellEvents {
  notice: [AppNotice]
  tray: [TrayView]
}

/** A short, stable name for a vault (the API gives vaults no name). */
export function vaultLabel(vaultId: string): string {
  return `Vault ${vaultId
    .replace(/^[a-z]+_/i, '')
    .slice(0, 6)
    .toUpperCase()}`
}

export function toUploadView(item: UploadItem): UploadItemView {
  return {
    id: item.id,
    batchId: item.batchId,
    vaultId: item.vaultId,
    relativePath: item.relativePath,
    state: item.state,
    sizeBytes: item.sizeBytes,
    encryptedBytes: item.encryptedBytes,
    estimatedCredits: item.estimatedCredits,
    sentBytes: item.sentBytes,
    totalBytes: item.totalBytes,
    ...(item.error ? { error: { code: item.error.code, message: item.error.message } } : {}),
    note: item.note,
    asset: item.asset,
    creditsConsumed: item.creditsConsumed,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  }
}

export class DesktopSession {
  readonly shell = new EventEmitter<ShellEvents>()
  readonly secrets: SecretStore
  readonly connections: Registry
  readonly keyring: VaultKeyStore
  readonly host: LocalServiceHost
  readonly watcher: VaultWatcher
  readonly reminders: CheckInReminders
  readonly uploads: UploadQueue
  readonly records: DeviceRecords
  readonly #events: EventHub
  readonly #now: () => number
  readonly #pollTickMs: number
  #fetchedAt: string | null = null
  #error: VaultsSnapshot['error'] = null
  #keyOnDevice = new Map<string, boolean>()
  readonly #dismissed = new Set<string>()
  readonly #refreshTimers = new Map<string, ReturnType<typeof setTimeout>>()
  #emitTimer: ReturnType<typeof setTimeout> | undefined
  #settings: Settings | undefined

  private constructor(parts: {
    options: SessionOptions
    secrets: SecretStore
    connections: Registry
    keyring: VaultKeyStore
    host: LocalServiceHost
    watcher: VaultWatcher
    reminders: CheckInReminders
    uploads: UploadQueue
    records: DeviceRecords
  }) {
    this.secrets = parts.secrets
    this.connections = parts.connections
    this.keyring = parts.keyring
    this.host = parts.host
    this.watcher = parts.watcher
    this.reminders = parts.reminders
    this.uploads = parts.uploads
    this.records = parts.records
    this.#events = parts.options.events
    this.#now = parts.options.now ?? Date.now
    this.#pollTickMs = parts.options.pollTickMs ?? 1_000
  }

  static async open(options: SessionOptions): Promise<DesktopSession> {
    const { userDataDir } = options
    const settings = await options.settings()
    const { store: secrets } = await openSecretStore({
      userDataDir,
      secretBox: options.secretBox,
      ...(options.useKeychain === false ? { loadKeytar: null } : {}),
    })
    const host = await LocalServiceHost.open(userDataDir)
    const connections = await ConnectionRegistry.open({
      userDataDir,
      secrets,
      createClient: (c) =>
        new VaultApiClient({
          baseUrl: host.resolve(c.serviceUrl),
          apiKey: c.apiKey,
          // The local service moves port when its old one is taken: detect the prefix afresh then.
          prefix: host.isLocal(c.serviceUrl) ? undefined : c.prefix,
        }),
    })
    // The local service must be up before anything asks it for vaults.
    if (connections.list().some((c) => host.isLocal(c.serviceUrl))) {
      await host.start().catch((error: unknown) => {
        console.error('[vault-desktop] the local Vault Service did not start:', error)
      })
    }
    const keyring = new VaultKeyStore(secrets)
    const clientFor = (connectionId?: string) => connections.client(connectionId)
    const watcher = await VaultWatcher.open({
      client: () => connections.client(),
      userDataDir,
      now: options.now,
    })
    const reminders = await CheckInReminders.open({
      userDataDir,
      clock: options.now ? { now: options.now } : undefined,
      config: {
        reminderDaysBefore: settings.reminderDaysBefore,
        overdueRepeatHours: settings.overdueRepeatHours,
      },
    })
    const uploads = await UploadQueue.open({
      userDataDir,
      clientFor,
      vaultKeys: keyring,
      concurrency: settings.uploadConcurrency,
    })
    const records = await DeviceRecords.open(userDataDir)
    const session = new DesktopSession({
      options,
      secrets,
      connections,
      keyring,
      host,
      watcher,
      reminders,
      uploads,
      records,
    })
    session.#settings = settings
    session.#wire()
    return session
  }

  #wire(): void {
    this.watcher.on('vault', (vault) => {
      this.#fetchedAt = new Date(this.#now()).toISOString()
      this.#error = null
      void this.#rememberKeyPresence(vault.id)
      this.reminders.setVault({
        vaultId: vault.id,
        label: vaultLabel(vault.id),
        nextCheckInDue: vault.state === 'active' ? this.#nextDue(vault) : null,
      })
      this.#scheduleEmit()
    })
    this.watcher.on('vault-removed', (vaultId) => {
      this.reminders.removeVault(vaultId)
      this.#scheduleEmit()
    })
    this.watcher.on('poll-failed', (failure) => {
      // Nothing connected yet: the first-run screen says so; no error to show.
      if (!this.connections.active()) return
      if (failure.vaultId === null) {
        this.#error = { code: failure.code, message: failure.userMessage }
        this.#scheduleEmit()
      }
    })
    this.watcher.on('alarm', (alarm) =>
      this.#notice({
        kind: 'releasing',
        title: `${vaultLabel(alarm.vaultId)} is releasing`,
        body: `Its release to your heirs has started. You have ${alarm.daysLeftToCancel} day${alarm.daysLeftToCancel === 1 ? '' : 's'} left to cancel if this was not intended: open the vault and choose "Cancel release".`,
        vaultId: alarm.vaultId,
      }),
    )
    this.reminders.on('due', (due) =>
      this.#notice({ kind: 'reminder', title: due.title, body: due.body, vaultId: due.vaultId }),
    )
    this.uploads.on('item', (item) => {
      this.#events.emit(eventChannels.uploadItem, toUploadView(item))
      if (item.state === 'done') this.#refreshSoon(item.vaultId)
      this.#noticeWhenBatchEnds(item)
    })
    this.uploads.on('progress', (p) =>
      this.#events.emit(eventChannels.uploadProgress, {
        itemId: p.itemId,
        vaultId: p.vaultId,
        sentBytes: p.sentBytes,
        totalBytes: p.totalBytes,
        bytesPerSecond: p.bytesPerSecond,
        etaSeconds: p.etaSeconds,
      }),
    )
  }

  /** After uploads land: one read of the vault for its new asset count and balance, not one per file. */
  #refreshSoon(vaultId: string): void {
    if (this.#refreshTimers.has(vaultId)) return
    this.#refreshTimers.set(
      vaultId,
      setTimeout(() => {
        this.#refreshTimers.delete(vaultId)
        void this.connections
          .client()
          .then((client) => client.getVault(vaultId))
          .then((vault) => this.observe(vault))
          .catch(() => undefined) // the watcher's next poll picks it up
      }, 300),
    )
  }

  start(): void {
    this.watcher.start(this.#pollTickMs)
    this.reminders.start()
  }

  applySettings(settings: Settings): void {
    this.#settings = settings
    this.reminders.setConfig({
      reminderDaysBefore: settings.reminderDaysBefore,
      overdueRepeatHours: settings.overdueRepeatHours,
    })
    this.uploads.setConcurrency(settings.uploadConcurrency)
  }

  /** From powerMonitor resume: timers may have stalled during sleep. */
  async onResume(): Promise<void> {
    this.reminders.onResume()
    await this.watcher.onResume()
  }

  /** Upload items the window should list (failures the owner cleared are hidden). */
  visibleUploads(): UploadItem[] {
    return this.uploads.list().filter((i) => !this.#dismissed.has(i.id))
  }

  dismissUploads(match: (item: UploadItem) => boolean): number {
    const ids = this.visibleUploads()
      .filter(match)
      .map((i) => i.id)
    for (const id of ids) this.#dismissed.add(id)
    return ids.length
  }

  /** The vault's key, made now on this device when it has none (a vault created here). */
  async ensureVaultKey(vaultId: string): Promise<void> {
    if (!(await this.keyring.has(vaultId))) await this.keyring.create(vaultId)
  }

  // ---- connections ----

  connectionInfo(summary: ConnectionSummary): ConnectionInfo {
    return {
      id: summary.id,
      serviceUrl: this.host.isLocal(summary.serviceUrl)
        ? (this.host.currentUrl ?? summary.serviceUrl)
        : summary.serviceUrl,
      label: summary.label,
      keyKind: summary.keyKind,
      keyLast4: summary.keyLast4,
      keyStore: summary.keyStore,
      addedAt: summary.addedAt,
      active: summary.active,
      local: this.host.isLocal(summary.serviceUrl),
    }
  }

  connectionStatus(): ConnectionStatus {
    const connections = this.connections.list().map((c) => this.connectionInfo(c))
    return {
      connections,
      active: connections.find((c) => c.active) ?? null,
      secretStore: this.secrets.kind,
      localService: { running: this.host.currentUrl !== null, url: this.host.currentUrl },
    }
  }

  /** After adding, switching or forgetting a connection: start over with the new account's vaults. */
  async connectionChanged(): Promise<void> {
    this.watcher.reset()
    for (const v of this.reminders.vaults()) this.reminders.removeVault(v.vaultId)
    this.#fetchedAt = null
    this.#error = null
    this.#events.emit(eventChannels.connectionChanged, this.connectionStatus())
    this.#emitNow()
    if (this.connections.active()) await this.watcher.pollNow()
    this.#emitNow()
  }

  // ---- vaults ----

  #nextDue(vault: VaultDetails): string | null {
    const record = this.records.get(vault.id)
    const trigger = vault.releaseTrigger ?? record.releaseTrigger ?? null
    if (trigger !== 'dead_man_switch') return null
    return vault.nextCheckInDue ?? record.nextCheckInDue ?? null
  }

  async #rememberKeyPresence(vaultId: string): Promise<void> {
    const has = await this.keyring.has(vaultId)
    if (this.#keyOnDevice.get(vaultId) !== has) {
      this.#keyOnDevice.set(vaultId, has)
      this.#scheduleEmit()
    }
  }

  view(vault: VaultDetails): VaultView {
    const record = this.records.get(vault.id)
    return {
      ...vault,
      label: vaultLabel(vault.id),
      releaseTrigger: vault.releaseTrigger ?? record.releaseTrigger ?? null,
      checkInFrequency: vault.checkInFrequency ?? record.checkInFrequency ?? null,
      nextCheckInDue: this.#nextDue(vault),
      releaseStartedAt: vault.releaseStartedAt ?? null,
      contestationEndsAt: vault.contestationEndsAt ?? null,
      releasedAt: vault.releasedAt ?? null,
      lastCheckIn: record.lastCheckIn ?? null,
      keyOnDevice: this.#keyOnDevice.get(vault.id) ?? false,
    }
  }

  snapshot(): VaultsSnapshot {
    const vaults = this.watcher
      .snapshot()
      .map((v) => this.view(v))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    return {
      connectionId: this.connections.active()?.id ?? null,
      vaults,
      fetchedAt: this.#fetchedAt,
      error: this.#error,
    }
  }

  /** Feeds a vault obtained from an action (create, check-in, cancel) and tells the window. */
  async observe(vault: VaultDetails): Promise<VaultView> {
    await this.#rememberKeyPresence(vault.id)
    this.watcher.observe(vault)
    this.#emitNow()
    return this.view(vault)
  }

  #scheduleEmit(): void {
    if (this.#emitTimer) return
    this.#emitTimer = setTimeout(() => {
      this.#emitTimer = undefined
      this.#emitNow()
    }, 30)
  }

  #emitNow(): void {
    if (this.#emitTimer) clearTimeout(this.#emitTimer)
    this.#emitTimer = undefined
    const snapshot = this.snapshot()
    this.#events.emit(eventChannels.vaultsChanged, snapshot)
    const tray = deriveTrayState(
      snapshot.vaults.map((v) => ({
        vaultId: v.id,
        label: v.label,
        state: v.state,
        nextCheckInDue: v.nextCheckInDue,
        releaseStartedAt: v.releaseStartedAt,
        contestationEndsAt: v.contestationEndsAt,
      })),
      this.#now(),
      { dueSoonDays: Math.max(1, ...(this.#settings?.reminderDaysBefore ?? [3])) },
    )
    this.shell.emit('tray', { level: tray.level, text: tray.text, nextCheckIn: tray.nextCheckIn })
  }

  // ---- notices ----

  #notice(notice: AppNotice): void {
    this.#events.emit(eventChannels.notice, notice)
    if (this.#settings?.notifications !== false) this.shell.emit('notice', notice)
  }

  #noticeWhenBatchEnds(item: UploadItem): void {
    if (!['done', 'failed', 'skipped', 'cancelled'].includes(item.state)) return
    const batch = this.uploads.list().filter((i) => i.batchId === item.batchId)
    if (batch.some((i) => i.state === 'queued' || i.state === 'checking' || i.state === 'uploading')) return
    const done = batch.filter((i) => i.state === 'done').length
    const failed = batch.filter((i) => i.state === 'failed')
    if (done === 0 && failed.length === 0) return
    const label = vaultLabel(item.vaultId)
    if (failed.length > 0) {
      this.#notice({
        kind: 'upload-failed',
        title: `${failed.length} upload${failed.length === 1 ? '' : 's'} failed`,
        body: `${label}: ${failed[0]?.error?.message ?? 'see the upload list for the reason.'}`,
        vaultId: item.vaultId,
      })
    } else {
      const credits = batch.reduce((sum, i) => sum + (i.creditsConsumed ?? 0), 0)
      this.#notice({
        kind: 'upload-done',
        title: `Backup finished: ${done} file${done === 1 ? '' : 's'}`,
        body: `${label}: ${done} file${done === 1 ? '' : 's'} encrypted and stored for ${credits} credit${credits === 1 ? '' : 's'}.`,
        vaultId: item.vaultId,
      })
    }
  }

  async close(): Promise<void> {
    if (this.#emitTimer) clearTimeout(this.#emitTimer)
    for (const timer of this.#refreshTimers.values()) clearTimeout(timer)
    this.watcher.stop()
    this.reminders.stop()
    await this.uploads.stop()
    await Promise.all([
      this.watcher.flush(),
      this.reminders.flush(),
      this.records.flush(),
      this.connections.flush(),
    ])
    await this.host.close()
  }
}
