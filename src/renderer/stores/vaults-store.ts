// The vault list exactly as main last reported it (vaultsChanged). The one copy in the window.
import { create } from 'zustand'
import type { VaultsSnapshot, VaultView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'

interface VaultsState {
  snapshot: VaultsSnapshot | undefined
  refreshing: boolean
  load(): Promise<void>
  refresh(): Promise<void>
}

export const useVaultsStore = create<VaultsState>((set) => ({
  snapshot: undefined,
  refreshing: false,
  load: async () => {
    vault().on.vaultsChanged((snapshot) => set({ snapshot }))
    const snapshot = await vault().getVaults()
    set({ snapshot })
  },
  refresh: async () => {
    set({ refreshing: true })
    try {
      set({ snapshot: await vault().refreshVaults() })
    } finally {
      set({ refreshing: false })
    }
  },
}))

export function useVault(vaultId: string | null): VaultView | undefined {
  return useVaultsStore((s) => s.snapshot?.vaults.find((v) => v.id === vaultId))
}
