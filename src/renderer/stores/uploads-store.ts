// Upload queue items and their live progress, fed by uploadItem/uploadProgress events.
import { create } from 'zustand'
import type { UploadItemView, UploadProgressView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'

interface UploadsState {
  items: Record<string, UploadItemView>
  progress: Record<string, UploadProgressView>
  load(): Promise<void>
}

export const useUploadsStore = create<UploadsState>((set) => ({
  items: {},
  progress: {},
  load: async () => {
    vault().on.uploadItem((item) =>
      set((s) => {
        const progress = { ...s.progress }
        if (item.state !== 'uploading') delete progress[item.id]
        return { items: { ...s.items, [item.id]: item }, progress }
      }),
    )
    vault().on.uploadProgress((p) => set((s) => ({ progress: { ...s.progress, [p.itemId]: p } })))
    vault().on.uploadsCleared((items) =>
      set({ items: Object.fromEntries(items.map((i) => [i.id, i])), progress: {} }),
    )
    const items = await vault().listUploads()
    set({ items: Object.fromEntries(items.map((i) => [i.id, i])) })
  },
}))
