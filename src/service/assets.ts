// Asset rows: listing, lookup, and the stored blob behind each asset.
import type { Asset, AssetCategory } from '../shared/api'
import type { BlobStore, StoredBlob } from './blob-store'
import type { ServiceContext } from './context'
import { notFound } from './errors'

export interface AssetRow {
  id: string
  vault_id: string
  filename: string
  content_type: string
  size_bytes: number
  category: AssetCategory
  sha256: string
  storage_tx_id: string
  metadata: string | null
  credits_consumed: number
  created_at: string
}

/** The spec's Asset, plus the upload's metadata object when one was given. */
export type AssetView = Asset & { metadata?: Record<string, unknown> }

export function assetView(row: AssetRow): AssetView {
  const view: AssetView = {
    id: row.id,
    filename: row.filename,
    contentType: row.content_type,
    sizeBytes: row.size_bytes,
    category: row.category,
    storageTxId: row.storage_tx_id,
    createdAt: row.created_at,
  }
  if (row.metadata) view.metadata = JSON.parse(row.metadata) as Record<string, unknown>
  return view
}

export async function listAssets(
  ctx: ServiceContext,
  vaultId: string,
  query: { category?: AssetCategory | undefined; limit: number; offset: number },
): Promise<{ assets: AssetView[]; total: number }> {
  const where = query.category ? 'vault_id = ? AND category = ?' : 'vault_id = ?'
  const args: string[] = query.category ? [vaultId, query.category] : [vaultId]
  const counted = await ctx.db.get<{ total: number }>(
    `SELECT COUNT(*) AS total FROM assets WHERE ${where}`,
    ...args,
  )
  const rows = await ctx.db.all<AssetRow>(
    `SELECT * FROM assets WHERE ${where} ORDER BY seq LIMIT ? OFFSET ?`,
    ...args,
    query.limit,
    query.offset,
  )
  return { assets: rows.map(assetView), total: counted?.total ?? 0 }
}

export async function findAsset(ctx: ServiceContext, vaultId: string, assetId: string): Promise<AssetRow> {
  const row = await ctx.db.get<AssetRow>(
    'SELECT * FROM assets WHERE id = ? AND vault_id = ?',
    assetId,
    vaultId,
  )
  if (!row) throw notFound(`asset ${assetId} does not exist in vault ${vaultId}`)
  return row
}

export async function isBlobReferenced(ctx: ServiceContext, sha256Hex: string): Promise<boolean> {
  const row = await ctx.db.get('SELECT 1 AS found FROM assets WHERE sha256 = ? LIMIT 1', sha256Hex)
  return row !== undefined
}

// Uploads of the same bytes share one blob in a content-addressed store. Storing a blob and recording
// its asset (or giving up), and removing a blob once unreferenced, take turns per blob in this process:
// otherwise a removal could decide "unreferenced" just before another upload of the same bytes records
// its asset, and take the blob from under it.
const blobTurns = new WeakMap<BlobStore, Map<string, Promise<void>>>()

/** Runs fn once every earlier turn on this blob (in this process) has ended. */
export async function inBlobTurn<T>(
  ctx: ServiceContext,
  sha256Hex: string,
  fn: () => Promise<T>,
): Promise<T> {
  let turns = blobTurns.get(ctx.blobs)
  if (!turns) {
    turns = new Map()
    blobTurns.set(ctx.blobs, turns)
  }
  const previous = turns.get(sha256Hex)
  let end!: () => void
  const ours = new Promise<void>((resolve) => {
    end = resolve
  })
  turns.set(sha256Hex, ours)
  try {
    if (previous) await previous
    return await fn()
  } finally {
    end()
    if (turns.get(sha256Hex) === ours) turns.delete(sha256Hex)
  }
}

/** Frees a stored blob unless an asset refers to it; call it inside the blob's turn (inBlobTurn). */
export async function removeUnreferencedBlob(ctx: ServiceContext, blob: StoredBlob): Promise<boolean> {
  if (await isBlobReferenced(ctx, blob.sha256Hex)) return false
  await ctx.blobs.remove(blob)
  return true
}

/** Whether the store keeps every blob for ever, whatever is deleted (Arweave). */
export function storageIsPermanent(blobs: Pick<BlobStore, 'kind'>): boolean {
  return blobs.kind === 'arweave'
}
