// The owner's say over listed items: cancel one (a running request is aborted and costs nothing),
// cancel a batch, or put a finished item back in the queue. Each change is one ledger write, so a
// cancelled batch of thousands of files is one transaction.
import type { UploadJobs } from './upload-job'
import type { UploadLedger } from './upload-ledger'
import type { UploadStore } from './upload-store'

const CANCELLED_BEFORE_START = { state: 'cancelled', note: 'cancelled before it started' } as const

/** Cancels a queued or running item; false when it was neither. */
export async function cancelItem(ledger: UploadLedger, jobs: UploadJobs, itemId: string): Promise<boolean> {
  const item = ledger.get(itemId)
  if (!item) return false
  let wasActive = false
  for (let job = jobs.jobOf(itemId); job; job = jobs.jobOf(itemId)) {
    wasActive = true
    jobs.abortForCancel(job, itemId)
    await job.done
  }
  if (item.state !== 'queued') return wasActive
  ledger.set(item, { ...CANCELLED_BEFORE_START })
  return true
}

/** Cancels every item of a batch not finished yet; returns how many. */
export async function cancelBatch(
  ledger: UploadLedger,
  jobs: UploadJobs,
  store: UploadStore,
  batchId: string,
): Promise<number> {
  const ids = ledger.batchItems(batchId)
  if (!ids) return 0
  let n = 0
  const running = new Set<Promise<void>>()
  // Queued items first, so that an aborted bundle does not put them back and start them again.
  store.write(() => {
    for (const id of ids) {
      const item = ledger.get(id)!
      const job = jobs.jobOf(id)
      if (job) {
        jobs.abortForCancel(job, id)
        running.add(job.done)
        n++
      } else if (item.state === 'queued') {
        ledger.set(item, { ...CANCELLED_BEFORE_START })
        n++
      }
    }
  })
  await Promise.all(running)
  // Put back by a stop meanwhile: cancelled too.
  store.write(() => {
    for (const id of ids) {
      const item = ledger.get(id)
      if (item?.state === 'queued' && !jobs.isActive(id)) ledger.set(item, { ...CANCELLED_BEFORE_START })
    }
  })
  return n
}

/** Puts a failed, cancelled or skipped item back in the queue; false for any other. */
export function requeue(ledger: UploadLedger, itemId: string, force: boolean | undefined): boolean {
  const item = ledger.get(itemId)
  if (!item || !['failed', 'cancelled', 'skipped'].includes(item.state)) return false
  ledger.set(item, {
    state: 'queued',
    sentBytes: 0,
    error: undefined,
    note: undefined,
    force: force ?? item.force,
  })
  return true
}
