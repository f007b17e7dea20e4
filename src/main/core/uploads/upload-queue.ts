// Persistent queue of encrypted uploads. Each job (one file, or a bundle of small files that travel
// as one asset, docs/FORMAT.md 3.9): stat -> checks per file (size limit, unchanged-file skip) ->
// vault key -> credit estimate against the balance, all before a byte is sent -> read -> chunked
// encryption -> hand-built multipart body with exact Content-Length -> got stream -> progress ->
// asset. Items are rows in SQLite (upload-store.ts): a state change writes one row, so the cost per
// file does not grow with the queue; taking the next item is O(log n) (queue-order.ts). Interrupted
// items start over from the beginning after a restart. Cancel aborts the request: the service
// discards a partial body, so it costs nothing.
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { open, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { nodeCipher } from '../../../node-cipher/cipher-choice'
import { encryptFileInWorker } from '../../../node-cipher/file-read-worker'
import { type VaultApiClient, VaultApiError } from '../../../service-client'
import {
  type Asset,
  creditsToDollars,
  LIMITS,
  type UploadedAsset,
  uploadCostCredits,
} from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import type { UploadEstimateView, UploadProgressView, UploadState } from '../../../shared/ipc/vault-types'
import { isolateName } from '../../../shared/untrusted-text'
import {
  type BundleSourceEntry,
  checkIdentityPath,
  encryptStream as cobblestoneEncryptStream,
  encryptBundleStream,
  encryptedBundleLength,
  encryptedFileLength,
  encryptedManifestLength,
  encryptManifest,
  type FileIdentity,
  type ManifestEntry,
} from '../../../vault-format'
import { detectContentType } from './content-type'
import { type ScannedFile, type SkippedEntry, scanForUpload } from './folder-scan'
import { buildMultipartBody, type MultipartBody } from './multipart-body'
import { QueueOrder } from './queue-order'
import {
  type BundleLimits,
  bundleWeight,
  DEFAULT_BUNDLE_LIMITS,
  planBundles,
  planCost,
  splitByWeight,
} from './upload-bundle-plan'
import { sha256OfFile, UploadIndex } from './upload-index'
import type { UploadIndexEntry, UploadItem, UploadItemError } from './upload-records'
import { UploadStore } from './upload-store'
import {
  MANIFEST_METADATA_FLAG,
  type ManifestListing,
  pathsOfAsset,
  sealedPath,
  VaultManifests,
} from './vault-manifests'

export type { UploadState }

export interface UploadProgress extends UploadProgressView {
  batchId: string
  relativePath: string
  /**
   * Set while a bundle uploads: the progress is the whole bundle's, reported once for all its files
   * (itemId is the bundle's first file; each file's sentBytes follows it too).
   */
  bundleId?: string
}

export interface UploadEstimate extends UploadEstimateView {
  /** Files already uploaded unchanged (same path, size, time): skipped unless forced, not counted above. */
  unchanged: string[]
  alreadyStored: Array<{ path: string; at: string }>
  skipped: SkippedEntry[]
}

/** How many items of a batch are in each state, and what the batch has cost so far. */
export interface BatchCounts extends Record<UploadState, number> {
  total: number
  creditsConsumed: number
  /** The error of the batch's earliest failure still listed. */
  firstError?: UploadItemError
}

export interface UploadCipher {
  /** Exact blob length: the file's size and its path, both sealed inside (FORMAT.md, format 2). */
  encryptedLength(identity: FileIdentity): number
  /** `source` reuses its buffers: a chunk is valid only until the next one is requested. */
  encryptStream(
    source: AsyncIterable<Uint8Array>,
    options: { vaultKey: Uint8Array; vaultId: string; identity: FileIdentity },
  ): AsyncIterable<Uint8Array>
  /**
   * Reads the file itself and encrypts it (the same blob as encryptStream). `afterRead` runs once
   * every byte was read, before the last piece is released; it gets the file's SHA-256. Pieces are
   * valid until the piece after the next is asked for (a pipe into the socket). Optional: without
   * it the queue reads the file and calls encryptStream.
   */
  encryptFile?(
    path: string,
    options: {
      vaultKey: Uint8Array
      vaultId: string
      identity: FileIdentity
      afterRead: (end: { bytesRead: number; sha256?: string }) => Promise<void>
    },
  ): AsyncIterable<Uint8Array>
  /** Exact blob length of a bundle of these files, with an embedded manifest of that many bytes (FORMAT.md 3.9). */
  encryptedBundleLength(files: readonly FileIdentity[], manifestLength?: number): number
  /** A bundle: each entry's content is opened in turn, when the bundle reaches it. */
  encryptBundleStream(
    entries: readonly BundleSourceEntry[],
    options: { vaultKey: Uint8Array; vaultId: string; createdAtMs: number; manifest?: Uint8Array },
  ): AsyncIterable<Uint8Array>
}

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

/** Why an in-flight job was aborted. */
class AbortReason extends Error {
  /** Items the owner cancelled (more may join while the job winds down). */
  readonly cancelled = new Set<string>()
  constructor(
    readonly kind: 'cancel' | 'stop' | 'file-changed',
    message: string,
    /** For 'file-changed': the item whose file changed. */
    readonly changedItemId?: string,
  ) {
    super(message)
  }
}

/** One upload in flight: a file, or the files of one bundle. */
interface Job {
  bundleId: string | undefined
  /** The items still part of the job, in queue order (one leaves once skipped, failed or set aside). */
  items: Set<UploadItem>
  controller: AbortController
  done: Promise<void>
}

/** A file that passed its checks, as it is about to be read. */
interface CheckedFile {
  item: UploadItem
  identity: FileIdentity
  size: number
  mtimeMs: number
}

interface Batch {
  ids: Set<string>
  counts: BatchCounts
  failed: Set<string>
}

const BALANCE_TTL_MS = 15_000
const READ_BYTES = 1 << 20
const FINAL_STATES: ReadonlySet<UploadState> = new Set(['done', 'skipped', 'failed', 'cancelled'])

/**
 * A file is read, hashed (for the index) and encrypted on one reader thread
 * (crypto/file-read-worker.ts), whatever the number of cores: the main thread only forwards the
 * pieces to the socket. On the main thread node:crypto's garbage (a buffer and a cipher object per
 * 16 KiB chunk) cost more in collections than the encryption itself. bench:upload, 1 GB, busy
 * 2-core machine, client CPU per GB: main thread 2.00 s + 1.10 s hashing afterwards, peak RSS
 * 178 MB; reader thread 1.51 s in all, 118 MB (106 MB for 5 GB). Client and service on one core:
 * 1.77 + 1.03 s against 1.38 s. Bundles (many small files) stay on the main thread;
 * `parallelEncryption` spreads them over the worker pool on machines with spare cores.
 */
function cobblestoneCipher(parallel: boolean): UploadCipher {
  const cipher = nodeCipher(parallel)
  return {
    encryptedLength: encryptedFileLength,
    encryptStream: (source, options) => cobblestoneEncryptStream(source, { ...options, ...cipher }),
    encryptFile: (path, options) => encryptFileInWorker(path, { ...options, sha256: true }),
    encryptedBundleLength,
    encryptBundleStream: (entries, options) => encryptBundleStream(entries, { ...options, ...cipher }),
  }
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

type FileVerdict =
  | { kind: 'upload'; identity: FileIdentity; encryptedBytes: number }
  | { kind: 'bad-name'; problem: string }
  | { kind: 'too-large' }
  | { kind: 'unchanged' }
  /** The vault already holds these bytes (under this name or another): left out, not charged. */
  | { kind: 'already-stored'; at: string }

export class UploadQueue extends EventEmitter<UploadQueueEvents> {
  readonly #store: UploadStore
  /** knownFileCount's answers, with the database's change count they were made at. */
  readonly #fileCounts = new Map<string, { version: number; count: number | null }>()
  readonly #index: UploadIndex
  readonly #manifests: VaultManifests
  readonly #options: UploadQueueOptions
  readonly #cipher: UploadCipher
  readonly #now: () => number
  readonly #bundleLimits: BundleLimits | false
  #concurrency: number
  #realNameVaults: ReadonlySet<string>
  #running = false

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

  readonly #jobs = new Set<Job>()
  readonly #activeItems = new Map<string, Job>()
  readonly #balances = new Map<string, { credits: number; at: number }>()
  readonly #reserved = new Map<string, number>()
  #idleWaiters: Array<() => void> = []
  #pumpScheduled = false
  /** Carrier bundles waiting for the rest of their batch: batch id -> their places in the queue. */
  readonly #heldBack = new Map<string, number[]>()
  /** Manifests being written after a change (the queue is idle only once they are done). */
  readonly #manifestWrites = new Set<Promise<void>>()
  readonly #manifestChain = new Map<string, Promise<void>>()
  /** The files the owner was last told the manifest leaves out, per vault. */
  readonly #toldUnlisted = new Map<string, string>()
  /** Hashing of uploaded files for the unchanged-file index; runs only while nothing uploads. */
  #hashing: { controller: AbortController; done: Promise<void> } | undefined

  private constructor(options: UploadQueueOptions, store: UploadStore) {
    super()
    this.#options = options
    this.#store = store
    this.#index = new UploadIndex(store)
    this.#manifests = new VaultManifests(store)
    this.#cipher = options.cipher ?? cobblestoneCipher(options.parallelEncryption ?? false)
    this.#now = options.now ?? Date.now
    this.#concurrency = Math.max(1, options.concurrency ?? 2)
    this.#realNameVaults = new Set(options.realNameVaults ?? [])
    const bundling = options.bundleSmallFiles ?? true
    this.#bundleLimits =
      bundling === false ? false : { ...DEFAULT_BUNDLE_LIMITS, ...(bundling === true ? {} : bundling) }
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
        queue.#register(item, seq)
      }
    })
    if (options.autoStart !== false) queue.start()
    return queue
  }

  get index(): UploadIndex {
    return this.#index
  }

  /**
   * What the file library lists from: this computer's uploads to the vault, and the files of the
   * newest manifest another computer stored (read from the service first when the vault key is here;
   * `manifestUnread` when that read failed, so files from elsewhere may be missing).
   */
  /**
   * How many files this computer knows the vault holds, without asking the service: its own uploads
   * and the files of the newest manifest read here (null: none known here, e.g. another computer's vault).
   */
  knownFileCount(vaultId: string): number | null {
    // Asked for every vault view the window gets: counted again only once the database changed.
    const version = this.#store.rowsWritten()
    const cached = this.#fileCounts.get(vaultId)
    if (cached?.version === version) return cached.count
    const paths = new Set(this.#manifests.carried(vaultId).map((e) => e.path))
    for (const row of this.#store.entriesOfVault(vaultId)) paths.add(sealedPath(row.relativePath))
    const count = paths.size > 0 ? paths.size : null
    this.#fileCounts.set(vaultId, { version, count })
    return count
  }

  async knownFiles(
    vaultId: string,
    connectionId?: string,
    assets?: readonly Asset[],
  ): Promise<{ uploadedHere: UploadIndexEntry[]; elsewhere: ManifestEntry[]; manifestUnread: boolean }> {
    let manifestUnread = false
    try {
      const vaultKey = await this.#options.vaultKeys.get(vaultId)
      if (vaultKey)
        await this.#manifests.sync(await this.#options.clientFor(connectionId), vaultId, vaultKey, assets)
    } catch {
      manifestUnread = true
    }
    return {
      uploadedHere: this.#store.entriesOfVault(vaultId),
      elsewhere: this.#manifests.carried(vaultId),
      manifestUnread,
    }
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
    return Array.from(this.#items.values(), (i) => ({ ...i }))
  }

  get(itemId: string): UploadItem | undefined {
    const item = this.#items.get(itemId)
    return item ? { ...item } : undefined
  }

  /** A batch's items by state and its credits so far, without walking the queue. */
  batchCounts(batchId: string): BatchCounts | undefined {
    const batch = this.#batches.get(batchId)
    if (!batch) return undefined
    const first = batch.failed.values().next()
    const error = first.done ? undefined : this.#items.get(first.value)?.error
    return { ...batch.counts, ...(error ? { firstError: { ...error } } : {}) }
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

  #hidesNames(vaultId: string): boolean {
    return !this.#realNameVaults.has(vaultId)
  }

  /** Whether the vault's uploads reach the service under neutral names (a re-packed bundle follows it). */
  hidesNames(vaultId: string): boolean {
    return this.#hidesNames(vaultId)
  }

  /** Whether a scanned file would be uploaded, and if not why (the estimate and enqueue agree). */
  async #verdict(vaultId: string, f: ScannedFile, force: boolean): Promise<FileVerdict> {
    const path = sealedPath(f.relativePath)
    const problem = checkIdentityPath(path)
    if (problem) return { kind: 'bad-name', problem }
    const identity = { path, size: f.size }
    const encryptedBytes = this.#cipher.encryptedLength(identity)
    if (encryptedBytes > LIMITS.maxFileBytes) return { kind: 'too-large' }
    const earlier = force ? undefined : this.#index.find(vaultId, f.path)
    if (earlier && earlier.size === f.size && earlier.mtimeMs === f.mtimeMs) return { kind: 'unchanged' }
    if (!force) {
      const copy = await this.#index.sameContent(vaultId, f, this.#manifests.carriedOfSize(vaultId, f.size))
      if (copy) return { kind: 'already-stored', at: copy.at }
    }
    return { kind: 'upload', identity, encryptedBytes }
  }

  #plan(identities: readonly FileIdentity[]) {
    return planBundles(identities, this.#bundleLimits)
  }

  /** What uploading these paths would cost, before anything is queued or sent. */
  async estimate(
    vaultId: string,
    paths: string[],
    connectionId?: string,
    force = false,
    /** Credits kept for check-ins, which an upload may spend only by the owner's explicit choice. */
    reserve: { credits: number; months: number } = { credits: 0, months: 0 },
  ): Promise<UploadEstimate> {
    const { files, skipped } = await scanForUpload(paths)
    const client = await this.#options.clientFor(connectionId)
    const vault = await client.getVault(vaultId)
    this.#balances.set(vaultId, { credits: vault.creditsBalance, at: this.#now() })
    let plaintextBytes = 0
    const tooLarge: string[] = []
    const unchanged: string[] = []
    const alreadyStored: Array<{ path: string; at: string }> = []
    const identities: FileIdentity[] = []
    for (const f of files) {
      const verdict = await this.#verdict(vaultId, f, force)
      if (verdict.kind === 'bad-name') {
        skipped.push({
          path: f.path,
          reason: 'bad-name',
          detail: `${isolateName(f.relativePath)}: ${verdict.problem}`,
        })
      } else if (verdict.kind === 'too-large') {
        tooLarge.push(f.relativePath)
      } else if (verdict.kind === 'unchanged') {
        unchanged.push(f.relativePath)
      } else if (verdict.kind === 'already-stored') {
        alreadyStored.push({ path: f.relativePath, at: verdict.at })
      } else {
        identities.push(verdict.identity)
        plaintextBytes += f.size
      }
    }
    // The vault manifest goes with the upload: inside its last bundle, else as a small blob of its own.
    const manifestBytes =
      identities.length > 0
        ? encryptedManifestLength(
            this.#manifests.paths(
              vaultId,
              identities.map((i) => i.path),
            ),
          )
        : 0
    const cost = planCost(
      identities,
      this.#plan(identities),
      {
        file: (f) => this.#cipher.encryptedLength(f),
        bundle: (fs, manifest) => this.#cipher.encryptedBundleLength(fs, manifest),
      },
      manifestBytes,
    )
    const credits = cost.credits
    return {
      vaultId,
      files: identities.length,
      plaintextBytes,
      encryptedBytes: cost.encryptedBytes,
      credits,
      dollars: creditsToDollars(credits),
      balanceCredits: vault.creditsBalance,
      enough: credits <= vault.creditsBalance,
      reserveCredits: reserve.credits,
      reserveMonths: reserve.months,
      eatsReserve: credits > 0 && reserve.credits > 0 && vault.creditsBalance - credits < reserve.credits,
      tooLarge,
      unchanged,
      alreadyStored,
      skipped,
      bundles: cost.bundles,
      bundledFiles: cost.bundledFiles,
      creditsWithoutBundles: cost.creditsWithoutBundles,
      cheapestUploadCredits: cost.cheapestUploadCredits,
    }
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
    const { files: scanned, skipped } = await scanForUpload(request.paths)
    const batchId = randomUUID()
    const stamp = new Date(this.#now()).toISOString()
    const force = request.force ?? false
    // The same plan as the estimate's, over the same files: the confirmed credits are those charged.
    const planned: number[] = []
    const identities: FileIdentity[] = []
    // Files whose bytes the vault holds are not queued at all (the estimate left them out too).
    const alreadyStored: Array<{ path: string; at: string }> = []
    const files: ScannedFile[] = []
    const verdicts: FileVerdict[] = []
    for (const f of scanned) {
      const verdict = await this.#verdict(request.vaultId, f, force)
      if (verdict.kind === 'already-stored') alreadyStored.push({ path: f.relativePath, at: verdict.at })
      else {
        files.push(f)
        verdicts.push(verdict)
      }
    }
    for (const [i, verdict] of verdicts.entries()) {
      if (verdict.kind !== 'upload') continue
      planned.push(i)
      identities.push(verdict.identity)
    }
    const bundleOf: Array<string | undefined> = []
    const groups = this.#plan(identities).bundles
    // The batch's last bundle carries the vault manifest (as the estimate counted): it waits for the rest.
    const carrier = new Set(groups.at(-1)?.map((k) => planned[k]!))
    for (const group of groups) {
      const bundleId = randomUUID()
      for (const k of group) bundleOf[planned[k]!] = bundleId
    }
    const added = files.map(
      (f: ScannedFile, i): UploadItem => ({
        id: randomUUID(),
        batchId,
        ...(request.connectionId ? { connectionId: request.connectionId } : {}),
        vaultId: request.vaultId,
        path: f.path,
        relativePath: f.relativePath,
        force,
        state: 'queued',
        sizeBytes: f.size,
        mtimeMs: f.mtimeMs,
        sentBytes: 0,
        ...(bundleOf[i] ? { bundleId: bundleOf[i] } : {}),
        ...(carrier.has(i) ? { carriesManifest: true } : {}),
        createdAt: stamp,
        updatedAt: stamp,
      }),
    )
    this.#store.write(() => {
      for (const item of added) {
        const seq = this.#nextSeq
        this.#store.insertItem(seq, item)
        this.#register(item, seq)
      }
    })
    for (const item of added) this.emit('item', { ...item })
    this.#pump()
    return { batchId, items: added.map((i) => ({ ...i })), skipped, alreadyStored }
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
    const jobs = [...this.#jobs]
    for (const job of jobs) job.controller.abort(new AbortReason('stop', 'the app is closing'))
    await Promise.all(jobs.map((j) => j.done))
    // A manifest on its way is small: it finishes (or fails) before the database closes.
    await Promise.all(this.#manifestWrites)
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
  async cancel(itemId: string): Promise<boolean> {
    const item = this.#items.get(itemId)
    if (!item) return false
    let wasActive = false
    for (let job = this.#activeItems.get(itemId); job; job = this.#activeItems.get(itemId)) {
      wasActive = true
      this.#abortForCancel(job, itemId)
      await job.done
    }
    if (item.state !== 'queued') return wasActive
    this.#set(item, { state: 'cancelled', note: 'cancelled before it started' })
    return true
  }

  #abortForCancel(job: Job, itemId: string): void {
    if (!job.controller.signal.aborted) job.controller.abort(new AbortReason('cancel', 'cancelled by you'))
    const reason = job.controller.signal.reason
    if (reason instanceof AbortReason) reason.cancelled.add(itemId)
  }

  /** Cancels every item of a batch not finished yet; returns how many. */
  async cancelBatch(batchId: string): Promise<number> {
    const batch = this.#batches.get(batchId)
    if (!batch) return 0
    let n = 0
    const jobs = new Set<Job>()
    // Queued items first, so that an aborted bundle does not put them back and start them again.
    this.#store.write(() => {
      for (const id of batch.ids) {
        const item = this.#items.get(id)!
        const job = this.#activeItems.get(id)
        if (job) {
          this.#abortForCancel(job, id)
          jobs.add(job)
          n++
        } else if (item.state === 'queued') {
          this.#set(item, { state: 'cancelled', note: 'cancelled before it started' })
          n++
        }
      }
    })
    await Promise.all([...jobs].map((j) => j.done))
    // Put back by a stop meanwhile: cancelled too.
    this.#store.write(() => {
      for (const id of batch.ids) {
        const item = this.#items.get(id)
        if (item?.state === 'queued' && !this.#activeItems.has(id))
          this.#set(item, { state: 'cancelled', note: 'cancelled before it started' })
      }
    })
    return n
  }

  /**
   * Puts a failed or cancelled item back in the queue; `force` uploads even an unchanged file. A
   * file of a bundle keeps its bundle: files retried together go up together again.
   */
  async retry(itemId: string, force?: boolean): Promise<boolean> {
    const item = this.#items.get(itemId)
    if (!item || !['failed', 'cancelled', 'skipped'].includes(item.state)) return false
    this.#set(item, {
      state: 'queued',
      sentBytes: 0,
      error: undefined,
      note: undefined,
      force: force ?? item.force,
    })
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
    const finished = [...this.#items.values()].filter(
      (i) => FINAL_STATES.has(i.state) && !this.#activeItems.has(i.id),
    )
    this.#store.write(() => {
      for (const item of finished) {
        this.#store.deleteItem(item.id)
        this.#unregister(item)
      }
    })
    return finished.length
  }

  /** Resolves when nothing is queued or running. */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve()
    return new Promise((resolve) => this.#idleWaiters.push(resolve))
  }

  #uploadsIdle(): boolean {
    return this.#jobs.size === 0 && (!this.#running || this.#queuedCount === 0)
  }

  #isIdle(): boolean {
    return this.#uploadsIdle() && !this.#hashing && this.#manifestWrites.size === 0
  }

  // ---- bookkeeping: maps and counters kept in step with every change ----

  #register(item: UploadItem, seq: number): void {
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
  #set(item: UploadItem, patch: Partial<UploadItem>): void {
    const wasQueued = item.state === 'queued'
    const bundleBefore = item.bundleId
    this.#account(item, -1)
    Object.assign(item, patch, { updatedAt: new Date(this.#now()).toISOString() })
    for (const [k, v] of Object.entries(patch))
      if (v === undefined) delete (item as unknown as Record<string, unknown>)[k]
    this.#account(item, 1)
    if (item.bundleId !== bundleBefore) {
      if (bundleBefore) this.#leaveBundle(item.id, bundleBefore)
      if (item.bundleId) this.#joinBundle(item.id, item.bundleId)
    }
    if (item.state === 'queued' && !wasQueued) this.#order.push(this.#seqOf.get(item.id)!)
    this.#store.saveItem(item)
    this.emit('item', { ...item })
    // A held carrier bundle may go now (a file of its batch was cancelled before it started, say).
    if (this.#heldBack.size > 0 && FINAL_STATES.has(item.state)) this.#schedulePump()
  }

  // ---- scheduling ----

  /** The oldest queued item not in flight. */
  #takeNext(): UploadItem | undefined {
    for (;;) {
      const seq = this.#order.pop()
      if (seq === undefined) return undefined
      const item = this.#bySeq.get(seq)
      if (item && item.state === 'queued' && !this.#activeItems.has(item.id)) return item
    }
  }

  /** The queued files of a bundle, in queue order. */
  #queuedMembers(bundleId: string): UploadItem[] {
    const members: UploadItem[] = []
    for (const id of this.#bundles.get(bundleId) ?? []) {
      const item = this.#items.get(id)
      if (item && item.state === 'queued' && !this.#activeItems.has(id)) members.push(item)
    }
    return members.sort((a, b) => this.#seqOf.get(a.id)! - this.#seqOf.get(b.id)!)
  }

  #pump(): void {
    this.#releaseHeld()
    while (this.#running && this.#jobs.size < this.#concurrency) {
      const next = this.#takeNext()
      if (!next) break
      if (next.carriesManifest && next.bundleId && this.#busyOutside(next)) {
        // The manifest it carries lists the batch's files: it goes up once the others are done.
        const held = this.#heldBack.get(next.batchId) ?? []
        held.push(this.#seqOf.get(next.id)!)
        this.#heldBack.set(next.batchId, held)
        continue
      }
      // An upload has priority over background hashing.
      this.#hashing?.controller.abort()
      this.#startJob(next.bundleId, next.bundleId ? this.#queuedMembers(next.bundleId) : [next])
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

  #startJob(bundleId: string | undefined, items: UploadItem[]): void {
    const job: Job = {
      bundleId,
      items: new Set(items),
      controller: new AbortController(),
      done: Promise.resolve(),
    }
    this.#jobs.add(job)
    for (const item of items) this.#activeItems.set(item.id, job)
    this.#store.write(() => {
      for (const item of items)
        this.#set(item, { state: 'checking', sentBytes: 0, error: undefined, note: undefined })
    })
    job.done = this.#run(job)
      .catch((error: unknown) => {
        // #run settles every item itself; this is a last guard so the queue never stalls.
        console.error('Upload job failed unexpectedly:', error)
        this.#settle(job, (item) => ({
          state: 'failed',
          error: {
            code: 'UPLOAD_ERROR',
            message: `${isolateName(item.relativePath)} could not be uploaded: ${error instanceof Error ? error.message : String(error)}. Retry.`,
          },
        }))
      })
      .finally(() => {
        this.#jobs.delete(job)
        for (const item of items)
          if (this.#activeItems.get(item.id) === job) this.#activeItems.delete(item.id)
        // Before the next job starts, so that the queue is never idle between a batch and its manifest.
        for (const item of new Map(items.map((i) => [i.batchId, i])).values()) this.#batchMayHaveEnded(item)
        this.#pump()
      })
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
  #releaseHeld(): void {
    for (const [batchId, seqs] of this.#heldBack) {
      const first = seqs.map((seq) => this.#bySeq.get(seq)).find((i) => i?.state === 'queued')
      if (first && this.#busyOutside(first)) continue
      this.#heldBack.delete(batchId)
      for (const seq of seqs) this.#order.push(seq)
    }
  }

  #notifyIdle(): void {
    if (this.#isIdle()) {
      const waiters = this.#idleWaiters
      this.#idleWaiters = []
      for (const w of waiters) w()
    }
  }

  /** Takes an item out of its job (it is finished with, or goes back to the queue on its own). */
  #release(job: Job, item: UploadItem): void {
    job.items.delete(item)
    if (this.#activeItems.get(item.id) === job) this.#activeItems.delete(item.id)
  }

  /** Ends the job for each of its remaining items, in one transaction. */
  #settle(job: Job, patchOf: (item: UploadItem) => Partial<UploadItem>): void {
    const items = [...job.items]
    const patches = items.map(patchOf)
    this.#store.write(() => {
      for (const [k, item] of items.entries()) {
        this.#release(job, item)
        this.#set(item, patches[k]!)
      }
    })
  }

  // ---- one job ----

  async #run(job: Job): Promise<void> {
    const signal = job.controller.signal
    try {
      const checked: CheckedFile[] = []
      for (const item of [...job.items]) {
        if (signal.aborted) break
        const file = await this.#check(job, item)
        if (file) checked.push(file)
      }
      if (signal.aborted) throw signal.reason
      if (checked.length === 0) return
      const fitting = job.bundleId ? this.#fitBundle(job, checked) : checked
      const first = fitting[0]!.item
      const vaultKey = await this.#options.vaultKeys.get(first.vaultId)
      if (!vaultKey) {
        return this.#settle(job, () => ({
          state: 'failed',
          error: {
            code: 'NO_VAULT_KEY',
            message:
              'This device has no encryption key for this vault. Import the owner recovery kit for the vault (or create a key if the vault has no files yet), then retry.',
          },
        }))
      }
      // A lone file that carries the manifest stays a bundle (of one): alone it would need a manifest blob of its own.
      if (fitting.length === 1 && !fitting[0]!.item.carriesManifest)
        await this.#uploadFile(job, fitting[0]!, vaultKey)
      else await this.#uploadBundle(job, fitting, vaultKey)
    } catch (error) {
      const reason = signal.reason
      if (reason instanceof AbortReason) return this.#settleAborted(job, reason)
      if (error instanceof VaultApiError) {
        const first = firstOf(job.items)
        if (error.status === 402 && first) this.#balances.delete(first.vaultId)
        return this.#settle(job, (item) => ({
          state: 'failed',
          error: {
            code: error.code,
            message: this.#inBundle(job, item, error.userMessage),
            ...(error.requestId ? { requestId: error.requestId } : {}),
          },
        }))
      }
      if (error instanceof AppError) {
        // The app's own refusal (no usable connection, a damaged key): its sentence says what to do.
        return this.#settle(job, (item) => ({
          state: 'failed',
          error: {
            code: error.code,
            message:
              job.items.size > 1
                ? `${isolateName(item.relativePath)} could not be uploaded with the ${job.items.size - 1} other small files of its bundle: ${error.userMessage}`
                : `${isolateName(item.relativePath)} could not be uploaded: ${error.userMessage}`,
          },
        }))
      }
      const why = error instanceof Error ? error.message : String(error)
      return this.#settle(job, (item) => ({
        state: 'failed',
        error: {
          code: 'UPLOAD_ERROR',
          message:
            job.items.size > 1
              ? `${isolateName(item.relativePath)} could not be uploaded with the ${job.items.size - 1} other small files of its bundle: ${why}. Retry; if it fails again, check that the files can be read.`
              : `${isolateName(item.relativePath)} could not be uploaded: ${why}. Retry; if it fails again, check that the file can be read.`,
        },
      }))
    }
  }

  /** A service error, said of one file of a bundle. */
  #inBundle(job: Job, item: UploadItem, message: string): string {
    return job.items.size > 1
      ? `${isolateName(item.relativePath)} travelled in a bundle of ${job.items.size} small files, which the service refused: ${message}`
      : message
  }

  #settleAborted(job: Job, reason: AbortReason): void {
    const cancelledCount = [...job.items].filter((i) => reason.cancelled.has(i.id)).length
    const changed = reason.changedItemId ? this.#items.get(reason.changedItemId) : undefined
    this.#settle(job, (item): Partial<UploadItem> => {
      if (reason.cancelled.has(item.id)) {
        return { state: 'cancelled', note: 'cancelled; nothing was stored or charged' }
      }
      if (reason.kind === 'file-changed' && item.id === reason.changedItemId) {
        return { state: 'failed', sentBytes: 0, error: { code: 'FILE_CHANGED', message: reason.message } }
      }
      const note =
        reason.kind === 'stop'
          ? 'interrupted; restarting from the beginning'
          : reason.kind === 'cancel'
            ? `uploading again without the ${cancelledCount === 1 ? 'file' : `${cancelledCount} files`} cancelled from its bundle; nothing was stored or charged yet`
            : `uploading again without ${changed ? isolateName(changed.relativePath) : 'a file'}, which changed while its bundle was read; nothing was stored or charged yet`
      return { state: 'queued', sentBytes: 0, note }
    })
  }

  /** Per-file checks before anything is sent; a file that fails them leaves the job, settled. */
  async #check(job: Job, item: UploadItem): Promise<CheckedFile | undefined> {
    const leave = (patch: Partial<UploadItem>) => {
      this.#release(job, item)
      this.#set(item, patch)
      return undefined
    }
    let info: Awaited<ReturnType<typeof stat>>
    try {
      info = await stat(item.path)
    } catch (error) {
      return leave({
        state: 'failed',
        error: {
          code: 'FILE_MISSING',
          message: `${isolateName(item.relativePath)} can no longer be read (${(error as NodeJS.ErrnoException).code ?? 'error'}). Check that the file still exists, then retry.`,
        },
      })
    }
    if (!info.isFile()) {
      return leave({
        state: 'failed',
        error: {
          code: 'NOT_A_FILE',
          message: `${isolateName(item.relativePath)} is no longer a regular file.`,
        },
      })
    }
    const size = info.size
    const mtimeMs = info.mtimeMs
    // The blob carries the path: a name no other system could safely recreate is refused up front.
    const identity: FileIdentity = { path: sealedPath(item.relativePath), size }
    const nameProblem = checkIdentityPath(identity.path)
    if (nameProblem) {
      return leave({
        state: 'failed',
        sizeBytes: size,
        mtimeMs,
        error: {
          code: 'BAD_FILE_NAME',
          message: `${isolateName(item.relativePath)} cannot be backed up under this name: ${nameProblem} Rename the file, then upload it again.`,
        },
      })
    }
    if (job.bundleId && this.#bundleLimits && size >= this.#bundleLimits.fileThreshold) {
      // Grew since it was queued: no longer a small file; it goes up alone.
      return leave({ state: 'queued', sizeBytes: size, mtimeMs, bundleId: undefined })
    }
    // The service's 5 GB limit applies to what it stores: the ciphertext, a little larger than the file.
    const encryptedBytes = this.#cipher.encryptedLength(identity)
    if (encryptedBytes > LIMITS.maxFileBytes) {
      return leave({
        state: 'failed',
        sizeBytes: size,
        mtimeMs,
        error: {
          code: 'FILE_TOO_LARGE',
          message: `${isolateName(item.relativePath)} is ${formatGB(size)} GB and ${formatGB(encryptedBytes)} GB once encrypted; the limit is 5 GB per file. Split or compress it, then upload the parts.`,
        },
      })
    }
    if (!item.force) {
      const earlier = await this.#index.unchangedSince(item.vaultId, item.path, size, mtimeMs)
      if (earlier) {
        return leave({
          state: 'skipped',
          sizeBytes: size,
          mtimeMs,
          note: `already uploaded unchanged on ${earlier.uploadedAt.slice(0, 10)} (asset ${earlier.assetId}); upload again with "force" to store another copy`,
        })
      }
    }
    return { item, identity, size, mtimeMs }
  }

  /**
   * The files of a bundle that fit the writer's limits as they are now (files may have grown since
   * they were planned); the rest go back to the queue as a bundle of their own.
   */
  #fitBundle(job: Job, checked: CheckedFile[]): CheckedFile[] {
    const limits = this.#bundleLimits || DEFAULT_BUNDLE_LIMITS
    const fitting: CheckedFile[] = []
    const over: CheckedFile[] = []
    const paths = new Set<string>()
    let content = 0
    for (const file of checked) {
      const fits =
        fitting.length === 0 ||
        (fitting.length < limits.maxFiles &&
          content + file.size <= limits.maxContentBytes &&
          !paths.has(file.identity.path))
      if (fits) {
        fitting.push(file)
        content += file.size
        paths.add(file.identity.path)
      } else over.push(file)
    }
    if (over.length > 0) {
      const bundleId = randomUUID()
      this.#store.write(() => {
        for (const { item, size, mtimeMs } of over) {
          this.#release(job, item)
          // Only one bundle of a batch waits for the rest; the manifest lists these files after them.
          this.#set(item, { state: 'queued', sizeBytes: size, mtimeMs, bundleId, carriesManifest: undefined })
        }
      })
    }
    return fitting
  }

  /** Holds credits for an upload in flight so that parallel uploads do not overdraw the balance. */
  #reserve(vaultId: string, credits: number): () => void {
    this.#reserved.set(vaultId, (this.#reserved.get(vaultId) ?? 0) + credits)
    return () => this.#reserved.set(vaultId, Math.max(0, (this.#reserved.get(vaultId) ?? 0) - credits))
  }

  async #uploadFile(job: Job, file: CheckedFile, vaultKey: Uint8Array): Promise<void> {
    const { item, size, mtimeMs } = file
    // The owner's write time, sealed in the blob and listed in the manifest.
    const identity: FileIdentity = { ...file.identity, writtenAtMs: this.#now() }
    const signal = job.controller.signal
    const encryptedBytes = this.#cipher.encryptedLength(identity)
    const client = await this.#options.clientFor(item.connectionId)
    const estimatedCredits = uploadCostCredits(encryptedBytes)
    const balance = await this.#balance(client, item.vaultId, signal)
    const reservedByOthers = this.#reserved.get(item.vaultId) ?? 0
    if (estimatedCredits > balance - reservedByOthers) {
      // Read again next time: the owner may add credits before retrying.
      this.#balances.delete(item.vaultId)
      return this.#settle(job, () => ({
        state: 'failed',
        sizeBytes: size,
        mtimeMs,
        encryptedBytes,
        estimatedCredits,
        balanceCredits: balance,
        error: {
          code: 'INSUFFICIENT_CREDITS',
          message: `${isolateName(item.relativePath)} needs ${estimatedCredits} credits (${creditsToDollars(estimatedCredits)}) and the balance is ${balance} credits${reservedByOthers ? ` (${reservedByOthers} held for uploads in progress)` : ''}. Add credits, then retry; nothing was sent or charged.`,
        },
      }))
    }
    const unreserve = this.#reserve(item.vaultId, estimatedCredits)
    try {
      const hidden = this.#hidesNames(item.vaultId)
      const contentType = hidden ? 'application/octet-stream' : await detectContentType(item.path)
      const metadata = hidden ? hiddenUploadMetadata() : uploadMetadata(item.relativePath, size, mtimeMs)
      const names = serviceNames(hidden, basename(item.relativePath))
      const cipher = this.#cipher
      const vaultId = item.vaultId
      const onChanged = (message: string) =>
        job.controller.abort(new AbortReason('file-changed', message, item.id))
      // Known once the whole file was read (by the cipher's reader): the index needs no second pass.
      let sha256: string | undefined
      const body = buildMultipartBodyFor(names, contentType, metadata, encryptedBytes, () =>
        cipher.encryptFile
          ? cipher.encryptFile(item.path, {
              vaultKey,
              vaultId,
              identity,
              afterRead: async (end) => {
                await checkUnchanged(item.path, size, mtimeMs, end.bytesRead, onChanged)
                sha256 = end.sha256
              },
            })
          : cipher.encryptStream(
              readUnchangedFile(item.path, size, mtimeMs, onChanged, {
                onHashed: (hash) => {
                  sha256 = hash
                },
              }),
              { vaultKey, vaultId, identity },
            ),
      )
      this.#set(item, {
        state: 'uploading',
        sizeBytes: size,
        mtimeMs,
        encryptedBytes,
        estimatedCredits,
        balanceCredits: balance,
        contentType,
        totalBytes: body.contentLength,
        bundleId: undefined,
        ...(hidden ? { nameHidden: true } : {}),
      })
      const asset = await this.#send(job, client, {
        vaultId,
        body,
        signal,
        credits: estimatedCredits,
        balance,
      })
      this.#store.write(() => {
        this.#release(job, item)
        this.#set(item, {
          state: 'done',
          asset,
          creditsConsumed: asset.creditsConsumed,
          sentBytes: body.contentLength,
        })
        this.#index.recordAll([
          {
            vaultId,
            path: item.path,
            relativePath: item.relativePath,
            size,
            mtimeMs,
            assetId: asset.id,
            uploadedAt: asset.createdAt ?? new Date(this.#now()).toISOString(),
            writtenAtMs: identity.writtenAtMs!,
            ...(sha256 ? { sha256 } : {}),
          },
        ])
      })
    } finally {
      unreserve()
    }
  }

  async #uploadBundle(job: Job, files: CheckedFile[], vaultKey: Uint8Array): Promise<void> {
    const signal = job.controller.signal
    const first = files[0]!.item
    const vaultId = first.vaultId
    const identities = files.map((f) => f.identity)
    const createdAtMs = this.#now()
    const client = await this.#options.clientFor(first.connectionId)
    // The batch's last bundle carries the vault manifest: the files of this bundle are hashed first,
    // as the manifest (which lists them) comes before their contents.
    const manifest = files.some((f) => f.item.carriesManifest)
      ? await this.#manifestFor(client, vaultId, vaultKey, files, createdAtMs)
      : undefined
    const encryptedBytes = this.#cipher.encryptedBundleLength(identities, manifest?.blob.length ?? 0)
    const credits = uploadCostCredits(encryptedBytes)
    const weights = identities.map(bundleWeight)
    const creditShares = splitByWeight(credits, weights)
    const byteShares = splitByWeight(encryptedBytes, weights)
    const balance = await this.#balance(client, vaultId, signal)
    const reservedByOthers = this.#reserved.get(vaultId) ?? 0
    const n = files.length
    const sized = (k: number): Partial<UploadItem> => ({
      sizeBytes: files[k]!.size,
      mtimeMs: files[k]!.mtimeMs,
      encryptedBytes: byteShares[k]!,
      estimatedCredits: creditShares[k]!,
      balanceCredits: balance,
    })
    const indexOf = new Map(files.map((f, k) => [f.item, k]))
    if (credits > balance - reservedByOthers) {
      this.#balances.delete(vaultId)
      return this.#settle(job, (item) => ({
        state: 'failed',
        ...sized(indexOf.get(item)!),
        error: {
          code: 'INSUFFICIENT_CREDITS',
          message: `${isolateName(item.relativePath)} goes up in one bundle with ${n - 1} other small files, which needs ${credits} credits (${creditsToDollars(credits)}) and the balance is ${balance} credits${reservedByOthers ? ` (${reservedByOthers} held for uploads in progress)` : ''}. Add credits, then retry; nothing was sent or charged.`,
        },
      }))
    }
    const unreserve = this.#reserve(vaultId, credits)
    try {
      const hidden = this.#hidesNames(vaultId)
      const contentBytes = files.reduce((sum, f) => sum + f.size, 0)
      // No file name reaches the service: they are all sealed inside the bundle.
      const names = serviceNames(hidden, `Bundle of ${n} small files`)
      const metadata = bundleMetadata(n, contentBytes, hidden, manifest !== undefined)
      const cipher = this.#cipher
      // Each file's SHA-256 as it is read, so the index needs no second pass over small files.
      const hashes = new Map<UploadItem, string>()
      // The files are read one after the other: one pair of buffers serves them all.
      const largest = Math.max(1, ...files.map((f) => f.size))
      const body = buildMultipartBodyFor(names, 'application/octet-stream', metadata, encryptedBytes, () => {
        const buffers = readBuffers(largest)
        return cipher.encryptBundleStream(
          files.map((f) => ({
            identity: f.identity,
            content: () =>
              readUnchangedFile(
                f.item.path,
                f.size,
                f.mtimeMs,
                (message) => job.controller.abort(new AbortReason('file-changed', message, f.item.id)),
                {
                  onHashed: (sha256) => {
                    const listed = manifest?.hashes.get(f.item)
                    if (listed && listed !== sha256) {
                      // Same size and time, other bytes: the manifest would list what was not sent.
                      const message = `${basename(f.item.path)} changed while it was being uploaded, so nothing was stored. Wait until it is no longer being written (or close the program using it), then retry.`
                      job.controller.abort(new AbortReason('file-changed', message, f.item.id))
                      throw new Error(message)
                    }
                    hashes.set(f.item, sha256)
                  },
                  buffers,
                },
              ),
          })),
          { vaultKey, vaultId, createdAtMs, ...(manifest ? { manifest: manifest.blob } : {}) },
        )
      })
      this.#store.write(() => {
        for (const [k, f] of files.entries()) {
          this.#set(f.item, {
            state: 'uploading',
            ...sized(k),
            totalBytes: body.contentLength,
            ...(hidden ? { nameHidden: true } : {}),
          })
        }
      })
      const asset = await this.#send(job, client, { vaultId, body, signal, credits, balance })
      const consumed = splitByWeight(asset.creditsConsumed, weights)
      const uploadedAt = asset.createdAt ?? new Date(this.#now()).toISOString()
      // Every file done and the index pointing each at the bundle (superseding its older copy), at once.
      this.#store.write(() => {
        for (const [k, f] of files.entries()) {
          this.#release(job, f.item)
          this.#set(f.item, {
            state: 'done',
            asset,
            creditsConsumed: consumed[k]!,
            sentBytes: body.contentLength,
          })
        }
        this.#index.recordAll(
          files.map(
            (f): UploadIndexEntry => ({
              vaultId,
              path: f.item.path,
              relativePath: f.item.relativePath,
              size: f.size,
              mtimeMs: f.mtimeMs,
              ...(hashes.has(f.item) ? { sha256: hashes.get(f.item)! } : {}),
              assetId: asset.id,
              uploadedAt,
              writtenAtMs: createdAtMs,
            }),
          ),
        )
        if (manifest) {
          this.#manifests.stored(vaultId, {
            sequence: manifest.sequence,
            listing: manifest.listing,
            asset: { id: asset.id, createdAt: uploadedAt },
            vaultKey,
          })
        }
      })
    } finally {
      unreserve()
    }
  }

  /** The manifest a carrier bundle embeds: the vault's files once this bundle is stored, encrypted. */
  async #manifestFor(
    client: VaultApiClient,
    vaultId: string,
    vaultKey: Uint8Array,
    files: readonly CheckedFile[],
    createdAtMs: number,
  ): Promise<{
    blob: Uint8Array
    sequence: number
    listing: ManifestListing
    hashes: Map<UploadItem, string>
  }> {
    const hashes = new Map<UploadItem, string>()
    const adding: ManifestEntry[] = []
    for (const f of files) {
      const sha256 = await sha256OfFile(f.item.path)
      hashes.set(f.item, sha256)
      adding.push({ path: f.identity.path, size: f.size, sha256, writtenAtMs: createdAtMs })
    }
    await this.#manifests.sync(client, vaultId, vaultKey)
    const listing = await this.#manifests.listing(vaultId, adding)
    this.#tellUnlisted(vaultId, listing)
    const sequence = this.#manifests.takeSequence(vaultId)
    const blob = await encryptManifest(this.#manifests.manifest(sequence, listing, this.#now()), {
      vaultKey,
      vaultId,
    })
    return { blob, sequence, listing, hashes }
  }

  /** Once nothing of a batch waits or goes up, the vault manifest follows what changed. */
  #batchMayHaveEnded(item: UploadItem): void {
    const counts = this.#batches.get(item.batchId)?.counts
    if (counts && counts.queued + counts.checking + counts.uploading > 0) return
    void this.#writeManifest(item.vaultId, item.connectionId)
  }

  /**
   * Writes the vault's manifest as a blob of its own, unless the newest one stored already lists
   * exactly the vault's files (it rode in the batch's bundle). One at a time per vault; the queue is
   * idle only once it is done. A failure is logged and tried again after the next change.
   */
  #writeManifest(vaultId: string, connectionId: string | undefined, strict = false): Promise<void> {
    const previous = this.#manifestChain.get(vaultId) ?? Promise.resolve()
    let failure: { error: unknown } | undefined
    const write = previous.then(async () => {
      try {
        await this.#writeManifestNow(vaultId, connectionId)
      } catch (error) {
        failure = { error }
        const why =
          error instanceof AppError
            ? error.userMessage
            : error instanceof Error
              ? error.message
              : String(error)
        this.emit('manifest-problem', {
          vaultId,
          message: `The vault's list of its files (its manifest) could not be stored: ${why} Your files are stored, and recovery finds them, but cannot yet tell that they are the newest copies. It is tried again after your next upload.`,
        })
      }
    })
    this.#manifestChain.set(vaultId, write)
    this.#manifestWrites.add(write)
    void write.finally(() => {
      this.#manifestWrites.delete(write)
      if (this.#manifestChain.get(vaultId) === write) this.#manifestChain.delete(vaultId)
      this.#notifyIdle()
    })
    // The chain itself never rejects (the next write must run); a strict caller gets the failure.
    return strict
      ? write.then(() => {
          if (failure) throw failure.error
        })
      : write
  }

  async #writeManifestNow(vaultId: string, connectionId: string | undefined): Promise<void> {
    const vaultKey = await this.#options.vaultKeys.get(vaultId)
    if (!vaultKey) return
    const client = await this.#options.clientFor(connectionId)
    await this.#manifests.sync(client, vaultId, vaultKey)
    const listing = await this.#manifests.listing(vaultId)
    this.#tellUnlisted(vaultId, listing)
    if (this.#manifests.isStored(vaultId, listing, vaultKey)) return
    const sequence = this.#manifests.takeSequence(vaultId)
    const blob = await encryptManifest(this.#manifests.manifest(sequence, listing, this.#now()), {
      vaultKey,
      vaultId,
    })
    const body = buildMultipartBodyFor(
      serviceNames(true, ''),
      'application/octet-stream',
      manifestMetadata(),
      blob.length,
      async function* () {
        yield blob
      },
    )
    const asset = await client.uploadAsset({
      vaultId,
      body: body.stream,
      contentType: body.contentType,
      contentLength: body.contentLength,
      creditsNeeded: uploadCostCredits(blob.length),
    })
    const cached = this.#balances.get(vaultId)
    if (cached) cached.credits -= asset.creditsConsumed
    this.#manifests.stored(vaultId, {
      sequence,
      listing,
      asset: { id: asset.id, createdAt: asset.createdAt ?? new Date(this.#now()).toISOString() },
      vaultKey,
    })
  }

  /** Files the manifest cannot list (their content unknown here): the owner hears once per set. */
  #tellUnlisted(vaultId: string, listing: ManifestListing): void {
    const key = listing.unlisted.join('\n')
    if (!key || this.#toldUnlisted.get(vaultId) === key) return
    this.#toldUnlisted.set(vaultId, key)
    const n = listing.unlisted.length
    const named = listing.unlisted.slice(0, 3).map(isolateName).join(', ')
    this.emit('manifest-problem', {
      vaultId,
      message: `${n === 1 ? '1 file' : `${n} files`} uploaded by an earlier version changed on this computer since, so ${n === 1 ? 'its' : 'their'} stored content is not known here and the vault's list of files (its manifest) leaves ${n === 1 ? 'it' : 'them'} out: ${named}${n > 3 ? ', …' : ''}. Back ${n === 1 ? 'it' : 'them'} up again so that recovery counts ${n === 1 ? 'it' : 'them'}.`,
    })
  }

  /**
   * Writes the vault's manifest now if the newest stored one does not list its files under its
   * current key (after a key rotation, say). Resolves once written, or its failure told.
   */
  refreshManifest(vaultId: string, connectionId?: string): Promise<void> {
    return this.#writeManifest(vaultId, connectionId)
  }

  /**
   * Deleted files (uploads/file-removal.ts) leave the vault's list: their index rows are forgotten,
   * they are no longer carried from another computer's manifest, and the manifest is written without
   * them. Rejects when the manifest could not be stored (the owner is told as after an upload too).
   */
  async forgetFiles(vaultId: string, paths: ReadonlySet<string>, connectionId?: string): Promise<void> {
    this.#store.write(() => {
      for (const row of this.#store.entriesOfVault(vaultId)) {
        if (paths.has(sealedPath(row.relativePath))) this.#store.forgetEntry(vaultId, row.path)
      }
    })
    this.#manifests.dropCarried(vaultId, paths)
    await this.#writeManifest(vaultId, connectionId, true)
  }

  /**
   * Takes a file (or a bundle of files) out of the vault on the service, forgets it here, and
   * writes the manifest without it. Resolves once the manifest was written (or its failure logged).
   */
  async deleteAsset(
    vaultId: string,
    assetId: string,
    connectionId?: string,
  ): Promise<{ contentRemoved: boolean }> {
    const client = await this.#options.clientFor(connectionId)
    // Uploaded from another computer: its authenticated records say which files leave with it.
    const vaultKey = await this.#options.vaultKeys.get(vaultId)
    const elsewhere =
      vaultKey && this.#index.filesOfAsset(vaultId, assetId).length === 0
        ? await pathsOfAsset(client, vaultId, vaultKey, assetId)
        : new Set<string>()
    const answer = await client.deleteAsset(vaultId, assetId)
    this.#index.forgetAsset(vaultId, assetId)
    this.#manifests.dropCarried(vaultId, elsewhere)
    await this.#writeManifest(vaultId, connectionId)
    return { contentRemoved: answer.contentRemoved }
  }

  async #balance(client: VaultApiClient, vaultId: string, signal: AbortSignal): Promise<number> {
    const cached = this.#balances.get(vaultId)
    if (cached && this.#now() - cached.at < BALANCE_TTL_MS) return cached.credits
    const vault = await client.getVault(vaultId, signal)
    this.#balances.set(vaultId, { credits: vault.creditsBalance, at: this.#now() })
    return vault.creditsBalance
  }

  /** Progress of a job: one event per interval for the whole job (a bundle reports once, not per file). */
  /** One upload of a prepared body (a file or a bundle), with progress; the cached balance follows the charge. */
  async #send(
    job: Job,
    client: VaultApiClient,
    upload: { vaultId: string; body: MultipartBody; signal: AbortSignal; credits: number; balance: number },
  ): Promise<UploadedAsset> {
    const { vaultId, body } = upload
    const progress = this.#progressTracker(job)
    const asset = await client.uploadAsset({
      vaultId,
      body: body.stream,
      contentType: body.contentType,
      contentLength: body.contentLength,
      signal: upload.signal,
      onProgress: progress,
      creditsNeeded: upload.credits,
      creditsBalance: upload.balance,
    })
    progress(body.contentLength, body.contentLength, true)
    const cached = this.#balances.get(vaultId)
    if (cached) cached.credits -= asset.creditsConsumed
    return asset
  }

  #progressTracker(job: Job): (sent: number, total: number, final?: boolean) => void {
    const interval = this.#options.progressIntervalMs ?? 250
    const started = this.#now()
    const lead = firstOf(job.items)!
    const bundle = job.items.size > 1 ? job.bundleId : undefined
    let lastEmit = 0
    let lastSample = { at: started, bytes: 0 }
    let rate = 0
    return (sent, total, final = false) => {
      const now = this.#now()
      lead.sentBytes = sent
      if (!final && now - lastEmit < interval) return
      for (const item of job.items) item.sentBytes = sent
      const dt = (now - lastSample.at) / 1000
      if (dt > 0) {
        const instant = (sent - lastSample.bytes) / dt
        // Smooth over ~4 samples so the ETA does not jump around.
        rate = rate === 0 ? instant : rate * 0.75 + instant * 0.25
        lastSample = { at: now, bytes: sent }
      }
      lastEmit = now
      this.emit('progress', {
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
}

function firstOf<T>(set: ReadonlySet<T>): T | undefined {
  for (const value of set) return value
  return undefined
}

/** The name field the service keeps, and the file part's name. */
export interface ServiceNames {
  field: string
  part: string
}

/** Neutral names unless the owner chose real ones for the vault; the encrypted file ends in .c2sp. */
export function serviceNames(hidden: boolean, realName: string): ServiceNames {
  if (!hidden) return { field: realName, part: `${realName}.c2sp` }
  const neutral = neutralFileName()
  return { field: neutral, part: neutral }
}

export function buildMultipartBodyFor(
  names: ServiceNames,
  contentType: string,
  metadata: string,
  length: number,
  content: () => AsyncIterable<Uint8Array>,
) {
  return buildMultipartBody(
    [
      ['filename', names.field],
      ['contentType', contentType],
      ['metadata', metadata],
    ],
    {
      fieldName: 'file',
      filename: names.part,
      contentType: 'application/octet-stream',
      length,
      content,
    },
  )
}

function formatGB(bytes: number): string {
  return (Math.floor(bytes / 1e6) / 1e3).toFixed(3)
}

/** The largest file (plaintext bytes) whose encrypted form fits the service's per-file limit. */
export function largestUploadableFile(encryptedLength: (plaintext: number) => number): number {
  let low = 0
  let high = LIMITS.maxFileBytes
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (encryptedLength(mid) <= LIMITS.maxFileBytes) low = mid
    else high = mid - 1
  }
  return low
}

/** What the service sees of a file when names are hidden: no name, path, type or date. */
export function hiddenUploadMetadata(): string {
  return JSON.stringify({ encryption: 'vault-desktop/file/v3', nameSealedInside: true })
}

/**
 * What the service sees of a bundle: that it is one, and how many files it holds; never their names
 * (with names hidden, not their total size either).
 */
export function bundleMetadata(
  fileCount: number,
  contentBytes: number,
  hidden: boolean,
  carriesManifest = false,
): string {
  return JSON.stringify({
    encryption: 'vault-desktop/bundle/v2',
    bundle: true,
    fileCount,
    ...(hidden ? { nameSealedInside: true } : { plaintextBytes: contentBytes }),
    ...(carriesManifest ? { [MANIFEST_METADATA_FLAG]: true } : {}),
  })
}

/** What the service sees of a manifest stored alone: that it is one (so a new computer finds it), nothing else. */
export function manifestMetadata(): string {
  return JSON.stringify({ encryption: 'vault-desktop/manifest/v1', [MANIFEST_METADATA_FLAG]: true })
}

/** A neutral, unique name for the service, telling nothing about the file (nor whether it is a bundle). */
export function neutralFileName(): string {
  return `file-${randomBytes(8).toString('hex')}.vault`
}

/** The metadata field: the relative path (for folder backups) and what is needed to restore. */
export function uploadMetadata(relativePath: string, size: number, mtimeMs: number): string {
  let path = relativePath
  for (;;) {
    const json = JSON.stringify({
      relativePath: path,
      plaintextBytes: size,
      modifiedAt: new Date(mtimeMs).toISOString(),
      encryption: 'vault-desktop/file/v3',
    })
    if (Buffer.byteLength(json) <= LIMITS.metadataMaxBytes) return json
    // Keep the end of an extremely long path; the file name matters most.
    path = `…${path.slice(Math.ceil(path.length / 4))}`
  }
}

/** Two read buffers, large enough for the largest piece read (at most 1 MiB). */
function readBuffers(largestFile: number): [Buffer, Buffer] {
  const bytes = Math.max(1, Math.min(READ_BYTES, largestFile))
  return [Buffer.allocUnsafeSlow(bytes), Buffer.allocUnsafeSlow(bytes)]
}

/**
 * Reads exactly `size` bytes and checks at the end that the file still has the size and
 * modification time seen before: a file written to during the upload fails instead of being stored
 * half old, half new. Runs before the multipart tail, so the service never completes that upload.
 * `onHashed` receives the SHA-256 of what was read once it is known unchanged; `buffers` may be
 * shared by files read one after the other (a bundle's).
 */
async function* readUnchangedFile(
  path: string,
  size: number,
  mtimeMs: number,
  onChanged: (message: string) => void,
  options: { onHashed?: (sha256: string) => void; buffers?: [Buffer, Buffer] } = {},
): AsyncGenerator<Uint8Array> {
  let read = 0
  let pending: Promise<number> | undefined
  const hash = options.onHashed ? createHash('sha256') : undefined
  if (size > 0) {
    // Two buffers used in turn: the next read runs while the consumer encrypts the previous one, and
    // no fresh memory per MiB means far less garbage collection on the main thread.
    const file = await open(path, 'r')
    try {
      const buffers = options.buffers ?? readBuffers(size)
      const bytes = buffers[0].length
      const readInto = (buffer: Buffer) =>
        file.read(buffer, 0, Math.min(bytes, size - read), read).then((r) => r.bytesRead)
      let turn = 0
      pending = readInto(buffers[turn]!)
      for (;;) {
        const n = await pending
        if (n === 0) break
        const current = buffers[turn]!
        read += n
        turn = 1 - turn
        pending = read < size ? readInto(buffers[turn]!) : Promise.resolve(0)
        const piece = current.subarray(0, n)
        hash?.update(piece)
        yield piece
      }
    } finally {
      // Stopped early (cancel, failure): let the read in flight finish before closing.
      await pending?.catch(() => 0)
      await file.close()
    }
  }
  await checkUnchanged(path, size, mtimeMs, read, onChanged)
  if (hash) options.onHashed?.(hash.digest('hex'))
}

/** Throws (after telling `onChanged`) unless `read` is the size seen before and size and time are unchanged. */
async function checkUnchanged(
  path: string,
  size: number,
  mtimeMs: number,
  read: number,
  onChanged: (message: string) => void,
): Promise<void> {
  const after = await stat(path).catch(() => undefined)
  if (read !== size || !after || after.size !== size || after.mtimeMs !== mtimeMs) {
    const message = `${basename(path)} changed while it was being uploaded, so nothing was stored. Wait until it is no longer being written (or close the program using it), then retry.`
    onChanged(message)
    throw new Error(message)
  }
}
