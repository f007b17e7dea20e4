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
  load(): void
  dismiss(id: number): void
}

let nextId = 1

export const useNoticesStore = create<NoticesState>((set) => ({
  toasts: [],
  load: () => {
    vault().on.notice((notice) =>
      set((s) => ({ toasts: [...s.toasts.slice(-3), { ...notice, id: nextId++ }] })),
    )
    vault().on.openVault(({ vaultId }) => useNavigationStore.getState().openVault(vaultId))
  },
  dismiss: (id) => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })),
}))
