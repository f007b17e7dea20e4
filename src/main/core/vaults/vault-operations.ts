// The owner's calls on the vaults of the active connection. Each write reads the vault back through
// the watcher (so the window, the tray and the reminders see the change at once); check-in and
// release answers leave their deadline with CheckInDeadlines; a vault is created with its key on
// this device, and a deleted one leaves the upload index.
import type { VaultApiClient, VaultDetails } from '../../../service-client'
import type {
  AssetListQuery,
  KitCheckRegistration,
  PersonRequest,
  RehearsalRequest,
  ReleaseConfigRequest,
  SssPreset,
} from '../../../shared/api'
import type { VaultKeyStore } from '../storage/vault-key-store'
import type { UploadIndex } from '../uploads/upload-index'
import type { CheckInDeadlines } from './checkin-deadlines'
import type { VaultWatcher } from './vault-watcher'

export interface VaultOperationDeps {
  /** The active connection's client. */
  client: () => Promise<VaultApiClient>
  watcher: VaultWatcher
  deadlines: CheckInDeadlines
  vaultKeys: VaultKeyStore
  uploadIndex: () => UploadIndex
}

export type VaultOperations = ReturnType<typeof vaultOperations>

export function vaultOperations({ client, watcher, deadlines, vaultKeys, uploadIndex }: VaultOperationDeps) {
  /** Reads the vault back after a write, through the watcher so every listener sees it. */
  const reread = async (vaultId: string): Promise<VaultDetails> => {
    const vault = await (await client()).getVault(vaultId)
    watcher.observe(vault)
    return vault
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
    /** Creates the vault on the service and its key on this device. */
    async create(request: { preset?: SssPreset; name?: string } = {}): Promise<VaultDetails> {
      const vault = await (await client()).createVault(request)
      await vaultKeys.create(vault.id)
      watcher.observe(vault)
      return vault
    },
    async remove(vaultId: string): Promise<{ deleted: string }> {
      const result = await (await client()).deleteVault(vaultId)
      await uploadIndex().forgetVault(vaultId)
      await watcher.pollNow()
      return result
    },
    configureRelease: (vaultId: string, request: ReleaseConfigRequest) =>
      thenReread(vaultId, async (c) => {
        const config = await c.configureRelease(vaultId, request)
        deadlines.remember(vaultId, config.trigger === 'dead_man_switch' ? config.nextCheckInDue : null)
        return config
      }),
    checkIn: (vaultId: string, note?: string) =>
      thenReread(vaultId, async (c) => {
        const result = await c.checkIn(vaultId, note)
        deadlines.remember(vaultId, result.nextCheckInDue)
        return result
      }),
    cancelRelease: (vaultId: string) => thenReread(vaultId, (c) => c.cancelRelease(vaultId)),
    async startRelease(vaultId: string): Promise<VaultDetails> {
      const vault = await (await client()).startRelease(vaultId)
      watcher.observe(vault)
      return vault
    },
    async rename(vaultId: string, name: string | null): Promise<VaultDetails> {
      const vault = await (await client()).renameVault(vaultId, name)
      watcher.observe(vault)
      return vault
    },
    async setCheckInLinks(vaultId: string, on: boolean): Promise<VaultDetails> {
      const vault = await (await client()).setCheckInLinks(vaultId, on)
      watcher.observe(vault)
      return vault
    },
    getRehearsal: async (vaultId: string) => (await client()).getRehearsal(vaultId),
    startRehearsal: async (vaultId: string, request: RehearsalRequest) =>
      (await client()).startRehearsal(vaultId, request),
    endRehearsal: async (vaultId: string) => (await client()).endRehearsal(vaultId),
    listGuardians: async (vaultId: string) => (await client()).listGuardians(vaultId),
    addGuardian: (vaultId: string, person: PersonRequest) =>
      thenReread(vaultId, (c) => c.addGuardian(vaultId, person)),
    removeGuardian: (vaultId: string, guardianId: string) =>
      thenReread(vaultId, (c) => c.removeGuardian(vaultId, guardianId)),
    /** A split's kit check code hashes (extension kit-check). */
    registerKitChecks: async (vaultId: string, registration: KitCheckRegistration) =>
      (await client()).registerKitChecks(vaultId, registration),
    listHeirs: async (vaultId: string) => (await client()).listHeirs(vaultId),
    addHeir: (vaultId: string, person: PersonRequest) =>
      thenReread(vaultId, (c) => c.addHeir(vaultId, person)),
    removeHeir: (vaultId: string, heirId: string) =>
      thenReread(vaultId, (c) => c.removeHeir(vaultId, heirId)),
    listAssets: async (vaultId: string, query: AssetListQuery = {}) =>
      (await client()).listAssets(vaultId, query),
    /** Every asset, page after page (the file library). */
    listAllAssets: async (vaultId: string) => (await client()).listAllAssets(vaultId),
  }
}
