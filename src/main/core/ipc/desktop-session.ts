// The vault channels' view of the main-process core (createAppCore): it adds what the window needs
// on top — the embedded local service, per-device records, guardian kits, short vault labels — and
// turns core events into contract events for the window and notices/tray state for the shell.
import { EventEmitter } from 'node:events'
import { join } from 'node:path'
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
import type { VaultDetails } from '../api-client'
import { type AppCore, createAppCore } from '../app-core'
import type { ConnectionSummary } from '../connections'
import { decodeOwnerKitWords } from '../crypto'
import type { SecretBox } from '../secret-store'
import { deriveTrayState } from '../tray-state'
import type { UploadItem } from '../upload-queue'
import { DeviceRecords } from './device-records'
import { GuardianKits } from './guardian-kits'
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
  readonly core: AppCore
  readonly host: LocalServiceHost
  readonly records: DeviceRecords
  readonly kits: GuardianKits
  readonly #events: EventHub
  readonly #now: () => number
  #fetchedAt: string | null = null
  #error: VaultsSnapshot['error'] = null
  readonly #keyOnDevice = new Map<string, boolean>()
  readonly #dismissed = new Set<string>()
  #emitTimer: ReturnType<typeof setTimeout> | undefined
  #settings: Settings

  private constructor(
    options: SessionOptions,
    parts: { core: AppCore; host: LocalServiceHost; records: DeviceRecords; settings: Settings },
  ) {
    this.core = parts.core
    this.host = parts.host
    this.records = parts.records
    this.kits = new GuardianKits(join(options.userDataDir, 'guardian-kits'))
    this.#events = options.events
    this.#now = options.now ?? Date.now
    this.#settings = parts.settings
  }

  static async open(options: SessionOptions): Promise<DesktopSession> {
    const { userDataDir } = options
    const settings = await options.settings()
    const host = await LocalServiceHost.open(userDataDir)
    const core = await createAppCore({
      userDataDir,
      ...(options.secretBox ? { secretBox: options.secretBox } : {}),
      ...(options.useKeychain === false ? { loadKeytar: null } : {}),
      ...(options.now ? { clock: { now: options.now } } : {}),
      settings: {
        reminderDaysBefore: settings.reminderDaysBefore,
        overdueRepeatHours: settings.overdueRepeatHours,
        uploadConcurrency: settings.uploadConcurrency,
      },
    })
    // The local service must be up before anything asks it for vaults.
    if (core.connections.list().some((c) => host.isLocal(c.serviceUrl))) {
      await host.start().catch((error: unknown) => {
        console.error('[vault-desktop] the local Vault Service did not start:', error)
      })
    }
    const records = await DeviceRecords.open(userDataDir)
    const session = new DesktopSession(options, { core, host, records, settings })
    session.#wire()
    return session
  }

  #wire(): void {
    const { events } = this.core
    events.on('vault', (vault) => {
      this.#fetchedAt = new Date(this.#now()).toISOString()
      this.#error = null
      void this.#rememberKeyPresence(vault.id)
      this.#scheduleEmit()
    })
    events.on('vault-removed', () => this.#scheduleEmit())
    events.on('poll-failed', (failure) => {
      // Nothing connected yet: the first-run screen says so; no error to show.
      if (!this.core.connections.active() || failure.vaultId !== null) return
      this.#error = { code: failure.code, message: failure.userMessage }
      this.#scheduleEmit()
    })
    events.on('connections', () => {
      this.#fetchedAt = null
      this.#error = null
      this.#events.emit(eventChannels.connectionChanged, this.connectionStatus())
      this.#emitNow()
    })
    events.on('alarm', (alarm) =>
      this.#notice({
        kind: 'releasing',
        title: `${vaultLabel(alarm.vaultId)} is releasing`,
        body: `Its release to your heirs has started. You have ${alarm.daysLeftToCancel} day${alarm.daysLeftToCancel === 1 ? '' : 's'} left to cancel if this was not intended: open the vault and choose "Cancel release".`,
        vaultId: alarm.vaultId,
      }),
    )
    events.on('reminder', (due) =>
      this.#notice({
        kind: 'reminder',
        title: due.title,
        body: due.body.replace(`Vault ${due.vaultId}`, vaultLabel(due.vaultId)),
        vaultId: due.vaultId,
      }),
    )
    events.on('retrying', (notice) =>
      this.#events.emit(eventChannels.retrying, { text: notice.text, waitSeconds: notice.waitSeconds }),
    )
    events.on('upload-item', (item) => {
      this.#events.emit(eventChannels.uploadItem, toUploadView(item))
      // One read of the vault for its new asset count and balance once uploads land.
      if (item.state === 'done') this.#refreshSoon(item.vaultId)
      this.#noticeWhenBatchEnds(item)
    })
    events.on('upload-progress', (p) =>
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

  readonly #refreshTimers = new Map<string, ReturnType<typeof setTimeout>>()
  #refreshSoon(vaultId: string): void {
    if (this.#refreshTimers.has(vaultId)) return
    this.#refreshTimers.set(
      vaultId,
      setTimeout(() => {
        this.#refreshTimers.delete(vaultId)
        // On failure the watcher's next poll picks the change up.
        this.core.vaults.get(vaultId).catch(() => undefined)
      }, 300),
    )
  }

  start(): void {
    this.core.start()
  }

  applySettings(settings: Settings): void {
    this.#settings = settings
    this.core.applySettings({
      reminderDaysBefore: settings.reminderDaysBefore,
      overdueRepeatHours: settings.overdueRepeatHours,
      uploadConcurrency: settings.uploadConcurrency,
    })
    this.#emitNow()
  }

  /** From powerMonitor resume: timers may have stalled during sleep. */
  onResume(): Promise<void> {
    return this.core.onResume()
  }

  // ---- vault keys ----

  /** The vault's key, made now on this device when it has none (a vault created here). */
  async ensureVaultKey(vaultId: string): Promise<void> {
    if (!(await this.core.vaultKeys.info(vaultId)).present) await this.core.vaultKeys.create(vaultId)
  }

  /** The raw key, for splitting into guardian shares; null when this device does not hold it. */
  async vaultKey(vaultId: string): Promise<Uint8Array | null> {
    if (!(await this.core.vaultKeys.info(vaultId)).present) return null
    // The core hands out the key only as the owner kit's words; they decode to the key itself.
    return decodeOwnerKitWords((await this.core.vaultKeys.exportOwnerKit(vaultId)).words).vaultKey
  }

  // ---- uploads ----

  /** Upload items the window should list (failures the owner cleared are hidden). */
  visibleUploads(): UploadItem[] {
    return this.core.uploads.list().filter((i) => !this.#dismissed.has(i.id))
  }

  dismissUploads(match: (item: UploadItem) => boolean): number {
    const ids = this.visibleUploads()
      .filter(match)
      .map((i) => i.id)
    for (const id of ids) this.#dismissed.add(id)
    return ids.length
  }

  // ---- connections ----

  connection(id: string): ConnectionSummary {
    const found = this.core.connections.list().find((c) => c.id === id)
    if (!found) throw new Error(`no connection ${id}`)
    return found
  }

  connectionInfo(summary: ConnectionSummary): ConnectionInfo {
    return {
      id: summary.id,
      serviceUrl: summary.serviceUrl,
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
    const connections = this.core.connections.list().map((c) => this.connectionInfo(c))
    return {
      connections,
      active: connections.find((c) => c.active) ?? null,
      secretStore: this.core.secretStore.kind,
      localService: { running: this.host.currentUrl !== null, url: this.host.currentUrl },
    }
  }

  // ---- vaults ----

  async #rememberKeyPresence(vaultId: string): Promise<void> {
    const has = (await this.core.vaultKeys.info(vaultId)).present
    if (this.#keyOnDevice.get(vaultId) !== has) {
      this.#keyOnDevice.set(vaultId, has)
      this.#scheduleEmit()
    }
  }

  view(vault: VaultDetails): VaultView {
    const record = this.records.get(vault.id)
    const trigger = vault.releaseTrigger ?? record.releaseTrigger ?? null
    return {
      ...vault,
      label: vaultLabel(vault.id),
      releaseTrigger: trigger,
      checkInFrequency: vault.checkInFrequency ?? record.checkInFrequency ?? null,
      nextCheckInDue:
        trigger === 'dead_man_switch' ? (vault.nextCheckInDue ?? record.nextCheckInDue ?? null) : null,
      releaseStartedAt: vault.releaseStartedAt ?? null,
      contestationEndsAt: vault.contestationEndsAt ?? null,
      releasedAt: vault.releasedAt ?? null,
      lastCheckIn: record.lastCheckIn ?? null,
      keyOnDevice: this.#keyOnDevice.get(vault.id) ?? false,
    }
  }

  snapshot(): VaultsSnapshot {
    const vaults = this.core.watcher
      .snapshot()
      .map((v) => this.view(v))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    return {
      connectionId: this.core.connections.active()?.id ?? null,
      vaults,
      fetchedAt: this.#fetchedAt,
      error: this.#error,
    }
  }

  /** The vault as the watcher last saw it, after an action; the window is told at once. */
  async viewOf(vault: VaultDetails): Promise<VaultView> {
    await this.#rememberKeyPresence(vault.id)
    this.#emitNow()
    return this.view(vault)
  }

  /** After a connection change: the new account's vaults are read before the call returns. */
  async vaultsRead(): Promise<void> {
    if (this.core.connections.active()) await this.core.watcher.pollNow()
    this.#emitNow()
  }

  /** The vault as the core last read it (it reads back after every write), else a fresh read. */
  async latestView(vaultId: string): Promise<VaultView> {
    const known = this.core.watcher.snapshot().find((v) => v.id === vaultId)
    return this.viewOf(known ?? (await this.core.vaults.get(vaultId)))
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
    // The tray uses the same short labels as the window.
    const tray = deriveTrayState(
      snapshot.vaults.map((v) => ({
        vaultId: v.id,
        label: v.label,
        state: v.state,
        nextCheckInDue: v.state === 'active' ? v.nextCheckInDue : null,
        releaseStartedAt: v.releaseStartedAt,
        contestationEndsAt: v.contestationEndsAt,
      })),
      this.#now(),
      { dueSoonDays: Math.max(1, ...this.#settings.reminderDaysBefore) },
    )
    this.shell.emit('tray', { level: tray.level, text: tray.text, nextCheckIn: tray.nextCheckIn })
  }

  // ---- notices ----

  #notice(notice: AppNotice): void {
    this.#events.emit(eventChannels.notice, notice)
    if (this.#settings.notifications) this.shell.emit('notice', notice)
  }

  #noticeWhenBatchEnds(item: UploadItem): void {
    if (!['done', 'failed', 'skipped', 'cancelled'].includes(item.state)) return
    const batch = this.core.uploads.list().filter((i) => i.batchId === item.batchId)
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
    await this.core.close()
    await this.records.flush()
    await this.host.close()
  }
}
