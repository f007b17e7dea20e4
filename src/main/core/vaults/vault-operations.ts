// The owner's calls on the vaults of the active connection, each owning all it writes. Each write
// reads the vault back through the watcher (so the window, the tray and the reminders see the change
// at once); a check-in leaves its deadline with CheckInDeadlines, its time and note in the device
// record and its line in the history, all stamped by the session's clock; a vault is created with
// its key on this device, and a deleted one leaves the upload index. Names and check-in links that
// the service does not keep are kept on this device or refused here, not in the IPC handlers.
import { type VaultApiClient, VaultApiError, type VaultDetails } from '../../../service-client'
import {
  type AssetListQuery,
  creditsToDollars,
  type KitCheckRegistration,
  LIMITS,
  type PersonRequest,
  type RehearsalRequest,
  type ReleaseConfigRequest,
  type ServiceExtension,
  type SssPreset,
} from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import type { ActivityEntry, CheckInOutcome } from '../../../shared/ipc/vault-types'
import type { VaultKeyStore } from '../storage/vault-key-store'
import type { UploadIndex } from '../uploads/upload-index'
import type { ActivityInput } from './activity-log'
import type { CheckInDeadlines } from './checkin-deadlines'
import type { DeviceRecords } from './device-records'
import type { VaultWatcher } from './vault-watcher'

/** Who asked for a check-in (the history says so). */
export type CheckInSource = 'window' | 'tray' | 'reminder'

export interface VaultOperationDeps {
  /** The active connection's client. */
  client: () => Promise<VaultApiClient>
  watcher: VaultWatcher
  deadlines: CheckInDeadlines
  vaultKeys: VaultKeyStore
  uploadIndex: () => UploadIndex
  records: DeviceRecords
  /** The session's clock (faked in tests). */
  now: () => number
  /** Appends to the owner's history (and tells the window). */
  recordActivity: (input: ActivityInput) => ActivityEntry | undefined
  /** Whether the active service offers an extension ('vault-name', 'check-in-links'). */
  offers: (extension: ServiceExtension) => boolean
  /** After the service deleted a vault: its key, kits and records on this device go too. */
  forget: (vaultId: string) => Promise<void>
  /** The vault's name as the window shows it (for the history). */
  labelOf: (vaultId: string) => string
  /** Vaults whose release the owner is starting or cancelling from this device right now. */
  releaseActions: Set<string>
  /** The vault's credit balance as last read, for the sentence of a refused check-in. */
  knownBalance: (vaultId: string) => number | undefined
}

export type VaultOperations = ReturnType<typeof vaultOperations>

export function vaultOperations(deps: VaultOperationDeps) {
  const { client, watcher, deadlines, vaultKeys, uploadIndex, records, now, recordActivity, offers } = deps
  /** Reads the vault back after a write, through the watcher so every listener sees it. */
  const reread = async (vaultId: string): Promise<VaultDetails> => {
    const vault = await (await client()).getVault(vaultId)
    watcher.observe(vault)
    return vault
  }
  /** A release started or cancelled from this device, marked so while it runs. */
  const ownersRelease = async <T>(vaultId: string, work: () => Promise<T>): Promise<T> => {
    deps.releaseActions.add(vaultId)
    try {
      return await work()
    } finally {
      deps.releaseActions.delete(vaultId)
    }
  }
  /** A write, then the vault read back; resolves with the write's answer. */
  const thenReread = async <T>(vaultId: string, write: (c: VaultApiClient) => Promise<T>): Promise<T> => {
    const result = await write(await client())
    await reread(vaultId)
    return result
  }

  return {
    async list(): Promise<VaultDetails[]> {
      const vaults = await (await client()).listVaults()
      for (const v of vaults) watcher.observe(v)
      return vaults
    },
    get: reread,
    /**
     * Creates the vault on the service and its key on this device; a name the service cannot keep is
     * kept on this device.
     */
    async create(request: { preset?: SssPreset; name?: string } = {}): Promise<VaultDetails> {
      const named = request.name?.trim() || undefined
      const keptByService = named !== undefined && offers('vault-name')
      const vault = await (await client()).createVault({
        ...(request.preset ? { preset: request.preset } : {}),
        ...(keptByService ? { name: named } : {}),
      })
      await vaultKeys.create(vault.id)
      if (named && !keptByService) await records.update(vault.id, (r) => ({ ...r, name: named }))
      watcher.observe(vault)
      recordActivity({
        vaultId: vault.id,
        kind: 'vault-created',
        source: 'window',
        detail: { note: deps.labelOf(vault.id) },
      })
      return vault
    },
    async remove(vaultId: string): Promise<{ deleted: string }> {
      const result = await (await client()).deleteVault(vaultId)
      await uploadIndex().forgetVault(vaultId)
      await watcher.pollNow()
      // The service has dropped the files; the key and kits on this device open nothing now.
      await deps.forget(vaultId)
      return result
    },
    /** The release settings on the service, their deadline, the device record and the history. */
    configureRelease: (vaultId: string, request: ReleaseConfigRequest) =>
      thenReread(vaultId, async (c) => {
        const config = await c.configureRelease(vaultId, request)
        deadlines.remember(vaultId, config.trigger === 'dead_man_switch' ? config.nextCheckInDue : null)
        await records.update(vaultId, (r) => ({
          ...r,
          releaseTrigger: config.trigger,
          checkInFrequency: config.checkInFrequency,
          nextCheckInDue: config.nextCheckInDue,
        }))
        recordActivity({
          vaultId,
          kind: 'release-configured',
          source: 'window',
          detail: {
            trigger: config.trigger,
            ...(config.trigger === 'dead_man_switch' ? { checkInFrequency: config.checkInFrequency } : {}),
          },
        })
        return config
      }),
    /**
     * The whole check-in: the service's answer, its deadline, the device record (time and note) and
     * the history line, all at the session clock's time. A check-in refused for credits says what
     * it costs and what the balance is.
     */
    checkIn: (vaultId: string, note?: string, source: CheckInSource = 'window'): Promise<CheckInOutcome> =>
      thenReread(vaultId, async (c) => {
        const trimmed = note?.trim() || undefined
        const result = await c.checkIn(vaultId, trimmed).catch((error: unknown) => {
          throw creditsRefusal(error, deps.knownBalance(vaultId))
        })
        const checkedInAt = new Date(now()).toISOString()
        deadlines.remember(vaultId, result.nextCheckInDue)
        await records.update(vaultId, (r) => ({
          ...r,
          lastCheckIn: { at: checkedInAt, note: trimmed ?? null },
          nextCheckInDue: result.nextCheckInDue,
        }))
        recordActivity({
          vaultId,
          kind: 'check-in',
          source,
          at: checkedInAt,
          detail: { nextCheckInDue: result.nextCheckInDue, ...(trimmed ? { note: trimmed } : {}) },
        })
        return { ...result, checkedInAt }
      }),
    // The watcher records a release started or cancelled when it sees the new state; the mark says
    // it was the owner's doing.
    cancelRelease: (vaultId: string) =>
      ownersRelease(vaultId, () => thenReread(vaultId, (c) => c.cancelRelease(vaultId))),
    startRelease: (vaultId: string): Promise<VaultDetails> =>
      ownersRelease(vaultId, async () => {
        const vault = await (await client()).startRelease(vaultId)
        watcher.observe(vault)
        return vault
      }),
    /** On the service when it keeps names, else on this device; an empty name clears it. */
    async rename(vaultId: string, name: string | null): Promise<VaultDetails> {
      const trimmed = name?.trim() || null
      let vault: VaultDetails | undefined
      if (offers('vault-name')) {
        vault = await (await client()).renameVault(vaultId, trimmed)
        watcher.observe(vault)
      } else {
        await records.update(vaultId, (r) => {
          const { name: _old, ...rest } = r
          return trimmed ? { ...rest, name: trimmed } : rest
        })
        // The vault as last read (every write reads it back), else a fresh read.
        vault = watcher.snapshot().find((v) => v.id === vaultId) ?? (await reread(vaultId))
      }
      recordActivity({
        vaultId,
        kind: 'vault-renamed',
        source: 'window',
        detail: { note: deps.labelOf(vaultId) },
      })
      return vault
    },
    async setCheckInLinks(vaultId: string, on: boolean): Promise<VaultDetails> {
      if (!offers('check-in-links')) {
        throw new AppError({
          code: 'NOT_OFFERED',
          userMessage:
            'The connected service does not let the app choose whether reminder e-mails carry a check-in link. Ask whoever runs it what its reminders contain; nothing was changed.',
        })
      }
      const vault = await (await client()).setCheckInLinks(vaultId, on)
      watcher.observe(vault)
      return vault
    },
    getRehearsal: async (vaultId: string) => (await client()).getRehearsal(vaultId),
    startRehearsal: async (vaultId: string, request: RehearsalRequest) =>
      (await client()).startRehearsal(vaultId, request),
    endRehearsal: async (vaultId: string) => (await client()).endRehearsal(vaultId),
    listGuardians: async (vaultId: string) => (await client()).listGuardians(vaultId),
    /** The guardian on the service and in the device record (a service that lists none still shows them). */
    addGuardian: (vaultId: string, person: PersonRequest) =>
      thenReread(vaultId, async (c) => {
        const guardian = await c.addGuardian(vaultId, person)
        await records.update(vaultId, (r) => ({ ...r, guardians: [...(r.guardians ?? []), guardian] }))
        return guardian
      }),
    removeGuardian: (vaultId: string, guardianId: string) =>
      thenReread(vaultId, async (c) => {
        const removed = await c.removeGuardian(vaultId, guardianId)
        await records.update(vaultId, (r) => ({
          ...r,
          guardians: (r.guardians ?? []).filter((g) => g.id !== guardianId),
        }))
        return removed
      }),
    /** A split's kit check code hashes (extension kit-check). */
    registerKitChecks: async (vaultId: string, registration: KitCheckRegistration) =>
      (await client()).registerKitChecks(vaultId, registration),
    listHeirs: async (vaultId: string) => (await client()).listHeirs(vaultId),
    /** The heir on the service and in the device record. */
    addHeir: (vaultId: string, person: PersonRequest) =>
      thenReread(vaultId, async (c) => {
        const heir = await c.addHeir(vaultId, person)
        await records.update(vaultId, (r) => ({ ...r, heirs: [...(r.heirs ?? []), heir] }))
        return heir
      }),
    removeHeir: (vaultId: string, heirId: string) =>
      thenReread(vaultId, async (c) => {
        const removed = await c.removeHeir(vaultId, heirId)
        await records.update(vaultId, (r) => ({
          ...r,
          heirs: (r.heirs ?? []).filter((h) => h.id !== heirId),
        }))
        return removed
      }),
    listAssets: async (vaultId: string, query: AssetListQuery = {}) =>
      (await client()).listAssets(vaultId, query),
    /** Every asset, page after page (the file library). */
    listAllAssets: async (vaultId: string) => (await client()).listAllAssets(vaultId),
  }
}

/** A check-in the service refused for credits: what it costs, the balance, and what to do. */
function creditsRefusal(error: unknown, balance: number | undefined): unknown {
  if (!(error instanceof VaultApiError) || error.status !== 402) return error
  return new AppError({
    code: error.code,
    status: 402,
    userMessage: `A check-in costs ${LIMITS.checkInCostCredits} credits (${creditsToDollars(LIMITS.checkInCostCredits)})${balance !== undefined ? ` and the balance is ${balance} credits` : ''}. Add credits to the account, then check in again.`,
    details: {
      creditsNeeded: LIMITS.checkInCostCredits,
      ...(balance !== undefined ? { creditsBalance: balance } : {}),
    },
    detail: error.detail,
    cause: error,
  })
}
