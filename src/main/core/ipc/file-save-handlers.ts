// Taking files back from the file library: save chosen files or folders (or the whole vault) into a
// folder, decrypted (vaults/file-save.ts), with progress and cancel; and open one file, decrypted into
// a private temporary folder, with the system's default app (desktop) or as a download (browser mode).
import { randomBytes } from 'node:crypto'
import { mkdir, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Asset } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import { assetMetadata } from '../../../shared/asset-metadata'
import { eventChannels } from '../../../shared/ipc/contract'
import type { LibrarySelection, VaultFileView } from '../../../shared/ipc/vault-types'
import { fileLibrary, selectedFiles } from '../uploads/file-library'
import { carriesManifest } from '../uploads/vault-manifests'
import type { VaultSession } from '../vault-session'
import { type BlobToSave, type FileToSave, saveVaultFiles } from '../vaults/file-save'
import type { EventHub, HandlerTable } from './handler-table'
import { checkedPaths } from './upload-handlers'

type FileSaveHandlers = Pick<HandlerTable, 'saveVaultFiles' | 'cancelFileSave' | 'openVaultFile'>

/** What the shell does with a decrypted file: open it (desktop) or offer it as a download (browser). */
export type OpenDecryptedFile =
  | { kind: 'default-app'; open(path: string): Promise<void> }
  | { kind: 'download'; offer(path: string, name: string): string }

export interface FileSaveHandlerDeps {
  session: () => Promise<VaultSession>
  events: EventHub
  /** Where opened files are decrypted: private to this user, emptied at start and at quit. */
  openedFilesDir: string
  openFile?: OpenDecryptedFile
}

function keyNeeded(): AppError {
  return new AppError({
    code: 'VAULT_KEY_NOT_HERE',
    userMessage:
      "This computer does not hold the vault key, so the files cannot be decrypted here. Type in the owner kit's words (Overview → Vault key), then try again.",
  })
}

/**
 * The blobs to read for the chosen files: the one holding each file; files whose blob is not known
 * here (another computer's, names hidden) are looked for in every blob no listed file accounts for.
 * Every file the vault's list names is checked against the content it lists.
 */
export function blobsToSave(
  chosen: ReadonlyArray<{ file: VaultFileView; within: string | null }>,
  library: readonly VaultFileView[],
  assets: readonly Asset[],
  listedSha256: ReadonlyMap<string, string>,
): BlobToSave[] {
  const sizes = new Map(assets.map((a) => [a.id, a.sizeBytes]))
  const blobs = new Map<string, BlobToSave>()
  const unplaced: FileToSave[] = []
  for (const { file, within } of chosen) {
    const name = file.path.slice(file.path.lastIndexOf('/') + 1)
    // A folder saved keeps its own name: "Photos/2019/a.jpg" chosen through "Photos" goes to "Photos/2019/a.jpg",
    // through "Photos/2019" to "2019/a.jpg"; a file chosen by itself goes straight into the folder.
    const saveAs =
      within === null ? name : within === '' ? file.path : file.path.slice(within.lastIndexOf('/') + 1)
    const assetId = file.blob?.assetId
    if (!assetId || !sizes.has(assetId)) {
      const sha256 = listedSha256.get(file.path)
      unplaced.push({ path: file.path, saveAs, ...(sha256 ? { sha256 } : {}) })
      continue
    }
    const blob = blobs.get(assetId) ?? { assetId, encryptedBytes: sizes.get(assetId)!, files: [] }
    // A file the library took from the manifest is the manifest's content: the blob guessed for it
    // (found by the path it told the service) must hold exactly that, or nothing is written.
    const sha256 = file.from === 'manifest' ? listedSha256.get(file.path) : undefined
    blob.files.push({ path: file.path, saveAs, ...(sha256 ? { sha256 } : {}) })
    blobs.set(assetId, blob)
  }
  if (unplaced.length > 0) {
    const accounted = new Set(library.flatMap((f) => (f.blob ? [f.blob.assetId] : [])))
    for (const asset of assets) {
      if (accounted.has(asset.id)) continue
      if (carriesManifest(asset) && assetMetadata(asset).bundle !== true) continue
      blobs.set(asset.id, {
        assetId: asset.id,
        encryptedBytes: asset.sizeBytes,
        files: unplaced,
        searched: true,
      })
    }
  }
  return [...blobs.values()]
}

async function planSave(s: VaultSession, vaultId: string, selection: LibrarySelection) {
  const vaultKey = await s.vaultKey(vaultId)
  if (!vaultKey) throw keyNeeded()
  const assets = await s.vaults.listAllAssets(vaultId)
  const known = await s.uploads.knownFiles(vaultId, assets)
  const library = fileLibrary({ assets, ...known })
  const chosen = selectedFiles(library.files, selection)
  if (chosen.length === 0) {
    throw new AppError({
      code: 'NOTHING_CHOSEN',
      userMessage:
        'None of the chosen files is in this vault any more. Open the Files tab again to see its current files.',
    })
  }
  const listed = new Map(known.elsewhere.map((e) => [e.path, e.sha256]))
  return { vaultKey, blobs: blobsToSave(chosen, library.files, assets, listed), chosen }
}

export function createFileSaveHandlers(deps: FileSaveHandlerDeps): FileSaveHandlers {
  const running = new Map<string, AbortController>()

  return {
    saveVaultFiles: async ({ vaultId, selection, folder, saveId }) => {
      if (running.has(saveId)) {
        throw new AppError({
          code: 'SAVE_RUNNING',
          userMessage: 'This save is already running. Wait for it to finish, or stop it first.',
        })
      }
      const [target] = checkedPaths([folder])
      const controller = new AbortController()
      running.set(saveId, controller)
      try {
        const s = await deps.session()
        const { vaultKey, blobs } = await planSave(s, vaultId, selection)
        let lastEmit = 0
        const outcome = await saveVaultFiles({
          source: await s.activeService.client(),
          vaultId,
          vaultKey,
          folder: target!,
          blobs,
          signal: controller.signal,
          onProgress: (p) => {
            // A few times a second is enough for a bar; the last one always goes.
            const now = Date.now()
            if (now - lastEmit < 200 && p.doneBytes < p.totalBytes) return
            lastEmit = now
            deps.events.emit(eventChannels.fileSaveProgress, { saveId, vaultId, ...p })
          },
        })
        return { saveId, ...outcome }
      } finally {
        running.delete(saveId)
      }
    },

    cancelFileSave: async ({ saveId }) => {
      const controller = running.get(saveId)
      controller?.abort()
      return controller !== undefined
    },

    openVaultFile: async ({ vaultId, path }) => {
      if (!deps.openFile) {
        throw new AppError({
          code: 'CANNOT_OPEN_HERE',
          userMessage: 'Files cannot be opened from this window. Save the file into a folder instead.',
        })
      }
      const s = await deps.session()
      const { vaultKey, blobs, chosen } = await planSave(s, vaultId, { files: [path], folders: [] })
      const name = chosen[0]!.file.path.slice(chosen[0]!.file.path.lastIndexOf('/') + 1)
      // A folder of its own per file opened, readable by this user only.
      await mkdir(deps.openedFilesDir, { recursive: true, mode: 0o700 })
      const folder = join(deps.openedFilesDir, randomBytes(8).toString('hex'))
      await mkdir(folder, { mode: 0o700 })
      try {
        const outcome = await saveVaultFiles({
          source: await s.activeService.client(),
          vaultId,
          vaultKey,
          folder,
          blobs,
        })
        const problem = outcome.stopped?.message ?? outcome.failed[0]?.message
        if (problem || outcome.saved === 0) {
          throw new AppError({
            code: 'OPEN_FAILED',
            userMessage: problem ?? 'The file could not be decrypted. Try again.',
          })
        }
      } catch (error) {
        await rm(folder, { recursive: true, force: true })
        throw error
      }
      const decrypted = join(folder, name)
      if (deps.openFile.kind === 'default-app') {
        await deps.openFile.open(decrypted)
        return { opened: 'default-app', name }
      }
      return { opened: 'download', name, url: deps.openFile.offer(decrypted, name) }
    },
  }
}

/** Empties the folder of opened files (at start and at quit): decrypted copies never outlive the app. */
export async function emptyOpenedFiles(openedFilesDir: string): Promise<void> {
  const entries = await readdir(openedFilesDir).catch(() => [] as string[])
  await Promise.all(entries.map((e) => rm(join(openedFilesDir, e), { recursive: true, force: true })))
}
