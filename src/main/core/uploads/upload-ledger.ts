// The queue's bookkeeping: every listed item with its place in the queue, per batch its counts by
// state (the window asks for them without walking the queue) and per bundle its files, kept in step
// with each change. A change writes one row (upload-store.ts) and is told once; taking the next item
// is O(log n) (queue-order.ts). The batch's carrier bundle (it holds the vault manifest) is held back
// here until the rest of its batch is done.
import type { UploadState } from '../../../shared/ipc/vault-types'
import { QueueOrder } from './queue-order'
import type { UploadItem, UploadItemError } from './upload-records'
import type { UploadStore } from './upload-store'

/** How many items of a batch are in each state, and what the batch has cost so far. */
export interface BatchCounts extends Record<UploadState, number> {
  total: number
  creditsConsumed: number
  /** The error of the batch's earliest failure still listed. */
  firstError?: UploadItemError
}

export const FINAL_STATES: ReadonlySet<UploadState> = new Set(['done', 'skipped', 'failed', 'cancelled'])

interface Batch {
  ids: Set<string>
  counts: BatchCounts
  failed: Set<string>
}

function emptyCounts(): BatchCounts {
  return {
    queued: 0,
    checking: 0,
    uploading: 0,
    done: 0,
    skipped: 0,
    failed: 0,
    cancelled: 0,
    total: 0,
    creditsConsumed: 0,
  }
}

export interface LedgerHooks {
  /** An item changed (after its row was written). */
  changed(item: UploadItem): void
  /** An item finished while a carrier bundle is held back: it may go now. */
  heldMayGo(): void
  /** Whether an item is part of a job in flight (it is not taken again meanwhile). */
  inFlight(itemId: string): boolean
}

export class UploadLedger {
  /** Every listed item by id, in queue order. */
  readonly #items = new Map<string, UploadItem>()
  readonly #seqOf = new Map<string, number>()
  readonly #bySeq = new Map<number, UploadItem>()
  #nextSeq = 1
  /** Positions of queued items, smallest (oldest) first. */
  readonly #order = new QueueOrder()
  #queuedCount = 0
  readonly #batches = new Map<string, Batch>()
  /** Item ids per bundle id. */
  readonly #bundles = new Map<string, Set<string>>()
  /** Carrier bundles waiting for the rest of their batch: batch id -> their places in the queue. */
  readonly #heldBack = new Map<string, number[]>()

  constructor(
    private readonly store: UploadStore,
    private readonly now: () => number,
    private readonly hooks: LedgerHooks,
  ) {}

  get(itemId: string): UploadItem | undefined {
    return this.#items.get(itemId)
  }

  items(): IterableIterator<UploadItem> {
    return this.#items.values()
  }

  get queuedCount(): number {
    return this.#queuedCount
  }

  /** The ids of a batch's listed items. */
  batchItems(batchId: string): ReadonlySet<string> | undefined {
    return this.#batches.get(batchId)?.ids
  }

  /** A batch's items by state and its credits so far, without walking the queue. */
  batchCounts(batchId: string): BatchCounts | undefined {
    const batch = this.#batches.get(batchId)
    if (!batch) return undefined
    const first = batch.failed.values().next()
    const error = first.done ? undefined : this.#items.get(first.value)?.error
    return { ...batch.counts, ...(error ? { firstError: { ...error } } : {}) }
  }

  /** Whether items of a listed batch still wait or go up. */
  batchGoing(batchId: string): boolean {
    const counts = this.#batches.get(batchId)?.counts
    return counts !== undefined && counts.queued + counts.checking + counts.uploading > 0
  }

  /** New items at the end of the queue, in one transaction (not told: the caller tells them). */
  append(items: readonly UploadItem[]): void {
    this.store.write(() => {
      for (const item of items) {
        const seq = this.#nextSeq
        this.store.insertItem(seq, item)
        this.register(item, seq)
      }
    })
  }

  /** Drops items from the list and the database, in one transaction. */
  remove(items: readonly UploadItem[]): void {
    this.store.write(() => {
      for (const item of items) {
        this.store.deleteItem(item.id)
        this.#unregister(item)
      }
    })
  }

  /** Lists an item read from the database (or just inserted) at its place. */
  register(item: UploadItem, seq: number): void {
    this.#items.set(item.id, item)
    this.#seqOf.set(item.id, seq)
    this.#bySeq.set(seq, item)
    this.#nextSeq = Math.max(this.#nextSeq, seq + 1)
    let batch = this.#batches.get(item.batchId)
    if (!batch) {
      batch = { ids: new Set(), counts: emptyCounts(), failed: new Set() }
      this.#batches.set(item.batchId, batch)
    }
    batch.ids.add(item.id)
    batch.counts.total++
    this.#account(item, 1)
    if (item.bundleId) this.#joinBundle(item.id, item.bundleId)
    if (item.state === 'queued') this.#order.push(seq)
  }

  #unregister(item: UploadItem): void {
    this.#account(item, -1)
    const batch = this.#batches.get(item.batchId)
    if (batch) {
      batch.ids.delete(item.id)
      batch.counts.total--
      if (batch.ids.size === 0) this.#batches.delete(item.batchId)
    }
    if (item.bundleId) this.#leaveBundle(item.id, item.bundleId)
    const seq = this.#seqOf.get(item.id)
    if (seq !== undefined) this.#bySeq.delete(seq)
    this.#seqOf.delete(item.id)
    this.#items.delete(item.id)
  }

  #account(item: UploadItem, sign: 1 | -1): void {
    const batch = this.#batches.get(item.batchId)
    if (item.state === 'queued') this.#queuedCount += sign
    if (!batch) return
    batch.counts[item.state] += sign
    if (item.state === 'done') batch.counts.creditsConsumed += sign * (item.creditsConsumed ?? 0)
    if (item.state === 'failed') {
      if (sign > 0) batch.failed.add(item.id)
      else batch.failed.delete(item.id)
    }
  }

  #joinBundle(itemId: string, bundleId: string): void {
    let members = this.#bundles.get(bundleId)
    if (!members) {
      members = new Set()
      this.#bundles.set(bundleId, members)
    }
    members.add(itemId)
  }

  #leaveBundle(itemId: string, bundleId: string): void {
    const members = this.#bundles.get(bundleId)
    members?.delete(itemId)
    if (members?.size === 0) this.#bundles.delete(bundleId)
  }

  /** Changes an item: one row written, counters moved, one event. */
  set(item: UploadItem, patch: Partial<UploadItem>): void {
    const wasQueued = item.state === 'queued'
    const bundleBefore = item.bundleId
    this.#account(item, -1)
    Object.assign(item, patch, { updatedAt: new Date(this.now()).toISOString() })
    for (const [k, v] of Object.entries(patch))
      if (v === undefined) delete (item as unknown as Record<string, unknown>)[k]
    this.#account(item, 1)
    if (item.bundleId !== bundleBefore) {
      if (bundleBefore) this.#leaveBundle(item.id, bundleBefore)
      if (item.bundleId) this.#joinBundle(item.id, item.bundleId)
    }
    if (item.state === 'queued' && !wasQueued) this.#order.push(this.#seqOf.get(item.id)!)
    this.store.saveItem(item)
    this.hooks.changed(item)
    // A held carrier bundle may go now (a file of its batch was cancelled before it started, say).
    if (this.#heldBack.size > 0 && FINAL_STATES.has(item.state)) this.hooks.heldMayGo()
  }

  // ---- what goes next ----

  /** The oldest queued item not in flight. */
  takeNext(): UploadItem | undefined {
    for (;;) {
      const seq = this.#order.pop()
      if (seq === undefined) return undefined
      const item = this.#bySeq.get(seq)
      if (item && item.state === 'queued' && !this.hooks.inFlight(item.id)) return item
    }
  }

  /** The queued files of a bundle, in queue order. */
  queuedMembers(bundleId: string): UploadItem[] {
    const members: UploadItem[] = []
    for (const id of this.#bundles.get(bundleId) ?? []) {
      const item = this.#items.get(id)
      if (item && item.state === 'queued' && !this.hooks.inFlight(id)) members.push(item)
    }
    return members.sort((a, b) => this.#seqOf.get(a.id)! - this.#seqOf.get(b.id)!)
  }

  /**
   * Whether a taken item must wait: it carries the manifest, which lists the batch's files, so it
   * goes up once the others are done. Such an item is held back until then.
   */
  holdsBack(item: UploadItem): boolean {
    if (!item.carriesManifest || !item.bundleId || !this.#busyOutside(item)) return false
    const held = this.#heldBack.get(item.batchId) ?? []
    held.push(this.#seqOf.get(item.id)!)
    this.#heldBack.set(item.batchId, held)
    return true
  }

  /** Whether items of the batch outside this item's bundle are still waiting or going up. */
  #busyOutside(item: UploadItem): boolean {
    const batch = this.#batches.get(item.batchId)
    if (!batch) return false
    let busy = batch.counts.queued + batch.counts.checking + batch.counts.uploading
    for (const id of this.#bundles.get(item.bundleId!) ?? []) {
      const state = this.#items.get(id)?.state
      if (state === 'queued' || state === 'checking' || state === 'uploading') busy--
    }
    return busy > 0
  }

  /** Carrier bundles whose batch has nothing else left go back in the queue. */
  releaseHeld(): void {
    for (const [batchId, seqs] of this.#heldBack) {
      const first = seqs.map((seq) => this.#bySeq.get(seq)).find((i) => i?.state === 'queued')
      if (first && this.#busyOutside(first)) continue
      this.#heldBack.delete(batchId)
      for (const seq of seqs) this.#order.push(seq)
    }
  }
}
