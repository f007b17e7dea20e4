// Practice runs of the release: adapters over the session's rehearsal operations
// (vaults/rehearsal-operations.ts), which make the practice material at the session's clock and
// record the practice in the history; a service without the practice routes is said so here.
import type { VaultSession } from '../vault-session'
import type { HandlerTable } from './handler-table'
import { extensionCall } from './vault-handlers'

type RehearsalHandlers = Pick<HandlerTable, 'getRehearsal' | 'startRehearsal' | 'endRehearsal'>

const what = 'run a practice release'

export function createRehearsalHandlers(session: () => Promise<VaultSession>): RehearsalHandlers {
  return {
    getRehearsal: async ({ vaultId }) => {
      const s = await session()
      return extensionCall(what, () => s.rehearsals.get(vaultId))
    },
    startRehearsal: async ({ vaultId, heirId, sample }) => {
      const s = await session()
      return extensionCall(what, () => s.rehearsals.start(vaultId, heirId, sample))
    },
    endRehearsal: async ({ vaultId }) => {
      const s = await session()
      return extensionCall(what, () => s.rehearsals.end(vaultId))
    },
  }
}
