// The heir's and the guardian's calls on the Recovery screen: read a kit, list a released vault's
// files, recover them (from the service or from files here), check a kit with its guardian link.
// No state here on purpose: the kits' words live only in the screen, and go when it closes.
import { create } from 'zustand'
import type {
  HeirVaultFiles,
  KitCheckView,
  RecoveryProgress,
  RecoveryReport,
  ShareCheck,
} from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'

/** Where a heir's access code reaches the released vault (from the heir e-mail). */
export interface HeirAccess {
  serviceUrl: string
  accessToken: string
  vaultId: string
}

interface RecoveryActions {
  checkShare(text: string): Promise<ShareCheck>
  /** The desktop's picker: the .vault files to read, or the folder to save into. */
  pick(kind: 'files' | 'output-folder'): Promise<string[]>
  listHeirFiles(access: HeirAccess): Promise<HeirVaultFiles>
  /** Downloads, checks and decrypts every file of the released vault (an earlier run resumes). */
  recoverFromService(access: HeirAccess, shares: string[], outputDir: string): Promise<RecoveryReport>
  recoverFiles(shares: string[], inputs: string[], outputDir: string): Promise<RecoveryReport>
  /** Progress of a recovery under way; call the returned function to stop. */
  watchProgress(listener: (progress: RecoveryProgress) => void): () => void
  /** A guardian's kit check: the code from the words, confirmed with the service when a link is given. */
  checkKit(words: string, guardianLink: string): Promise<KitCheckView>
}

export const useRecoveryStore = create<RecoveryActions>(() => ({
  checkShare: (text) => vault().checkShare({ text }),
  pick: (kind) => vault().pickPaths({ kind }),
  listHeirFiles: (access) => vault().listHeirFiles(access),
  recoverFromService: ({ serviceUrl, accessToken, vaultId }, shares, outputDir) =>
    vault().recoverFromService({
      serviceUrl,
      accessToken,
      ...(vaultId ? { vaultId } : {}),
      shares,
      outputDir,
    }),
  recoverFiles: (shares, inputs, outputDir) => vault().recoverFiles({ shares, inputs, outputDir }),
  watchProgress: (listener) => vault().on.recoveryProgress(listener),
  checkKit: (words, guardianLink) =>
    vault().checkKit({ text: words, ...(guardianLink ? { guardianLink } : {}) }),
}))
