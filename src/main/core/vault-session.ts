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
//                   startRelease() rename() rehearsals, guardians, heirs, listAssets() (active connection)
//   s.uploads       estimate() enqueue() cancel() retry() list() idle() ... and the window's list: visible()
//   s.facts         the service summary and each vault's readiness facts    s.unlockCheckIn  agent keys
//   s.rotation      estimate() start() pause() resume() abandon() status(): rotating a vault's key
//   s.vaultKeys, s.watcher, s.reminders, s.records, s.kits, s.activity, s.localService  (the parts)
//   s.snapshot() view() viewOf() latestView() labelOf() tray() connectionStatus() recordActivity() ...
//   s.start() s.onResume() s.onUnlock() s.applySettings() await s.close()
//   s.events        in-process: 'tray', 'notice', 'upload-item', 'vault', 'alarm', 'reminder', ...
//
// Errors thrown by these calls are AppErrors (VaultApiError, ConnectionError, VaultKeyError...).
import { EventEmitter } from 'node:events'
import { join } from 'node:path'
import { type RetryNotice, VaultApiClient, VaultApiError, type VaultDetails } from '../../service-client'
import { RequestPacer } from '../../service-client/request-pacer'
import { AppError } from '../../shared/app-error'
import { runwayMonths } from '../../shared/check-in-reserve'
import { eventChannels } from '../../shared/ipc/contract'
import { DEFAULT_SETTINGS, type Settings } from '../../shared/ipc/settings'
import type {
  ActivityEntry,
  AppNotice,
  ConnectionInfo,
  ConnectionStatus,
  KeyStorageInfo,
  LostVaultKey,
  TrayView,
  UploadItemView,
  VaultsSnapshot,
  VaultView,
} from '../../shared/ipc/vault-types'
import { decodeOwnerKitWords } from '../../vault-format'
import {
  type AddConnectionRequest,
  ConnectionError,
  ConnectionRegistry,
  type ConnectionSummary,
} from './connections'
import { EventHub } from './ipc/handler-table'
import { type LocalService, NO_LOCAL_SERVICE } from './local-service'
import { describeSecretStore, openSecretStore, type SecretBox } from './storage/secret-store'
import { VaultKeyRecords, VaultKeyStore } from './storage/vault-key-store'
import { OwnerUploads } from './uploads/owner-uploads'
import { type BatchCounts, UploadQueue } from './uploads/upload-queue'
import type { UploadItem } from './uploads/upload-records'
import { type ActivityInput, ActivityLog, MAX_NAMES } from './vaults/activity-log'
import { CheckInDeadlines } from './vaults/checkin-deadlines'
import { CheckInReminders, type ReminderConfig, type ReminderDue } from './vaults/checkin-schedule'
import { DeviceRecords } from './vaults/device-records'
import { GuardianKits } from './vaults/guardian-kits'
import { KeyRotation } from './vaults/key-rotation'
import { KeyRotationStore } from './vaults/key-rotation-store'
import { registerKitChecks } from './vaults/kit-check-registration'
import { ReadinessFacts } from './vaults/readiness-facts'
import type { UnlockOutcome } from './vaults/unlock-check-in'
import { UnlockCheckInWiring } from './vaults/unlock-check-in-wiring'
import {
  batchEndNotice,
  claimNotice,
  creditsLowNotice,
  releasingNotice,
  reminderNotice,
  storageProblemNotice,
  unlockCheckInFailedNotice,
} from './vaults/vault-notices'
import { type VaultOperations, vaultOperations } from './vaults/vault-operations'
import { trayView, vaultLabel, vaultName, vaultView } from './vaults/vault-view'
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

/** Below this many months of check-ins, a notification warns (once a week). */
const CREDITS_LOW_MONTHS = 3
const CREDITS_LOW_REPEAT_MS = 7 * 24 * 3600_000

interface SessionParts {
  events: EventEmitter<SessionEvents>
  window: EventHub
  registry: ConnectionRegistry
  pacers: Map<string, RequestPacer>
  secretStore: VaultSession['secretStore']
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
  readonly unlockCheckIn: UnlockCheckInWiring
  /** The upload queue on the active connection, and the list the window shows. */
  readonly uploads: OwnerUploads
  readonly localService: LocalService
  /** Rotating a vault's key: every file re-encrypted, new kits, old blobs deleted (key-rotation.ts). */
  readonly rotation: KeyRotation
  /** Vaults whose release the owner is starting or cancelling from this device right now. */
  readonly releaseActions = new Set<string>()

  readonly #registry: ConnectionRegistry
  readonly #pacers: Map<string, RequestPacer>
  readonly #deadlines: CheckInDeadlines
  readonly #queue: UploadQueue
  readonly #window: EventHub
  readonly #now: () => number
  #settings: Settings
  #fetchedAt: string | null = null
  #error: VaultsSnapshot['error'] = null
  #keyMissing = new Set<string>()
  readonly #keyOnDevice = new Map<string, boolean>()
  readonly #keyFingerprint = new Map<string, string | undefined>()
  readonly #keyLost = new Map<string, LostVaultKey>()
  #emitTimer: ReturnType<typeof setTimeout> | undefined
  readonly #refreshTimers = new Map<string, ReturnType<typeof setTimeout>>()
  #activityProblemTold: string | undefined

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
    this.#pacers = parts.pacers
    this.#deadlines = parts.deadlines
    this.#queue = parts.queue
    this.#window = parts.window
    this.#now = options.now ?? clockNow
    this.#settings = options.settings ?? DEFAULT_SETTINGS
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
      knownBalance: (vaultId) => this.watcher.snapshot().find((v) => v.id === vaultId)?.creditsBalance,
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
        this.#notice(unlockCheckInFailedNotice(this.labelOf(vaultId), vaultId, message)),
    })
    this.facts = new ReadinessFacts({
      now: this.#now,
      active: () => this.#registry.active(),
      isLocal: (url) => this.localService.isLocal(url),
      client: () => this.#registry.client(),
      kits: this.kits,
      factsChanged: () => this.#scheduleEmit(),
      serviceRead: () => {
        this.#emitNow()
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
      remakeKits: (vaultId, key) => this.#remakeKits(vaultId, key),
      ownerKitSaved: (vaultId, fingerprint) =>
        this.records.get(vaultId).ownerKit?.fingerprint === fingerprint,
      changed: (status) => {
        this.#window.emit(eventChannels.keyRotation, status)
        // The switch changes the key's fingerprint: the views ask for the new owner kit.
        if (status.phase !== 're-encrypting') void this.#rememberKeyPresence(status.vaultId)
      },
    })
    this.uploads = new OwnerUploads({
      queue: this.#queue,
      connectionId: () => this.#registry.active()?.id,
      window: this.#window,
      batchEnded: (item, counts) => this.#batchEnded(item, counts),
      storageProblem: (problem) => this.#notice(storageProblemNotice('upload list', problem)),
    })
  }

  static async open(options: VaultSessionOptions): Promise<VaultSession> {
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
    const session = new VaultSession(options, {
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
    })
    session.#wire()
    return session
  }

  #wire(): void {
    const { watcher, reminders } = this
    watcher.on('vault', (vault) => {
      reminders.setVault({
        vaultId: vault.id,
        label: this.#labelOf(vault),
        nextCheckInDue: this.#deadlines.dueOf(vault),
      })
      this.events.emit('vault', vault)
      this.#fetchedAt = new Date(this.#now()).toISOString()
      this.#error = null
      void this.#rememberKeyPresence(vault.id)
      void this.facts.refresh(vault.id, false)
      this.#warnIfCreditsLow(vault)
      this.#scheduleEmit()
    })
    // An account with no vault: the list was read, there is just nothing in it.
    watcher.on('listed', () => {
      this.#fetchedAt = new Date(this.#now()).toISOString()
      this.#error = null
      this.#scheduleEmit()
    })
    watcher.on('vault-removed', (vaultId) => {
      reminders.removeVault(vaultId)
      this.#scheduleEmit()
    })
    watcher.on('poll-failed', (failure) => {
      // Nothing connected yet: the first-run screen says so; no error to show.
      if (!this.#registry.active() || failure.vaultId !== null) return
      this.#error = {
        code: failure.code,
        message: failure.userMessage,
        ...(failure.detail !== undefined ? { detail: failure.detail } : {}),
      }
      this.#scheduleEmit()
    })
    watcher.on('state-change', (change) => {
      this.events.emit('vault-state', change)
      this.#recordStateChange(change)
    })
    watcher.on('alarm', (alarm) => {
      this.events.emit('alarm', alarm)
      this.#notice(releasingNotice(this.labelOf(alarm.vaultId), alarm))
    })
    watcher.on('claim-alarm', (alarm) => {
      this.events.emit('claim-alarm', alarm)
      // "Thu, 26 Nov 2026": the day is what matters; the service's page and e-mail give the time.
      this.#notice(
        claimNotice(this.labelOf(alarm.vaultId), alarm, new Date(alarm.claimedAt).toUTCString().slice(0, 16)),
      )
    })
    reminders.on('due', (due) => {
      this.events.emit('reminder', due)
      this.#notice(reminderNotice(due, this.labelOf(due.vaultId)))
    })
    this.#queue.on('manifest-problem', ({ vaultId, message }) =>
      this.#notice({
        kind: 'upload-failed',
        title: `${this.labelOf(vaultId)}: the list of files needs attention`,
        body: message,
        vaultId,
      }),
    )
    this.#queue.on('item', (item) => {
      this.events.emit('upload-item', item)
      // One read of the vault for its new asset count and balance once uploads land.
      if (item.state === 'done') this.#refreshSoon(item.vaultId)
    })
  }

  /** After the connections changed: the new account's vaults are read from scratch. */
  #connectionsChanged(): void {
    readAfresh(this.watcher, this.reminders, () => this.#connectionsListed())
  }

  #connectionsListed(): void {
    this.events.emit('connections', this.#registry.list())
    this.#fetchedAt = null
    this.#error = null
    this.facts.clear()
    void this.facts.refreshService()
    this.#window.emit(eventChannels.connectionChanged, this.connectionStatus())
    this.#emitNow()
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

  // ---- the owner's connections (summaries only: keys stay in the secret store) ----

  readonly connections = {
    list: (): ConnectionSummary[] => this.#registry.list(),
    active: (): ConnectionSummary | undefined => this.#registry.active(),
    hasKey: (id: string) => this.#registry.hasKey(id),
    add: async (request: AddConnectionRequest): Promise<ConnectionSummary> => {
      const added = await this.#registry.add(request)
      this.#connectionsChanged()
      return added
    },
    replaceKey: async (id: string, apiKey: string): Promise<ConnectionSummary> => {
      const replaced = await this.#registry.replaceKey(id, apiKey)
      this.#pacers.delete(id)
      if (this.#registry.active()?.id === id) this.#connectionsChanged()
      return replaced
    },
    rename: async (id: string, label: string): Promise<ConnectionSummary> => {
      const renamed = await this.#registry.rename(id, label)
      this.#connectionsListed()
      return renamed
    },
    remove: async (id: string): Promise<void> => {
      await this.#registry.remove(id)
      this.#pacers.delete(id)
      this.#connectionsChanged()
    },
    switchTo: async (id: string): Promise<ConnectionSummary> => {
      const active = await this.#registry.switchTo(id)
      this.#connectionsChanged()
      return active
    },
  }

  /** The active service's own description and its e-mail test (local service extensions). */
  readonly activeService = {
    info: async () => (await this.#registry.client()).getServiceInfo(),
    sendTestMail: async () => (await this.#registry.client()).sendTestMail(),
    /** The client itself, for the encrypted export's listing and downloads. */
    client: () => this.#registry.client(),
  }

  // ---- uploads ----

  /** Every item of a batch of uploads has finished: tell the owner and record it. */
  #batchEnded(item: UploadItemView, counts: BatchCounts): void {
    const { done, failed } = counts
    this.#notice(batchEndNotice(this.labelOf(item.vaultId), item.vaultId, counts))
    const names: string[] = []
    for (const i of this.#queue.list()) {
      if (names.length >= MAX_NAMES) break
      if (i.batchId === item.batchId && i.state === 'done') names.push(i.relativePath)
    }
    this.recordActivity({
      vaultId: item.vaultId,
      kind: 'upload',
      source: 'window',
      // Retrying the failed files ends the batch again: a new entry only when its counts moved.
      ref: `upload:${item.batchId}:${done}:${failed}`,
      detail: { files: done, failed, credits: counts.creditsConsumed, names },
    })
  }

  // ---- vault keys ----

  get keyStorage(): KeyStorageInfo {
    const store = this.secretStore
    return { kind: store.kind, durable: store.durable, description: store.description }
  }

  /** The raw key, for splitting into guardian shares; null when this device does not hold it. */
  async vaultKey(vaultId: string): Promise<Uint8Array | null> {
    if (!(await this.vaultKeys.info(vaultId)).present) return null
    // The store hands out the key only as the owner kit's words; they decode to the key itself.
    return decodeOwnerKitWords((await this.vaultKeys.exportOwnerKit(vaultId)).words).vaultKey
  }

  /** A new split of a rotated key for the vault's guardians (those the service lists, else those added here). */
  async #remakeKits(vaultId: string, key: Uint8Array): Promise<number> {
    const vault = await this.vaults.get(vaultId)
    let guardians: Array<{ id: string; name: string }>
    try {
      guardians = await this.vaults.listGuardians(vaultId)
    } catch (error) {
      if (!(error instanceof VaultApiError) || error.status !== 404) throw error
      guardians = this.records.get(vaultId).guardians ?? []
    }
    const kits = await this.kits.regenerate(vaultId, key, vault.sssPreset, guardians)
    await this.registerKitChecks(vaultId, key)
    await this.facts.refresh(vaultId)
    return kits.length
  }

  /**
   * Tells the service the current split's kit check code hashes, when it offers kit checks and has not
   * taken them yet. Never fails the caller: kits work without it, and the next listing of the guardians
   * tries again.
   */
  async registerKitChecks(vaultId: string, key?: Uint8Array): Promise<void> {
    try {
      const vaultKey = key ?? (await this.vaultKey(vaultId))
      if (!vaultKey) return
      await registerKitChecks(
        {
          kits: this.kits,
          offersKitChecks: async () => {
            if (!this.facts.service) await this.facts.refreshService()
            return this.facts.service?.extensions.includes('kit-check') ?? false
          },
          register: (id, registration) => this.vaults.registerKitChecks(id, registration),
        },
        vaultId,
        vaultKey,
      )
    } catch (error) {
      console.warn(
        `[vault-desktop] kit check codes of ${vaultId} not registered yet:`,
        error instanceof AppError ? error.userMessage : error,
      )
    }
  }

  /** Whether the owner confirmed the saved owner kit of the key this device holds now. */
  ownerKitConfirmed(vaultId: string): boolean {
    const confirmed = this.records.get(vaultId).ownerKit
    return !!confirmed && confirmed.fingerprint === this.#keyFingerprint.get(vaultId)
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

  async #rememberKeyPresence(vaultId: string): Promise<void> {
    const info = await this.vaultKeys.info(vaultId)
    if (
      this.#keyOnDevice.get(vaultId) !== info.present ||
      this.#keyFingerprint.get(vaultId) !== info.fingerprint ||
      this.#keyLost.get(vaultId)?.fingerprint !== info.lost?.fingerprint
    ) {
      this.#keyOnDevice.set(vaultId, info.present)
      this.#keyFingerprint.set(vaultId, info.fingerprint)
      if (info.lost) this.#keyLost.set(vaultId, info.lost)
      else this.#keyLost.delete(vaultId)
      this.#scheduleEmit()
    }
  }

  // ---- connections as the window sees them ----

  connection(id: string): ConnectionSummary {
    const found = this.#registry.list().find((c) => c.id === id)
    if (!found) {
      throw new ConnectionError(
        `no connection ${id}`,
        'That connection is no longer on this device (it may have been removed in another window). Open Settings → Connections and choose one from the list.',
      )
    }
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
      local: this.localService.isLocal(summary.serviceUrl),
      keyMissing: this.#keyMissing.has(summary.id),
    }
  }

  /**
   * Which connections' keys their store no longer gives back (memory only, after a restart), for the
   * connections list; the window is told when that changed.
   */
  async refreshKeyPresence(): Promise<void> {
    const missing = new Set<string>()
    for (const c of this.#registry.list()) if (!(await this.#registry.hasKey(c.id))) missing.add(c.id)
    const same =
      missing.size === this.#keyMissing.size && [...missing].every((id) => this.#keyMissing.has(id))
    this.#keyMissing = missing
    if (!same) this.#window.emit(eventChannels.connectionChanged, this.connectionStatus())
  }

  connectionStatus(): ConnectionStatus {
    const connections = this.#registry.list().map((c) => this.connectionInfo(c))
    const localUrl = this.localService.currentUrl
    return {
      connections,
      active: connections.find((c) => c.active) ?? null,
      secretStore: this.secretStore.kind,
      localService: { running: localUrl !== null, url: localUrl },
      keyStorage: this.keyStorage,
      service: this.facts.service,
    }
  }

  // ---- vaults as the window sees them ----

  view(vault: VaultDetails): VaultView {
    return vaultView({
      vault,
      record: this.records.get(vault.id),
      facts: this.facts.of(vault.id),
      service: this.facts.service,
      keyOnDevice: this.#keyOnDevice.get(vault.id) ?? false,
      keyStorage: this.keyStorage,
      keyLost: this.#keyLost.get(vault.id) ?? null,
      ownerKitConfirmed: this.ownerKitConfirmed(vault.id),
      fileCount: this.uploads.knownFileCount(vault.id),
    })
  }

  snapshot(): VaultsSnapshot {
    const vaults = this.watcher
      .snapshot()
      .map((v) => this.view(v))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    return {
      connectionId: this.#registry.active()?.id ?? null,
      vaults,
      fetchedAt: this.#fetchedAt,
      error: this.#error,
    }
  }

  /** The tray: the worst state across the vaults and the next check-in, as the window labels them. */
  tray(): TrayView {
    return this.#trayOf(this.snapshot())
  }

  #trayOf(snapshot: VaultsSnapshot): TrayView {
    return trayView(snapshot.vaults, this.#now(), Math.max(1, ...this.#settings.reminderDaysBefore))
  }

  /** The vault's name as the window shows it (the owner's name, else a short id). */
  labelOf(vaultId: string): string {
    const known = this.watcher.snapshot().find((v) => v.id === vaultId)
    return known ? this.#labelOf(known) : (this.records.get(vaultId).name ?? vaultLabel(vaultId))
  }

  #labelOf(vault: VaultDetails): string {
    return vaultName(vault, this.records.get(vault.id)) ?? vaultLabel(vault.id)
  }

  /** After the service deleted a vault: its key, kits and records on this device go too. */
  async forgetVault(vaultId: string): Promise<void> {
    await this.vaultKeys.delete(vaultId)
    await this.kits.forget(vaultId)
    await this.records.update(vaultId, () => ({}))
    this.facts.forget(vaultId)
    this.#keyOnDevice.delete(vaultId)
    this.#keyFingerprint.delete(vaultId)
    this.#keyLost.delete(vaultId)
    this.#emitNow()
  }

  /** The vault as the watcher last saw it, after an action; the window is told at once. */
  async viewOf(vault: VaultDetails): Promise<VaultView> {
    await this.#rememberKeyPresence(vault.id)
    this.#emitNow()
    return this.view(vault)
  }

  /** After a connection change: the new account's vaults are read before the call returns. */
  async vaultsRead(): Promise<void> {
    if (this.#registry.active()) await this.watcher.pollNow()
    this.#emitNow()
  }

  /** The vault as last read (every write reads it back), else a fresh read. */
  async latestView(vaultId: string): Promise<VaultView> {
    const known = this.watcher.snapshot().find((v) => v.id === vaultId)
    return this.viewOf(known ?? (await this.vaults.get(vaultId)))
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
    this.#window.emit(eventChannels.vaultsChanged, snapshot)
    this.events.emit('tray', this.#trayOf(snapshot))
  }

  // ---- notices and the activity history ----

  #notice(notice: AppNotice): void {
    this.#window.emit(eventChannels.notice, notice)
    if (this.#settings.notifications) this.events.emit('notice', notice)
  }

  #warnIfCreditsLow(vault: VaultDetails): void {
    const view = this.view(vault)
    if (view.state !== 'active' || view.releaseTrigger !== 'dead_man_switch') return
    const months = runwayMonths(view.creditsBalance, view.checkInFrequency)
    if (months === null || months >= CREDITS_LOW_MONTHS) return
    const last = this.records.get(vault.id).creditsLowNoticeAt
    if (last && this.#now() - Date.parse(last) < CREDITS_LOW_REPEAT_MS) return
    void this.records.update(vault.id, (r) => ({
      ...r,
      creditsLowNoticeAt: new Date(this.#now()).toISOString(),
    }))
    this.#notice(creditsLowNotice(view, months, this.facts.service))
  }

  /** Appends to the history and tells the window; the owner hears once of a history that cannot be kept. */
  recordActivity(input: ActivityInput): ActivityEntry | undefined {
    const entry = this.activity.append(input)
    if (entry) this.#window.emit(eventChannels.activityAdded, entry)
    const problem = this.activity.problem
    if (problem && problem !== this.#activityProblemTold) {
      this.#activityProblemTold = problem
      this.#notice(storageProblemNotice('activity history', problem))
    }
    return entry
  }

  #recordStateChange({ vaultId, from, to }: VaultStateChange): void {
    if (from === to) return
    const source = this.releaseActions.has(vaultId) ? 'window' : 'service'
    const vault = this.watcher.snapshot().find((v) => v.id === vaultId)
    if (to === 'releasing') {
      this.recordActivity({
        vaultId,
        kind: 'release-started',
        source,
        ref: `release-started:${vault?.releaseStartedAt ?? new Date(this.#now()).toISOString()}`,
      })
    } else if (to === 'released') {
      this.recordActivity({ vaultId, kind: 'released', source, ref: 'released' })
    } else if (to === 'active' && from === 'releasing') {
      this.recordActivity({ vaultId, kind: 'release-cancelled', source })
    }
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
    this.#emitNow()
  }

  /** Timers: the reminder tick (60 s) and vault polling (1 s pass); the active service is read. */
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
    this.#emitNow()
  }

  /** Stops timers, puts running uploads back in the queue, flushes files, stops the local service. */
  async close(): Promise<void> {
    if (this.#emitTimer) clearTimeout(this.#emitTimer)
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

/**
 * After a key change or a switch of the active connection: the vaults read with the old key are
 * forgotten (and their reminders), `listed` tells the window, and the new account is read.
 */
function readAfresh(watcher: VaultWatcher, reminders: CheckInReminders, listed?: () => void): void {
  watcher.reset()
  for (const v of reminders.vaults()) reminders.removeVault(v.vaultId)
  listed?.()
  void watcher.pollNow()
}

/** Read at each call: a clock faked or moved after opening (tests) is followed. */
const clockNow = () => Date.now()

function reminderConfig(settings: Settings): Partial<ReminderConfig> {
  const config: Partial<ReminderConfig> = {}
  if (settings.reminderDaysBefore.length) config.reminderDaysBefore = settings.reminderDaysBefore
  if (settings.overdueRepeatHours) config.overdueRepeatHours = settings.overdueRepeatHours
  return config
}
