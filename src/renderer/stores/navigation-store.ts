// Which screen is showing. Screens are few and flat, so a store beats a router here.
import { create } from 'zustand'

// Their names are in the catalogue: text.screens[id] and text.vault.tabs[id] (src/renderer/text/en.ts).
export const SCREENS = [{ id: 'vaults' }, { id: 'recovery' }, { id: 'settings' }] as const
export type ScreenId = (typeof SCREENS)[number]['id']

export const VAULT_TABS = [
  { id: 'overview' },
  { id: 'guardians' },
  { id: 'heirs' },
  { id: 'assets' },
  { id: 'release' },
  { id: 'activity' },
] as const
export type VaultTab = (typeof VAULT_TABS)[number]['id']

/** Sections a link can jump to (the element with this id is scrolled to and focused). */
export type SectionId = 'credits' | 'connections' | 'mail-test' | 'local-mail' | 'rehearsal' | 'start-release'

interface NavigationState {
  screen: ScreenId
  /** The vault open on the Vaults screen; null shows the list of vaults. */
  vaultId: string | null
  tab: VaultTab
  /** A section to bring into view once the screen shows it; cleared when done. */
  section: SectionId | null
  go(screen: ScreenId, section?: SectionId): void
  openVault(vaultId: string, tab?: VaultTab, section?: SectionId): void
  closeVault(): void
  setTab(tab: VaultTab): void
  sectionShown(): void
}

export const useNavigationStore = create<NavigationState>((set) => ({
  screen: 'vaults',
  vaultId: null,
  tab: 'overview',
  section: null,
  go: (screen, section) =>
    set(
      screen === 'vaults'
        ? { screen, vaultId: null, section: section ?? null }
        : { screen, section: section ?? null },
    ),
  openVault: (vaultId, tab = 'overview', section) =>
    set({ screen: 'vaults', vaultId, tab, section: section ?? null }),
  closeVault: () => set({ vaultId: null }),
  setTab: (tab) => set({ tab }),
  sectionShown: () => set({ section: null }),
}))
