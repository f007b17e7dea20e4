// The records the upload database keeps (upload-store.ts): the queue's items and the index of what this
// device already uploaded. Their own module because the store, the queue and the index all use them.
import type { UploadItemView } from '../../../shared/ipc/vault-types'

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
  /** Sent to the service under a neutral name (the default; a vault may opt in to real names). */
  nameHidden?: boolean
  /** Set on the files of the batch's last bundle: it carries the vault manifest, so it waits for the rest. */
  carriesManifest?: boolean
  /** Balance seen at the credit check. */
  balanceCredits?: number
  contentType?: string
  error?: UploadItemError
}

export interface UploadIndexEntry {
  vaultId: string
  path: string
  relativePath: string
  size: number
  mtimeMs: number
  /** Filled in after the upload, while the queue is idle (hashing would slow the upload down). */
  sha256?: string
  assetId: string
  uploadedAt: string
  /** The write time sealed in the uploaded copy (format 3); absent for copies of earlier versions. */
  writtenAtMs?: number
}
