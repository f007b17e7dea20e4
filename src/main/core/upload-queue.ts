// Persistent queue of encrypted uploads. Each item: stat -> checks (size limit, unchanged-file
// skip, vault key, credit estimate against the balance, all before a byte is sent) -> read stream
// -> chunked encryption -> hand-built multipart body with exact Content-Length -> got stream ->
// progress -> asset. The queue file survives restarts; interrupted items start over from the
// beginning. Cancel aborts the request: the service discards a partial body, so it costs nothing.
import { randomBytes, randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { open, stat } from 'node:fs/promises'
import { basename, join, sep } from 'node:path'
import { creditsToDollars, LIMITS, uploadCostCredits } from '../../shared/api'
import type {
  UploadEstimateView,
  UploadItemView,
  UploadProgressView,
  UploadState,
} from '../../shared/ipc/vault-types'
import { type VaultApiClient, VaultApiError } from './api-client'
import { detectContentType } from './content-type'
import {
  checkIdentityPath,
  encryptStream as cobblestoneEncryptStream,
  encryptedFileLength,
  type FileIdentity,
} from './crypto'
import { type ScannedFile, type SkippedEntry, scanForUpload } from './folder-scan'
import { JsonFileWriter, readJsonFile } from './json-file'
import { buildMultipartBody } from './multipart-body'
import { UploadIndex } from './upload-index'

export type { UploadState }

export interface UploadItemError {
  code: string
  /** A sentence for the user: what happened and what to do. */
  message: string
  requestId?: string
}

/** The queue's record of one file: what the UI is shown, plus what only the main process needs. */
export interface UploadItem extends UploadItemView {
  connectionId?: string
  path: string
  force: boolean
  mtimeMs?: number
  /** Sent to the service under a neutral name (Settings: hide file names from the service). */
  nameHidden?: boolean
  /** Balance seen at the credit check. */
  balanceCredits?: number
  contentType?: string
  error?: UploadItemError
}

export interface UploadProgress extends UploadProgressView {
  batchId: string
  relativePath: string
}

export interface UploadEstimate extends UploadEstimateView {
  /** Files already uploaded unchanged (same path, size, time): skipped unless forced, not counted above. */
  unchanged: string[]
  skipped: SkippedEntry[]
}

export interface UploadCipher {
  /** Exact blob length: the file's size and its path, both sealed inside (FORMAT.md, format 2). */
  encryptedLength(identity: FileIdentity): number
  /** `source` reuses its buffers: a chunk is valid only until the next one is requested. */
  encryptStream(
    source: AsyncIterable<Uint8Array>,
    options: { vaultKey: Uint8Array; vaultId: string; identity: FileIdentity },
  ): AsyncIterable<Uint8Array>
}

export interface VaultKeySource {
  get(vaultId: string): Promise<Uint8Array | null>
}

export interface UploadQueueEvents {
  item: [UploadItem]
  progress: [UploadProgress]
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
  /** Send neutral names to the service (see setHideFileNames). */
  hideFileNames?: boolean
  now?: () => number
}

interface QueueFile {
  version: 1
  items: UploadItem[]
}

/** Why an in-flight request was aborted. */
class AbortReason extends Error {
  constructor(
    readonly kind: 'cancel' | 'stop' | 'file-changed',
    message: string,
  ) {
    super(message)
  }
}

const BALANCE_TTL_MS = 15_000
const READ_BYTES = 1 << 20
/**
 * Cobblestone encryption on the main thread by default: with the service and the network on the
 * other cores it keeps up with the upload (~1 GB/s per core), and worker threads would add ~60 MB
 * of resident memory. `parallelEncryption` turns the worker pool on for machines with spare cores.
 */
function cobblestoneCipher(parallel: boolean): UploadCipher {
  return {
    encryptedLength: encryptedFileLength,
    encryptStream: (source, options) => cobblestoneEncryptStream(source, { ...options, parallel }),
  }
}

export class UploadQueue extends EventEmitter<UploadQueueEvents> {
  readonly #items: UploadItem[]
  readonly #writer: JsonFileWriter<QueueFile>
  readonly #index: UploadIndex
  readonly #options: UploadQueueOptions
  readonly #cipher: UploadCipher
  readonly #now: () => number
  #concurrency: number
  #hideFileNames: boolean
  #running = false
  readonly #active = new Map<string, { controller: AbortController; done: Promise<void> }>()
  readonly #balances = new Map<string, { credits: number; at: number }>()
  readonly #reserved = new Map<string, number>()
  #idleWaiters: Array<() => void> = []
  /** Hashing of uploaded files for the unchanged-file index; runs only while nothing uploads. */
  #hashing: { controller: AbortController; done: Promise<void> } | undefined

  private constructor(options: UploadQueueOptions, items: UploadItem[], index: UploadIndex) {
    super()
    this.#options = options
    this.#items = items
    this.#index = index
    this.#writer = new JsonFileWriter(join(options.userDataDir, 'upload-queue.json'))
    this.#cipher = options.cipher ?? cobblestoneCipher(options.parallelEncryption ?? false)
    this.#now = options.now ?? Date.now
    this.#concurrency = Math.max(1, options.concurrency ?? 2)
    this.#hideFileNames = options.hideFileNames ?? false
  }

  static async open(options: UploadQueueOptions): Promise<UploadQueue> {
    const file = join(options.userDataDir, 'upload-queue.json')
    const data = await readJsonFile<QueueFile>(file, { version: 1, items: [] })
    const items = Array.isArray(data.items) ? data.items : []
    const stamp = new Date().toISOString()
    for (const item of items) {
      // The app stopped mid-item: the service discarded the partial body; start over.
      if (item.state === 'checking' || item.state === 'uploading') {
        item.state = 'queued'
        item.sentBytes = 0
        item.note = 'interrupted when the app closed; restarting from the beginning'
        item.updatedAt = stamp
      }
    }
    const queue = new UploadQueue(options, items, await UploadIndex.open(options.userDataDir))
    await queue.#persist()
    if (options.autoStart !== false) queue.start()
    return queue
  }

  get index(): UploadIndex {
    return this.#index
  }

  list(): UploadItem[] {
    return this.#items.map((i) => ({ ...i }))
  }

  get(itemId: string): UploadItem | undefined {
    const item = this.#items.find((i) => i.id === itemId)
    return item ? { ...item } : undefined
  }

  setConcurrency(n: number): void {
    this.#concurrency = Math.max(1, Math.floor(n))
    this.#pump()
  }

  /** Uploads that start from now on send a neutral name (the real one is sealed inside the blob). */
  setHideFileNames(hide: boolean): void {
    this.#hideFileNames = hide
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
    let toUpload = 0
    let plaintextBytes = 0
    let encryptedBytes = 0
    let credits = 0
    const tooLarge: string[] = []
    const unchanged: string[] = []
    for (const f of files) {
      const path = sealedPath(f.relativePath)
      const nameProblem = checkIdentityPath(path)
      if (nameProblem) {
        skipped.push({ path: f.path, reason: 'bad-name', detail: `${f.relativePath}: ${nameProblem}` })
        continue
      }
      const enc = this.#cipher.encryptedLength({ path, size: f.size })
      if (enc > LIMITS.maxFileBytes) {
        tooLarge.push(f.relativePath)
        continue
      }
      const earlier = force ? undefined : this.#index.find(vaultId, f.path)
      if (earlier && earlier.size === f.size && earlier.mtimeMs === f.mtimeMs) {
        unchanged.push(f.relativePath)
        continue
      }
      toUpload++
      plaintextBytes += f.size
      encryptedBytes += enc
      credits += uploadCostCredits(enc)
    }
    return {
      vaultId,
      files: toUpload,
      plaintextBytes,
      encryptedBytes,
      credits,
      dollars: creditsToDollars(credits),
      balanceCredits: vault.creditsBalance,
      enough: credits <= vault.creditsBalance,
      reserveCredits: reserve.credits,
      reserveMonths: reserve.months,
      eatsReserve: credits > 0 && reserve.credits > 0 && vault.creditsBalance - credits < reserve.credits,
      tooLarge,
      unchanged,
      skipped,
    }
  }

  /** Queues files and folders (recursively) for upload to a vault. */
  async enqueue(request: {
    vaultId: string
    paths: string[]
    force?: boolean
    connectionId?: string
  }): Promise<{ batchId: string; items: UploadItem[]; skipped: SkippedEntry[] }> {
    const { files, skipped } = await scanForUpload(request.paths)
    const batchId = randomUUID()
    const stamp = new Date(this.#now()).toISOString()
    const added = files.map(
      (f: ScannedFile): UploadItem => ({
        id: randomUUID(),
        batchId,
        ...(request.connectionId ? { connectionId: request.connectionId } : {}),
        vaultId: request.vaultId,
        path: f.path,
        relativePath: f.relativePath,
        force: request.force ?? false,
        state: 'queued',
        sizeBytes: f.size,
        mtimeMs: f.mtimeMs,
        sentBytes: 0,
        createdAt: stamp,
        updatedAt: stamp,
      }),
    )
    this.#items.push(...added)
    await this.#persist()
    for (const item of added) this.emit('item', { ...item })
    this.#pump()
    return { batchId, items: added.map((i) => ({ ...i })), skipped }
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
    const active = [...this.#active.values()]
    for (const a of active) a.controller.abort(new AbortReason('stop', 'the app is closing'))
    await Promise.all(active.map((a) => a.done))
    await this.#persist()
    await this.#index.flush()
  }

  /** Cancels a queued or running item; a running request is aborted and costs nothing. */
  async cancel(itemId: string): Promise<boolean> {
    const item = this.#items.find((i) => i.id === itemId)
    if (!item) return false
    const active = this.#active.get(itemId)
    if (active) {
      active.controller.abort(new AbortReason('cancel', 'cancelled by you'))
      await active.done
      return true
    }
    if (item.state !== 'queued') return false
    this.#set(item, { state: 'cancelled', note: 'cancelled before it started' })
    await this.#persist()
    return true
  }

  async cancelBatch(batchId: string): Promise<number> {
    const ids = this.#items.filter((i) => i.batchId === batchId).map((i) => i.id)
    let n = 0
    for (const id of ids) if (await this.cancel(id)) n++
    return n
  }

  /** Puts a failed or cancelled item back in the queue; `force` uploads even an unchanged file. */
  async retry(itemId: string, force?: boolean): Promise<boolean> {
    const item = this.#items.find((i) => i.id === itemId)
    if (!item || !['failed', 'cancelled', 'skipped'].includes(item.state)) return false
    this.#set(item, {
      state: 'queued',
      sentBytes: 0,
      error: undefined,
      note: undefined,
      force: force ?? item.force,
    })
    await this.#persist()
    this.#pump()
    return true
  }

  /** Drops finished items (done, skipped, failed, cancelled) from the list. */
  async clearFinished(): Promise<number> {
    const before = this.#items.length
    const keep = this.#items.filter((i) => i.state === 'queued' || this.#active.has(i.id))
    this.#items.splice(0, this.#items.length, ...keep)
    await this.#persist()
    return before - keep.length
  }

  /** Resolves when nothing is queued or running. */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve()
    return new Promise((resolve) => this.#idleWaiters.push(resolve))
  }

  #uploadsIdle(): boolean {
    return this.#active.size === 0 && (!this.#running || !this.#items.some((i) => i.state === 'queued'))
  }

  #isIdle(): boolean {
    return this.#uploadsIdle() && !this.#hashing
  }

  #pump(): void {
    while (this.#running && this.#active.size < this.#concurrency) {
      const next = this.#items.find((i) => i.state === 'queued' && !this.#active.has(i.id))
      if (!next) break
      // An upload has priority over background hashing.
      this.#hashing?.controller.abort()
      const controller = new AbortController()
      const entry = { controller, done: Promise.resolve() }
      this.#active.set(next.id, entry)
      entry.done = this.#process(next, controller).finally(() => {
        this.#active.delete(next.id)
        this.#pump()
      })
    }
    if (this.#uploadsIdle() && this.#running && !this.#hashing && this.#index.unhashed().length > 0) {
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

  async #process(item: UploadItem, controller: AbortController): Promise<void> {
    const signal = controller.signal
    let reservedCredits = 0
    try {
      this.#set(item, { state: 'checking', sentBytes: 0, error: undefined, note: undefined })
      await this.#persist()

      let info: Awaited<ReturnType<typeof stat>>
      try {
        info = await stat(item.path)
      } catch (error) {
        return this.#fail(item, {
          code: 'FILE_MISSING',
          message: `${item.relativePath} can no longer be read (${(error as NodeJS.ErrnoException).code ?? 'error'}). Check that the file still exists, then retry.`,
        })
      }
      if (!info.isFile()) {
        return this.#fail(item, {
          code: 'NOT_A_FILE',
          message: `${item.relativePath} is no longer a regular file.`,
        })
      }
      const size = info.size
      const mtimeMs = info.mtimeMs
      this.#set(item, { sizeBytes: size, mtimeMs })
      // The blob carries the path: a name no other system could safely recreate is refused up front.
      const identity: FileIdentity = { path: sealedPath(item.relativePath), size }
      const nameProblem = checkIdentityPath(identity.path)
      if (nameProblem) {
        return this.#fail(item, {
          code: 'BAD_FILE_NAME',
          message: `${item.relativePath} cannot be backed up under this name: ${nameProblem} Rename the file, then upload it again.`,
        })
      }
      // The service's 5 GB limit applies to what it stores: the ciphertext, a little larger than the file.
      const encryptedBytes = this.#cipher.encryptedLength(identity)
      if (encryptedBytes > LIMITS.maxFileBytes) {
        return this.#fail(item, {
          code: 'FILE_TOO_LARGE',
          message: `${item.relativePath} is ${formatGB(size)} GB and ${formatGB(encryptedBytes)} GB once encrypted; the limit is 5 GB per file. Split or compress it, then upload the parts.`,
        })
      }
      if (!item.force) {
        const earlier = await this.#index.unchangedSince(item.vaultId, item.path, size, mtimeMs)
        if (earlier) {
          this.#set(item, {
            state: 'skipped',
            note: `already uploaded unchanged on ${earlier.uploadedAt.slice(0, 10)} (asset ${earlier.assetId}); upload again with "force" to store another copy`,
          })
          await this.#persist()
          return
        }
      }
      const vaultKey = await this.#options.vaultKeys.get(item.vaultId)
      if (!vaultKey) {
        return this.#fail(item, {
          code: 'NO_VAULT_KEY',
          message:
            'This device has no encryption key for this vault. Import the owner recovery kit for the vault (or create a key if the vault has no files yet), then retry.',
        })
      }

      const client = await this.#options.clientFor(item.connectionId)
      const estimatedCredits = uploadCostCredits(encryptedBytes)
      const balance = await this.#balance(client, item.vaultId, signal)
      const reservedByOthers = this.#reserved.get(item.vaultId) ?? 0
      this.#set(item, { encryptedBytes, estimatedCredits, balanceCredits: balance })
      if (estimatedCredits > balance - reservedByOthers) {
        return this.#fail(item, {
          code: 'INSUFFICIENT_CREDITS',
          message: `${item.relativePath} needs ${estimatedCredits} credits (${creditsToDollars(estimatedCredits)}) and the balance is ${balance} credits${reservedByOthers ? ` (${reservedByOthers} held for uploads in progress)` : ''}. Add credits, then retry; nothing was sent or charged.`,
        })
      }
      reservedCredits = estimatedCredits
      this.#reserved.set(item.vaultId, reservedByOthers + reservedCredits)

      const hidden = this.#hideFileNames
      const contentType = hidden ? 'application/octet-stream' : await detectContentType(item.path)
      const metadata = hidden ? hiddenUploadMetadata() : uploadMetadata(item.relativePath, size, mtimeMs)
      const serviceName = hidden ? neutralFileName() : basename(item.relativePath)
      const cipher = this.#cipher
      const body = buildMultipartBody(
        [
          ['filename', serviceName],
          ['contentType', contentType],
          ['metadata', metadata],
        ],
        {
          fieldName: 'file',
          filename: `${serviceName}.c2sp`,
          contentType: 'application/octet-stream',
          length: encryptedBytes,
          content: () =>
            cipher.encryptStream(
              readUnchangedFile(item.path, size, mtimeMs, (message) =>
                controller.abort(new AbortReason('file-changed', message)),
              ),
              { vaultKey, vaultId: item.vaultId, identity },
            ),
        },
      )
      this.#set(item, {
        state: 'uploading',
        contentType,
        totalBytes: body.contentLength,
        ...(hidden ? { nameHidden: true } : {}),
      })
      await this.#persist()

      const progress = this.#progressTracker(item)
      const asset = await client.uploadAsset({
        vaultId: item.vaultId,
        body: body.stream,
        contentType: body.contentType,
        contentLength: body.contentLength,
        signal,
        onProgress: progress,
        creditsNeeded: estimatedCredits,
        creditsBalance: balance,
      })
      progress(body.contentLength, body.contentLength, true)
      const cached = this.#balances.get(item.vaultId)
      if (cached) cached.credits -= asset.creditsConsumed
      this.#set(item, {
        state: 'done',
        asset,
        creditsConsumed: asset.creditsConsumed,
        sentBytes: body.contentLength,
      })
      await this.#persist()
      await this.#index.record({
        vaultId: item.vaultId,
        path: item.path,
        relativePath: item.relativePath,
        size,
        mtimeMs,
        assetId: asset.id,
        uploadedAt: asset.createdAt ?? new Date(this.#now()).toISOString(),
      })
    } catch (error) {
      const reason = signal.reason
      if (reason instanceof AbortReason) {
        if (reason.kind === 'stop') {
          this.#set(item, {
            state: 'queued',
            sentBytes: 0,
            note: 'interrupted; restarting from the beginning',
          })
        } else if (reason.kind === 'cancel') {
          this.#set(item, { state: 'cancelled', note: 'cancelled; nothing was stored or charged' })
        } else {
          this.#set(item, { state: 'failed', error: { code: 'FILE_CHANGED', message: reason.message } })
        }
        await this.#persist()
        return
      }
      if (error instanceof VaultApiError) {
        if (error.status === 402) this.#balances.delete(item.vaultId)
        return this.#fail(item, {
          code: error.code,
          message: error.userMessage,
          ...(error.requestId ? { requestId: error.requestId } : {}),
        })
      }
      return this.#fail(item, {
        code: 'UPLOAD_ERROR',
        message: `${item.relativePath} could not be uploaded: ${error instanceof Error ? error.message : String(error)}. Retry; if it fails again, check that the file can be read.`,
      })
    } finally {
      if (reservedCredits) {
        this.#reserved.set(
          item.vaultId,
          Math.max(0, (this.#reserved.get(item.vaultId) ?? 0) - reservedCredits),
        )
      }
    }
  }

  async #balance(client: VaultApiClient, vaultId: string, signal: AbortSignal): Promise<number> {
    const cached = this.#balances.get(vaultId)
    if (cached && this.#now() - cached.at < BALANCE_TTL_MS) return cached.credits
    const vault = await client.getVault(vaultId, signal)
    this.#balances.set(vaultId, { credits: vault.creditsBalance, at: this.#now() })
    return vault.creditsBalance
  }

  #progressTracker(item: UploadItem): (sent: number, total: number, final?: boolean) => void {
    const interval = this.#options.progressIntervalMs ?? 250
    const started = this.#now()
    let lastEmit = 0
    let lastSample = { at: started, bytes: 0 }
    let rate = 0
    return (sent, total, final = false) => {
      const now = this.#now()
      item.sentBytes = sent
      if (!final && now - lastEmit < interval) return
      const dt = (now - lastSample.at) / 1000
      if (dt > 0) {
        const instant = (sent - lastSample.bytes) / dt
        // Smooth over ~4 samples so the ETA does not jump around.
        rate = rate === 0 ? instant : rate * 0.75 + instant * 0.25
        lastSample = { at: now, bytes: sent }
      }
      lastEmit = now
      this.emit('progress', {
        itemId: item.id,
        batchId: item.batchId,
        vaultId: item.vaultId,
        relativePath: item.relativePath,
        sentBytes: sent,
        totalBytes: total,
        bytesPerSecond: Math.round(rate),
        etaSeconds: rate > 0 ? Math.ceil((total - sent) / rate) : null,
      })
    }
  }

  async #fail(item: UploadItem, error: UploadItemError): Promise<void> {
    this.#set(item, { state: 'failed', error })
    await this.#persist()
  }

  #set(item: UploadItem, patch: Partial<UploadItem>): void {
    Object.assign(item, patch, { updatedAt: new Date(this.#now()).toISOString() })
    for (const [k, v] of Object.entries(patch))
      if (v === undefined) delete (item as unknown as Record<string, unknown>)[k]
    this.emit('item', { ...item })
  }

  #persist(): Promise<void> {
    return this.#writer.write({ version: 1, items: this.#items })
  }
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

/** The metadata field: the relative path (for folder backups) and what is needed to restore. */
/** The path sealed in the blob: '/'-separated, NFC, as FORMAT.md requires. */
export function sealedPath(relativePath: string): string {
  return relativePath.split(sep).join('/').normalize('NFC')
}

/** What the service sees of a file when names are hidden: no name, path, type, size or date. */
export function hiddenUploadMetadata(): string {
  return JSON.stringify({ encryption: 'vault-desktop/file/v2', nameSealedInside: true })
}

/** A neutral, unique name for the service, telling nothing about the file. */
export function neutralFileName(): string {
  return `file-${randomBytes(8).toString('hex')}`
}

export function uploadMetadata(relativePath: string, size: number, mtimeMs: number): string {
  let path = relativePath
  for (;;) {
    const json = JSON.stringify({
      relativePath: path,
      plaintextBytes: size,
      modifiedAt: new Date(mtimeMs).toISOString(),
      encryption: 'vault-desktop/file/v2',
    })
    if (Buffer.byteLength(json) <= LIMITS.metadataMaxBytes) return json
    // Keep the end of an extremely long path; the file name matters most.
    path = `…${path.slice(Math.ceil(path.length / 4))}`
  }
}

/**
 * Reads exactly `size` bytes and checks at the end that the file still has the size and
 * modification time seen before: a file written to during the upload fails instead of being stored
 * half old, half new. Runs before the multipart tail, so the service never completes that upload.
 */
async function* readUnchangedFile(
  path: string,
  size: number,
  mtimeMs: number,
  onChanged: (message: string) => void,
): AsyncGenerator<Uint8Array> {
  let read = 0
  let pending: Promise<number> | undefined
  if (size > 0) {
    // Two buffers used in turn: the next read runs while the consumer encrypts the previous one, and
    // no fresh memory per MiB means far less garbage collection on the main thread.
    const file = await open(path, 'r')
    try {
      const buffers = [Buffer.allocUnsafeSlow(READ_BYTES), Buffer.allocUnsafeSlow(READ_BYTES)]
      const readInto = (buffer: Buffer) =>
        file.read(buffer, 0, Math.min(READ_BYTES, size - read), read).then((r) => r.bytesRead)
      let turn = 0
      pending = readInto(buffers[turn]!)
      for (;;) {
        const n = await pending
        if (n === 0) break
        const current = buffers[turn]!
        read += n
        turn = 1 - turn
        pending = read < size ? readInto(buffers[turn]!) : Promise.resolve(0)
        yield current.subarray(0, n)
      }
    } finally {
      // Stopped early (cancel, failure): let the read in flight finish before closing.
      await pending?.catch(() => 0)
      await file.close()
    }
  }
  const after = await stat(path).catch(() => undefined)
  if (read !== size || !after || after.size !== size || after.mtimeMs !== mtimeMs) {
    const message = `${basename(path)} changed while it was being uploaded, so nothing was stored. Wait until it is no longer being written (or close the program using it), then retry.`
    onChanged(message)
    throw new Error(message)
  }
}
