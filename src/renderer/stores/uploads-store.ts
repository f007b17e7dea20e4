// Upload queue items and their live progress, fed by batched uploadItems/uploadProgress events: each
// batch is applied in one update, so a queue of thousands of files costs one copy per batch, not per change.
import { create } from 'zustand'
import type { UploadItemView, UploadProgressView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'

interface UploadsState {
  items: Record<string, UploadItemView>
  progress: Record<string, UploadProgressView>
  applyItems(batch: UploadItemView[]): void
  applyProgress(batch: UploadProgressView[]): void
  replaceAll(items: UploadItemView[]): void
  load(): Promise<void>
}

export const useUploadsStore = create<UploadsState>((set, get) => ({
  items: {},
  progress: {},
  applyItems: (batch) =>
    set((s) => {
      const items = { ...s.items }
      let progress = s.progress
      for (const item of batch) {
        items[item.id] = item
        if (item.state !== 'uploading' && progress[item.id]) {
          if (progress === s.progress) progress = { ...s.progress }
          delete progress[item.id]
        }
      }
      return { items, progress }
    }),
  applyProgress: (batch) =>
    set((s) => {
      const progress = { ...s.progress }
      for (const p of batch) progress[p.itemId] = p
      return { progress }
    }),
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
}))
