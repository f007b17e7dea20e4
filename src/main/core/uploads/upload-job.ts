// Running one job from the queue to its end: the jobs in flight, each file's checks before anything
// is sent (still there, still a regular file, a name any system can recreate, under the size limit,
// not unchanged since its last upload), the bundle trimmed to the writer's limits, then sending
// (send-job.ts), and every way it can end said as each item's state: done, failed with a sentence
// for the owner, cancelled, or back in the queue.
import { randomUUID } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { VaultApiError } from '../../../service-client'
import { LIMITS } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import { isolateName } from '../../../shared/untrusted-text'
import { checkIdentityPath, type FileIdentity } from '../../../vault-format'
import { AbortReason, type CheckedFile, type Job, type SendInputs, sendBundle, sendFile } from './send-job'
import { type BundleLimits, DEFAULT_BUNDLE_LIMITS } from './upload-bundle-plan'
import { progressTracker, type UploadProgress } from './upload-progress'
import type { UploadItem } from './upload-records'
import { sealedPath } from './vault-manifests'

export interface JobInputs extends Omit<SendInputs, 'release' | 'settle' | 'progress'> {
  vaultKey: (vaultId: string) => Promise<Uint8Array | null>
  /** False when small files are not bundled. */
  bundleLimits: BundleLimits | false
  /** Minimum interval between progress events of a job. */
  progressIntervalMs: number
  emitProgress: (progress: UploadProgress) => void
  /** A job ended: its items are settled or back in the queue. */
  ended: (items: readonly UploadItem[]) => void
}

export class UploadJobs {
  readonly #jobs = new Set<Job>()
  readonly #activeItems = new Map<string, Job>()
  readonly #send: SendInputs

  constructor(private readonly inputs: JobInputs) {
    this.#send = {
      ...inputs,
      release: (job, item) => this.#release(job, item),
      settle: (job, patchOf) => this.#settle(job, patchOf),
      progress: (job) =>
        progressTracker(job.items, job.bundleId, {
          intervalMs: inputs.progressIntervalMs,
          now: inputs.now,
          emit: inputs.emitProgress,
        }),
    }
  }

  get count(): number {
    return this.#jobs.size
  }

  /** Whether an item is part of a job in flight. */
  isActive(itemId: string): boolean {
    return this.#activeItems.has(itemId)
  }

  jobOf(itemId: string): Job | undefined {
    return this.#activeItems.get(itemId)
  }

  /** Aborts every job in flight (its items go back to the queue); resolves once they have ended. */
  async stopAll(): Promise<void> {
    const jobs = [...this.#jobs]
    for (const job of jobs) job.controller.abort(new AbortReason('stop', 'the app is closing'))
    await Promise.all(jobs.map((j) => j.done))
  }

  /** Aborts the job for the owner's cancel of one of its items (the others go back to the queue). */
  abortForCancel(job: Job, itemId: string): void {
    if (!job.controller.signal.aborted) job.controller.abort(new AbortReason('cancel', 'cancelled by you'))
    const reason = job.controller.signal.reason
    if (reason instanceof AbortReason) reason.cancelled.add(itemId)
  }

  /** Starts a job for these queued items (one file, or the queued files of one bundle). */
  start(bundleId: string | undefined, items: UploadItem[]): void {
    const { store, ledger } = this.inputs
    const job: Job = {
      bundleId,
      items: new Set(items),
      controller: new AbortController(),
      done: Promise.resolve(),
    }
    this.#jobs.add(job)
    for (const item of items) this.#activeItems.set(item.id, job)
    store.write(() => {
      for (const item of items)
        ledger.set(item, { state: 'checking', sentBytes: 0, error: undefined, note: undefined })
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
        this.inputs.ended(items)
      })
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
    this.inputs.store.write(() => {
      for (const [k, item] of items.entries()) {
        this.#release(job, item)
        this.inputs.ledger.set(item, patches[k]!)
      }
    })
  }

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
      const vaultKey = await this.inputs.vaultKey(first.vaultId)
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
        await sendFile(this.#send, job, fitting[0]!, vaultKey)
      else await sendBundle(this.#send, job, fitting, vaultKey)
    } catch (error) {
      const reason = signal.reason
      if (reason instanceof AbortReason) return this.#settleAborted(job, reason)
      if (error instanceof VaultApiError) {
        const first = firstOf(job.items)
        if (error.status === 402 && first) this.inputs.balances.forget(first.vaultId)
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
    const changed = reason.changedItemId ? this.inputs.ledger.get(reason.changedItemId) : undefined
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
      this.inputs.ledger.set(item, patch)
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
    if (job.bundleId && this.inputs.bundleLimits && size >= this.inputs.bundleLimits.fileThreshold) {
      // Grew since it was queued: no longer a small file; it goes up alone.
      return leave({ state: 'queued', sizeBytes: size, mtimeMs, bundleId: undefined })
    }
    // The service's 5 GB limit applies to what it stores: the ciphertext, a little larger than the file.
    const encryptedBytes = this.inputs.cipher.encryptedLength(identity)
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
      const earlier = await this.inputs.index.unchangedSince(item.vaultId, item.path, size, mtimeMs)
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
    const limits = this.inputs.bundleLimits || DEFAULT_BUNDLE_LIMITS
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
      this.inputs.store.write(() => {
        for (const { item, size, mtimeMs } of over) {
          this.#release(job, item)
          // Only one bundle of a batch waits for the rest; the manifest lists these files after them.
          this.inputs.ledger.set(item, {
            state: 'queued',
            sizeBytes: size,
            mtimeMs,
            bundleId,
            carriesManifest: undefined,
          })
        }
      })
    }
    return fitting
  }
}

function firstOf<T>(set: ReadonlySet<T>): T | undefined {
  for (const value of set) return value
  return undefined
}

function formatGB(bytes: number): string {
  return (Math.floor(bytes / 1e6) / 1e3).toFixed(3)
}
