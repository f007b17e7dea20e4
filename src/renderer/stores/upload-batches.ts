// How a batch of upload events changes the uploads store's state, in one pass: a queue of thousands
// of files costs one copy of the list per batch, not per change. Pure, so it is tested without a window.
import type { UploadItemView, UploadProgressView } from '../../shared/ipc/vault-types'

export interface UploadsSnapshot {
  items: Record<string, UploadItemView>
  progress: Record<string, UploadProgressView>
}

export function withItems(state: UploadsSnapshot, batch: readonly UploadItemView[]): UploadsSnapshot {
  const items = { ...state.items }
  let progress = state.progress
  for (const item of batch) {
    items[item.id] = item
    // A finished item's last progress would keep its bar half full.
    if (item.state !== 'uploading' && progress[item.id]) {
      if (progress === state.progress) progress = { ...state.progress }
      delete progress[item.id]
    }
  }
  return { items, progress }
}

export function withProgress(
  state: UploadsSnapshot,
  batch: readonly UploadProgressView[],
): Pick<UploadsSnapshot, 'progress'> {
  const progress = { ...state.progress }
  for (const p of batch) progress[p.itemId] = p
  return { progress }
}
