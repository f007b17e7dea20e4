// Which screen is showing. Screens are few and flat, so a store beats a router here.
import { create } from 'zustand'

export const SCREENS = [
  { id: 'vaults', label: 'Vaults' },
  { id: 'recovery', label: 'Recovery' },
  { id: 'settings', label: 'Settings' },
] as const
export type ScreenId = (typeof SCREENS)[number]['id']

export const VAULT_TABS = [
  { id: 'overview', label: 'Overview' },
  { id: 'guardians', label: 'Guardians' },
  { id: 'heirs', label: 'Heirs' },
  { id: 'assets', label: 'Assets' },
  { id: 'release', label: 'Release settings' },
] as const
export type VaultTab = (typeof VAULT_TABS)[number]['id']

interface NavigationState {
  screen: ScreenId
  /** The vault open on the Vaults screen; null shows the list of vaults. */
  vaultId: string | null
  tab: VaultTab
  go(screen: ScreenId): void
  openVault(vaultId: string, tab?: VaultTab): void
  closeVault(): void
  setTab(tab: VaultTab): void
}

export const useNavigationStore = create<NavigationState>((set) => ({
  screen: 'vaults',
  vaultId: null,
  tab: 'overview',
  go: (screen) => set(screen === 'vaults' ? { screen, vaultId: null } : { screen }),
  openVault: (vaultId, tab = 'overview') => set({ screen: 'vaults', vaultId, tab }),
  closeVault: () => set({ vaultId: null }),
  setTab: (tab) => set({ tab }),
}))
