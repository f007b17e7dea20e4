// The practice release of a vault: read the latest, start one for an heir, end it. The panel keeps
// the one it shows; these are the calls to main.
import { create } from 'zustand'
import type { Rehearsal } from '../../shared/api'
import type { VaultBridge } from '../../shared/ipc/bridge'
import { vault } from '../bridge/vault-client'

/** What the heir practises on: the app's letter, or a copy of one of the owner's files. */
export type RehearsalSample = Parameters<VaultBridge['startRehearsal']>[0]['sample']

interface RehearsalActions {
  /** The vault's latest practice run, or null. */
  read(vaultId: string): Promise<Rehearsal | null>
  start(vaultId: string, heirId: string, sample: RehearsalSample): Promise<Rehearsal>
  end(vaultId: string): Promise<Rehearsal>
}

export const useRehearsalStore = create<RehearsalActions>(() => ({
  read: (vaultId) => vault().getRehearsal({ vaultId }),
  start: (vaultId, heirId, sample) => vault().startRehearsal({ vaultId, heirId, sample }),
  end: (vaultId) => vault().endRehearsal({ vaultId }),
}))
