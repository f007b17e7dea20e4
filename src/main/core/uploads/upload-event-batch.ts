// Upload items as the window sees them, and their events coalesced: a folder of thousands of small
// files makes ~6 item changes per file, and one IPC message (and one renderer update) per change kept
// the window busy. Changes are gathered and sent at most every `intervalMs`, the latest state of each
// item only.
import type { UploadItemView, UploadProgressView } from '../../../shared/ipc/vault-types'
import type { UploadItem } from './upload-records'

/** An item without what stays in the main process (its path on disk, its sealing state). */
export function toUploadView(item: UploadItem): UploadItemView {
  return {
    id: item.id,
    batchId: item.batchId,
    vaultId: item.vaultId,
    relativePath: item.relativePath,
    state: item.state,
    sizeBytes: item.sizeBytes,
    encryptedBytes: item.encryptedBytes,
    estimatedCredits: item.estimatedCredits,
    sentBytes: item.sentBytes,
    totalBytes: item.totalBytes,
    ...(item.bundleId ? { bundleId: item.bundleId } : {}),
    ...(item.error ? { error: { code: item.error.code, message: item.error.message } } : {}),
    note: item.note,
    asset: item.asset,
    creditsConsumed: item.creditsConsumed,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  }
}

export interface UploadEventSink {
  items(batch: UploadItemView[]): void
  progress(batch: UploadProgressView[]): void
}

export class UploadEventBatch {
  readonly #items = new Map<string, UploadItemView>()
  readonly #progress = new Map<string, UploadProgressView>()
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly sink: UploadEventSink,
    private readonly intervalMs = 100,
  ) {}

  item(view: UploadItemView): void {
    this.#items.set(view.id, view)
    // Progress gathered before the item left 'uploading' would bring back a finished bar.
    if (view.state !== 'uploading') this.#progress.delete(view.id)
    this.#schedule()
  }

  progress(view: UploadProgressView): void {
    this.#progress.set(view.itemId, view)
    this.#schedule()
  }

  /** Sends what is gathered now (progress first, so an item's final state is applied last). */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#progress.size > 0) {
      const batch = [...this.#progress.values()]
      this.#progress.clear()
      this.sink.progress(batch)
    }
    if (this.#items.size > 0) {
      const batch = [...this.#items.values()]
      this.#items.clear()
      this.sink.items(batch)
    }
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
  }

  #schedule(): void {
    if (this.#timer) return
    this.#timer = setTimeout(() => this.flush(), this.intervalMs)
    this.#timer.unref?.()
  }
}
