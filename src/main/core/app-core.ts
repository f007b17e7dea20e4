// The main-process core in one object, for the IPC layer and the Electron shell. Plain Node: no
// 'electron' import; the shell injects what only Electron has (safeStorage as a SecretBox) and
// calls onResume() from powerMonitor.
//
//   const core = await createAppCore({ userDataDir, secretBox?, clock?, loadKeytar?, settings? })
//   core.start()                      timers: reminder tick (60 s) and vault polling (1 s pass)
//   core.onResume()                   after sleep / unlock: re-evaluate reminders, poll now
//   await core.close()                stop timers, put running uploads back in the queue, flush files
//   core.applySettings({ reminderDaysBefore, overdueRepeatHours, uploadConcurrency })
//
//   core.secretStore                  { kind: 'keychain'|'encrypted-file'|'memory', fallbackReasons }
//   core.connections                  list() active() add({serviceUrl, apiKey, label?}) replaceKey(id, key)
//                                     rename(id, label) remove(id) switchTo(id)     (summaries only, no keys)
//   core.vaults                       list() get(id) create({preset?}) remove(id) configureRelease(id, req)
//                                     checkIn(id, note?) cancelRelease(id) startRelease(id)
//                                     listGuardians/addGuardian/removeGuardian, listHeirs/addHeir/removeHeir,
//                                     listAssets(id, query)                       (active connection)
//   core.vaultKeys                    info(id) create(id) exportOwnerKit(id, ownerName?) importOwnerKit(words, opts)
//   core.uploads                      estimate(vaultId, paths, force?) enqueue({vaultId, paths, force?}) cancel(itemId)
//                                     cancelBatch(batchId) retry(itemId, force?) list() clearFinished()
//                                     batchCounts(batchId) uploadedHere(vaultId, assetId) storageProblem()
//   core.reminders                    upcoming() tick() (CheckInReminders)
//   core.watcher                      snapshot() pollNow() (VaultWatcher)
//   core.tray()                       TrayState: worst state across vaults + next check-in text
//
//   core.events (typed EventEmitter; every payload is plain data, safe for the renderer):
//     'upload-item' UploadItem, 'upload-progress' UploadProgress, 'vault' VaultDetails,
//     'vault-state' VaultStateChange, 'vault-removed' vaultId, 'reminder' ReminderDue,
//     'alarm' ReleaseAlarm, 'retrying' RetryNotice + connectionId, 'tray' TrayState,
//     'connections' ConnectionSummary[], 'poll-failed' PollFailure
//
// Errors thrown by these calls carry `userMessage` (VaultApiError, ConnectionError, VaultKeyError).
import { EventEmitter } from 'node:events'
import { join } from 'node:path'
import { type RetryNotice, VaultApiClient, type VaultDetails } from '../../service-client'
import { RequestPacer } from '../../service-client/request-pacer'
import type {
  AssetListQuery,
  CheckInResult,
  PersonRequest,
  RehearsalRequest,
  ReleaseConfig,
  ReleaseConfigRequest,
  SssPreset,
} from '../../shared/api'
import { type AddConnectionRequest, ConnectionRegistry, type ConnectionSummary } from './connections'
import { JsonFileWriter, readJsonFile } from './storage/json-file'
import {
  describeSecretStore,
  type KeytarLoader,
  openSecretStore,
  type SecretBox,
  type SecretStoreKind,
} from './storage/secret-store'
import { VaultKeyStore } from './storage/vault-key-store'
import { type UploadProgress, UploadQueue } from './uploads/upload-queue'
import type { UploadItem } from './uploads/upload-records'
import { CheckInReminders, type ReminderConfig, type ReminderDue } from './vaults/checkin-schedule'
import { deriveTrayState, type TrayState } from './vaults/tray-state'
import {
  type PollFailure,
  type ReleaseAlarm,
  type VaultStateChange,
  VaultWatcher,
} from './vaults/vault-watcher'

export interface AppCoreEvents {
  'upload-item': [UploadItem]
  'upload-progress': [UploadProgress]
  vault: [VaultDetails]
  'vaults-listed': [VaultDetails[]]
  'vault-state': [VaultStateChange]
  'vault-removed': [string]
  reminder: [ReminderDue]
  alarm: [ReleaseAlarm]
  retrying: [RetryNotice & { connectionId: string }]
  tray: [TrayState]
  connections: [ConnectionSummary[]]
  'poll-failed': [PollFailure]
}

export interface AppCoreClock {
  now(): number
}

export interface AppCoreSettings {
  reminderDaysBefore?: number[]
  overdueRepeatHours?: number
  uploadConcurrency?: number
  hideFileNames?: boolean
}

export interface AppCoreOptions {
  userDataDir: string
  /** Electron safeStorage behind an interface; without it keys fall back to memory when no keychain. */
  secretBox?: SecretBox
  clock?: AppCoreClock
  /** null disables the OS keychain (tests); default loads keytar lazily. */
  loadKeytar?: KeytarLoader | null
  keychainService?: string
  settings?: AppCoreSettings
  /** Poll intervals (tests shorten them). */
  watcher?: { baseIntervalMs?: number; releasingIntervalMs?: number; budgetPerMinute?: number }
}

interface DeadlinesFile {
  version: 1
  /** vaultId -> nextCheckInDue learned from check-in/configuration answers (services that omit it on GET). */
  deadlines: Record<string, string>
}

export function vaultLabel(vaultId: string): string {
  return `Vault ${vaultId}`
}

export type AppCore = Awaited<ReturnType<typeof createAppCore>>

export async function createAppCore(options: AppCoreOptions) {
  const { userDataDir } = options
  const clock: AppCoreClock = options.clock ?? { now: () => Date.now() }
  const events = new EventEmitter<AppCoreEvents>()

  const opened = await openSecretStore({
    userDataDir,
    ...(options.secretBox ? { secretBox: options.secretBox } : {}),
    ...(options.loadKeytar !== undefined ? { loadKeytar: options.loadKeytar } : {}),
    ...(options.keychainService ? { keychainService: options.keychainService } : {}),
  })
  const secrets = opened.store

  // One pacer per connection: the service's limits are per API key.
  const pacers = new Map<string, RequestPacer>()
  const connections = await ConnectionRegistry.open({
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
        onRetry: (notice) => events.emit('retrying', { ...notice, connectionId: c.id }),
      })
    },
  })
  const activeClient = () => connections.client()
  const vaultKeys = new VaultKeyStore(secrets)

  const deadlinesFile = join(userDataDir, 'checkin-deadlines.json')
  const deadlines = (await readJsonFile<DeadlinesFile>(deadlinesFile, { version: 1, deadlines: {} }))
    .deadlines
  const deadlinesWriter = new JsonFileWriter<DeadlinesFile>(deadlinesFile)
  const rememberDeadline = (vaultId: string, due: string | null) => {
    if (due) deadlines[vaultId] = due
    else delete deadlines[vaultId]
    deadlinesWriter
      .write({ version: 1, deadlines })
      .catch((error: Error) => console.warn(`Could not save check-in deadlines: ${error.message}`))
  }

  const reminders = await CheckInReminders.open({
    userDataDir,
    clock,
    config: pickReminderConfig(options.settings),
  })
  const watcher = await VaultWatcher.open({
    userDataDir,
    client: activeClient,
    now: () => clock.now(),
    ...options.watcher,
  })
  const uploads = await UploadQueue.open({
    userDataDir,
    clientFor: (connectionId) => connections.client(connectionId),
    vaultKeys,
    concurrency: options.settings?.uploadConcurrency ?? 2,
    hideFileNames: options.settings?.hideFileNames ?? false,
    now: () => clock.now(),
  })

  const dueOf = (vault: VaultDetails): string | null => {
    if (vault.state !== 'active' || vault.releaseTrigger !== 'dead_man_switch') return null
    return vault.nextCheckInDue ?? deadlines[vault.id] ?? null
  }

  let lastTray = ''
  const tray = (): TrayState =>
    deriveTrayState(
      watcher.snapshot().map((v) => ({
        vaultId: v.id,
        label: vaultLabel(v.id),
        state: v.state,
        nextCheckInDue: dueOf(v),
        releaseStartedAt: v.releaseStartedAt ?? null,
        contestationEndsAt: v.contestationEndsAt ?? null,
      })),
      clock.now(),
      { dueSoonDays: Math.max(...reminders.config.reminderDaysBefore, 1) },
    )
  const publishTray = () => {
    const state = tray()
    const key = JSON.stringify(state)
    if (key !== lastTray) {
      lastTray = key
      events.emit('tray', state)
    }
  }

  const observe = (vault: VaultDetails) => {
    reminders.setVault({ vaultId: vault.id, label: vaultLabel(vault.id), nextCheckInDue: dueOf(vault) })
  }
  watcher.on('vault', (v) => {
    observe(v)
    events.emit('vault', v)
    publishTray()
  })
  watcher.on('listed', (vaults) => events.emit('vaults-listed', vaults))
  watcher.on('state-change', (c) => events.emit('vault-state', c))
  watcher.on('alarm', (a) => events.emit('alarm', a))
  watcher.on('poll-failed', (f) => events.emit('poll-failed', f))
  watcher.on('vault-removed', (id) => {
    reminders.removeVault(id)
    events.emit('vault-removed', id)
    publishTray()
  })
  reminders.on('due', (r) => {
    events.emit('reminder', r)
    publishTray()
  })
  uploads.on('item', (i) => events.emit('upload-item', i))
  uploads.on('progress', (p) => events.emit('upload-progress', p))

  const connectionsChanged = () => {
    watcher.reset()
    for (const v of reminders.vaults()) reminders.removeVault(v.vaultId)
    events.emit('connections', connections.list())
    publishTray()
    void watcher.pollNow()
  }

  /** Refreshes one vault after a write, through the watcher so every listener sees it. */
  const refresh = async (vaultId: string): Promise<VaultDetails> => {
    const vault = await (await activeClient()).getVault(vaultId)
    watcher.observe(vault)
    return vault
  }

  const core = {
    events,
    secretStore: {
      kind: secrets.kind as SecretStoreKind,
      fallbackReasons: opened.fallbackReasons,
      ...describeSecretStore(secrets.kind),
    },

    connections: {
      list: (): ConnectionSummary[] => connections.list(),
      active: (): ConnectionSummary | undefined => connections.active(),
      async add(request: AddConnectionRequest): Promise<ConnectionSummary> {
        const added = await connections.add(request)
        connectionsChanged()
        return added
      },
      hasKey: (id: string) => connections.hasKey(id),
      async replaceKey(id: string, apiKey: string): Promise<ConnectionSummary> {
        const replaced = await connections.replaceKey(id, apiKey)
        pacers.delete(id)
        if (connections.active()?.id === id) connectionsChanged()
        return replaced
      },
      async rename(id: string, label: string): Promise<ConnectionSummary> {
        const renamed = await connections.rename(id, label)
        events.emit('connections', connections.list())
        return renamed
      },
      async remove(id: string): Promise<void> {
        await connections.remove(id)
        pacers.delete(id)
        connectionsChanged()
      },
      async switchTo(id: string): Promise<ConnectionSummary> {
        const active = await connections.switchTo(id)
        connectionsChanged()
        return active
      },
    },

    vaults: {
      async list(): Promise<VaultDetails[]> {
        const vaults = await (await activeClient()).listVaults()
        for (const v of vaults) watcher.observe(v)
        return vaults
      },
      get: (vaultId: string) => refresh(vaultId),
      /** Creates the vault on the service and its key on this device. */
      async create(request: { preset?: SssPreset; name?: string } = {}): Promise<VaultDetails> {
        const vault = await (await activeClient()).createVault(request)
        await vaultKeys.create(vault.id)
        watcher.observe(vault)
        return vault
      },
      async remove(vaultId: string): Promise<{ deleted: string }> {
        const result = await (await activeClient()).deleteVault(vaultId)
        await uploads.index.forgetVault(vaultId)
        await watcher.pollNow()
        return result
      },
      async configureRelease(vaultId: string, request: ReleaseConfigRequest): Promise<ReleaseConfig> {
        const config = await (await activeClient()).configureRelease(vaultId, request)
        rememberDeadline(vaultId, config.trigger === 'dead_man_switch' ? config.nextCheckInDue : null)
        await refresh(vaultId)
        return config
      },
      async checkIn(vaultId: string, note?: string): Promise<CheckInResult> {
        const result = await (await activeClient()).checkIn(vaultId, note)
        rememberDeadline(vaultId, result.nextCheckInDue)
        await refresh(vaultId)
        return result
      },
      async cancelRelease(vaultId: string) {
        const result = await (await activeClient()).cancelRelease(vaultId)
        await refresh(vaultId)
        return result
      },
      async startRelease(vaultId: string): Promise<VaultDetails> {
        const vault = await (await activeClient()).startRelease(vaultId)
        watcher.observe(vault)
        return vault
      },
      async rename(vaultId: string, name: string | null): Promise<VaultDetails> {
        const vault = await (await activeClient()).renameVault(vaultId, name)
        watcher.observe(vault)
        return vault
      },
      getRehearsal: async (vaultId: string) => (await activeClient()).getRehearsal(vaultId),
      startRehearsal: async (vaultId: string, request: RehearsalRequest) =>
        (await activeClient()).startRehearsal(vaultId, request),
      endRehearsal: async (vaultId: string) => (await activeClient()).endRehearsal(vaultId),
      listGuardians: async (vaultId: string) => (await activeClient()).listGuardians(vaultId),
      async addGuardian(vaultId: string, person: PersonRequest) {
        const guardian = await (await activeClient()).addGuardian(vaultId, person)
        await refresh(vaultId)
        return guardian
      },
      async removeGuardian(vaultId: string, guardianId: string) {
        const result = await (await activeClient()).removeGuardian(vaultId, guardianId)
        await refresh(vaultId)
        return result
      },
      listHeirs: async (vaultId: string) => (await activeClient()).listHeirs(vaultId),
      async addHeir(vaultId: string, person: PersonRequest) {
        const heir = await (await activeClient()).addHeir(vaultId, person)
        await refresh(vaultId)
        return heir
      },
      async removeHeir(vaultId: string, heirId: string) {
        const result = await (await activeClient()).removeHeir(vaultId, heirId)
        await refresh(vaultId)
        return result
      },
      listAssets: async (vaultId: string, query: AssetListQuery = {}) =>
        (await activeClient()).listAssets(vaultId, query),
    },

    /** The active service's own description and its e-mail test (local service extensions). */
    service: {
      info: async () => (await activeClient()).getServiceInfo(),
      sendTestMail: async () => (await activeClient()).sendTestMail(),
    },

    vaultKeys: {
      info: (vaultId: string) => vaultKeys.info(vaultId),
      create: (vaultId: string) => vaultKeys.create(vaultId),
      remove: (vaultId: string) => vaultKeys.delete(vaultId),
      exportOwnerKit: (vaultId: string, ownerName?: string) => vaultKeys.exportOwnerKit(vaultId, ownerName),
      importOwnerKit: (words: string, opts: { expectedVaultId?: string; replace?: boolean } = {}) =>
        vaultKeys.importOwnerKit(words, opts),
    },

    uploads: {
      estimate: (
        vaultId: string,
        paths: string[],
        force = false,
        reserve?: { credits: number; months: number },
      ) => uploads.estimate(vaultId, paths, connections.active()?.id, force, reserve),
      enqueue: (request: { vaultId: string; paths: string[]; force?: boolean }) => {
        const connectionId = connections.active()?.id
        return uploads.enqueue({ ...request, ...(connectionId ? { connectionId } : {}) })
      },
      cancel: (itemId: string) => uploads.cancel(itemId),
      cancelBatch: (batchId: string) => uploads.cancelBatch(batchId),
      retry: (itemId: string, force?: boolean) => uploads.retry(itemId, force),
      list: () => uploads.list(),
      /** A batch's items by state and its credits so far (O(1): for notices when a batch ends). */
      batchCounts: (batchId: string) => uploads.batchCounts(batchId),
      clearFinished: () => uploads.clearFinished(),
      idle: () => uploads.idle(),
      /**
       * The files this computer uploaded as an asset and has not uploaded again since: one, or those
       * of a bundle (their real names, also when names were hidden from the service).
       */
      uploadedHere: (vaultId: string, assetId: string) => uploads.index.filesOfAsset(vaultId, assetId),
      /** Why the upload list could not be read or saved, if it could not. */
      storageProblem: () => uploads.storageProblem,
    },

    reminders,
    watcher,
    tray,

    applySettings(settings: AppCoreSettings): void {
      reminders.setConfig(pickReminderConfig(settings))
      if (settings.uploadConcurrency) uploads.setConcurrency(settings.uploadConcurrency)
      if (settings.hideFileNames !== undefined) uploads.setHideFileNames(settings.hideFileNames)
      reminders.tick()
      publishTray()
    },

    start(): void {
      reminders.start()
      watcher.start()
    },

    /** From powerMonitor 'resume' / 'unlock-screen': timers may have stalled while asleep. */
    async onResume(): Promise<void> {
      reminders.onResume()
      await watcher.onResume()
      publishTray()
    },

    async close(): Promise<void> {
      reminders.stop()
      watcher.stop()
      await uploads.close()
      await Promise.all([watcher.flush(), reminders.flush(), connections.flush(), deadlinesWriter.flush()])
    },
  }
  return core
}

function pickReminderConfig(settings: AppCoreSettings | undefined): Partial<ReminderConfig> {
  const config: Partial<ReminderConfig> = {}
  if (settings?.reminderDaysBefore?.length) config.reminderDaysBefore = settings.reminderDaysBefore
  if (settings?.overdueRepeatHours) config.overdueRepeatHours = settings.overdueRepeatHours
  return config
}
