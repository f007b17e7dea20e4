// Settings as the main process holds them; updated from the settingsChanged event, never edited locally.
import { create } from 'zustand'
import type { AppInfo } from '../../shared/ipc/contract'
import type { Settings, SettingsPatch } from '../../shared/ipc/settings'
import type { UnlockCheckInStatus } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'

interface SettingsState {
  settings: Settings | undefined
  appInfo: AppInfo | undefined
  load(): Promise<void>
  update(patch: SettingsPatch): Promise<void>
  /** "Check in when I unlock": whether it can be on here, and with which key. */
  readUnlockCheckIn(): Promise<UnlockCheckInStatus>
  /** Turns it on, with the agent key the owner pasted (the service on this computer makes its own). */
  enableUnlockCheckIn(agentKey?: string): Promise<UnlockCheckInStatus>
  disableUnlockCheckIn(): Promise<UnlockCheckInStatus>
}

export const useSettingsStore = create<SettingsState>((set) => ({
  settings: undefined,
  appInfo: undefined,
  load: async () => {
    const [settings, appInfo] = await Promise.all([vault().getSettings(), vault().getAppInfo()])
    set({ settings, appInfo })
    vault().on.settingsChanged((next) => set({ settings: next }))
  },
  update: async (patch) => {
    const settings = await vault().updateSettings(patch)
    set({ settings })
  },
  readUnlockCheckIn: () => vault().getUnlockCheckIn(),
  enableUnlockCheckIn: (agentKey) => vault().enableUnlockCheckIn(agentKey ? { agentKey } : {}),
  disableUnlockCheckIn: () => vault().disableUnlockCheckIn(),
}))
