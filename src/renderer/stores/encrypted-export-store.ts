// "Export an encrypted copy": the vault's encrypted files, with the heirs' guide and tool, into a
// folder. The panel keeps its own progress and report; these are the calls to main.
import { create } from 'zustand'
import type { EncryptedExportProgress, EncryptedExportReport } from '../../shared/ipc/contract'
import { vault } from '../bridge/vault-client'

interface EncryptedExportActions {
  /** The desktop's folder picker; undefined when it was closed. */
  pickFolder(): Promise<string | undefined>
  exportTo(vaultId: string, folder: string): Promise<EncryptedExportReport>
  /** The progress of this vault's export; call the returned function to stop. */
  watch(vaultId: string, listener: (progress: EncryptedExportProgress) => void): () => void
}

export const useEncryptedExportStore = create<EncryptedExportActions>(() => ({
  pickFolder: async () => (await vault().pickPaths({ kind: 'output-folder' }))[0],
  exportTo: (vaultId, folder) => vault().exportEncryptedCopy({ vaultId, folder }),
  watch: (vaultId, listener) =>
    vault().on.encryptedExportProgress((progress) => {
      if (progress.vaultId === vaultId) listener(progress)
    }),
}))
