// Assets and uploads: the asset list page by page, the cost estimate, the queue and its controls,
// and the native pickers. Every path from the window is checked here before anything reads it.
import { isAbsolute, normalize } from 'node:path'
import { eventChannels } from '../../../shared/ipc/contract'
import { IpcError } from '../../../shared/ipc/contract-kit'
import type { PickKind } from '../../../shared/ipc/vault-types'
import { type DesktopSession, toUploadView } from './desktop-session'
import type { EventHub, HandlerTable } from './handler-table'

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
  session: () => Promise<DesktopSession>
  events: EventHub
  /** Native open dialog; only the Electron shell has one. */
  pickPaths?: (kind: PickKind) => Promise<string[]>
}

/** Only absolute, normalised local paths; no NUL bytes, no URLs. */
export function checkedPaths(paths: string[]): string[] {
  return paths.map((raw) => {
    const path = raw.trim()
    if (!path || path.includes('\0') || !isAbsolute(path) || /^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
      throw new IpcError({
        code: 'INVALID_PATH',
        message: `"${raw}" is not a full path on this computer. Enter it from the root, like /home/you/Documents or C:\\Users\\you\\Documents.`,
      })
    }
    return normalize(path)
  })
}

export function createUploadHandlers(deps: UploadHandlerDeps): UploadHandlers {
  const { session } = deps
  return {
    listAssets: async ({ vaultId, category, limit, offset }) => {
      const s = await session()
      const page = await s.core.vaults.listAssets(vaultId, { category, limit, offset })
      return {
        assets: page.data,
        total: page.meta.total ?? page.data.length,
        limit: page.meta.limit ?? limit,
        offset: page.meta.offset ?? offset,
      }
    },

    estimateUpload: async ({ vaultId, paths }) => {
      const s = await session()
      const e = await s.core.uploads.estimate(vaultId, checkedPaths(paths))
      if (e.files === 0 && e.tooLarge.length === 0) {
        throw new IpcError({
          code: 'NOTHING_TO_UPLOAD',
          message: `Nothing to upload there: ${e.skipped[0]?.detail ?? 'no files were found'}. Check the path and try again.`,
        })
      }
      return { ...e, skipped: e.skipped.map((k) => ({ path: k.path, detail: k.detail })) }
    },

    queueUpload: async ({ vaultId, paths, force }) => {
      const s = await session()
      const result = await s.core.uploads.enqueue({ vaultId, paths: checkedPaths(paths), force })
      return {
        batchId: result.batchId,
        queued: result.items.length,
        skipped: result.skipped.map((k) => ({ path: k.path, detail: k.detail })),
      }
    },

    listUploads: async () => (await session()).visibleUploads().map(toUploadView),
    cancelUpload: async ({ itemId }) => (await session()).core.uploads.cancel(itemId),
    retryUpload: async ({ itemId }) => (await session()).core.uploads.retry(itemId),

    clearFinishedUploads: async ({ only }) => {
      const s = await session()
      let cleared: number
      if (only === 'finished') {
        cleared = await s.core.uploads.clearFinished()
      } else {
        // The queue clears all finished items at once; failures alone are hidden by the session.
        cleared = s.dismissUploads((i) => i.state === 'failed' || i.state === 'cancelled')
      }
      deps.events.emit(eventChannels.uploadsCleared, s.visibleUploads().map(toUploadView))
      return cleared
    },

    pickPaths: async ({ kind }) => {
      if (!deps.pickPaths) {
        throw new IpcError({
          code: 'UNAVAILABLE_IN_BROWSER',
          message:
            'Browser mode cannot open a file picker that reveals paths on this computer. Type the full path into the field instead.',
        })
      }
      return deps.pickPaths(kind)
    },
  }
}
