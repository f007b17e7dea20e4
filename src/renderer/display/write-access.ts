// Whether the connected key may change things (agent keys may only read and check in).
import type { ConnectionStatus } from '../../shared/ipc/vault-types'

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
