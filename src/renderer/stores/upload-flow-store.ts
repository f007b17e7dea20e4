// From paths to queued uploads: estimate the cost first, ask when it is above the owner's threshold
// (or above the balance), then queue. Shared by the drop zone, the pickers and the typed path.
import { create } from 'zustand'
import type { UploadEstimateView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { useSettingsStore } from './settings-store'

interface Pending {
  vaultId: string
  paths: string[]
  estimate: UploadEstimateView
}

interface UploadFlowState {
  pending: Pending | null
  busy: boolean
  error: unknown
  lastQueued: { count: number; skipped: number } | null
  start(vaultId: string, paths: string[]): Promise<void>
  confirm(): Promise<void>
  cancel(): void
  clearError(): void
}

export const useUploadFlowStore = create<UploadFlowState>((set, get) => {
  const queue = async (vaultId: string, paths: string[]) => {
    const result = await vault().queueUpload({ vaultId, paths })
    set({ lastQueued: { count: result.queued, skipped: result.skipped.length } })
  }
  return {
    pending: null,
    busy: false,
    error: undefined,
    lastQueued: null,
    start: async (vaultId, paths) => {
      set({ busy: true, error: undefined, lastQueued: null })
      try {
        const estimate = await vault().estimateUpload({ vaultId, paths })
        const threshold = useSettingsStore.getState().settings?.confirmUploadAboveCredits ?? 50
        if (!estimate.enough || estimate.credits > threshold || estimate.tooLarge.length > 0) {
          set({ pending: { vaultId, paths, estimate } })
        } else {
          await queue(vaultId, paths)
        }
      } catch (error) {
        set({ error })
      } finally {
        set({ busy: false })
      }
    },
    confirm: async () => {
      const pending = get().pending
      if (!pending) return
      set({ busy: true })
      try {
        await queue(pending.vaultId, pending.paths)
        set({ pending: null })
      } catch (error) {
        set({ error, pending: null })
      } finally {
        set({ busy: false })
      }
    },
    cancel: () => set({ pending: null }),
    clearError: () => set({ error: undefined }),
  }
})
