// The owner's uploads as the app offers them: the queue's calls on the active connection, and the
// list the window shows — items without their paths, their changes sent in batches
// (upload-event-batch.ts), failures the owner cleared hidden, each batch's end told once, and the
// owner told once of an upload list that cannot be kept on disk.
import type { Asset } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import { eventChannels } from '../../../shared/ipc/contract'
import type { UploadItemView } from '../../../shared/ipc/vault-types'
import type { EventHub } from '../ipc/handler-table'
import type { RemovalQueue } from './file-removal'
import { toUploadView, UploadEventBatch } from './upload-event-batch'
import type { BatchCounts, UploadQueue } from './upload-queue'
import type { UploadItem } from './upload-records'

export interface OwnerUploadsDeps {
  queue: UploadQueue
  /** The active connection, whose service the uploads go to. */
  connectionId: () => string | undefined
  window: EventHub
  /** Every item of a batch has finished (told when a batch of changes goes out). */
  batchEnded: (item: UploadItemView, counts: BatchCounts) => void
  /** The upload list cannot be read or kept on disk (once per different problem). */
  storageProblem: (problem: string) => void
  /** Credits kept for the vault's check-ins (0 when its trigger has none), and for how many months. */
  reserve: (vaultId: string) => Promise<{ credits: number; months: number }>
}

const FINISHED = new Set<UploadItemView['state']>(['done', 'failed', 'skipped', 'cancelled'])

export class OwnerUploads {
  readonly #deps: OwnerUploadsDeps
  readonly #queue: UploadQueue
  /** Failed or cancelled uploads the owner cleared from the list (the queue still holds them). */
  readonly #dismissed = new Set<string>()
  readonly #events: UploadEventBatch
  #storageProblemTold: string | undefined

  constructor(deps: OwnerUploadsDeps) {
    this.#deps = deps
    this.#queue = deps.queue
    const { window } = deps
    this.#events = new UploadEventBatch({
      progress: (batch) => window.emit(eventChannels.uploadProgress, batch),
      items: (batch) => {
        window.emit(eventChannels.uploadItems, batch)
        // Once per batch of uploads that had an item finish, not once per item (a scan of the queue).
        const ended = new Map<string, UploadItemView>()
        for (const item of batch) if (FINISHED.has(item.state)) ended.set(item.batchId, item)
        for (const item of ended.values()) this.#checkBatchEnd(item)
        this.noticeStorageProblem()
      },
    })
    this.#queue.on('item', (item) => this.#events.item(toUploadView(item)))
    this.#queue.on('progress', (p) =>
      this.#events.progress({
        itemId: p.itemId,
        vaultId: p.vaultId,
        sentBytes: p.sentBytes,
        totalBytes: p.totalBytes,
        bytesPerSecond: p.bytesPerSecond,
        etaSeconds: p.etaSeconds,
      }),
    )
  }

  /** What uploading `paths` would cost, with what it leaves of the check-in reserve. */
  async estimate(vaultId: string, paths: string[], force = false) {
    const reserve = await this.#deps.reserve(vaultId)
    return this.#queue.estimate(vaultId, paths, this.#deps.connectionId(), force, reserve)
  }

  enqueue(request: { vaultId: string; paths: string[]; force?: boolean }) {
    const connectionId = this.#deps.connectionId()
    return this.#queue.enqueue({ ...request, ...(connectionId ? { connectionId } : {}) })
  }

  /**
   * The owner's upload: refused, with nothing queued, when it would eat the credits kept for
   * check-ins (an unpaid check-in releases the vault by accident), unless `spendReserve`.
   */
  async queueFiles(request: { vaultId: string; paths: string[]; force?: boolean; spendReserve?: boolean }) {
    const { vaultId, paths, force = false, spendReserve = false } = request
    const reserve = await this.#deps.reserve(vaultId)
    if (reserve.credits > 0 && !spendReserve) {
      const e = await this.#queue.estimate(vaultId, paths, this.#deps.connectionId(), force, reserve)
      if (e.eatsReserve) {
        throw new AppError({
          code: 'RESERVE_NEEDED',
          userMessage: `This upload costs ${e.credits} credits and would leave ${e.balanceCredits - e.credits}, less than the ${reserve.credits} kept for ${reserve.months} months of check-ins. If a check-in cannot be paid, the dead man's switch releases the vault by accident. Add credits first, or choose to spend the reserve.`,
          details: { credits: e.credits, balanceCredits: e.balanceCredits, reserveCredits: reserve.credits },
        })
      }
    }
    return this.enqueue({ vaultId, paths, force })
  }

  /**
   * Clears the window's list: every finished item (the queue forgets them), or only failures and
   * cancellations (hidden here; the queue keeps them). The window gets the new list. Returns how many.
   */
  async clear(only: 'finished' | 'failed'): Promise<number> {
    const cleared =
      only === 'finished'
        ? await this.#queue.clearFinished()
        : this.dismiss((i) => i.state === 'failed' || i.state === 'cancelled')
    // Changes still gathered for the window go first: sent after the new list, they would bring back
    // items it no longer holds.
    this.flushEvents()
    this.#deps.window.emit(eventChannels.uploadsCleared, this.visible().map(toUploadView))
    return cleared
  }

  cancel = (itemId: string) => this.#queue.cancel(itemId)
  cancelBatch = (batchId: string) => this.#queue.cancelBatch(batchId)
  retry = (itemId: string, force?: boolean) => this.#queue.retry(itemId, force)
  list = () => this.#queue.list()
  clearFinished = () => this.#queue.clearFinished()
  idle = () => this.#queue.idle()
  batchCounts = (batchId: string) => this.#queue.batchCounts(batchId)

  /**
   * The files this computer uploaded as an asset and has not uploaded again since: one, or those
   * of a bundle (their real names, also when names were hidden from the service).
   */
  uploadedHere(vaultId: string, assetId: string) {
    return this.#queue.index.filesOfAsset(vaultId, assetId)
  }

  /** This computer's uploads to the vault and the files another computer's manifest lists. */
  /** How many files this computer knows the vault holds (null: none known here). */
  knownFileCount = (vaultId: string) => this.#queue.knownFileCount(vaultId)

  knownFiles(vaultId: string, assets?: readonly Asset[]) {
    return this.#queue.knownFiles(vaultId, this.#deps.connectionId(), assets)
  }

  /** The queue's side of deleting files (uploads/file-removal.ts), on the active connection. */
  removalSide(): { queue: RemovalQueue; connectionId: string | undefined } {
    return { queue: this.#queue, connectionId: this.#deps.connectionId() }
  }

  /** Upload items the window should list (failures the owner cleared are hidden). */
  visible(): UploadItem[] {
    return this.#queue.list().filter((i) => !this.#dismissed.has(i.id))
  }

  dismiss(match: (item: UploadItem) => boolean): number {
    const ids = this.visible()
      .filter(match)
      .map((i) => i.id)
    for (const id of ids) this.#dismissed.add(id)
    return ids.length
  }

  /** Sends the upload changes gathered so far (before a list that replaces them). */
  flushEvents(): void {
    this.#events.flush()
  }

  /**
   * Tells the owner when the upload list could not be read or kept on disk (a damaged uploads.sqlite is
   * set aside, a full disk stops its writes): once per different problem, when the window lists uploads
   * or a batch of changes goes out.
   */
  noticeStorageProblem(): void {
    const problem = this.#queue.storageProblem
    if (!problem || problem === this.#storageProblemTold) return
    this.#storageProblemTold = problem
    this.#deps.storageProblem(problem)
  }

  #checkBatchEnd(item: UploadItemView): void {
    const counts = this.#queue.batchCounts(item.batchId)
    if (!counts || counts.queued + counts.checking + counts.uploading > 0) return
    if (counts.done === 0 && counts.failed === 0) return
    this.#deps.batchEnded(item, counts)
  }

  /** Stops the batching timer (the queue itself is closed by its owner). */
  close(): void {
    this.#events.close()
  }
}
