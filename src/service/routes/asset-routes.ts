// A vault's assets: list, upload, delete, and download (one byte range resumes an interrupted download).

import { FALLBACK_CONTENT_TYPE } from '../../shared/content-types'
import { deleteAsset } from '../asset-deletion'
import { findAsset, listAssets } from '../assets'
import { receiveUpload } from '../upload'
import { assetListQuery, isValidContentType, parseOrThrow } from '../validation'
import { type ApiRoutes, accountOf, heirFiles, ok, okPage, visibleVault, write } from './api-route'

export function registerAssetRoutes({ ctx, route, options }: ApiRoutes): void {
  route<{ id: string }>('GET', '/vault/:id/asset', heirFiles, async (request, reply) => {
    const vaultId = await visibleVault(ctx, request)
    const query = parseOrThrow(assetListQuery, request.query ?? {})
    const { assets, total } = await listAssets(ctx, vaultId, query)
    return okPage(ctx, request, reply, assets, { total, limit: query.limit, offset: query.offset })
  })
  route<{ id: string }>('POST', '/vault/:id/asset', write('postAsset'), async (request, reply) => {
    const upload = receiveUpload(ctx, request, accountOf(request), request.params.id)
    options.trackUpload?.(upload.catch(() => undefined))
    return ok(ctx, request, reply, await upload, 201)
  })
  route<{ id: string; aid: string }>(
    'DELETE',
    '/vault/:id/asset/:aid',
    write('otherPost'),
    async (request, reply) =>
      ok(
        ctx,
        request,
        reply,
        await deleteAsset(ctx, accountOf(request), request.params.id, request.params.aid),
      ),
  )
  route<{ id: string; aid: string }>(
    'GET',
    '/vault/:id/asset/:aid/content',
    heirFiles,
    async (request, reply) => {
      const asset = await findAsset(ctx, await visibleVault(ctx, request), request.params.aid)
      const blob = { sha256Hex: asset.sha256, storageTxId: asset.storage_tx_id }
      const size = await ctx.blobs.sizeOf(blob)
      if (size === null)
        throw new Error(`blob ${asset.sha256} of asset ${asset.id} is missing from the blob store`)
      // One byte range resumes an interrupted download; anything else gets the whole content.
      const range = parseByteRange(request.headers.range, size)
      // Opened before any header is set: a store that cannot serve it (Arweave unreachable) is then
      // answered in the plain JSON error envelope, not under a binary content type.
      const content = await ctx.blobs.read(blob, range ?? undefined)
      reply
        .header('content-type', 'application/octet-stream')
        .header('accept-ranges', 'bytes')
        .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(asset.filename)}`)
        // Assets stored before contentType was checked may hold characters a header cannot carry.
        .header(
          'x-asset-content-type',
          isValidContentType(asset.content_type) ? asset.content_type : FALLBACK_CONTENT_TYPE,
        )
        .header('x-storage-tx-id', asset.storage_tx_id)
      if (range) {
        return reply
          .code(206)
          .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
          .header('content-length', range.end - range.start + 1)
          .send(content)
      }
      return reply.header('content-length', size).send(content)
    },
  )
}

/** A single satisfiable `bytes=` range (inclusive end), or null to send everything. */
function parseByteRange(header: string | undefined, size: number): { start: number; end: number } | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null
  if (!match || size === 0) return null
  const [, from, to] = match
  let start: number
  let end: number
  if (from === '') {
    if (to === '') return null
    start = Math.max(0, size - Number(to))
    end = size - 1
  } else {
    start = Number(from)
    end = to === '' ? size - 1 : Math.min(Number(to), size - 1)
  }
  if (start > end || start >= size) return null
  return { start, end }
}
