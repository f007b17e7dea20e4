// The vault channels' view of the main-process core (createAppCore): it adds what the window needs
// on top — the embedded local service, per-device records, guardian kits, short vault labels — and
// turns core events into contract events for the window and notices/tray state for the shell.
import { EventEmitter } from 'node:events'
import { join } from 'node:path'
import { isMissingExtension, VaultApiClient, type VaultDetails } from '../../service-client'
import { isPubliclyReachable } from '../../service-client/service-address'
import type { Rehearsal } from '../../shared/api'
import { runwayMonths } from '../../shared/check-in-reserve'
import { eventChannels } from '../../shared/ipc/contract'
import { IpcError } from '../../shared/ipc/contract-kit'
import type { Settings } from '../../shared/ipc/settings'
import type {
  ActivityEntry,
  AppNotice,
  ConnectionInfo,
  ConnectionStatus,
  KeyStorageInfo,
  ServiceSummary,
  TrayView,
  UploadItemView,
  VaultsSnapshot,
  VaultView,
} from '../../shared/ipc/vault-types'
import { decodeOwnerKitWords } from '../../vault-format'
import { LocalServiceHost } from '../local-service-host'
import { type AppCore, createAppCore } from './app-core'
import type { ConnectionSummary } from './connections'
import type { EventHub } from './ipc/handler-table'
import { UploadEventBatch } from './ipc/upload-event-batch'
import { openSecretStore, type SecretBox } from './storage/secret-store'
import type { UploadItem } from './uploads/upload-records'
import { type ActivityInput, ActivityLog, MAX_NAMES } from './vaults/activity-log'
import { DeviceRecords } from './vaults/device-records'
import { GuardianKits } from './vaults/guardian-kits'
import { deriveTrayState } from './vaults/tray-state'
import { AgentKeys, UNLOCK_NOTE, UnlockCheckIn, type UnlockOutcome } from './vaults/unlock-check-in'
import { type ReadinessInput, vaultReadiness } from './vaults/vault-readiness'

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

/** A short, stable name for a vault the owner has not named. */
export function vaultLabel(vaultId: string): string {
  return `Vault ${vaultId
    .replace(/^[a-z]+_/i, '')
    .slice(0, 6)
    .toUpperCase()}`
}

/** What readiness needs beyond the vault itself, read from the service and this device. */
interface VaultFacts {
  guardians: ReadinessInput['guardians']
  rehearsal: Rehearsal | null | 'unsupported'
  kits: ReadinessInput['kits']
  at: number
}

/** Facts are read again at most this often from polling (actions refresh them at once). */
const FACTS_MAX_AGE_MS = 20_000
/** Below this many months of check-ins, a notification warns (once a week). */
const CREDITS_LOW_MONTHS = 3
const CREDITS_LOW_REPEAT_MS = 7 * 24 * 3600_000

const FINISHED = new Set<UploadItemView['state']>(['done', 'failed', 'skipped', 'cancelled'])
/** "2,000", as the window writes counts. */
const grouped = (count: number) => count.toLocaleString('en-US')

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
    ...(item.bundleId ? { bundleId: item.bundleId } : {}),
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
  /** The owner's activity history on this device (activity.sqlite). */
  readonly activity: ActivityLog
  /** Vaults whose release the owner is starting or cancelling from this device right now. */
  readonly releaseActions = new Set<string>()
  readonly #userDataDir: string
  readonly #secretBox: SecretBox | undefined
  readonly #useKeychain: boolean
  #agentKeys: Promise<AgentKeys> | undefined
  #unlock: UnlockCheckIn | undefined
  readonly #events: EventHub
  readonly #now: () => number
  #fetchedAt: string | null = null
  #error: VaultsSnapshot['error'] = null
  readonly #keyOnDevice = new Map<string, boolean>()
  readonly #keyFingerprint = new Map<string, string | undefined>()
  readonly #facts = new Map<string, VaultFacts>()
  readonly #factsLoading = new Map<string, Promise<void>>()
  #service: ServiceSummary | null = null
  #serviceLoading: Promise<void> | undefined
  readonly #dismissed = new Set<string>()
  #emitTimer: ReturnType<typeof setTimeout> | undefined
  #settings: Settings
  readonly #uploadEvents: UploadEventBatch

  private constructor(
    options: SessionOptions,
    parts: {
      core: AppCore
      host: LocalServiceHost
      records: DeviceRecords
      settings: Settings
      activity: ActivityLog
    },
  ) {
    this.core = parts.core
    this.host = parts.host
    this.records = parts.records
    this.activity = parts.activity
    this.#userDataDir = options.userDataDir
    this.#secretBox = options.secretBox
    this.#useKeychain = options.useKeychain !== false
    this.kits = new GuardianKits(join(options.userDataDir, 'guardian-kits'))
    this.#events = options.events
    this.#now = options.now ?? Date.now
    this.#settings = parts.settings
    this.#uploadEvents = new UploadEventBatch({
      progress: (batch) => this.#events.emit(eventChannels.uploadProgress, batch),
      items: (batch) => {
        this.#events.emit(eventChannels.uploadItems, batch)
        // Once per batch of uploads that had an item finish, not once per item (a scan of the queue).
        const ended = new Map<string, UploadItemView>()
        for (const item of batch) if (FINISHED.has(item.state)) ended.set(item.batchId, item)
        for (const item of ended.values()) {
          this.#noticeWhenBatchEnds(item)
          this.#recordBatchEnd(item)
        }
        this.noticeUploadStorageProblem()
      },
    })
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
        hideFileNames: settings.hideFileNames,
      },
    })
    // The local service must be up before anything asks it for vaults.
    const local = core.connections.list().find((c) => host.isLocal(c.serviceUrl))
    if (local) {
      await host.start().catch((error: unknown) => {
        console.error('[vault-desktop] the local Vault Service did not start:', error)
      })
      // Without a keychain the key is gone after a restart; the app owns the local service, so it
      // issues itself a new one instead of asking the owner for a key "Start locally" never showed.
      if (host.currentUrl && !(await core.connections.hasKey(local.id))) {
        await host
          .issueKey()
          .then((apiKey) => core.connections.replaceKey(local.id, apiKey))
          .catch((error: unknown) => {
            console.error('[vault-desktop] could not issue a new key for the local service:', error)
          })
      }
    }
    const records = await DeviceRecords.open(userDataDir)
    const activity = await ActivityLog.open(userDataDir, options.now)
    const session = new DesktopSession(options, { core, host, records, settings, activity })
    session.#wire()
    return session
  }

  #wire(): void {
    const { events } = this.core
    events.on('vault', (vault) => {
      this.#fetchedAt = new Date(this.#now()).toISOString()
      this.#error = null
      void this.#rememberKeyPresence(vault.id)
      void this.refreshFacts(vault.id, false)
      this.#warnIfCreditsLow(vault)
      this.#scheduleEmit()
    })
    // An account with no vault: the list was read, there is just nothing in it.
    events.on('vaults-listed', () => {
      this.#fetchedAt = new Date(this.#now()).toISOString()
      this.#error = null
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
      this.#service = null
      this.#facts.clear()
      void this.refreshService()
      this.#events.emit(eventChannels.connectionChanged, this.connectionStatus())
      this.#emitNow()
    })
    events.on('vault-state', (change) => this.#recordStateChange(change.vaultId, change.from, change.to))
    events.on('alarm', (alarm) =>
      this.#notice({
        kind: 'releasing',
        title: `${this.labelOf(alarm.vaultId)} is releasing`,
        body: `Its release to your heirs has started. You have ${alarm.daysLeftToCancel} day${alarm.daysLeftToCancel === 1 ? '' : 's'} left to cancel if this was not intended: open the vault and choose "Cancel release".`,
        vaultId: alarm.vaultId,
      }),
    )
    events.on('reminder', (due) =>
      this.#notice({
        kind: 'reminder',
        title: due.title,
        body: due.body.replace(`Vault ${due.vaultId}`, this.labelOf(due.vaultId)),
        vaultId: due.vaultId,
      }),
    )
    events.on('retrying', (notice) =>
      this.#events.emit(eventChannels.retrying, { text: notice.text, waitSeconds: notice.waitSeconds }),
    )
    events.on('upload-item', (item) => {
      this.#uploadEvents.item(toUploadView(item))
      // One read of the vault for its new asset count and balance once uploads land.
      if (item.state === 'done') this.#refreshSoon(item.vaultId)
    })
    events.on('upload-progress', (p) =>
      this.#uploadEvents.progress({
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
    void this.refreshService()
  }

  // ---- what readiness needs ----

  /** The active service as readiness sees it (re-read after a connection change or a mail test). */
  get service(): ServiceSummary | null {
    return this.#service
  }

  refreshService(): Promise<void> {
    this.#serviceLoading ??= this.#readService().finally(() => {
      this.#serviceLoading = undefined
    })
    return this.#serviceLoading
  }

  async #readService(): Promise<void> {
    const active = this.core.connections.active()
    if (!active) {
      this.#service = null
      return
    }
    const trial = this.host.isLocal(active.serviceUrl)
    let info: Awaited<ReturnType<AppCore['service']['info']>> | null = null
    try {
      info = await this.core.service.info()
    } catch (error) {
      // A service without the extension is taken at its word; any other failure: try again later.
      if (!isMissingExtension(error)) return
    }
    if (this.core.connections.active()?.id !== active.id) return
    const publicUrl = trial ? active.serviceUrl : (info?.publicUrl ?? active.serviceUrl)
    this.#service = {
      trial,
      publicUrl,
      reachableByOthers: !trial && isPubliclyReachable(publicUrl),
      mailConfigured: info ? info.mail.configured : null,
      lastMailTest: info?.mail.lastTest ?? null,
      extensions: info?.extensions ?? [],
      credits: { addHere: trial, buyAt: trial ? null : new URL(active.serviceUrl).origin },
    }
    for (const vaultId of this.#facts.keys()) void this.refreshFacts(vaultId, true)
    this.#emitNow()
    this.#events.emit(eventChannels.connectionChanged, this.connectionStatus())
  }

  /** Reads guardians' answers, the practice run and the kits again (after an action: force). */
  refreshFacts(vaultId: string, force = true): Promise<void> {
    const known = this.#facts.get(vaultId)
    if (!force && known && this.#now() - known.at < FACTS_MAX_AGE_MS) return Promise.resolve()
    const running = this.#factsLoading.get(vaultId)
    if (running && !force) return running
    const loading = (running ?? Promise.resolve())
      .then(() => this.#readFacts(vaultId))
      .catch((error: unknown) => console.warn(`[vault-desktop] could not read ${vaultId}:`, error))
      .finally(() => {
        if (this.#factsLoading.get(vaultId) === loading) this.#factsLoading.delete(vaultId)
      })
    this.#factsLoading.set(vaultId, loading)
    return loading
  }

  async #readFacts(vaultId: string): Promise<void> {
    if (!this.#service) await this.refreshService()
    const previous = this.#facts.get(vaultId)
    const guardians = this.core.vaults.listGuardians(vaultId).then(
      (list) => ({
        accepted: list.filter((g) => g.status === 'accepted').length,
        pending: list.filter((g) => g.status === 'pending').length,
        declined: list.filter((g) => g.status === 'declined').length,
      }),
      (error: unknown) => (isMissingExtension(error) ? null : (previous?.guardians ?? null)),
    )
    const rehearsal: Promise<VaultFacts['rehearsal']> = this.#service?.extensions.includes('rehearsal')
      ? this.core.vaults.getRehearsal(vaultId).catch(() => previous?.rehearsal ?? null)
      : Promise.resolve('unsupported')
    const kits = this.kits.list(vaultId).then((list) => ({
      total: list.length,
      handedOver: list.filter((k) => k.handedOver).length,
      splitCreatedAt: list[0]?.createdAt ?? null,
    }))
    this.#facts.set(vaultId, {
      guardians: await guardians,
      rehearsal: await rehearsal,
      kits: await kits,
      at: this.#now(),
    })
    this.#scheduleEmit()
  }

  /** Remembers a rehearsal the owner just read or changed, so readiness shows it at once. */
  noteRehearsal(vaultId: string, rehearsal: Rehearsal | null): void {
    const facts = this.#facts.get(vaultId)
    if (facts) this.#facts.set(vaultId, { ...facts, rehearsal })
    this.#scheduleEmit()
  }

  get keyStorage(): KeyStorageInfo {
    const store = this.core.secretStore
    return { kind: store.kind, durable: store.durable, description: store.description }
  }

  /** Whether the owner confirmed the saved owner kit of the key this device holds now. */
  ownerKitConfirmed(vaultId: string): boolean {
    const confirmed = this.records.get(vaultId).ownerKit
    return !!confirmed && confirmed.fingerprint === this.#keyFingerprint.get(vaultId)
  }

  /** Uploads need a key that outlives the app, or the owner's saved and confirmed kit. */
  requireLastingKey(vaultId: string): void {
    if (this.keyStorage.durable || this.ownerKitConfirmed(vaultId)) return
    throw new IpcError({
      code: 'OWNER_KIT_REQUIRED',
      message:
        "This computer has no keychain, so the vault key lasts only while the app runs: files uploaded now would be lost with it. Save the owner kit and confirm it (Overview → Vault key) before the first upload; it is the key's only lasting copy.",
    })
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
    const where = this.#service?.credits.addHere
      ? 'Add credits in Settings → Credits'
      : `Buy credits from your Vault Service${this.#service?.credits.buyAt ? ` (${this.#service.credits.buyAt})` : ''}`
    this.#notice({
      kind: 'credits-low',
      title: `${view.label}: credits for check-ins run short`,
      body: `The balance of ${view.creditsBalance} credits pays check-ins for about ${Math.floor(months * 30)} more days. A check-in that cannot be paid lets the vault release by accident. ${where}.`,
      vaultId: vault.id,
    })
  }

  /** The settings as last applied. */
  async settings(): Promise<Settings> {
    return this.#settings
  }

  applySettings(settings: Settings): void {
    this.#settings = settings
    this.core.applySettings({
      reminderDaysBefore: settings.reminderDaysBefore,
      overdueRepeatHours: settings.overdueRepeatHours,
      uploadConcurrency: settings.uploadConcurrency,
      hideFileNames: settings.hideFileNames,
    })
    this.#emitNow()
  }

  /** From powerMonitor resume: timers may have stalled during sleep. */
  onResume(): Promise<void> {
    return this.core.onResume()
  }

  /**
   * From powerMonitor 'unlock-screen': what resume does, then the unlock check-in when the owner
   * turned it on (Settings). Never throws; outcomes are in the activity history and notices.
   */
  async onUnlock(): Promise<UnlockOutcome[]> {
    await this.onResume().catch(() => undefined)
    if (!this.#settings.checkInOnUnlock || !this.core.connections.active()) return []
    this.#unlock ??= new UnlockCheckIn({
      now: this.#now,
      agentClient: () => this.agentClient(),
      candidates: () =>
        this.snapshot().vaults.map((v) => ({
          vaultId: v.id,
          known: {
            state: v.state,
            releaseTrigger: v.releaseTrigger,
            checkInFrequency: v.checkInFrequency,
            nextCheckInDue: v.nextCheckInDue,
          },
        })),
      lastUnlock: (vaultId) => {
        const last = this.activity.latest(vaultId, 'check-in', 'unlock')
        const due = last?.detail.nextCheckInDue
        return last && due ? { at: Date.parse(last.at), due: Date.parse(due) } : undefined
      },
      checkedIn: (vault, result) => {
        const at = new Date(this.#now()).toISOString()
        void this.records.update(vault.id, (r) => ({
          ...r,
          lastCheckIn: { at, note: UNLOCK_NOTE },
          nextCheckInDue: result.nextCheckInDue,
        }))
        // The window and the reminders follow the new deadline at once.
        this.core.watcher.observe({ ...vault, nextCheckInDue: result.nextCheckInDue })
        this.#refreshSoon(vault.id)
        return this.recordActivity({
          vaultId: vault.id,
          kind: 'check-in',
          source: 'unlock',
          at,
          detail: { nextCheckInDue: result.nextCheckInDue },
        })
      },
      failed: (vaultId, message) => {
        this.#notice({
          kind: 'reminder',
          title: `${this.labelOf(vaultId)}: the check-in on unlock did not go through`,
          body: message,
          vaultId,
        })
        return this.recordActivity({
          vaultId,
          kind: 'check-in-failed',
          source: 'unlock',
          detail: { error: message },
        })
      },
    })
    return this.#unlock.run()
  }

  // ---- activity ----

  #activityProblemTold: string | undefined

  /** Appends to the history and tells the window; the owner hears once of a history that cannot be kept. */
  recordActivity(input: ActivityInput): ActivityEntry | undefined {
    const entry = this.activity.append(input)
    if (entry) this.#events.emit(eventChannels.activityAdded, entry)
    const problem = this.activity.problem
    if (problem && problem !== this.#activityProblemTold) {
      this.#activityProblemTold = problem
      this.#notice({ kind: 'upload-failed', title: 'The activity history needs attention', body: problem })
    }
    return entry
  }

  #recordStateChange(vaultId: string, from: VaultView['state'] | null, to: VaultView['state']): void {
    if (from === to) return
    const source = this.releaseActions.has(vaultId) ? 'window' : 'service'
    const vault = this.core.watcher.snapshot().find((v) => v.id === vaultId)
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

  #recordBatchEnd(item: UploadItemView): void {
    const counts = this.core.uploads.batchCounts(item.batchId)
    if (!counts || counts.queued + counts.checking + counts.uploading > 0) return
    const { done, failed } = counts
    if (done === 0 && failed === 0) return
    const names: string[] = []
    for (const i of this.core.uploads.list()) {
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

  // ---- the agent key (check-in on unlock) ----

  /**
   * Where agent keys are kept: the OS keychain when the app's keys are there, else a file encrypted by
   * the shell's protected storage (its own file), else memory. Opened on first use.
   */
  agentKeys(): Promise<AgentKeys> {
    this.#agentKeys ??= openSecretStore({
      userDataDir: this.#userDataDir,
      ...(this.#secretBox ? { secretBox: this.#secretBox } : {}),
      ...(this.#useKeychain && this.core.secretStore.kind === 'keychain' ? {} : { loadKeytar: null }),
      fileName: 'agent-keys.enc.json',
    }).then(({ store }) => AgentKeys.open(this.#userDataDir, store))
    return this.#agentKeys
  }

  /**
   * A client with the agent key of the active connection; for the service on this computer the app
   * issues the key again when the store forgot it (no keychain). Null when this device holds none.
   */
  async agentClient(): Promise<VaultApiClient | null> {
    const active = this.core.connections.active()
    if (!active) return null
    const keys = await this.agentKeys()
    let apiKey = await keys.get(active.id)
    if (!apiKey && this.host.isLocal(active.serviceUrl)) {
      apiKey = await this.host.issueAgentKey()
      await keys.set(active.id, apiKey, 'created', this.#now())
    }
    if (!apiKey) return null
    return new VaultApiClient({
      baseUrl: active.serviceUrl,
      apiKey,
      ...(active.prefix ? { prefix: active.prefix } : {}),
    })
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
      keyStorage: this.keyStorage,
      service: this.#service,
    }
  }

  // ---- vaults ----

  async #rememberKeyPresence(vaultId: string): Promise<void> {
    const info = await this.core.vaultKeys.info(vaultId)
    if (
      this.#keyOnDevice.get(vaultId) !== info.present ||
      this.#keyFingerprint.get(vaultId) !== info.fingerprint
    ) {
      this.#keyOnDevice.set(vaultId, info.present)
      this.#keyFingerprint.set(vaultId, info.fingerprint)
      this.#scheduleEmit()
    }
  }

  view(vault: VaultDetails): VaultView {
    const record = this.records.get(vault.id)
    const trigger = vault.releaseTrigger ?? record.releaseTrigger ?? null
    // A name the service keeps wins; one kept on this device covers services without names.
    const name = vault.name || record.name || null
    const checkInFrequency = vault.checkInFrequency ?? record.checkInFrequency ?? null
    const keyOnDevice = this.#keyOnDevice.get(vault.id) ?? false
    const facts = this.#facts.get(vault.id)
    const ownerKitConfirmed = this.ownerKitConfirmed(vault.id)
    const readiness = vaultReadiness({
      vault: { ...vault, releaseTrigger: trigger, checkInFrequency },
      service: this.#service,
      guardians: facts ? facts.guardians : { accepted: 0, pending: 0, declined: 0 },
      kits: facts?.kits ?? { total: 0, handedOver: 0, splitCreatedAt: null },
      keyOnDevice,
      keyDurable: this.keyStorage.durable,
      ownerKitConfirmed,
      rehearsal: facts ? facts.rehearsal : null,
    })
    return {
      ...vault,
      name,
      label: name ?? vaultLabel(vault.id),
      releaseTrigger: trigger,
      checkInFrequency,
      nextCheckInDue:
        trigger === 'dead_man_switch' ? (vault.nextCheckInDue ?? record.nextCheckInDue ?? null) : null,
      releaseStartedAt: vault.releaseStartedAt ?? null,
      contestationEndsAt: vault.contestationEndsAt ?? null,
      releasedAt: vault.releasedAt ?? null,
      lastCheckIn: record.lastCheckIn ?? null,
      keyOnDevice,
      keyStorage: this.keyStorage,
      ownerKitConfirmedAt: ownerKitConfirmed ? (record.ownerKit?.confirmedAt ?? null) : null,
      readiness,
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

  /** The vault's name as the window shows it (the owner's name, else a short id). */
  labelOf(vaultId: string): string {
    const known = this.core.watcher.snapshot().find((v) => v.id === vaultId)
    return known ? this.view(known).label : (this.records.get(vaultId).name ?? vaultLabel(vaultId))
  }

  /** After the service deleted a vault: its key, kits and records on this device go too. */
  async forgetVault(vaultId: string): Promise<void> {
    await this.core.vaultKeys.remove(vaultId)
    await this.kits.forget(vaultId)
    await this.records.update(vaultId, () => ({}))
    this.#facts.delete(vaultId)
    this.#keyOnDevice.delete(vaultId)
    this.#keyFingerprint.delete(vaultId)
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
    this.shell.emit('tray', {
      level: tray.level,
      text: tray.text,
      nextCheckIn: tray.nextCheckIn,
      readiness: snapshot.vaults.map((v) => {
        const runwayShort = v.readiness.items.some((i) => i.id === 'runway' && !i.met)
        return {
          vaultId: v.id,
          label: v.label,
          ready: v.readiness.ready,
          summary: runwayShort ? `credits run short · ${v.readiness.summary}` : v.readiness.summary,
        }
      }),
    })
  }

  // ---- notices ----

  #notice(notice: AppNotice): void {
    this.#events.emit(eventChannels.notice, notice)
    if (this.#settings.notifications) this.shell.emit('notice', notice)
  }

  #storageProblemTold: string | undefined

  /**
   * Tells the owner when the upload list could not be read or kept on disk (a damaged uploads.sqlite is
   * set aside, a full disk stops its writes): once per different problem, when the window lists uploads
   * or a batch of changes goes out.
   */
  noticeUploadStorageProblem(): void {
    const problem = this.core.uploads.storageProblem()
    if (!problem || problem === this.#storageProblemTold) return
    this.#storageProblemTold = problem
    this.#notice({ kind: 'upload-failed', title: 'The upload list needs attention', body: problem })
  }

  /** Sends the upload changes gathered so far (before a list that replaces them). */
  flushUploadEvents(): void {
    this.#uploadEvents.flush()
  }

  #noticeWhenBatchEnds(item: UploadItemView): void {
    const counts = this.core.uploads.batchCounts(item.batchId)
    if (!counts || counts.queued + counts.checking + counts.uploading > 0) return
    const { done, failed } = counts
    if (done === 0 && failed === 0) return
    const label = this.labelOf(item.vaultId)
    if (failed > 0) {
      this.#notice({
        kind: 'upload-failed',
        title: `${grouped(failed)} upload${failed === 1 ? '' : 's'} failed`,
        body: `${label}: ${counts.firstError?.message ?? 'see the upload list for the reason.'}`,
        vaultId: item.vaultId,
      })
    } else {
      const credits = counts.creditsConsumed
      this.#notice({
        kind: 'upload-done',
        title: `Backup finished: ${grouped(done)} file${done === 1 ? '' : 's'}`,
        body: `${label}: ${grouped(done)} file${done === 1 ? '' : 's'} encrypted and stored for ${grouped(credits)} credit${credits === 1 ? '' : 's'}.`,
        vaultId: item.vaultId,
      })
    }
  }

  async close(): Promise<void> {
    if (this.#emitTimer) clearTimeout(this.#emitTimer)
    this.#uploadEvents.close()
    for (const timer of this.#refreshTimers.values()) clearTimeout(timer)
    await this.core.close()
    await this.records.flush()
    await (await this.#agentKeys?.catch(() => undefined))?.flush()
    this.activity.close()
    await this.host.close()
  }
}
