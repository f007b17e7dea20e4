// "Export an encrypted copy…": the vault's blobs, as the service holds them, into a folder the owner
// chose, with the heirs' guide, the format, the recovery page and the recovery tool
// (vaults/encrypted-export.ts), looked for where the app runs and in a packaged app's resources.
import { eventChannels } from '../../../shared/ipc/contract'
import { shippedFileRoots } from '../printable/recovery-page-digest'
import type { VaultSession } from '../vault-session'
import { exportEncryptedCopy, findRecoveryMaterials } from '../vaults/encrypted-export'
import type { EventHub, HandlerTable } from './handler-table'
import { checkedPaths } from './upload-handlers'

type ExportHandlers = Pick<HandlerTable, 'exportEncryptedCopy'>

export function createExportHandlers(deps: {
  session: () => Promise<VaultSession>
  events: EventHub
}): ExportHandlers {
  return {
    exportEncryptedCopy: async ({ vaultId, folder }) => {
      const s = await deps.session()
      const [target] = checkedPaths([folder])
      let lastEmit = 0
      const result = await exportEncryptedCopy({
        source: await s.activeService.client(),
        vaultId,
        vaultName: s.labelOf(vaultId),
        folder: target!,
        materials: await findRecoveryMaterials(shippedFileRoots()),
        onProgress: (p) => {
          // A few times a second is enough for a bar; the last one always goes.
          const now = Date.now()
          if (now - lastEmit < 200 && p.doneBytes < p.totalBytes) return
          lastEmit = now
          deps.events.emit(eventChannels.encryptedExportProgress, { vaultId, ...p })
        },
      })
      return result
    },
  }
}
