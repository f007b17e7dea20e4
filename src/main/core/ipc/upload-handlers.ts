// Assets and uploads: the asset list page by page, the cost estimate, the queue and its controls,
// and the native pickers. Every path from the window is checked here before anything reads it.
import { isAbsolute, normalize } from 'node:path'
import type { Asset } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import { assetMetadata } from '../../../shared/asset-metadata'
import type { AssetView, PickKind } from '../../../shared/ipc/vault-types'
import { toUploadView } from '../uploads/upload-event-batch'
import type { UploadIndexEntry } from '../uploads/upload-records'
import type { VaultSession } from '../vault-session'
import type { HandlerTable } from './handler-table'

type UploadHandlers = Pick<
  HandlerTable,
  | 'listAssets'
  | 'estimateUpload'
  | 'queueUpload'
  | 'listUploads'
  | 'cancelUpload'
  | 'retryUpload'
  | 'clearFinishedUploads'
  | 'pickPaths'
>

export interface UploadHandlerDeps {
  session: () => Promise<VaultSession>
  /** Native open dialog; only the Electron shell has one. */
  pickPaths?: (kind: PickKind) => Promise<string[]>
}

/** Only absolute, normalised local paths; no NUL bytes, no URLs. */
export function checkedPaths(paths: string[]): string[] {
  return paths.map((raw) => {
    const path = raw.trim()
    if (!path || path.includes('\0') || !isAbsolute(path) || /^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
      throw new AppError({
        code: 'INVALID_PATH',
        userMessage: `"${raw}" is not a full path on this computer. Enter it from the root, like /home/you/Documents or C:\\Users\\you\\Documents.`,
      })
    }
    return normalize(path)
  })
}

/** What the upload told the service in its metadata (absent for uploads by other apps). */
function uploadedMetadata(asset: Asset): {
  relativePath?: string
  plaintextBytes?: number
  hidden: boolean
  bundleFiles?: number
} {
  const metadata = assetMetadata(asset)
  return {
    ...(metadata.relativePath !== undefined ? { relativePath: metadata.relativePath } : {}),
    ...(metadata.plaintextBytes !== undefined ? { plaintextBytes: metadata.plaintextBytes } : {}),
    hidden: metadata.nameSealedInside === true,
    ...(metadata.bundle ? { bundleFiles: metadata.fileCount ?? 0 } : {}),
  }
}

/** "Documents" when every file lies under that folder. */
function commonFolder(paths: readonly string[]): string | undefined {
  const first = paths[0]?.split('/')
  if (!first || first.length < 2) return undefined
  const top = first[0]!
  return paths.every((p) => p.startsWith(`${top}/`)) ? top : undefined
}

/**
 * An asset as the window lists it. `uploadedHere`: the files this computer's index still points at
 * the asset (one file, or a bundle's files not uploaded again since).
 */
export function assetView(asset: Asset, uploadedHere: readonly UploadIndexEntry[] = []): AssetView {
  const told = uploadedMetadata(asset)
  if (told.bundleFiles !== undefined) {
    const fileCount = told.bundleFiles || uploadedHere.length
    const files = uploadedHere.map((e) => ({ relativePath: e.relativePath, sizeBytes: e.size }))
    const known = files.length === fileCount ? files.reduce((sum, f) => sum + f.sizeBytes, 0) : undefined
    const originalBytes = told.plaintextBytes ?? known
    // A lone file that carried the vault manifest went up as a bundle of one: to the owner, one file.
    if (fileCount === 1 && files.length === 1) {
      return {
        ...asset,
        displayName: files[0]!.relativePath,
        nameHidden: told.hidden,
        nameFrom: 'this-computer',
        originalBytes: told.plaintextBytes ?? files[0]!.sizeBytes,
      }
    }
    const folder = commonFolder(files.map((f) => f.relativePath))
    const counted = `${fileCount.toLocaleString('en-US')} file${fileCount === 1 ? '' : 's'}`
    return {
      ...asset,
      displayName: folder ? `${folder}: ${counted} in one bundle` : `Bundle of ${counted}`,
      nameHidden: told.hidden,
      nameFrom: files.length > 0 ? 'this-computer' : told.hidden ? 'sealed' : 'service',
      ...(originalBytes !== undefined ? { originalBytes } : {}),
      bundle: { fileCount, files },
    }
  }
  const here = uploadedHere[0]
  const originalBytes = told.plaintextBytes ?? here?.size
  return {
    ...asset,
    displayName: told.hidden
      ? (here?.relativePath ?? 'Name hidden (sealed inside the file)')
      : asset.filename,
    nameHidden: told.hidden,
    nameFrom: !told.hidden ? 'service' : here ? 'this-computer' : 'sealed',
    ...(originalBytes !== undefined ? { originalBytes } : {}),
  }
}

export function createUploadHandlers(deps: UploadHandlerDeps): UploadHandlers {
  const { session } = deps
  return {
    listAssets: async ({ vaultId, category, limit, offset }) => {
      const s = await session()
      const page = await s.vaults.listAssets(vaultId, { category, limit, offset })
      return {
        assets: page.data.map((asset) => assetView(asset, s.uploads.uploadedHere(vaultId, asset.id))),
        total: page.meta.total ?? page.data.length,
        limit: page.meta.limit ?? limit,
        offset: page.meta.offset ?? offset,
      }
    },

    estimateUpload: async ({ vaultId, paths, force }) => {
      const s = await session()
      s.requireLastingKey(vaultId)
      const e = await s.uploads.estimate(vaultId, checkedPaths(paths), force)
      // Files the vault already holds are an answer of their own ("already backed up on …").
      if (e.files === 0 && e.tooLarge.length === 0 && e.alreadyStored.length === 0) {
        throw new AppError({
          code: 'NOTHING_TO_UPLOAD',
          userMessage: `Nothing to upload there: ${(e.skipped[0]?.detail ?? 'no files were found').replace(/\.$/, '')}. Check the path and try again.`,
        })
      }
      return { ...e, skipped: e.skipped.map((k) => ({ path: k.path, detail: k.detail })) }
    },

    queueUpload: async ({ vaultId, paths, force, spendReserve }) => {
      const s = await session()
      s.requireLastingKey(vaultId)
      const result = await s.uploads.queueFiles({ vaultId, paths: checkedPaths(paths), force, spendReserve })
      return {
        batchId: result.batchId,
        queued: result.items.length,
        skipped: result.skipped.map((k) => ({ path: k.path, detail: k.detail })),
        alreadyStored: result.alreadyStored,
      }
    },

    listUploads: async () => {
      const s = await session()
      s.uploads.noticeStorageProblem()
      return s.uploads.visible().map(toUploadView)
    },
    cancelUpload: async ({ itemId }) => (await session()).uploads.cancel(itemId),
    retryUpload: async ({ itemId }) => (await session()).uploads.retry(itemId),
    clearFinishedUploads: async ({ only }) => (await session()).uploads.clear(only),

    pickPaths: async ({ kind }) => {
      if (!deps.pickPaths) {
        throw new AppError({
          code: 'UNAVAILABLE_IN_BROWSER',
          userMessage:
            'Browser mode cannot open a file picker that reveals paths on this computer. Type the full path into the field instead.',
        })
      }
      return deps.pickPaths(kind)
    },
  }
}
