// The owner's file library: every file a vault holds, built in the main process from the service's
// asset list, this computer's upload index and the vault manifest (uploads/file-library.ts).
import { fileLibrary } from '../uploads/file-library'
import type { VaultSession } from '../vault-session'
import type { HandlerTable } from './handler-table'

export function createFileLibraryHandlers(
  session: () => Promise<VaultSession>,
): Pick<HandlerTable, 'listVaultFiles'> {
  return {
    listVaultFiles: async ({ vaultId }) => {
      const s = await session()
      // The manifest is read first: adopting a newer one may forget index rows that left the vault.
      const known = await s.uploads.knownFiles(vaultId)
      const assets = await s.vaults.listAllAssets(vaultId)
      return fileLibrary({ assets, ...known })
    },
  }
}
