// Persistent queue of encrypted uploads: the owner's door (queue, cancel, retry, estimate, the
// vault's known files) and the scheduling that keeps at most `concurrency` jobs in flight. Its parts:
// upload-planning.ts decides what to send and in what bundles, upload-job.ts and send-job.ts carry
// one job from its checks to the asset, upload-ledger.ts keeps the items, their states and their
// rows (upload-store.ts), upload-progress.ts says how far a job got, manifest-writer.ts keeps the
// vault's manifest in step. Interrupted items start over from the beginning after a restart. Cancel
// aborts the request: the service discards a partial body, so it costs nothing.
import { EventEmitter } from 'node:events'
import type { VaultApiClient } from '../../../service-client'
import type { Asset } from '../../../shared/api'
import type { UploadState } from '../../../shared/ipc/vault-types'
import type { ManifestEntry } from '../../../vault-format'
import { cancelBatch, cancelItem, requeue } from './cancel-and-retry'
import { CreditBalances } from './credit-balances'
import type { SkippedEntry } from './folder-scan'
import { KnownFiles } from './known-files'
import { ManifestWriter } from './manifest-writer'
import { type BundleLimits, DEFAULT_BUNDLE_LIMITS } from './upload-bundle-plan'
import { cobblestoneCipher, type UploadCipher } from './upload-cipher'
import { UploadIndex } from './upload-index'
import { UploadJobs } from './upload-job'
import { type BatchCounts, FINAL_STATES, UploadLedger } from './upload-ledger'
import { type UploadEstimate, UploadPlanner } from './upload-planning'
import type { UploadProgress } from './upload-progress'
import type { UploadIndexEntry, UploadItem } from './upload-records'
import { UploadStore } from './upload-store'
import { VaultManifests } from './vault-manifests'

export { largestUploadableFile } from './upload-cipher'
export type { BatchCounts, UploadCipher, UploadEstimate, UploadProgress, UploadState }

export interface VaultKeySource {
  get(vaultId: string): Promise<Uint8Array | null>
}

export interface UploadQueueEvents {
  item: [UploadItem]
  progress: [UploadProgress]
  /** The vault manifest could not be stored, or leaves files out: a sentence for the owner. */
  'manifest-problem': [{ vaultId: string; message: string }]
}

export interface UploadQueueOptions {
  userDataDir: string
  /** API client for an item's connection (undefined: the active connection). */
  clientFor: (connectionId: string | undefined) => Promise<VaultApiClient>
  vaultKeys: VaultKeySource
  concurrency?: number
  cipher?: UploadCipher
  /** Encrypt in worker threads (faster with spare cores, ~60 MB more memory). Default false. */
  parallelEncryption?: boolean
  /** Start processing right away (default true). */
  autoStart?: boolean
  /** Minimum interval between progress events per item. */
  progressIntervalMs?: number
  /**
   * Vaults whose uploads tell the service each file's real name, path, type and time (the owner's
   * choice, per vault); every other vault's uploads reach it under a neutral name (see
   * setRealNameVaults).
   */
  realNameVaults?: readonly string[]
  /**
   * Pack small files queued together into bundles (default true). Benchmarks and tests turn it off to
   * compare with one upload per file, or pass smaller limits.
   */
  bundleSmallFiles?: boolean | Partial<BundleLimits>
  now?: () => number
}

export class UploadQueue extends EventEmitter<UploadQueueEvents> {
  readonly #store: UploadStore
  readonly #index: UploadIndex
  readonly #manifests: VaultManifests
  readonly #options: UploadQueueOptions
  readonly #now: () => number
  readonly #ledger: UploadLedger
  readonly #planner: UploadPlanner
  readonly #jobs: UploadJobs
  readonly #manifestWriter: ManifestWriter
  readonly #knownFiles: KnownFiles
  #concurrency: number
  #realNameVaults: ReadonlySet<string>
  #running = false
  #idleWaiters: Array<() => void> = []
  #pumpScheduled = false
  /** Hashing of uploaded files for the unchanged-file index; runs only while nothing uploads. */
  #hashing: { controller: AbortController; done: Promise<void> } | undefined

  private constructor(options: UploadQueueOptions, store: UploadStore) {
    super()
    this.#options = options
    this.#store = store
    this.#index = new UploadIndex(store)
    this.#manifests = new VaultManifests(store)
    const cipher = options.cipher ?? cobblestoneCipher(options.parallelEncryption ?? false)
    const now = options.now ?? Date.now
    this.#now = now
    this.#concurrency = Math.max(1, options.concurrency ?? 2)
    this.#realNameVaults = new Set(options.realNameVaults ?? [])
    const bundling = options.bundleSmallFiles ?? true
    const bundleLimits: BundleLimits | false =
      bundling === false ? false : { ...DEFAULT_BUNDLE_LIMITS, ...(bundling === true ? {} : bundling) }
    const vaultKey = (vaultId: string) => options.vaultKeys.get(vaultId)
    const clientFor = (connectionId: string | undefined) => options.clientFor(connectionId)
    const balances = new CreditBalances(now)
    this.#ledger = new UploadLedger(store, now, {
      changed: (item) => this.emit('item', { ...item }),
      heldMayGo: () => this.#schedulePump(),
      inFlight: (itemId) => this.#jobs.isActive(itemId),
    })
    this.#manifestWriter = new ManifestWriter({
      manifests: this.#manifests,
      vaultKey,
      clientFor,
      balances,
      now,
      problem: (vaultId, message) => this.emit('manifest-problem', { vaultId, message }),
      settled: () => this.#notifyIdle(),
    })
    this.#knownFiles = new KnownFiles({
      store,
      index: this.#index,
      manifests: this.#manifests,
      manifestWriter: this.#manifestWriter,
      vaultKey,
      clientFor,
    })
    this.#planner = new UploadPlanner({
      cipher,
      index: this.#index,
      manifests: this.#manifests,
      balances,
      bundleLimits,
      now,
    })
    this.#jobs = new UploadJobs({
      cipher,
      now,
      clientFor,
      vaultKey,
      balances,
      index: this.#index,
      manifests: this.#manifests,
      manifestWriter: this.#manifestWriter,
      hidesNames: (vaultId) => this.hidesNames(vaultId),
      store,
      ledger: this.#ledger,
      bundleLimits,
      progressIntervalMs: options.progressIntervalMs ?? 250,
      emitProgress: (progress) => this.emit('progress', progress),
      ended: (items) => {
        // Before the next job starts, so that the queue is never idle between a batch and its manifest.
        for (const item of new Map(items.map((i) => [i.batchId, i])).values()) this.#batchMayHaveEnded(item)
        this.#pump()
      },
    })
  }

  static async open(options: UploadQueueOptions): Promise<UploadQueue> {
    const store = await UploadStore.open(options.userDataDir, options.now)
    const queue = new UploadQueue(options, store)
    const stamp = new Date(queue.#now()).toISOString()
    store.write(() => {
      for (const { seq, item } of store.items()) {
        // The app stopped mid-item: the service discarded the partial body; start over.
        if (item.state === 'checking' || item.state === 'uploading') {
          item.state = 'queued'
          item.sentBytes = 0
          item.note = 'interrupted when the app closed; restarting from the beginning'
          item.updatedAt = stamp
          store.saveItem(item)
        }
        queue.#ledger.register(item, seq)
      }
    })
    if (options.autoStart !== false) queue.start()
    return queue
  }

  get index(): UploadIndex {
    return this.#index
  }

  /**
   * How many files this computer knows the vault holds, without asking the service: its own uploads
   * and the files of the newest manifest read here (null: none known here, e.g. another computer's vault).
   */
  knownFileCount(vaultId: string): number | null {
    return this.#knownFiles.count(vaultId)
  }

  /**
   * What the file library lists from: this computer's uploads to the vault, and the files of the
   * newest manifest another computer stored (read from the service first when the vault key is here;
   * `manifestUnread` when that read failed, so files from elsewhere may be missing).
   */
  knownFiles(
    vaultId: string,
    connectionId?: string,
    assets?: readonly Asset[],
  ): Promise<{ uploadedHere: UploadIndexEntry[]; elsewhere: ManifestEntry[]; manifestUnread: boolean }> {
    return this.#knownFiles.list(vaultId, connectionId, assets)
  }

  /** Set when the upload list could not be read or saved: a sentence for the user. */
  get storageProblem(): string | undefined {
    return this.#store.problem
  }

  /** Rows the queue and the index wrote to their database since it was opened (diagnostics, tests). */
  rowsWritten(): number {
    return this.#store.rowsWritten()
  }

  list(): UploadItem[] {
    return Array.from(this.#ledger.items(), (i) => ({ ...i }))
  }

  get(itemId: string): UploadItem | undefined {
    const item = this.#ledger.get(itemId)
    return item ? { ...item } : undefined
  }

  /** A batch's items by state and its credits so far, without walking the queue. */
  batchCounts(batchId: string): BatchCounts | undefined {
    return this.#ledger.batchCounts(batchId)
  }

  setConcurrency(n: number): void {
    this.#concurrency = Math.max(1, Math.floor(n))
    this.#pump()
  }

  /**
   * The vaults whose uploads, from now on, tell the service real names; the others send a neutral
   * name, no path, type or date (the real name is sealed inside the blob either way).
   */
  setRealNameVaults(vaultIds: readonly string[]): void {
    this.#realNameVaults = new Set(vaultIds)
  }

  /** Whether the vault's uploads reach the service under neutral names (a re-packed bundle follows it). */
  hidesNames(vaultId: string): boolean {
    return !this.#realNameVaults.has(vaultId)
  }

  /** What uploading these paths would cost, before anything is queued or sent. */
  estimate(
    vaultId: string,
    paths: string[],
    connectionId?: string,
    force = false,
    /** Credits kept for check-ins, which an upload may spend only by the owner's explicit choice. */
    reserve: { credits: number; months: number } = { credits: 0, months: 0 },
  ): Promise<UploadEstimate> {
    const clientOf = () => this.#options.clientFor(connectionId)
    return this.#planner.estimate(vaultId, paths, clientOf, force, reserve)
  }

  /** Queues files and folders (recursively) for upload to a vault; small files are grouped in bundles. */
  async enqueue(request: {
    vaultId: string
    paths: string[]
    force?: boolean
    connectionId?: string
  }): Promise<{
    batchId: string
    items: UploadItem[]
    skipped: SkippedEntry[]
    alreadyStored: Array<{ path: string; at: string }>
  }> {
    const { batchId, items, skipped, alreadyStored } = await this.#planner.plan(request)
    this.#ledger.append(items)
    for (const item of items) this.emit('item', { ...item })
    this.#pump()
    return { batchId, items: items.map((i) => ({ ...i })), skipped, alreadyStored }
  }

  start(): void {
    this.#running = true
    this.#pump()
  }

  /** Stops processing; in-flight items are aborted and go back to the queue (for app quit). */
  async stop(): Promise<void> {
    this.#running = false
    const hashing = this.#hashing
    hashing?.controller.abort()
    await hashing?.done
    await this.#jobs.stopAll()
    // A manifest on its way is small: it finishes (or fails) before the database closes.
    await this.#manifestWriter.drain()
    await this.#index.flush()
  }

  /** Stops, then closes the database (the queue cannot be used afterwards). */
  async close(): Promise<void> {
    await this.stop()
    this.#store.close()
  }

  /**
   * Cancels a queued or running item; a running request is aborted and costs nothing. A file of a
   * bundle in flight: the bundle's upload is aborted (the cancelled file must not be stored) and its
   * other files go back to the queue, to be uploaded again together without it.
   */
  cancel(itemId: string): Promise<boolean> {
    return cancelItem(this.#ledger, this.#jobs, itemId)
  }

  /** Cancels every item of a batch not finished yet; returns how many. */
  cancelBatch(batchId: string): Promise<number> {
    return cancelBatch(this.#ledger, this.#jobs, this.#store, batchId)
  }

  /**
   * Puts a failed or cancelled item back in the queue; `force` uploads even an unchanged file. A
   * file of a bundle keeps its bundle: files retried together go up together again.
   */
  async retry(itemId: string, force?: boolean): Promise<boolean> {
    if (!requeue(this.#ledger, itemId, force)) return false
    // On the next turn, so that files of one bundle retried together go up together again.
    this.#schedulePump()
    return true
  }

  #schedulePump(): void {
    if (this.#pumpScheduled) return
    this.#pumpScheduled = true
    setImmediate(() => {
      this.#pumpScheduled = false
      this.#pump()
    })
  }

  /** Drops finished items (done, skipped, failed, cancelled) from the list. */
  async clearFinished(): Promise<number> {
    const finished = [...this.#ledger.items()].filter(
      (i) => FINAL_STATES.has(i.state) && !this.#jobs.isActive(i.id),
    )
    this.#ledger.remove(finished)
    return finished.length
  }

  /** Resolves when nothing is queued or running. */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve()
    return new Promise((resolve) => this.#idleWaiters.push(resolve))
  }

  #uploadsIdle(): boolean {
    return this.#jobs.count === 0 && (!this.#running || this.#ledger.queuedCount === 0)
  }

  #isIdle(): boolean {
    return this.#uploadsIdle() && !this.#hashing && !this.#manifestWriter.busy
  }

  #pump(): void {
    this.#ledger.releaseHeld()
    while (this.#running && this.#jobs.count < this.#concurrency) {
      const next = this.#ledger.takeNext()
      if (!next) break
      if (this.#ledger.holdsBack(next)) continue
      // An upload has priority over background hashing.
      this.#hashing?.controller.abort()
      this.#jobs.start(next.bundleId, next.bundleId ? this.#ledger.queuedMembers(next.bundleId) : [next])
    }
    if (this.#uploadsIdle() && this.#running && !this.#hashing && this.#index.hasUnhashed()) {
      const controller = new AbortController()
      const hashing = {
        controller,
        done: this.#index.fillMissingHashes(controller.signal).finally(() => {
          if (this.#hashing === hashing) this.#hashing = undefined
          if (!controller.signal.aborted) this.#pump()
          else this.#notifyIdle()
        }),
      }
      this.#hashing = hashing
    }
    this.#notifyIdle()
  }

  #notifyIdle(): void {
    if (this.#isIdle()) {
      const waiters = this.#idleWaiters
      this.#idleWaiters = []
      for (const w of waiters) w()
    }
  }

  /** Once nothing of a batch waits or goes up, the vault manifest follows what changed. */
  #batchMayHaveEnded(item: UploadItem): void {
    if (this.#ledger.batchGoing(item.batchId)) return
    void this.#manifestWriter.write(item.vaultId, item.connectionId)
  }

  /**
   * Writes the vault's manifest now if the newest stored one does not list its files under its
   * current key (after a key rotation, say). Resolves once written, or its failure told.
   */
  refreshManifest(vaultId: string, connectionId?: string): Promise<void> {
    return this.#manifestWriter.write(vaultId, connectionId)
  }

  /**
   * Deleted files (uploads/file-removal.ts) leave the vault's list: their index rows are forgotten,
   * they are no longer carried from another computer's manifest, and the manifest is written without
   * them. Rejects when the manifest could not be stored (the owner is told as after an upload too).
   */
  forgetFiles(vaultId: string, paths: ReadonlySet<string>, connectionId?: string): Promise<void> {
    return this.#knownFiles.forget(vaultId, paths, connectionId)
  }

  /**
   * Takes a file (or a bundle of files) out of the vault on the service, forgets it here, and
   * writes the manifest without it. Resolves once the manifest was written (or its failure logged).
   */
  deleteAsset(vaultId: string, assetId: string, connectionId?: string): Promise<{ contentRemoved: boolean }> {
    return this.#knownFiles.deleteAsset(vaultId, assetId, connectionId)
  }
}
