// Whether the connected key may change things (agent keys may only read and check in).
import type { ConnectionStatus } from '../../shared/ipc/vault-types'
import { text } from '../text'

/** Whether the active key may change things, and why not. */
export function writeAccess(status: ConnectionStatus | undefined): {
  canWrite: boolean
  reason: string | null
} {
  const active = status?.active
  if (!active) return { canWrite: false, reason: text.writeAccess.notConnected }
  if (active.keyKind === 'agent') {
    return {
      canWrite: false,
      reason: text.writeAccess.agentKey(active.keyLast4),
    }
  }
  return { canWrite: true, reason: null }
}
