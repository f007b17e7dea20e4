// Practice runs of the release with throwaway material: the app makes a practice key, splits it with
// the vault's preset into practice kits and encrypts a practice file under it (practice-material.ts);
// the service mails each guardian a practice kit and the heir a practice access to the practice file.
// The vault key is neither needed nor touched: a practice never assembles it. The practice key is
// forgotten as soon as the service has the request; only a hash of the expected proof stays.
import { Buffer } from 'node:buffer'
import { AppError } from '../../../shared/app-error'
import type { VaultSession } from '../vault-session'
import { makePracticeMaterial, type PracticeSample } from '../vaults/practice-material'
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

    startRehearsal: async ({ vaultId, heirId, sample }) => {
      const s = await session()
      // Said before any practice material is made for a service that could not take it.
      if (!offered(s)) {
        throw new AppError({
          code: 'EXTENSION_MISSING',
          userMessage:
            'This Vault Service cannot run a practice release from the app (it lacks that extension of the local Vault Service). Connect to a service that offers it.',
        })
      }
      const [vault, guardians] = await Promise.all([s.vaults.get(vaultId), s.vaults.listGuardians(vaultId)])
      const chosen: PracticeSample =
        sample.kind === 'letter'
          ? { kind: 'letter' }
          : { kind: 'file', name: sample.name, content: Buffer.from(sample.contentBase64, 'base64') }
      const { request } = await makePracticeMaterial({
        vaultId,
        vaultLabel: vault.name ?? vaultId,
        preset: vault.sssPreset,
        guardians,
        heirId,
        sample: chosen,
        now: new Date(),
      })
      const rehearsal = await extensionCall('run a practice release', () =>
        s.vaults.startRehearsal(vaultId, request),
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
