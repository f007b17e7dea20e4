// Deleting files from a vault's library: adapters over the removal operations
// (vaults/file-removal-operations.ts), which check that nothing uploads or re-encrypts meanwhile, run
// one removal at a time per vault and record it in the history.
import type { VaultSession } from '../vault-session'
import { fileRemovalOperations } from '../vaults/file-removal-operations'
import type { HandlerTable } from './handler-table'

export function createFileRemovalHandlers(deps: {
  session: () => Promise<VaultSession>
  /** Where re-packs decrypt the files that stay (in the user data, so a crash's are cleared next time). */
  tempRoot: string
}): Pick<HandlerTable, 'planFileRemoval' | 'removeVaultFiles'> {
  const { session } = deps
  const removal = fileRemovalOperations({ tempRoot: deps.tempRoot })
  return {
    planFileRemoval: async ({ vaultId, selection }) => removal.plan(await session(), vaultId, selection),
    removeVaultFiles: async ({ vaultId, selection }) => removal.remove(await session(), vaultId, selection),
  }
}
