// In-window notices (reminders, the release alarm, finished uploads, the window's own messages),
// shown as toasts that go by themselves once read (paused while hovered or focused), except those
// that need the owner to act. The rules are in notice-queue.ts.
import { create } from 'zustand'
import { vault } from '../bridge/vault-client'
import { errorView } from '../display/error-text'
import { format, text } from '../text'
import { useNavigationStore } from './navigation-store'
import { addNotice, DismissTimers, type NoticeInput, type Toast } from './notice-queue'
import { useVaultsStore } from './vaults-store'

export type { NoticeInput, Toast } from './notice-queue'

interface NoticesState {
  toasts: Toast[]
  /** The client is waiting out a rate limit (or a failure) and will retry by itself. */
  retrying: { text: string; id: number } | null
  /** The vault a "Check in now" is under way for. */
  checkingIn: string | null
  load(): void
  show(notice: NoticeInput): void
  dismiss(id: number): void
  /** Hover or focus on the notices: none goes while the owner is reading or using one. */
  pause(): void
  resume(): void
  /** The reminder's one step: check in, then say when the next one is due. */
  checkIn(toastId: number, vaultId: string): Promise<void>
}

let nextId = 1

export const useNoticesStore = create<NoticesState>((set, get) => {
  const timers = new DismissTimers((id) => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })))
  const syncTimers = () => timers.sync(get().toasts)
  const show = (notice: NoticeInput) => {
    set((s) => ({ toasts: addNotice(s.toasts, notice, nextId++) }))
    syncTimers()
  }

  return {
    toasts: [],
    retrying: null,
    checkingIn: null,
    load: () => {
      vault().on.retrying(({ text: what, waitSeconds }) => {
        const id = nextId++
        set({ retrying: { text: what, id } })
        setTimeout(
          () => set((s) => (s.retrying?.id === id ? { retrying: null } : s)),
          Math.max(1, waitSeconds) * 1000 + 500,
        )
      })
      vault().on.notice(show)
      vault().on.openVault(({ vaultId }) => useNavigationStore.getState().openVault(vaultId))
    },
    show,
    dismiss: (id) => {
      set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }))
      syncTimers()
    },
    pause: () => timers.pause(),
    resume: () => timers.resume(),
    checkIn: async (toastId, vaultId) => {
      set({ checkingIn: vaultId })
      const label = useVaultsStore.getState().snapshot?.vaults.find((v) => v.id === vaultId)?.label ?? ''
      try {
        const outcome = await vault().checkIn({ vaultId })
        get().dismiss(toastId)
        show({
          kind: 'info',
          title: text.toasts.checkedInTitle,
          body: text.toasts.checkedInBody(
            label,
            format.dateTime(outcome.nextCheckInDue),
            format.relative(outcome.nextCheckInDue),
          ),
          vaultId,
        })
      } catch (error) {
        get().dismiss(toastId)
        show({
          kind: 'error',
          title: text.toasts.checkInFailedTitle,
          body: text.toasts.checkInFailedBody(label, errorView(error).message),
          vaultId,
        })
      } finally {
        set({ checkingIn: null })
      }
    },
  }
})

/** Shows a notice in the window's notice area (for components with a message of their own). */
export function showNotice(notice: NoticeInput): void {
  useNoticesStore.getState().show(notice)
}
