// Assets: listing, uploads and (local service extension) downloads of the encrypted content.
import type { Readable } from 'node:stream'
import {
  type Asset,
  type AssetListMeta,
  type AssetListQuery,
  LIMITS,
  type UploadedAsset,
} from '../shared/api'
import { badAnswer, checkAssetPage, checkUploadedAsset, MAX_LISTED_ASSETS } from './answer-checks'
import type { Page, Transport, UploadBody } from './transport'
import { vaultPath } from './vaults'

export interface UploadAssetRequest extends UploadBody {
  vaultId: string
  signal?: AbortSignal
  /** For a 402 message: what the upload should cost and the balance seen before. */
  creditsNeeded?: number
  creditsBalance?: number
  /** Retry after 5xx/network errors (from the start of the file). Default true. */
  retry?: boolean
}

/** One page of assets, checked (ids, sizes, no id twice) before the owner's file list or a recovery uses it. */
export async function listAssets(
  t: Transport,
  vaultId: string,
  query: AssetListQuery = {},
): Promise<Page<Asset[], AssetListMeta>> {
  const searchParams: Record<string, string | number> = {}
  if (query.category) searchParams.category = query.category
  if (query.limit !== undefined) searchParams.limit = query.limit
  if (query.offset !== undefined) searchParams.offset = query.offset
  const page = await t.call<unknown, AssetListMeta>('list assets', 'GET', vaultPath(vaultId, 'asset'), {
    searchParams,
    idempotent: true,
  })
  return { data: checkAssetPage(t, page.data, page.meta.total, new Set()), meta: page.meta }
}

/**
 * Every asset of a vault, page by page. Each page is checked (ids, sizes), an id listed twice is
 * refused, and a listing longer than MAX_LISTED_ASSETS stops: a service could page on for ever.
 */
export async function listAllAssets(t: Transport, vaultId: string): Promise<Asset[]> {
  const all: Asset[] = []
  const seen = new Set<string>()
  for (let offset = 0; ; ) {
    const page = await listAssets(t, vaultId, { limit: LIMITS.assetPageMax, offset })
    for (const asset of page.data) {
      if (seen.has(asset.id)) throw badAnswer(t, 'list assets', `asset ${asset.id} listed twice`)
      seen.add(asset.id)
    }
    all.push(...page.data)
    if (all.length > MAX_LISTED_ASSETS) {
      throw badAnswer(t, 'list assets', `a vault listing that goes on past ${MAX_LISTED_ASSETS} files`)
    }
    offset += page.data.length
    if (page.data.length === 0 || offset >= page.meta.total) return all
  }
}

export async function uploadAsset(t: Transport, request: UploadAssetRequest): Promise<UploadedAsset> {
  const asset = await t.data<unknown>('upload asset', 'POST', vaultPath(request.vaultId, 'asset'), {
    idempotent: request.retry ?? true,
    signal: request.signal,
    upload: request,
    credits: { needed: request.creditsNeeded, balance: request.creditsBalance },
  })
  return checkUploadedAsset(t, asset)
}

/**
 * Encrypted content from byte `start` on (resuming a download). `partial` says whether the service
 * honoured the range (206); when it did not, the stream holds the whole content from byte 0. With
 * `expectedBytes` (the listed size), the stream fails once the service sends more than that.
 */
export function downloadAssetFrom(
  t: Transport,
  vaultId: string,
  assetId: string,
  start: number,
  signal?: AbortSignal,
  expectedBytes?: number,
): Promise<{ stream: Readable; partial: boolean }> {
  return t.download('download asset', vaultPath(vaultId, 'asset', assetId, 'content'), {
    start,
    signal,
    ...(expectedBytes !== undefined ? { expectedBytes } : {}),
  })
}

/** Extension 'asset-delete': the file leaves the vault; `contentRemoved` false on a permanent store. */
export function deleteAsset(
  t: Transport,
  vaultId: string,
  assetId: string,
  signal?: AbortSignal,
): Promise<{ deleted: string; contentRemoved: boolean }> {
  // Idempotent in effect: a repeat after a lost answer gets 404, which the caller takes as done.
  return t.data('delete asset', 'DELETE', vaultPath(vaultId, 'asset', assetId), { idempotent: false, signal })
}
