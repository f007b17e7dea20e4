// Deleting files from a vault's library (uploads/file-removal.ts), owning what it writes: the plan the
// confirmation shows, and the deletion itself, one at a time per vault, never while files of the vault
// are uploading or its key is being replaced, with the owner's history line (the paths chosen, not
// every file).

import { AppError } from '../../../shared/app-error'
import type { LibrarySelection } from '../../../shared/ipc/vault-types'
import { type FileRemovalDeps, planFileRemoval, removeVaultFiles } from '../uploads/file-removal'
import type { VaultSession } from '../vault-session'

const UPLOADING = new Set(['queued', 'checking', 'uploading'])
const ROTATING = new Set(['re-encrypting', 'switched'])

type RemovalSession = Pick<
  VaultSession,
  'uploads' | 'rotation' | 'activeService' | 'vaultKey' | 'recordActivity'
>

export type FileRemovalOperations = ReturnType<typeof fileRemovalOperations>

export function fileRemovalOperations(options: {
  /** Where re-packs decrypt the files that stay (in the user data, so a crash's are cleared next time). */
  tempRoot: string
}) {
  /** The removal running per vault: a second waits for it (it then finds the files already gone). */
  const running = new Map<string, Promise<unknown>>()

  async function depsFor(s: RemovalSession, vaultId: string): Promise<FileRemovalDeps> {
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
      tempRoot: options.tempRoot,
      ...(connectionId ? { connectionId } : {}),
    }
  }

  return {
    plan: async (s: RemovalSession, vaultId: string, selection: LibrarySelection) =>
      planFileRemoval(await depsFor(s, vaultId), vaultId, selection),

    async remove(s: RemovalSession, vaultId: string, selection: LibrarySelection) {
      const before = running.get(vaultId) ?? Promise.resolve()
      const run = before
        .catch(() => undefined)
        .then(async () => removeVaultFiles(await depsFor(s, vaultId), vaultId, selection))
      running.set(vaultId, run)
      try {
        const report = await run
        // Who took what out of the vault, in the owner's own history: the paths chosen, not every file.
        const chosen = [...selection.files, ...selection.folders.map((f) => (f ? `${f}/` : '/'))]
        s.recordActivity({
          vaultId,
          kind: 'files-deleted',
          source: 'window',
          detail: { files: report.removed, credits: report.creditsSpent, names: chosen.slice(0, 3) },
        })
        return report
      } finally {
        if (running.get(vaultId) === run) running.delete(vaultId)
      }
    },
  }
}
