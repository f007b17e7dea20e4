// The vault list exactly as main last reported it (vaultsChanged). The one copy in the window.
import { create } from 'zustand'
import type { CheckInFrequency, ReleaseTrigger, SssPreset } from '../../shared/api'
import type { CheckInOutcome, ReleaseSettings, VaultsSnapshot, VaultView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'

interface VaultsState {
  snapshot: VaultsSnapshot | undefined
  refreshing: boolean
  /** When the list was last asked for (Date.now()), by load or refresh. */
  readAt: number
  load(): Promise<void>
  refresh(): Promise<void>
  /** A new vault; its id, to open it. */
  create(preset: SssPreset, name: string): Promise<string>
  rename(vaultId: string, name: string): Promise<void>
  /** Deletes the vault for good, then reads the list again. */
  remove(vaultId: string): Promise<void>
  checkIn(vaultId: string, note: string): Promise<CheckInOutcome>
  configureRelease(
    vaultId: string,
    trigger: ReleaseTrigger,
    checkInFrequency: CheckInFrequency,
  ): Promise<ReleaseSettings>
  /** Whether reminder e-mails carry a one-step check-in link; the list is read again after. */
  setCheckInLinks(vaultId: string, on: boolean): Promise<void>
  startRelease(vaultId: string): Promise<void>
  cancelRelease(vaultId: string): Promise<void>
}

/** Reads the list again after a change main may not announce; a failure here changes nothing shown. */
const refreshQuietly = () =>
  void useVaultsStore
    .getState()
    .refresh()
    .catch(() => undefined)

export const useVaultsStore = create<VaultsState>((set) => ({
  snapshot: undefined,
  refreshing: false,
  readAt: Number.NEGATIVE_INFINITY,
  load: async () => {
    vault().on.vaultsChanged((snapshot) => set({ snapshot }))
    const snapshot = await vault().getVaults()
    set({ snapshot, readAt: Date.now() })
  },
  refresh: async () => {
    set({ refreshing: true, readAt: Date.now() })
    try {
      set({ snapshot: await vault().refreshVaults() })
    } finally {
      set({ refreshing: false })
    }
  },
  create: async (preset, name) => {
    const trimmed = name.trim()
    const created = await vault().createVault({ preset, ...(trimmed ? { name: trimmed } : {}) })
    return created.id
  },
  rename: async (vaultId, name) => {
    await vault().renameVault({ vaultId, name: name.trim() })
  },
  remove: async (vaultId) => {
    await vault().deleteVault({ vaultId })
    refreshQuietly()
  },
  checkIn: (vaultId, note) => vault().checkIn({ vaultId, note: note.trim() || undefined }),
  configureRelease: (vaultId, trigger, checkInFrequency) =>
    vault().configureRelease({
      vaultId,
      trigger,
      ...(trigger === 'dead_man_switch' ? { checkInFrequency } : {}),
    }),
  setCheckInLinks: async (vaultId, on) => {
    await vault().setCheckInLinks({ vaultId, on })
    refreshQuietly()
  },
  startRelease: async (vaultId) => {
    await vault().startRelease({ vaultId })
  },
  cancelRelease: async (vaultId) => {
    await vault().cancelRelease({ vaultId })
  },
}))

export function useVault(vaultId: string | null): VaultView | undefined {
  return useVaultsStore((s) => s.snapshot?.vaults.find((v) => v.id === vaultId))
}

/** A window shown again reads the list at most this often (guardians, claims and releases change on the service). */
export const REFRESH_ON_RETURN_MS = 60_000

/**
 * Reads the list again when the window is shown after a while: in the tray, main reads a quiet vault
 * only every 5 minutes (vault-watcher.ts), and the owner coming back should see what changed since.
 */
export function refreshOnReturn(
  page: Pick<Document, 'visibilityState' | 'addEventListener'>,
  now: () => number = Date.now,
): void {
  page.addEventListener('visibilitychange', () => {
    if (page.visibilityState !== 'visible') return
    if (now() - useVaultsStore.getState().readAt >= REFRESH_ON_RETURN_MS) refreshQuietly()
  })
}
