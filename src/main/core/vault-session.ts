// The vault services of one user-data folder, opened by the facade (vault-app.ts) on the first call
// that needs them. It holds the parts — connections and their keys, vault keys, the watcher, the
// reminders, the upload queue, device records, guardian kits, the activity history, the local
// service — keeps them in step (a write reads the vault back through the watcher, a connection change
// resets it), and turns what they report into what the window sees: vault views, the snapshot,
// notices, the tray view, upload and connection events.
//
//   const s = await VaultSession.open({ userDataDir, secretBox?, useKeychain?, now?, settings?,
//                                       localService?, window?, events? })
//   s.connections   list() active() add() replaceKey() rename() remove() switchTo() hasKey()
//   s.vaults        list() get() create() remove() configureRelease() checkIn() cancelRelease()
//                   startRelease() rename() rehearsals, guardians, heirs, listAssets() (active connection);
//                   each owns what it writes (deadline, device record, history): handlers only call them
//   s.rehearsals    get() start() end(): practice runs, made at the session's clock, recorded in the history
//   s.localTrial    start() addCredits(): the service on this computer, its first vault, its credits
//   s.people        guardians (with their kits), heirs, the owner kit's check: each with its history line
//   s.uploads       estimate() queueFiles() (guards the check-in reserve) cancel() retry() clear() idle() ...
//                   and the window's list: visible()
//   s.facts         the service summary and each vault's readiness facts    s.unlockCheckIn  agent keys
//   s.rotation      estimate() start() pause() resume() abandon() status(): rotating a vault's key
//   s.vaultKeys, s.watcher, s.reminders, s.records, s.kits, s.activity, s.localService  (the parts)
//   s.snapshot() view() viewOf() latestView() labelOf() tray() connectionStatus() recordActivity() ...
//   s.start() s.onResume() s.onUnlock() s.applySettings() await s.close()
//   s.events        in-process: 'tray', 'notice', 'upload-item', 'vault', 'alarm', 'reminder', ...
//
// The session is the composition; each job is its own file: opening the parts (session-parts.ts),
// the connections (session-connections.ts), what the window sees of the vaults (vaults/vault-board.ts),
// notices and the history's appends (vaults/owner-notices.ts), kits from the held key
// (vaults/kit-making.ts), and which report moves which part (session-wiring.ts).
// Errors thrown by these calls are AppErrors (VaultApiError, ConnectionError, VaultKeyError...).
import type { EventEmitter } from 'node:events'
import { join } from 'node:path'
import type { VaultDetails } from '../../service-client'
import { AppError } from '../../shared/app-error'
import { checkInReserveCredits } from '../../shared/check-in-reserve'
import { eventChannels } from '../../shared/ipc/contract'
import { DEFAULT_SETTINGS, type Settings } from '../../shared/ipc/settings'
import type {
  ActivityEntry,
  ConnectionInfo,
  ConnectionStatus,
  KeyStorageInfo,
  TrayView,
  VaultsSnapshot,
  VaultView,
} from '../../shared/ipc/vault-types'
import type { ConnectionRegistry, ConnectionSummary } from './connections'
import type { EventHub } from './ipc/handler-table'
import type { LocalService } from './local-service'
import { SessionConnections } from './session-connections'
import {
  clockNow,
  openSessionParts,
  reminderConfig,
  type SessionEvents,
  type SessionParts,
  type VaultSessionOptions,
} from './session-parts'
import { wireSession } from './session-wiring'
import type { VaultKeyStore } from './storage/vault-key-store'
import { OwnerUploads } from './uploads/owner-uploads'
import type { UploadQueue } from './uploads/upload-queue'
import type { ActivityInput, ActivityLog } from './vaults/activity-log'
import type { CheckInDeadlines } from './vaults/checkin-deadlines'
import type { CheckInReminders } from './vaults/checkin-schedule'
import type { DeviceRecords } from './vaults/device-records'
import { GuardianKits } from './vaults/guardian-kits'
import { KeyRotation } from './vaults/key-rotation'
import { KitMaking } from './vaults/kit-making'
import { type LocalTrialOperations, localTrialOperations } from './vaults/local-trial-operations'
import { OwnerNotices } from './vaults/owner-notices'
import { type PeopleOperations, peopleOperations } from './vaults/people-operations'
import { ReadinessFacts } from './vaults/readiness-facts'
import { type RehearsalOperations, rehearsalOperations } from './vaults/rehearsal-operations'
import type { UnlockOutcome } from './vaults/unlock-check-in'
import { UnlockCheckInWiring } from './vaults/unlock-check-in-wiring'
import { VaultBoard } from './vaults/vault-board'
import { storageProblemNotice, unlockCheckInFailedNotice } from './vaults/vault-notices'
import { type VaultOperations, vaultOperations } from './vaults/vault-operations'
import type { VaultWatcher } from './vaults/vault-watcher'

export type { SessionEvents, VaultSessionOptions }

export class VaultSession {
  readonly events: EventEmitter<SessionEvents>
  /** Where API and vault keys are kept, and why not in the keychain when they are not. */
  readonly secretStore: KeyStorageInfo & { fallbackReasons: string[] }
  readonly vaultKeys: VaultKeyStore
  readonly watcher: VaultWatcher
  readonly reminders: CheckInReminders
  readonly records: DeviceRecords
  readonly kits: GuardianKits
  /** The owner's activity history on this device (activity.sqlite). */
  readonly activity: ActivityLog
  readonly facts: ReadinessFacts
  /** The owner's calls on the active connection's vaults (each write read back through the watcher). */
  readonly vaults: VaultOperations
  /** Guardians, heirs and the owner kit, each call owning its writes (people-operations.ts). */
  readonly people: PeopleOperations
  /** The trial on this computer: starting it and its credits (local-trial-operations.ts). */
  readonly localTrial: LocalTrialOperations
  /** Practice runs of the release (rehearsal-operations.ts). */
  readonly rehearsals: RehearsalOperations
  readonly unlockCheckIn: UnlockCheckInWiring
  /** The upload queue on the active connection, and the list the window shows. */
  readonly uploads: OwnerUploads
  readonly localService: LocalService
  /** Rotating a vault's key: every file re-encrypted, new kits, old blobs deleted (key-rotation.ts). */
  readonly rotation: KeyRotation
  /** Vaults whose release the owner is starting or cancelling from this device right now. */
  readonly releaseActions = new Set<string>()

  readonly #registry: ConnectionRegistry
  readonly #deadlines: CheckInDeadlines
  readonly #queue: UploadQueue
  readonly #window: EventHub
  readonly #now: () => number
  /** The session's clock (faked in tests): operations stamp their writes with it. */
  readonly now: () => number
  #settings: Settings
  /** What the window sees of the vaults, and telling it. */
  readonly #board: VaultBoard
  readonly #refreshTimers = new Map<string, ReturnType<typeof setTimeout>>()
  /** What the owner is told and what the history keeps. */
  readonly #notices: OwnerNotices
  readonly #kitMaking: KitMaking

  private constructor(options: VaultSessionOptions, parts: SessionParts) {
    this.events = parts.events
    this.secretStore = parts.secretStore
    this.vaultKeys = parts.vaultKeys
    this.watcher = parts.watcher
    this.reminders = parts.reminders
    this.records = parts.records
    this.activity = parts.activity
    this.localService = parts.localService
    this.kits = new GuardianKits(join(options.userDataDir, 'guardian-kits'))
    this.#registry = parts.registry
    this.#deadlines = parts.deadlines
    this.#queue = parts.queue
    this.#window = parts.window
    this.#now = options.now ?? clockNow
    this.now = this.#now
    this.#settings = options.settings ?? DEFAULT_SETTINGS
    this.#board = new VaultBoard({
      watcher: this.watcher,
      records: this.records,
      vaultKeys: this.vaultKeys,
      facts: () => this.facts,
      keyStorage: () => this.keyStorage,
      fileCount: (vaultId) => this.uploads.knownFileCount(vaultId),
      activeConnectionId: () => this.#registry.active()?.id,
      window: this.#window,
      tray: (view) => this.events.emit('tray', view),
      now: this.#now,
      dueSoonDays: () => Math.max(1, ...this.#settings.reminderDaysBefore),
    })
    this.#kitMaking = new KitMaking({
      vaultKeys: this.vaultKeys,
      kits: this.kits,
      records: this.records,
      vaults: () => this.vaults,
      facts: () => this.facts,
    })
    this.#notices = new OwnerNotices({
      window: this.#window,
      desktop: (notice) => this.events.emit('notice', notice),
      notificationsOn: () => this.#settings.notifications,
      activity: this.activity,
      records: this.records,
      watcher: this.watcher,
      now: this.#now,
      view: (vault) => this.#board.view(vault),
      labelOf: (vaultId) => this.#board.labelOf(vaultId),
      service: () => this.facts.service,
      uploads: () => this.#queue.list(),
      releaseActions: this.releaseActions,
    })
    this.connections = new SessionConnections({
      registry: this.#registry,
      pacers: parts.pacers,
      localService: this.localService,
      watcher: this.watcher,
      reminders: this.reminders,
      window: this.#window,
      secretStoreKind: this.secretStore.kind,
      keyStorage: () => this.keyStorage,
      service: () => this.facts.service,
      listed: () => this.#connectionsListed(),
    })
    this.vaults = vaultOperations({
      client: () => this.#registry.client(),
      watcher: this.watcher,
      deadlines: this.#deadlines,
      vaultKeys: this.vaultKeys,
      uploadIndex: () => this.#queue.index,
      records: this.records,
      now: this.#now,
      recordActivity: (input) => this.recordActivity(input),
      offers: (extension) => this.facts.service?.extensions.includes(extension) ?? false,
      forget: (vaultId) => this.forgetVault(vaultId),
      labelOf: (vaultId) => this.#board.labelOf(vaultId),
      releaseActions: this.releaseActions,
      knownBalance: (vaultId) => this.watcher.snapshot().find((v) => v.id === vaultId)?.creditsBalance,
    })
    this.rehearsals = rehearsalOperations({
      vaults: this.vaults,
      service: () => this.facts.service,
      noteRehearsal: (vaultId, rehearsal) => this.facts.noteRehearsal(vaultId, rehearsal),
      now: this.#now,
      recordActivity: (input) => this.recordActivity(input),
    })
    this.unlockCheckIn = new UnlockCheckInWiring({
      userDataDir: options.userDataDir,
      ...(options.secretBox ? { secretBox: options.secretBox } : {}),
      keychain: options.useKeychain !== false && this.secretStore.kind === 'keychain',
      now: this.#now,
      localService: this.localService,
      active: () => this.#registry.active(),
      vaults: () => this.snapshot().vaults,
      activity: this.activity,
      records: this.records,
      observe: (vault) => {
        // The window and the reminders follow the new deadline at once.
        this.watcher.observe(vault)
        this.#refreshSoon(vault.id)
      },
      recordActivity: (input) => this.recordActivity(input),
      failed: (vaultId, message) =>
        this.#notices.notice(unlockCheckInFailedNotice(this.labelOf(vaultId), vaultId, message)),
    })
    this.facts = new ReadinessFacts({
      now: this.#now,
      active: () => this.#registry.active(),
      isLocal: (url) => this.localService.isLocal(url),
      client: () => this.#registry.client(),
      kits: this.kits,
      factsChanged: () => this.#board.scheduleEmit(),
      serviceRead: () => {
        this.#board.emitNow()
        this.#window.emit(eventChannels.connectionChanged, this.connectionStatus())
      },
    })
    this.rotation = new KeyRotation({
      store: parts.rotations,
      vaultKeys: this.vaultKeys,
      client: (connectionId) => this.#registry.client(connectionId),
      activeConnectionId: () => this.#registry.active()?.id,
      durableKeys: () => this.keyStorage.durable,
      index: () => this.#queue.index,
      uploadsSettled: () => this.#queue.idle(),
      remakeKits: (vaultId, key) => this.#kitMaking.remake(vaultId, key),
      ownerKitSaved: (vaultId, fingerprint) =>
        this.records.get(vaultId).ownerKit?.fingerprint === fingerprint,
      changed: (status) => {
        this.#window.emit(eventChannels.keyRotation, status)
        // The switch changes the key's fingerprint: the views ask for the new owner kit.
        if (status.phase !== 're-encrypting') void this.#board.rememberKeyPresence(status.vaultId)
      },
    })
    // The session is what these calls use: its parts and its reads after a write.
    this.people = peopleOperations(this)
    this.localTrial = localTrialOperations(this)
    this.uploads = new OwnerUploads({
      queue: this.#queue,
      connectionId: () => this.#registry.active()?.id,
      window: this.#window,
      batchEnded: (item, counts) => this.#notices.batchEnded(item, counts),
      storageProblem: (problem) => this.#notices.notice(storageProblemNotice('upload list', problem)),
      reserve: (vaultId) => this.#checkInReserve(vaultId),
    })
  }

  /** Credits kept for check-ins of this vault: the reserve setting's months at its frequency. */
  async #checkInReserve(vaultId: string): Promise<{ credits: number; months: number }> {
    const vault = await this.latestView(vaultId)
    const frequency = vault.releaseTrigger === 'dead_man_switch' ? vault.checkInFrequency : null
    const months = this.#settings.checkInReserveMonths
    return { credits: checkInReserveCredits(frequency, months), months }
  }

  static async open(options: VaultSessionOptions): Promise<VaultSession> {
    const session = new VaultSession(options, await openSessionParts(options))
    session.#wire()
    return session
  }

  #wire(): void {
    wireSession({
      watcher: this.watcher,
      reminders: this.reminders,
      queue: this.#queue,
      deadlines: this.#deadlines,
      events: this.events,
      board: this.#board,
      notices: this.#notices,
      facts: this.facts,
      connected: () => this.#registry.active() !== undefined,
      refreshSoon: (vaultId) => this.#refreshSoon(vaultId),
    })
  }

  /** The list changed: what the window saw of the old account goes, the new one is told. */
  #connectionsListed(): void {
    this.events.emit('connections', this.#registry.list())
    this.#board.cleared()
    this.facts.clear()
    void this.facts.refreshService()
    this.#window.emit(eventChannels.connectionChanged, this.connectionStatus())
    this.#board.emitNow()
  }

  #refreshSoon(vaultId: string): void {
    if (this.#refreshTimers.has(vaultId)) return
    this.#refreshTimers.set(
      vaultId,
      setTimeout(() => {
        this.#refreshTimers.delete(vaultId)
        // On failure the watcher's next poll picks the change up.
        this.vaults.get(vaultId).catch(() => undefined)
      }, 300),
    )
  }

  /** The owner's connections (summaries only: keys stay in the secret store). */
  readonly connections: SessionConnections

  /** The active service's own description and its e-mail test (local service extensions). */
  readonly activeService = {
    info: async () => (await this.#registry.client()).getServiceInfo(),
    sendTestMail: async () => (await this.#registry.client()).sendTestMail(),
    /** The client itself, for the encrypted export's listing and downloads. */
    client: () => this.#registry.client(),
  }

  // ---- vault keys ----

  get keyStorage(): KeyStorageInfo {
    const store = this.secretStore
    return { kind: store.kind, durable: store.durable, description: store.description }
  }

  /** The raw key, for splitting into guardian shares; null when this device does not hold it. */
  vaultKey(vaultId: string): Promise<Uint8Array | null> {
    return this.#kitMaking.vaultKey(vaultId)
  }

  /** The split's kit check codes to the service when it offers kit checks; never fails the caller. */
  registerKitChecks(vaultId: string, key?: Uint8Array): Promise<void> {
    return this.#kitMaking.registerChecks(vaultId, key)
  }

  /** Whether the owner confirmed the saved owner kit of the key this device holds now. */
  ownerKitConfirmed(vaultId: string): boolean {
    return this.#board.ownerKitConfirmed(vaultId)
  }

  /**
   * The owner proved the kit of this key saved (the words checked, or the whole kit typed in): the
   * device record keeps it at the session clock's time, and a key rotation waiting for it may go on.
   */
  async ownerKitSaved(vaultId: string, fingerprint: string): Promise<void> {
    const confirmedAt = new Date(this.#now()).toISOString()
    await this.records.update(vaultId, (r) => ({ ...r, ownerKit: { confirmedAt, fingerprint } }))
    // A key rotation waiting for this kit may now delete the old copies.
    this.rotation.ownerKitConfirmed(vaultId)
  }

  /** Uploads need a key that outlives the app, or the owner's saved and confirmed kit. */
  requireLastingKey(vaultId: string): void {
    if (this.keyStorage.durable || this.ownerKitConfirmed(vaultId)) return
    throw new AppError({
      code: 'OWNER_KIT_REQUIRED',
      userMessage:
        "This computer has no keychain, so the vault key lasts only while the app runs: files uploaded now would be lost with it. Save the owner kit and confirm it (Overview → Vault key) before the first upload; it is the key's only lasting copy.",
    })
  }

  // ---- connections as the window sees them ----

  connection(id: string): ConnectionSummary {
    return this.connections.connection(id)
  }

  connectionInfo(summary: ConnectionSummary): ConnectionInfo {
    return this.connections.info(summary)
  }

  /** Which connections' keys their store no longer gives back; the window is told when that changed. */
  refreshKeyPresence(): Promise<void> {
    return this.connections.refreshKeyPresence()
  }

  connectionStatus(): ConnectionStatus {
    return this.connections.status()
  }

  // ---- vaults as the window sees them ----

  view(vault: VaultDetails): VaultView {
    return this.#board.view(vault)
  }

  snapshot(): VaultsSnapshot {
    return this.#board.snapshot()
  }

  /** The tray: the worst state across the vaults and the next check-in, as the window labels them. */
  tray(): TrayView {
    return this.#board.tray()
  }

  /** The vault's name as the window shows it (the owner's name, else a short id). */
  labelOf(vaultId: string): string {
    return this.#board.labelOf(vaultId)
  }

  /** After the service deleted a vault: its key, kits and records on this device go too. */
  async forgetVault(vaultId: string): Promise<void> {
    await this.vaultKeys.delete(vaultId)
    await this.kits.forget(vaultId)
    await this.records.update(vaultId, () => ({}))
    this.facts.forget(vaultId)
    this.#board.forgetKey(vaultId)
    this.#board.emitNow()
  }

  /** The vault as the watcher last saw it, after an action; the window is told at once. */
  async viewOf(vault: VaultDetails): Promise<VaultView> {
    await this.#board.rememberKeyPresence(vault.id)
    this.#board.emitNow()
    return this.view(vault)
  }

  /** After a connection change: the new account's vaults are read before the call returns. */
  async vaultsRead(): Promise<void> {
    if (this.#registry.active()) await this.watcher.pollNow()
    this.#board.emitNow()
  }

  /** The vault as last read (every write reads it back), else a fresh read. */
  async latestView(vaultId: string): Promise<VaultView> {
    const known = this.watcher.snapshot().find((v) => v.id === vaultId)
    return this.viewOf(known ?? (await this.vaults.get(vaultId)))
  }

  // ---- notices and the activity history ----

  /** Appends to the history and tells the window; the owner hears once of a history that cannot be kept. */
  recordActivity(input: ActivityInput): ActivityEntry | undefined {
    return this.#notices.record(input)
  }

  // ---- settings and lifecycle ----

  /**
   * From powerMonitor 'unlock-screen': what resume does, then the check-in on unlock when the owner
   * turned it on (Settings). Never throws; outcomes are in the activity history and notices.
   */
  async onUnlock(): Promise<UnlockOutcome[]> {
    await this.onResume().catch(() => undefined)
    if (!this.#settings.checkInOnUnlock || !this.#registry.active()) return []
    return this.unlockCheckIn.run()
  }

  /** The settings as last applied. */
  async settings(): Promise<Settings> {
    return this.#settings
  }

  applySettings(settings: Settings): void {
    this.#settings = settings
    this.reminders.setConfig(reminderConfig(settings))
    if (settings.uploadConcurrency) this.#queue.setConcurrency(settings.uploadConcurrency)
    this.#queue.setRealNameVaults(settings.realNameVaults)
    this.reminders.tick()
    this.#board.emitNow()
  }

  /** Timers: the reminder tick (60 s) and vault polling (when a vault is next due); the active service is read. */
  start(): void {
    this.reminders.start()
    this.watcher.start()
    void this.facts.refreshService()
    // A rotation the app stopped in the middle of continues where it stopped.
    this.rotation.resumeUnfinished()
  }

  /** After sleep or unlock: timers may have stalled; reminders are re-evaluated and vaults polled now. */
  async onResume(): Promise<void> {
    this.reminders.onResume()
    await this.watcher.onResume()
    this.#board.emitNow()
  }

  /** Stops timers, puts running uploads back in the queue, flushes files, stops the local service. */
  async close(): Promise<void> {
    this.#board.close()
    this.uploads.close()
    for (const timer of this.#refreshTimers.values()) clearTimeout(timer)
    this.reminders.stop()
    this.watcher.stop()
    await this.rotation.close()
    await this.#queue.close()
    await Promise.all([
      this.watcher.flush(),
      this.reminders.flush(),
      this.#registry.flush(),
      this.#deadlines.flush(),
      this.vaultKeys.records.flush(),
    ])
    await this.records.flush()
    await this.unlockCheckIn.flush()
    this.activity.close()
    await this.localService.close()
  }
}
