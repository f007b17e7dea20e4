// Asset rows: listing, lookup, and the stored blob behind each asset.
import type { Asset, AssetCategory } from '../shared/api'
import type { ServiceContext } from './context'
import { prepared } from './database'
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

export function listAssets(
  ctx: ServiceContext,
  vaultId: string,
  query: { category?: AssetCategory | undefined; limit: number; offset: number },
  /** Only this asset (a practice access sees just its sample file). */
  onlyAssetId?: string,
): { assets: AssetView[]; total: number } {
  let where = query.category ? 'vault_id = ? AND category = ?' : 'vault_id = ?'
  const args: unknown[] = query.category ? [vaultId, query.category] : [vaultId]
  if (onlyAssetId !== undefined) {
    where += ' AND id = ?'
    args.push(onlyAssetId)
  }
  const total = prepared(ctx.db, `SELECT COUNT(*) FROM assets WHERE ${where}`)
    .pluck()
    .get(...args) as number
  const rows = prepared(ctx.db, `SELECT * FROM assets WHERE ${where} ORDER BY seq LIMIT ? OFFSET ?`).all(
    ...args,
    query.limit,
    query.offset,
  ) as AssetRow[]
  return { assets: rows.map(assetView), total }
}

export function findAsset(ctx: ServiceContext, vaultId: string, assetId: string): AssetRow {
  const row = prepared(ctx.db, 'SELECT * FROM assets WHERE id = ? AND vault_id = ?').get(assetId, vaultId) as
    | AssetRow
    | undefined
  if (!row) throw notFound(`asset ${assetId} does not exist in vault ${vaultId}`)
  return row
}

export function isBlobReferenced(ctx: ServiceContext, sha256Hex: string): boolean {
  return prepared(ctx.db, 'SELECT 1 FROM assets WHERE sha256 = ? LIMIT 1').get(sha256Hex) !== undefined
}
