// Sending one checked job: a file alone, or a bundle of small files as one asset (docs/FORMAT.md 3.9).
// The credit check against the balance comes before a byte is sent; then read -> chunked encryption
// -> multipart body with exact Content-Length -> the service, with progress; once stored, the items
// are done and the index points at the asset, in one transaction.
import { basename } from 'node:path'
import type { VaultApiClient } from '../../../service-client'
import { creditsToDollars, type UploadedAsset, uploadCostCredits } from '../../../shared/api'
import { isolateName } from '../../../shared/untrusted-text'
import type { FileIdentity } from '../../../vault-format'
import { detectContentType } from './content-type'
import type { CreditBalances } from './credit-balances'
import type { ManifestWriter } from './manifest-writer'
import type { MultipartBody } from './multipart-body'
import { checkUnchanged, readBuffers, readUnchangedFile } from './unchanged-file-read'
import { bundleWeight, splitByWeight } from './upload-bundle-plan'
import type { UploadCipher } from './upload-cipher'
import type { UploadIndex } from './upload-index'
import type { UploadLedger } from './upload-ledger'
import {
  buildMultipartBodyFor,
  bundleMetadata,
  hiddenUploadMetadata,
  serviceNames,
  uploadMetadata,
} from './upload-metadata'
import type { UploadIndexEntry, UploadItem } from './upload-records'
import type { UploadStore } from './upload-store'
import type { VaultManifests } from './vault-manifests'

/** Why an in-flight job was aborted. */
export class AbortReason extends Error {
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
export interface Job {
  bundleId: string | undefined
  /** The items still part of the job, in queue order (one leaves once skipped, failed or set aside). */
  items: Set<UploadItem>
  controller: AbortController
  done: Promise<void>
}

/** A file that passed its checks, as it is about to be read. */
export interface CheckedFile {
  item: UploadItem
  identity: FileIdentity
  size: number
  mtimeMs: number
}

/** What sending needs from the queue, named one by one. */
export interface SendInputs {
  cipher: UploadCipher
  now: () => number
  clientFor: (connectionId: string | undefined) => Promise<VaultApiClient>
  balances: CreditBalances
  index: UploadIndex
  manifests: VaultManifests
  manifestWriter: ManifestWriter
  hidesNames: (vaultId: string) => boolean
  store: UploadStore
  ledger: UploadLedger
  /** Takes an item out of its job (it is finished with). */
  release: (job: Job, item: UploadItem) => void
  /** Ends the job for each of its remaining items, in one transaction. */
  settle: (job: Job, patchOf: (item: UploadItem) => Partial<UploadItem>) => void
  /** The job's onProgress (upload-progress.ts). */
  progress: (job: Job) => (sent: number, total: number, final?: boolean) => void
}

/** Uploads one file alone (no bundle). */
export async function sendFile(
  inputs: SendInputs,
  job: Job,
  file: CheckedFile,
  vaultKey: Uint8Array,
): Promise<void> {
  const { item, size, mtimeMs } = file
  // The owner's write time, sealed in the blob and listed in the manifest.
  const identity: FileIdentity = { ...file.identity, writtenAtMs: inputs.now() }
  const signal = job.controller.signal
  const encryptedBytes = inputs.cipher.encryptedLength(identity)
  const client = await inputs.clientFor(item.connectionId)
  const estimatedCredits = uploadCostCredits(encryptedBytes)
  const balance = await inputs.balances.balance(client, item.vaultId, signal)
  const reservedByOthers = inputs.balances.reserved(item.vaultId)
  if (estimatedCredits > balance - reservedByOthers) {
    // Read again next time: the owner may add credits before retrying.
    inputs.balances.forget(item.vaultId)
    return inputs.settle(job, () => ({
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
  const unreserve = inputs.balances.reserve(item.vaultId, estimatedCredits)
  try {
    const hidden = inputs.hidesNames(item.vaultId)
    const contentType = hidden ? 'application/octet-stream' : await detectContentType(item.path)
    const metadata = hidden ? hiddenUploadMetadata() : uploadMetadata(item.relativePath, size, mtimeMs)
    const names = serviceNames(hidden, basename(item.relativePath))
    const cipher = inputs.cipher
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
    inputs.ledger.set(item, {
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
    const asset = await send(inputs, job, client, {
      vaultId,
      body,
      signal,
      credits: estimatedCredits,
      balance,
    })
    inputs.store.write(() => {
      inputs.release(job, item)
      inputs.ledger.set(item, {
        state: 'done',
        asset,
        creditsConsumed: asset.creditsConsumed,
        sentBytes: body.contentLength,
      })
      inputs.index.recordAll([
        {
          vaultId,
          path: item.path,
          relativePath: item.relativePath,
          size,
          mtimeMs,
          assetId: asset.id,
          uploadedAt: asset.createdAt ?? new Date(inputs.now()).toISOString(),
          writtenAtMs: identity.writtenAtMs!,
          ...(sha256 ? { sha256 } : {}),
        },
      ])
    })
  } finally {
    unreserve()
  }
}

/** Uploads the files of a bundle as one asset; the batch's carrier bundle embeds the vault manifest. */
export async function sendBundle(
  inputs: SendInputs,
  job: Job,
  files: CheckedFile[],
  vaultKey: Uint8Array,
): Promise<void> {
  const signal = job.controller.signal
  const first = files[0]!.item
  const vaultId = first.vaultId
  const identities = files.map((f) => f.identity)
  const createdAtMs = inputs.now()
  const client = await inputs.clientFor(first.connectionId)
  // The batch's last bundle carries the vault manifest: the files of this bundle are hashed first,
  // as the manifest (which lists them) comes before their contents.
  const manifest = files.some((f) => f.item.carriesManifest)
    ? await inputs.manifestWriter.forBundle(client, vaultId, vaultKey, files, createdAtMs)
    : undefined
  const encryptedBytes = inputs.cipher.encryptedBundleLength(identities, manifest?.blob.length ?? 0)
  const credits = uploadCostCredits(encryptedBytes)
  const weights = identities.map(bundleWeight)
  const creditShares = splitByWeight(credits, weights)
  const byteShares = splitByWeight(encryptedBytes, weights)
  const balance = await inputs.balances.balance(client, vaultId, signal)
  const reservedByOthers = inputs.balances.reserved(vaultId)
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
    inputs.balances.forget(vaultId)
    return inputs.settle(job, (item) => ({
      state: 'failed',
      ...sized(indexOf.get(item)!),
      error: {
        code: 'INSUFFICIENT_CREDITS',
        message: `${isolateName(item.relativePath)} goes up in one bundle with ${n - 1} other small files, which needs ${credits} credits (${creditsToDollars(credits)}) and the balance is ${balance} credits${reservedByOthers ? ` (${reservedByOthers} held for uploads in progress)` : ''}. Add credits, then retry; nothing was sent or charged.`,
      },
    }))
  }
  const unreserve = inputs.balances.reserve(vaultId, credits)
  try {
    const hidden = inputs.hidesNames(vaultId)
    const contentBytes = files.reduce((sum, f) => sum + f.size, 0)
    // No file name reaches the service: they are all sealed inside the bundle.
    const names = serviceNames(hidden, `Bundle of ${n} small files`)
    const metadata = bundleMetadata(n, contentBytes, hidden, manifest !== undefined)
    const cipher = inputs.cipher
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
    inputs.store.write(() => {
      for (const [k, f] of files.entries()) {
        inputs.ledger.set(f.item, {
          state: 'uploading',
          ...sized(k),
          totalBytes: body.contentLength,
          ...(hidden ? { nameHidden: true } : {}),
        })
      }
    })
    const asset = await send(inputs, job, client, { vaultId, body, signal, credits, balance })
    const consumed = splitByWeight(asset.creditsConsumed, weights)
    const uploadedAt = asset.createdAt ?? new Date(inputs.now()).toISOString()
    // Every file done and the index pointing each at the bundle (superseding its older copy), at once.
    inputs.store.write(() => {
      for (const [k, f] of files.entries()) {
        inputs.release(job, f.item)
        inputs.ledger.set(f.item, {
          state: 'done',
          asset,
          creditsConsumed: consumed[k]!,
          sentBytes: body.contentLength,
        })
      }
      inputs.index.recordAll(
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
        inputs.manifests.stored(vaultId, {
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

/** One upload of a prepared body (a file or a bundle), with progress; the cached balance follows the charge. */
async function send(
  inputs: SendInputs,
  job: Job,
  client: VaultApiClient,
  upload: { vaultId: string; body: MultipartBody; signal: AbortSignal; credits: number; balance: number },
): Promise<UploadedAsset> {
  const { vaultId, body } = upload
  const progress = inputs.progress(job)
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
  inputs.balances.charged(vaultId, asset.creditsConsumed)
  return asset
}
