// Guardians, heirs and guardian kits per vault, as last read from main. Re-read after every change
// and whenever the vault's counts move (another device may have changed them).
import { create } from 'zustand'
import type { Guardian, Heir, PersonRequest } from '../../shared/api'
import type { GuardianChange, GuardianKit, GuardianKitInfo } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import type { KitPrintAs } from './owner-kit-store'

interface PeopleEntry {
  guardians?: Guardian[]
  heirs?: Heir[]
  kits?: GuardianKitInfo[]
  /** False when the service has no list endpoint (people added from this device are shown). */
  fromService?: boolean
  error?: unknown
}

interface PeopleState {
  byVault: Record<string, PeopleEntry>
  loadGuardians(vaultId: string): Promise<void>
  loadHeirs(vaultId: string): Promise<void>
  /** Kits as main returned them after a change (e.g. marked handed over). */
  setKits(vaultId: string, kits: GuardianKitInfo[]): void
  addHeir(vaultId: string, person: PersonRequest): Promise<void>
  removeHeir(vaultId: string, heirId: string): Promise<void>
  /** What the change did to the shares and kits, to say so. */
  addGuardian(vaultId: string, person: PersonRequest): Promise<GuardianChange>
  removeGuardian(vaultId: string, guardianId: string): Promise<GuardianChange>
  /** Marks a guardian's kit as handed over (or taken back); the kits as main returns them after. */
  setKitHandedOver(vaultId: string, guardianId: string, handedOver: boolean): Promise<void>
  /** A guardian's kit of the current split, to show or print. */
  readGuardianKit(vaultId: string, guardianId: string): Promise<GuardianKit>
  printGuardianKit(vaultId: string, guardianId: string, as: KitPrintAs): Promise<{ saved: string | null }>
}

export const usePeopleStore = create<PeopleState>((set) => {
  const patch = (vaultId: string, entry: PeopleEntry) =>
    set((s) => ({ byVault: { ...s.byVault, [vaultId]: { ...s.byVault[vaultId], ...entry } } }))
  return {
    byVault: {},
    loadGuardians: async (vaultId) => {
      try {
        const [list, kits] = await Promise.all([
          vault().listGuardians({ vaultId }),
          vault().listGuardianKits({ vaultId }),
        ])
        patch(vaultId, { guardians: list.items, fromService: list.fromService, kits, error: undefined })
      } catch (error) {
        patch(vaultId, { error })
      }
    },
    loadHeirs: async (vaultId) => {
      try {
        const list = await vault().listHeirs({ vaultId })
        patch(vaultId, { heirs: list.items, fromService: list.fromService, error: undefined })
      } catch (error) {
        patch(vaultId, { error })
      }
    },
    setKits: (vaultId, kits) => patch(vaultId, { kits }),
    addHeir: async (vaultId, person) => {
      await vault().addHeir({ vaultId, person })
    },
    removeHeir: async (vaultId, heirId) => {
      await vault().removeHeir({ vaultId, heirId })
    },
    addGuardian: (vaultId, person) => vault().addGuardian({ vaultId, person }),
    removeGuardian: (vaultId, guardianId) => vault().removeGuardian({ vaultId, guardianId }),
    setKitHandedOver: async (vaultId, guardianId, handedOver) => {
      patch(vaultId, { kits: await vault().setKitHandedOver({ vaultId, guardianId, handedOver }) })
    },
    readGuardianKit: (vaultId, guardianId) => vault().getGuardianKit({ vaultId, guardianId }),
    printGuardianKit: (vaultId, guardianId, as) => vault().printGuardianKit({ vaultId, guardianId, as }),
  }
})
