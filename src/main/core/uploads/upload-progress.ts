// Progress events of an upload in flight: at most one per interval for the whole job (a bundle of
// hundreds of small files reports once, not per file), with a smoothed rate so the ETA does not jump.
// The window gets them coalesced further by upload-event-batch.ts.
import type { UploadProgressView } from '../../../shared/ipc/vault-types'
import type { UploadItem } from './upload-records'

export interface UploadProgress extends UploadProgressView {
  batchId: string
  relativePath: string
  /**
   * Set while a bundle uploads: the progress is the whole bundle's, reported once for all its files
   * (itemId is the bundle's first file; each file's sentBytes follows it too).
   */
  bundleId?: string
}

/** Reports bytes sent for `items` (the job's, in queue order): the returned function is the upload's onProgress. */
export function progressTracker(
  items: ReadonlySet<UploadItem>,
  bundleId: string | undefined,
  options: { intervalMs: number; now: () => number; emit: (progress: UploadProgress) => void },
): (sent: number, total: number, final?: boolean) => void {
  const { intervalMs, now: clock, emit } = options
  const started = clock()
  const lead = items.values().next().value!
  const bundle = items.size > 1 ? bundleId : undefined
  let lastEmit = 0
  let lastSample = { at: started, bytes: 0 }
  let rate = 0
  return (sent, total, final = false) => {
    const now = clock()
    lead.sentBytes = sent
    if (!final && now - lastEmit < intervalMs) return
    for (const item of items) item.sentBytes = sent
    const dt = (now - lastSample.at) / 1000
    if (dt > 0) {
      const instant = (sent - lastSample.bytes) / dt
      // Smooth over ~4 samples so the ETA does not jump around.
      rate = rate === 0 ? instant : rate * 0.75 + instant * 0.25
      lastSample = { at: now, bytes: sent }
    }
    lastEmit = now
    emit({
      itemId: lead.id,
      batchId: lead.batchId,
      vaultId: lead.vaultId,
      relativePath: lead.relativePath,
      ...(bundle ? { bundleId: bundle } : {}),
      sentBytes: sent,
      totalBytes: total,
      bytesPerSecond: Math.round(rate),
      etaSeconds: rate > 0 ? Math.ceil((total - sent) / rate) : null,
    })
  }
}
