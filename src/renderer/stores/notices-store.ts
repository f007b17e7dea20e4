// In-window notices (reminders, the release alarm, finished uploads), shown as dismissable toasts.
import { create } from 'zustand'
import type { AppNotice } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { useNavigationStore } from './navigation-store'

interface Toast extends AppNotice {
  id: number
}

interface NoticesState {
  toasts: Toast[]
  /** The client is waiting out a rate limit (or a failure) and will retry by itself. */
  retrying: { text: string; id: number } | null
  load(): void
  dismiss(id: number): void
}

let nextId = 1

export const useNoticesStore = create<NoticesState>((set) => ({
  toasts: [],
  retrying: null,
  load: () => {
    vault().on.retrying(({ text, waitSeconds }) => {
      const id = nextId++
      set({ retrying: { text, id } })
      setTimeout(
        () => set((s) => (s.retrying?.id === id ? { retrying: null } : s)),
        Math.max(1, waitSeconds) * 1000 + 500,
      )
    })
    vault().on.notice((notice) => {
      const id = nextId++
      set((s) => ({ toasts: [...s.toasts.slice(-3), { ...notice, id }] }))
      // The release alarm and low credits stay until dismissed; the rest fade after a while.
      if (notice.kind !== 'releasing' && notice.kind !== 'credits-low') {
        setTimeout(() => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })), 8000)
      }
    })
    vault().on.openVault(({ vaultId }) => useNavigationStore.getState().openVault(vaultId))
  },
  dismiss: (id) => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })),
}))
