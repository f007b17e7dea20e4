// From paths to queued uploads: estimate the cost first, ask when it is above the owner's threshold
// (or above the balance, or into the credits kept for check-ins), then queue. Shared by the drop
// zone, the pickers and the typed path; a retry of a file that was not stored asks the same way.
import { create } from 'zustand'
import { AppError } from '../../shared/app-error'
import type { UploadEstimateView, UploadItemView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { currentOpener, type FocusReturn } from '../components/use-return-focus'
import { useConnectionStore } from './connection-store'
import { useSettingsStore } from './settings-store'
import { needsConfirmation, retryEstimate } from './upload-cost'
import { useVaultsStore } from './vaults-store'

export interface PendingUpload {
  vaultId: string
  paths: string[]
  estimate: UploadEstimateView
  /** Main refused the upload because it eats into the check-in reserve (RESERVE_NEEDED). */
  reserveRefused: boolean
  /** Uploads not stored before, to be put back in the queue instead of new paths. */
  retryItemIds?: string[]
  /** Where focus goes back when the question closes (the button that started it). */
  opener?: FocusReturn | null
  /**
   * The vault's first upload to a service whose store keeps everything for ever (Arweave): asked
   * whatever the cost, so the owner reads that before anything goes up.
   */
  permanentFirst?: boolean
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
  /** Uploads a cancelled or failed item again, asking for its cost as a new upload would. */
  retry(item: UploadItemView): Promise<void>
  confirm(): Promise<void>
  cancel(): void
  clearError(): void
}

const isCode = (error: unknown, code: string) => error instanceof AppError && error.code === code
const threshold = () => useSettingsStore.getState().settings?.confirmUploadAboveCredits ?? 50
/** Nothing is stored in the vault yet, and the service's store never deletes (see PendingUpload). */
export const firstOnPermanentStore = (vaultId: string) =>
  useConnectionStore.getState().status?.service?.storage?.permanent === true &&
  useVaultsStore.getState().snapshot?.vaults.find((v) => v.id === vaultId)?.assetCount === 0

export const useUploadFlowStore = create<UploadFlowState>((set, get) => {
  const queue = async (vaultId: string, paths: string[], spendReserve: boolean) => {
    const result = await vault().queueUpload({ vaultId, paths, ...(spendReserve ? { spendReserve } : {}) })
    set({ lastQueued: { count: result.queued, skipped: result.skipped.length } })
  }
  /** Main refused for the reserve: ask the owner, with a fresh estimate to show the numbers. */
  const askForReserve = async (vaultId: string, paths: string[], opener: FocusReturn | null | undefined) => {
    const estimate = await vault().estimateUpload({ vaultId, paths })
    set({ pending: { vaultId, paths, estimate, reserveRefused: true, opener } })
  }
  return {
    pending: null,
    busy: false,
    error: undefined,
    errorVaultId: null,
    lastQueued: null,
    start: async (vaultId, paths) => {
      const opener = currentOpener()
      set({ busy: true, error: undefined, errorVaultId: null, lastQueued: null })
      try {
        const estimate = await vault().estimateUpload({ vaultId, paths })
        const permanentFirst = firstOnPermanentStore(vaultId)
        if (permanentFirst || needsConfirmation(estimate, threshold())) {
          set({ pending: { vaultId, paths, estimate, reserveRefused: false, opener, permanentFirst } })
        } else {
          try {
            await queue(vaultId, paths, false)
          } catch (error) {
            if (!isCode(error, 'RESERVE_NEEDED')) throw error
            await askForReserve(vaultId, paths, opener)
          }
        }
      } catch (error) {
        set({ error, errorVaultId: vaultId })
      } finally {
        set({ busy: false })
      }
    },
    retry: async (item) => {
      const opener = currentOpener()
      set({ busy: true, error: undefined, errorVaultId: null })
      try {
        const v = useVaultsStore.getState().snapshot?.vaults.find((x) => x.id === item.vaultId)
        const months = useSettingsStore.getState().settings?.checkInReserveMonths ?? 12
        const estimate = v ? retryEstimate([item], v, months) : undefined
        if (estimate && needsConfirmation(estimate, threshold())) {
          set({
            pending: {
              vaultId: item.vaultId,
              paths: [],
              estimate,
              reserveRefused: false,
              retryItemIds: [item.id],
              opener,
            },
          })
        } else {
          await vault().retryUpload({ itemId: item.id })
        }
      } catch (error) {
        set({ error, errorVaultId: item.vaultId })
      } finally {
        set({ busy: false })
      }
    },
    confirm: async () => {
      const pending = get().pending
      if (!pending) return
      set({ busy: true })
      try {
        if (pending.retryItemIds) {
          for (const itemId of pending.retryItemIds) await vault().retryUpload({ itemId })
          set({ pending: null })
          return
        }
        await queue(pending.vaultId, pending.paths, spendsReserve(pending))
        set({ pending: null })
      } catch (error) {
        if (isCode(error, 'RESERVE_NEEDED') && !spendsReserve(pending)) {
          try {
            await askForReserve(pending.vaultId, pending.paths, pending.opener)
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
