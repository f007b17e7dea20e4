// The connection as main holds it (summary only: never the key). Fed by connectionChanged.
import { create } from 'zustand'
import type { ConnectionStatus } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'

interface ConnectionState {
  status: ConnectionStatus | undefined
  load(): Promise<void>
  set(status: ConnectionStatus): void
}

export const useConnectionStore = create<ConnectionState>((set) => ({
  status: undefined,
  load: async () => {
    vault().on.connectionChanged((status) => set({ status }))
    set({ status: await vault().getConnectionStatus() })
  },
  set: (status) => set({ status }),
}))

/** Whether the active key may change things, and why not. */
export function writeAccess(status: ConnectionStatus | undefined): {
  canWrite: boolean
  reason: string | null
} {
  const active = status?.active
  if (!active) return { canWrite: false, reason: 'Connect to a vault service first.' }
  if (active.keyKind === 'agent') {
    return {
      canWrite: false,
      reason: `This key can read and check in only (agent key ending ${active.keyLast4}). To make changes, connect with an sk_human_ key in Settings.`,
    }
  }
  return { canWrite: true, reason: null }
}

export function useWriteAccess() {
  return writeAccess(useConnectionStore((s) => s.status))
}
