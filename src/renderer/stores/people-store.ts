// Guardians, heirs and guardian kits per vault, as last read from main. Re-read after every change
// and whenever the vault's counts move (another device may have changed them).
import { create } from 'zustand'
import type { Guardian, Heir } from '../../shared/api'
import type { GuardianKitInfo } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'

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
  }
})
