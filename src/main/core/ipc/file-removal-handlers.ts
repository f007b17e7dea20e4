// Deleting files from a vault's library (uploads/file-removal.ts): the plan the confirmation shows,
// and the deletion itself, one at a time per vault and never while files of the vault are uploading.
import { AppError } from '../../../shared/app-error'
import { type FileRemovalDeps, planFileRemoval, removeVaultFiles } from '../uploads/file-removal'
import type { VaultSession } from '../vault-session'
import type { HandlerTable } from './handler-table'

const UPLOADING = new Set(['queued', 'checking', 'uploading'])
const ROTATING = new Set(['re-encrypting', 'switched'])

export function createFileRemovalHandlers(deps: {
  session: () => Promise<VaultSession>
  /** Where re-packs decrypt the files that stay (in the user data, so a crash's are cleared next time). */
  tempRoot: string
}): Pick<HandlerTable, 'planFileRemoval' | 'removeVaultFiles'> {
  const { session, tempRoot } = deps
  /** The removal running per vault: a second waits for it (it then finds the files already gone). */
  const running = new Map<string, Promise<unknown>>()

  async function depsFor(s: VaultSession, vaultId: string): Promise<FileRemovalDeps> {
    // The queue would point the index at blobs being deleted, or a bundle at files being removed.
    if (s.uploads.list().some((item) => item.vaultId === vaultId && UPLOADING.has(item.state))) {
      throw new AppError({
        code: 'UPLOADS_RUNNING',
        userMessage:
          'Files are still being uploaded to this vault. Wait until the uploads have finished (or cancel them), then delete; nothing was changed.',
      })
    }
    // A rotation re-encrypts every blob and deletes the old ones: blobs are not to move under it.
    if (ROTATING.has(s.rotation.status(vaultId).phase)) {
      throw new AppError({
        code: 'ROTATION_UNDER_WAY',
        userMessage:
          'The vault key is being replaced (its files re-encrypted). Let that finish (Overview → Vault key), then delete; nothing was changed.',
      })
    }
    const { queue, connectionId } = s.uploads.removalSide()
    return {
      client: await s.activeService.client(),
      queue,
      vaultKey: await s.vaultKey(vaultId),
      tempRoot,
      ...(connectionId ? { connectionId } : {}),
    }
  }

  return {
    planFileRemoval: async ({ vaultId, selection }) => {
      const s = await session()
      return planFileRemoval(await depsFor(s, vaultId), vaultId, selection)
    },
    removeVaultFiles: async ({ vaultId, selection }) => {
      const s = await session()
      const before = running.get(vaultId) ?? Promise.resolve()
      const run = before
        .catch(() => undefined)
        .then(async () => removeVaultFiles(await depsFor(s, vaultId), vaultId, selection))
      running.set(vaultId, run)
      try {
        return await run
      } finally {
        if (running.get(vaultId) === run) running.delete(vaultId)
      }
    },
  }
}
