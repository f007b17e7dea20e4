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
      // One listing for both: the manifest check, then the library. The manifest is adopted before the
      // index is read, since adopting a newer one may forget index rows that left the vault.
      const assets = await s.vaults.listAllAssets(vaultId)
      const known = await s.uploads.knownFiles(vaultId, assets)
      return fileLibrary({ assets, ...known })
    },
  }
}
