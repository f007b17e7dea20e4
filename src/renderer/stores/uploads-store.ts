// Upload queue items and their live progress, fed by batched uploadItems/uploadProgress events: each
// batch is applied in one update, so a queue of thousands of files costs one copy per batch, not per change.
import { create } from 'zustand'
import type { UploadItemView, UploadProgressView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { withItems, withProgress } from './upload-batches'

interface UploadsState {
  items: Record<string, UploadItemView>
  progress: Record<string, UploadProgressView>
  applyItems(batch: UploadItemView[]): void
  applyProgress(batch: UploadProgressView[]): void
  replaceAll(items: UploadItemView[]): void
  load(): Promise<void>
  /** Takes ended rows off the list: the failed ones, or all that finished. */
  clearFinished(only: 'failed' | 'finished'): Promise<void>
  cancel(itemId: string): Promise<void>
}

export const useUploadsStore = create<UploadsState>((set, get) => ({
  items: {},
  progress: {},
  applyItems: (batch) => set((s) => withItems(s, batch)),
  applyProgress: (batch) => set((s) => withProgress(s, batch)),
  replaceAll: (items) => set({ items: Object.fromEntries(items.map((i) => [i.id, i])), progress: {} }),
  load: async () => {
    const { applyItems, applyProgress, replaceAll } = get()
    vault().on.uploadItems(applyItems)
    vault().on.uploadProgress(applyProgress)
    vault().on.uploadsCleared(replaceAll)
    const items = await vault().listUploads()
    // Changes that arrived while the list was on its way are newer: keep them.
    set((s) => ({ items: { ...Object.fromEntries(items.map((i) => [i.id, i])), ...s.items } }))
  },
  clearFinished: async (only) => {
    await vault().clearFinishedUploads({ only })
  },
  cancel: async (itemId) => {
    await vault().cancelUpload({ itemId })
  },
}))
