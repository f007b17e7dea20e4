// Rotating a vault's key (main/core/vaults/key-rotation.ts): what it will cost before it starts and
// how far it got, as the window shows them.

/**
 * 're-encrypting': every file is re-encrypted under the new key while the old key stays the vault's;
 * 'switched': the new key is the vault's and its kits are made; files uploaded just before the switch
 * are moved and every new copy is read back whole under the new key;
 * 'awaiting-owner-kit': every file is under the new key, but the old copies are kept until the owner
 * confirms the new owner kit (until then only this computer holds the new key);
 * 'done': the old blobs are deleted where the service can delete.
 */
export type KeyRotationPhase = 're-encrypting' | 'switched' | 'awaiting-owner-kit' | 'done'

/** Where the service keeps the blobs, from GET /service (null: the service does not say). */
export interface BlobStorageInfo {
  kind: 'folder' | 'arweave'
  /** Every blob stays for ever, whatever is deleted (Arweave). */
  permanent: boolean
}

export interface KeyRotationEstimate {
  vaultId: string
  /** Blobs on the service (a bundle of small files is one). */
  files: number
  encryptedBytes: number
  /** The credits the re-uploads cost: the sum of each blob's upload cost. */
  credits: number
  balance: number
  /** How many credits are missing (0 when the balance covers it). */
  shortBy: number
  storage: BlobStorageInfo | null
  /** The service can take files out (extension 'asset-delete'). */
  canDelete: boolean
  /** A rotation already under way for this vault (resume it instead). */
  underWay: boolean
}

export interface KeyRotationStatus {
  vaultId: string
  phase: KeyRotationPhase | 'none'
  /** Working now (false: paused, waiting for a resume, or finished). */
  running: boolean
  startedAt: string | null
  finishedAt: string | null
  files: { total: number; reencrypted: number; oldDeleted: number; unreadable: number }
  bytes: { total: number; done: number }
  bytesPerSecond: number
  estimatedCredits: number
  creditsConsumed: number
  storage: BlobStorageInfo | null
  /** Old blobs whose bytes the service kept (a permanent store, or one that cannot delete). */
  oldCopiesKept: number
  /** What stopped it, in words, with what to do; null while all is well. */
  problem: string | null
  /** New guardian kits made at the switch. */
  kitsMade: number
  /**
   * Old blobs still on the service, kept (after the switch) until the owner confirms the new owner kit:
   * the old kits still open these.
   */
  oldCopiesLeft: number
}
