// Guardian kits from the vault key this device holds: the key itself for a split, a new split of a
// rotated key for the vault's guardians, and the split's kit check codes told to the service.
import { VaultApiError } from '../../../service-client'
import { AppError } from '../../../shared/app-error'
import { decodeOwnerKitWords } from '../../../vault-format'
import type { VaultKeyStore } from '../storage/vault-key-store'
import type { DeviceRecords } from './device-records'
import type { GuardianKits } from './guardian-kits'
import { registerKitChecks } from './kit-check-registration'
import type { ReadinessFacts } from './readiness-facts'
import type { VaultOperations } from './vault-operations'

export interface KitMakingDeps {
  vaultKeys: VaultKeyStore
  kits: GuardianKits
  records: DeviceRecords
  /** Made after the kit making (the session's calls on the vaults). */
  vaults: () => VaultOperations
  facts: () => ReadinessFacts
}

export class KitMaking {
  readonly #deps: KitMakingDeps

  constructor(deps: KitMakingDeps) {
    this.#deps = deps
  }

  /** The raw key, for splitting into guardian shares; null when this device does not hold it. */
  async vaultKey(vaultId: string): Promise<Uint8Array | null> {
    const { vaultKeys } = this.#deps
    if (!(await vaultKeys.info(vaultId)).present) return null
    // The store hands out the key only as the owner kit's words; they decode to the key itself.
    return decodeOwnerKitWords((await vaultKeys.exportOwnerKit(vaultId)).words).vaultKey
  }

  /** A new split of a rotated key for the vault's guardians (those the service lists, else those added here). */
  async remake(vaultId: string, key: Uint8Array): Promise<number> {
    const vaults = this.#deps.vaults()
    const vault = await vaults.get(vaultId)
    let guardians: Array<{ id: string; name: string }>
    try {
      guardians = await vaults.listGuardians(vaultId)
    } catch (error) {
      if (!(error instanceof VaultApiError) || error.status !== 404) throw error
      guardians = this.#deps.records.get(vaultId).guardians ?? []
    }
    const kits = await this.#deps.kits.regenerate(vaultId, key, vault.sssPreset, guardians)
    await this.registerChecks(vaultId, key)
    await this.#deps.facts().refresh(vaultId)
    return kits.length
  }

  /**
   * Tells the service the current split's kit check code hashes, when it offers kit checks and has not
   * taken them yet. Never fails the caller: kits work without it, and the next listing of the guardians
   * tries again.
   */
  async registerChecks(vaultId: string, key?: Uint8Array): Promise<void> {
    try {
      const vaultKey = key ?? (await this.vaultKey(vaultId))
      if (!vaultKey) return
      await registerKitChecks(
        {
          kits: this.#deps.kits,
          offersKitChecks: async () => {
            const facts = this.#deps.facts()
            if (!facts.service) await facts.refreshService()
            return facts.service?.extensions.includes('kit-check') ?? false
          },
          register: (id, registration) => this.#deps.vaults().registerKitChecks(id, registration),
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
}
