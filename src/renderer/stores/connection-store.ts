// The connection as main holds it (summary only: never the key). Fed by connectionChanged.
import { create } from 'zustand'
import type { ConnectionStatus } from '../../shared/ipc/vault-types'
import { onBackendLost, vault } from '../bridge/vault-client'
import { writeAccess } from '../display/write-access'

interface ConnectionState {
  status: ConnectionStatus | undefined
  /** Browser mode: the backend stopped, so what the page shows is no longer true and nothing works. */
  backendLost: boolean
  load(): Promise<void>
  set(status: ConnectionStatus): void
}

export const useConnectionStore = create<ConnectionState>((set) => ({
  status: undefined,
  backendLost: false,
  load: async () => {
    onBackendLost(() => set({ backendLost: true }))
    vault().on.connectionChanged((status) => set({ status }))
    set({ status: await vault().getConnectionStatus() })
  },
  set: (status) => set({ status }),
}))

export function useWriteAccess() {
  return writeAccess(useConnectionStore((s) => s.status))
}
