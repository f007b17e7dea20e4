// Practice runs of the release, each owning what it writes: the practice material is made at the
// session's clock (its letter's date and the practice kits' last day), the readiness facts learn the
// practice's state, and the history keeps "practice started" and, the first time the app sees it,
// "practice passed". The practice key is forgotten as soon as the service has the request.
import { Buffer } from 'node:buffer'
import type { Rehearsal, ServiceInfo } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import type { ActivityEntry } from '../../../shared/ipc/vault-types'
import type { ActivityInput } from './activity-log'
import { makePracticeMaterial, type PracticeSample } from './practice-material'
import type { VaultOperations } from './vault-operations'

export interface RehearsalOperationDeps {
  vaults: Pick<VaultOperations, 'get' | 'listGuardians' | 'getRehearsal' | 'startRehearsal' | 'endRehearsal'>
  /** The service as last read (null before it was read: the call is tried and its 404 said). */
  service: () => Pick<ServiceInfo, 'extensions'> | null
  noteRehearsal: (vaultId: string, rehearsal: Rehearsal | null) => void
  /** The session's clock (faked in tests). */
  now: () => number
  recordActivity: (input: ActivityInput) => ActivityEntry | undefined
}

/** What the window sends for the practice file: the letter, or one of the owner's files in base64. */
export type PracticeSampleArg = { kind: 'letter' } | { kind: 'file'; name: string; contentBase64: string }

const heirDetail = (rehearsal: Rehearsal) =>
  rehearsal.heir?.name
    ? { person: rehearsal.heir.name, ...(rehearsal.heir.email ? { email: rehearsal.heir.email } : {}) }
    : {}

export type RehearsalOperations = ReturnType<typeof rehearsalOperations>

export function rehearsalOperations(deps: RehearsalOperationDeps) {
  const offered = () => {
    const service = deps.service()
    return service === null || service.extensions.includes('rehearsal')
  }
  return {
    /** The vault's practice as the service has it; a pass is recorded the first time it is seen. */
    async get(vaultId: string): Promise<Rehearsal | null> {
      if (!offered()) return null
      const rehearsal = await deps.vaults.getRehearsal(vaultId)
      deps.noteRehearsal(vaultId, rehearsal)
      if (rehearsal?.passedAt) {
        deps.recordActivity({
          vaultId,
          kind: 'practice-passed',
          source: 'service',
          detail: heirDetail(rehearsal),
          ref: `practice-passed:${rehearsal.id}`,
        })
      }
      return rehearsal
    },

    async start(vaultId: string, heirId: string, sample: PracticeSampleArg): Promise<Rehearsal> {
      // Said before any practice material is made for a service that could not take it.
      if (!offered()) {
        throw new AppError({
          code: 'EXTENSION_MISSING',
          userMessage:
            'This Vault Service cannot run a practice release from the app (it lacks that extension of the local Vault Service). Connect to a service that offers it.',
        })
      }
      const [vault, guardians] = await Promise.all([
        deps.vaults.get(vaultId),
        deps.vaults.listGuardians(vaultId),
      ])
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
        now: new Date(deps.now()),
      })
      const rehearsal = await deps.vaults.startRehearsal(vaultId, request)
      deps.noteRehearsal(vaultId, rehearsal)
      deps.recordActivity({
        vaultId,
        kind: 'practice-started',
        source: 'window',
        detail: heirDetail(rehearsal),
        ref: `practice-started:${rehearsal.id}`,
      })
      return rehearsal
    },

    async end(vaultId: string): Promise<Rehearsal> {
      const rehearsal = await deps.vaults.endRehearsal(vaultId)
      deps.noteRehearsal(vaultId, rehearsal)
      return rehearsal
    },
  }
}
