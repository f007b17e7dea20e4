// From paths to queued uploads: estimate the cost first, ask when it is above the owner's threshold
// (or above the balance, or into the credits kept for check-ins), then queue. Shared by the drop
// zone, the pickers and the typed path; a retry of a file that was not stored asks the same way.
import { create } from 'zustand'
import { AppError } from '../../shared/app-error'
import type { UploadEstimateView, UploadItemView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { currentOpener, type FocusReturn } from '../components/use-return-focus'
import { useConnectionStore } from './connection-store'
import { useNavigationStore } from './navigation-store'
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
  /** The owner chose to upload again files whose bytes the vault already holds. */
  force?: boolean
}

/** The upload needs the owner's explicit choice to spend the credits kept for check-ins. */
export function spendsReserve(pending: PendingUpload): boolean {
  return pending.estimate.eatsReserve || pending.reserveRefused
}

interface UploadFlowState {
  pending: PendingUpload | null
  /**
   * A confirmation set aside while the owner adds credits: asked again, with a fresh estimate (the new
   * balance), when they leave Settings. A browser drop's files are kept meanwhile.
   */
  parked: PendingUpload | null
  busy: boolean
  error: unknown
  /** The vault the error is about. */
  errorVaultId: string | null
  lastQueued: { count: number; skipped: number } | null
  start(vaultId: string, paths: string[]): Promise<void>
  /** The desktop's native picker, then start with what was chosen (nothing when it was closed). */
  pickAndStart(vaultId: string, kind: 'files' | 'folder'): Promise<void>
  /** Uploads a cancelled or failed item again, asking for its cost as a new upload would. */
  retry(item: UploadItemView): Promise<void>
  confirm(): Promise<void>
  /** Estimates again counting the files the vault already holds, to upload them anyway. */
  uploadAgain(): Promise<void>
  /** Sets the question aside and opens Add credits (see parked). */
  addCredits(): void
  /** Asks the parked question again with a fresh estimate. */
  resume(): Promise<void>
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
  const queue = async (vaultId: string, paths: string[], spendReserve: boolean, force = false) => {
    const result = await vault().queueUpload({
      vaultId,
      paths,
      ...(spendReserve ? { spendReserve } : {}),
      ...(force ? { force } : {}),
    })
    set({ lastQueued: { count: result.queued, skipped: result.skipped.length } })
  }
  /** Main refused for the reserve: ask the owner, with a fresh estimate to show the numbers. */
  const askForReserve = async (
    vaultId: string,
    paths: string[],
    opener: FocusReturn | null | undefined,
    force = false,
  ) => {
    const estimate = await vault().estimateUpload({ vaultId, paths, ...(force ? { force } : {}) })
    set({ pending: { vaultId, paths, estimate, reserveRefused: true, opener, ...(force ? { force } : {}) } })
  }
  return {
    pending: null,
    parked: null,
    busy: false,
    error: undefined,
    errorVaultId: null,
    lastQueued: null,
    pickAndStart: async (vaultId, kind) => {
      const paths = await vault().pickPaths({ kind })
      if (paths.length) await get().start(vaultId, paths)
    },
    start: async (vaultId, paths) => {
      const opener = currentOpener()
      set({ busy: true, error: undefined, errorVaultId: null, lastQueued: null })
      try {
        const estimate = await vault().estimateUpload({ vaultId, paths })
        const permanentFirst = firstOnPermanentStore(vaultId)
        // Files the vault already holds are always said (and the owner may upload them again).
        const alreadyStored = (estimate.alreadyStored?.length ?? 0) > 0
        if (permanentFirst || alreadyStored || needsConfirmation(estimate, threshold())) {
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
        await queue(pending.vaultId, pending.paths, spendsReserve(pending), pending.force)
        set({ pending: null })
      } catch (error) {
        if (isCode(error, 'RESERVE_NEEDED') && !spendsReserve(pending)) {
          try {
            await askForReserve(pending.vaultId, pending.paths, pending.opener, pending.force)
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
    uploadAgain: async () => {
      const pending = get().pending
      if (!pending || pending.retryItemIds) return
      set({ busy: true })
      try {
        const estimate = await vault().estimateUpload({
          vaultId: pending.vaultId,
          paths: pending.paths,
          force: true,
        })
        set({ pending: { ...pending, estimate, force: true } })
      } catch (error) {
        set({ error, errorVaultId: pending.vaultId, pending: null })
      } finally {
        set({ busy: false })
      }
    },
    addCredits: () => {
      set({ parked: get().pending, pending: null })
      useNavigationStore.getState().go('settings', 'credits')
    },
    resume: async () => {
      const parked = get().parked
      if (!parked) return
      set({ busy: true })
      try {
        if (parked.retryItemIds) {
          // A retry's estimate is worked out here from the item; only the balance is new.
          const v = (await vault().getVaults()).vaults.find((x) => x.id === parked.vaultId)
          const balanceCredits = v?.creditsBalance ?? parked.estimate.balanceCredits
          const e = { ...parked.estimate, balanceCredits, enough: parked.estimate.credits <= balanceCredits }
          set({ pending: { ...parked, estimate: e, reserveRefused: false } })
        } else {
          const estimate = await vault().estimateUpload({
            vaultId: parked.vaultId,
            paths: parked.paths,
            ...(parked.force ? { force: true } : {}),
          })
          set({ pending: { ...parked, estimate, reserveRefused: false } })
        }
      } catch (error) {
        set({ error, errorVaultId: parked.vaultId })
      } finally {
        set({ parked: null, busy: false })
      }
    },
    cancel: () => set({ pending: null }),
    clearError: () => set({ error: undefined, errorVaultId: null }),
  }
})

// Back from Settings (where Add credits is) with a question set aside: ask it again, new balance shown.
useNavigationStore.subscribe((now, before) => {
  if (before.screen === 'settings' && now.screen !== 'settings') void useUploadFlowStore.getState().resume()
})
