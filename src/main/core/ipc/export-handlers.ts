// "Export an encrypted copy…": the vault's blobs, as the service holds them, into a folder the owner
// chose, with the heirs' guide, the format and the recovery tool (vaults/encrypted-export.ts).
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { eventChannels } from '../../../shared/ipc/contract'
import type { VaultSession } from '../vault-session'
import { exportEncryptedCopy, findRecoveryMaterials } from '../vaults/encrypted-export'
import type { EventHub, HandlerTable } from './handler-table'
import { checkedPaths } from './upload-handlers'

type ExportHandlers = Pick<HandlerTable, 'exportEncryptedCopy'>

// Where the built app runs from (out/main, out/cli, or src in development), and a packaged app's
// resources: the docs and the packed tool are looked for upward from there.
function materialRoots(): string[] {
  const resources = (process as { resourcesPath?: string }).resourcesPath
  return [dirname(fileURLToPath(import.meta.url)), ...(resources ? [resources] : [])]
}

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
        materials: await findRecoveryMaterials(materialRoots()),
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
