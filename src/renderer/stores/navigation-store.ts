// Which screen is showing. Screens are few and flat, so a store beats a router here.
import { create } from 'zustand'

export const SCREENS = [
  { id: 'vaults', label: 'Vaults' },
  { id: 'recovery', label: 'Recovery' },
  { id: 'settings', label: 'Settings' },
] as const
export type ScreenId = (typeof SCREENS)[number]['id']

interface NavigationState {
  screen: ScreenId
  go(screen: ScreenId): void
}

export const useNavigationStore = create<NavigationState>((set) => ({
  screen: 'vaults',
  go: (screen) => set({ screen }),
}))
