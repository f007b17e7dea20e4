// Practice runs of the release: the owner picks an heir and one sample file; the service gives that
// heir a practice access to the sample only. The owner's key sets a challenge whose answer only
// someone who rebuilt the key from guardians' kits can give; the service keeps only its hash.
import { AppError } from '../../../shared/app-error'
import { newRehearsalChallenge, rehearsalProof, rehearsalProofHash } from '../../../vault-format'
import type { VaultSession } from '../vault-session'
import type { HandlerTable } from './handler-table'
import { extensionCall } from './vault-handlers'

type RehearsalHandlers = Pick<HandlerTable, 'getRehearsal' | 'startRehearsal' | 'endRehearsal'>

export function createRehearsalHandlers(session: () => Promise<VaultSession>): RehearsalHandlers {
  const offered = (s: VaultSession) =>
    s.facts.service === null || s.facts.service.extensions.includes('rehearsal')
  return {
    getRehearsal: async ({ vaultId }) => {
      const s = await session()
      if (!offered(s)) return null
      const rehearsal = await extensionCall('run a practice release', () => s.vaults.getRehearsal(vaultId))
      s.facts.noteRehearsal(vaultId, rehearsal)
      return rehearsal
    },

    startRehearsal: async ({ vaultId, heirId, assetId }) => {
      const s = await session()
      const key = await s.vaultKey(vaultId)
      if (!key) {
        throw new AppError({
          code: 'NO_KEY',
          userMessage:
            "A practice run needs the vault key on this device, to set the question only the guardians' kits can answer. Import the owner kit here first.",
        })
      }
      const challenge = newRehearsalChallenge()
      const proofHash = rehearsalProofHash(rehearsalProof(key, challenge))
      const rehearsal = await extensionCall('run a practice release', () =>
        s.vaults.startRehearsal(vaultId, { heirId, assetId, challenge, proofHash }),
      )
      s.facts.noteRehearsal(vaultId, rehearsal)
      return rehearsal
    },

    endRehearsal: async ({ vaultId }) => {
      const s = await session()
      const rehearsal = await extensionCall('run a practice release', () => s.vaults.endRehearsal(vaultId))
      s.facts.noteRehearsal(vaultId, rehearsal)
      return rehearsal
    },
  }
}
