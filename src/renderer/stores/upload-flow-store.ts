// From paths to queued uploads: estimate the cost first, ask when it is above the owner's threshold
// (or above the balance, or into the credits kept for check-ins), then queue. Shared by the drop
// zone, the pickers and the typed path.
import { create } from 'zustand'
import { IpcError } from '../../shared/ipc/contract-kit'
import type { UploadEstimateView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { useSettingsStore } from './settings-store'

export interface PendingUpload {
  vaultId: string
  paths: string[]
  estimate: UploadEstimateView
  /** Main refused the upload because it eats into the check-in reserve (RESERVE_NEEDED). */
  reserveRefused: boolean
}

/** The upload needs the owner's explicit choice to spend the credits kept for check-ins. */
export function spendsReserve(pending: PendingUpload): boolean {
  return pending.estimate.eatsReserve || pending.reserveRefused
}

interface UploadFlowState {
  pending: PendingUpload | null
  busy: boolean
  error: unknown
  /** The vault the error is about. */
  errorVaultId: string | null
  lastQueued: { count: number; skipped: number } | null
  start(vaultId: string, paths: string[]): Promise<void>
  confirm(): Promise<void>
  cancel(): void
  clearError(): void
}

const isCode = (error: unknown, code: string) => error instanceof IpcError && error.code === code

export const useUploadFlowStore = create<UploadFlowState>((set, get) => {
  const queue = async (vaultId: string, paths: string[], spendReserve: boolean) => {
    const result = await vault().queueUpload({ vaultId, paths, ...(spendReserve ? { spendReserve } : {}) })
    set({ lastQueued: { count: result.queued, skipped: result.skipped.length } })
  }
  /** Main refused for the reserve: ask the owner, with a fresh estimate to show the numbers. */
  const askForReserve = async (vaultId: string, paths: string[]) => {
    const estimate = await vault().estimateUpload({ vaultId, paths })
    set({ pending: { vaultId, paths, estimate, reserveRefused: true } })
  }
  return {
    pending: null,
    busy: false,
    error: undefined,
    errorVaultId: null,
    lastQueued: null,
    start: async (vaultId, paths) => {
      set({ busy: true, error: undefined, errorVaultId: null, lastQueued: null })
      try {
        const estimate = await vault().estimateUpload({ vaultId, paths })
        const threshold = useSettingsStore.getState().settings?.confirmUploadAboveCredits ?? 50
        if (
          !estimate.enough ||
          estimate.eatsReserve ||
          estimate.credits > threshold ||
          estimate.tooLarge.length > 0
        ) {
          set({ pending: { vaultId, paths, estimate, reserveRefused: false } })
        } else {
          try {
            await queue(vaultId, paths, false)
          } catch (error) {
            if (!isCode(error, 'RESERVE_NEEDED')) throw error
            await askForReserve(vaultId, paths)
          }
        }
      } catch (error) {
        set({ error, errorVaultId: vaultId })
      } finally {
        set({ busy: false })
      }
    },
    confirm: async () => {
      const pending = get().pending
      if (!pending) return
      set({ busy: true })
      try {
        await queue(pending.vaultId, pending.paths, spendsReserve(pending))
        set({ pending: null })
      } catch (error) {
        if (isCode(error, 'RESERVE_NEEDED') && !spendsReserve(pending)) {
          try {
            await askForReserve(pending.vaultId, pending.paths)
            return
          } catch (again) {
            set({ error: again, errorVaultId: pending.vaultId, pending: null })
            return
          }
        }
        set({ error, errorVaultId: pending.vaultId, pending: null })
      } finally {
        set({ busy: false })
      }
    },
    cancel: () => set({ pending: null }),
    clearError: () => set({ error: undefined, errorVaultId: null }),
  }
})
