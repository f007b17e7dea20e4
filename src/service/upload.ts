// Streaming asset upload: multipart parts in any order, the file streamed to a temp file while hashing,
// then, once the file is complete and on disk: the credits reserved (debited), the blob stored, the asset
// row recorded, and the reservation refunded if storing or recording fails.
import { rm } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { FastifyRequest } from 'fastify'
import { uploadCostCredits } from '../shared/api'
import { categoryOf, contentTypeFromName, FALLBACK_CONTENT_TYPE } from '../shared/content-types'
import {
  changeCredits,
  creditsBalance,
  refundReservation,
  reserveCredits,
  spendReservation,
} from './accounts'
import { type AssetRow, type AssetView, assetView, inBlobTurn, removeUnreferencedBlob } from './assets'
import type { ServiceContext } from './context'
import { ApiError, badRequest, insufficientCredits } from './errors'
import { newId } from './secrets'
import { StagedFileWriter } from './staged-file'
import { cleanContentType, cleanFilename, parseMetadata } from './validation'
import { ownedVault, requireActive } from './vaults'

const FIELD_MAX_BYTES = 8 * 1024
const MAX_FIELDS = 8
/** Upper bound of everything in a valid upload body that is not file content (fields, part headers, boundaries). */
const MAX_NON_FILE_BYTES = MAX_FIELDS * (FIELD_MAX_BYTES + 1024) + 4096
const sizeText = (bytes: number) => (bytes % 1e9 === 0 ? `${bytes / 1e9} GB` : `${bytes} bytes`)
const tooLargeMessage = (limit: number) =>
  `file exceeds the ${sizeText(limit)} limit; nothing was stored and no credits were used`

const USAGE =
  'send multipart/form-data with a part "file" (the encrypted bytes), a field "filename", ' +
  'and optional fields "contentType" and "metadata" (a JSON object)'

interface StagedFile {
  path: string
  size: number
  sha256: string
}

export interface UploadResult extends AssetView {
  creditsConsumed: number
}

/**
 * The most file bytes a balance pays for (uploadCostCredits only grows with size), or -1 when it pays for
 * none (even an empty file costs a credit).
 */
export function payableBytes(balance: number): number {
  if (balance < uploadCostCredits(0)) return -1
  let bytes = Math.floor((balance * 1e9) / 4650)
  while (bytes > 0 && uploadCostCredits(bytes) > balance) bytes--
  while (uploadCostCredits(bytes + 1) <= balance) bytes++
  return bytes
}

/**
 * Streams the file part to a temp file. busboy stops the part after `limit` bytes (the 5 GB limit, or less
 * when the balance pays for less); the upload then fails at once with `overLimit()` instead of reading
 * (and discarding) the rest, and the staged part is removed.
 */
async function stageFile(
  ctx: ServiceContext,
  file: Readable,
  overLimit: () => ApiError,
): Promise<StagedFile> {
  const path = ctx.blobs.newTempPath()
  const writer = new StagedFileWriter(path)
  let tooLarge = false
  file.once('limit', () => {
    tooLarge = true
    file.destroy(overLimit())
  })
  try {
    // The writer fsyncs before it finishes, so a commit never points at data still in the page cache.
    await pipeline(file, writer)
    if (tooLarge) throw overLimit()
  } catch (error) {
    // pipeline() settles on the first error, possibly while the writer is still creating the file: removing
    // it before the writer has closed would miss a file created just after, and leave it in tmp/.
    writer.destroy()
    if (!writer.closed) await new Promise((resolve) => writer.once('close', resolve))
    await rm(path, { force: true })
    throw error
  }
  return { path, size: writer.bytesWritten, sha256: writer.digestHex() }
}

/** Handles POST /vault/:id/asset for the owner account; throws ApiError for every rejection. */
export async function receiveUpload(
  ctx: ServiceContext,
  request: FastifyRequest,
  accountId: string,
  vaultId: string,
): Promise<UploadResult> {
  requireActive(await ownedVault(ctx, accountId, vaultId), 'uploading assets')
  if (!request.isMultipart()) {
    throw badRequest(`the upload must be multipart/form-data; ${USAGE}`)
  }
  const balance = await creditsBalance(ctx, accountId)
  const declared = Number(request.headers['content-length'])
  if (Number.isFinite(declared) && declared > 0) {
    const minFileBytes = Math.max(0, declared - MAX_NON_FILE_BYTES)
    if (minFileBytes > ctx.maxFileBytes) {
      throw badRequest(`${tooLargeMessage(ctx.maxFileBytes)} (the request is ${declared} bytes)`)
    }
    const atLeast = uploadCostCredits(minFileBytes)
    if (balance < atLeast) {
      throw insufficientCredits(
        `this upload costs at least ${atLeast} credits and the balance is ${balance}; add credits or upload a smaller file`,
      )
    }
  }
  // Without a Content-Length (chunked) the size shows only while streaming: reading stops as soon as the file
  // outgrows what the balance pays for, rather than staging all of it for a refusal at the commit.
  const payable = payableBytes(balance)
  if (payable < 0) {
    throw insufficientCredits(
      `an upload costs at least ${uploadCostCredits(0)} credit and the balance is ${balance}; add credits first`,
    )
  }
  const fileLimit = Math.min(ctx.maxFileBytes, payable)
  const overLimit = () =>
    fileLimit < ctx.maxFileBytes
      ? insufficientCredits(
          `the file is larger than the ${payable} bytes the balance of ${balance} credits pays for; ` +
            'nothing was stored and no credits were used; add credits or upload a smaller file',
        )
      : badRequest(tooLargeMessage(ctx.maxFileBytes))

  let staged: StagedFile | null = null
  let filename: string | null = null
  let contentType: string | null = null
  let metadata: Record<string, unknown> | null = null
  const seenFields = new Set<string>()
  try {
    const parts = request.parts({
      limits: {
        fileSize: fileLimit,
        files: 1,
        fields: MAX_FIELDS,
        fieldSize: FIELD_MAX_BYTES,
        parts: MAX_FIELDS + 1,
        headerPairs: 20,
      },
    })
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume()
          throw badRequest(`unexpected file part "${part.fieldname}"; ${USAGE}`)
        }
        staged = await stageFile(ctx, part.file, overLimit)
        continue
      }
      if (part.valueTruncated)
        throw badRequest(`field ${part.fieldname} is longer than ${FIELD_MAX_BYTES} bytes`)
      // With a field given twice, one value would silently win over the other.
      if (seenFields.has(part.fieldname)) {
        throw badRequest(`the field "${part.fieldname}" was sent more than once; send each field once`)
      }
      seenFields.add(part.fieldname)
      const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value)
      // Fields are checked as they arrive, so a bad field fails before a large file is read.
      if (part.fieldname === 'filename') filename = cleanFilename(value)
      else if (part.fieldname === 'contentType') contentType = cleanContentType(value)
      else if (part.fieldname === 'metadata') metadata = value.trim() === '' ? null : parseMetadata(value)
      else throw badRequest(`unknown field "${part.fieldname}"; ${USAGE}`)
    }
    if (!staged) throw badRequest(`the file part is missing; ${USAGE}`)
    if (filename === null) throw badRequest(`the filename field is required; ${USAGE}`)
    // Awaited here, so a refused commit still removes the staged file below.
    return await commitUpload(ctx, accountId, vaultId, staged, {
      filename,
      contentType: contentType ?? contentTypeFromName(filename) ?? FALLBACK_CONTENT_TYPE,
      metadata,
    })
  } catch (error) {
    if (staged) await rm(staged.path, { force: true })
    throw translateMultipartError(error, overLimit)
  }
}

function translateMultipartError(error: unknown, overLimit: () => ApiError): unknown {
  if (error instanceof ApiError) return error
  const code = (error as { code?: string }).code
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return overLimit()
    case 'FST_FILES_LIMIT':
      return badRequest(`only one file part is allowed per upload; ${USAGE}`)
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return badRequest(`too many fields; ${USAGE}`)
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return badRequest('a field sent with Content-Type application/json does not hold valid JSON')
    case 'FST_MP_PREMATURE_CLOSE':
      return badRequest('the upload was interrupted before it was complete; nothing was stored')
    case 'FST_PROTO_VIOLATION':
      return badRequest('a field name is not allowed')
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return badRequest(`the upload must be multipart/form-data; ${USAGE}`)
  }
  const message = (error as Error).message ?? ''
  if (/Unexpected end of (multipart|form)|Malformed|boundary|terminated early/i.test(message)) {
    return badRequest(`the multipart body is malformed or incomplete (${message}); nothing was stored`)
  }
  return error
}

const notPaidFor = (staged: StagedFile, cost: number, balance: number) =>
  insufficientCredits(
    `this ${staged.size}-byte file costs ${cost} credits and the balance is ${balance}; ` +
      'nothing was stored and no credits were used; add credits and upload again',
  )

/**
 * Reserves the credits, stores the staged file, records its asset. Storing may cost money and cannot
 * always be undone (Arweave), so the credits are taken first, in one conditional debit: of N parallel
 * uploads (on any instance) that one balance pays for, one is debited and stored, the others are refused
 * with 402 before the store is touched. When storing or recording fails, the reservation is refunded: the
 * ledger then shows the debit and its refund ('upload' and 'upload-refund', both referencing the asset id).
 */
async function commitUpload(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  staged: StagedFile,
  fields: { filename: string; contentType: string; metadata: Record<string, unknown> | null },
): Promise<UploadResult> {
  const cost = uploadCostCredits(staged.size)
  const id = newId('ast')
  await ctx.db.transaction(async () => {
    requireActive(await ownedVault(ctx, accountId, vaultId), 'uploading assets')
    if (!(await reserveCredits(ctx, accountId, cost, id))) {
      throw notPaidFor(staged, cost, await creditsBalance(ctx, accountId))
    }
  })
  const sha256Hex = staged.sha256
  try {
    const row = await inBlobTurn(ctx, sha256Hex, async () => {
      const storageTxId = await ctx.blobs.put(staged.path, {
        sha256Hex,
        size: staged.size,
        labels: { vaultId, assetId: id },
      })
      try {
        return await recordAsset(ctx, accountId, vaultId, { id, cost, storageTxId, staged, fields })
      } catch (error) {
        await removeUnreferencedBlob(ctx, { sha256Hex, storageTxId }).catch(() => {
          // The refusal is what the caller needs to hear; a blob left behind is removed by the garbage
          // collection at the next start.
        })
        throw error
      }
    })
    return { ...assetView(row), creditsConsumed: cost }
  } catch (error) {
    await refundReservation(ctx, id).catch((refundError: unknown) => {
      // Still reserved: the next start refunds it (refundAbandonedReservations).
      console.error(
        `[vault-service] could not refund the ${cost} credits reserved for upload ${id} of account ${accountId} now; the service refunds them at its next start:`,
        refundError instanceof Error ? refundError.message : refundError,
      )
    })
    throw error
  }
}

/** The asset row (its credits already reserved), if the vault still takes uploads. */
function recordAsset(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  asset: {
    id: string
    cost: number
    storageTxId: string
    staged: StagedFile
    fields: { filename: string; contentType: string; metadata: Record<string, unknown> | null }
  },
): Promise<AssetRow> {
  const { id, cost, staged, fields } = asset
  return ctx.db.transaction(async () => {
    requireActive(await ownedVault(ctx, accountId, vaultId), 'uploading assets')
    // Refunded as abandoned while this upload was still storing (over a day): then it pays now.
    if (!(await spendReservation(ctx, id)) && !(await changeCredits(ctx, accountId, -cost, 'upload', id))) {
      throw notPaidFor(staged, cost, await creditsBalance(ctx, accountId))
    }
    const now = ctx.clock().toISOString()
    const next = await ctx.db.get<{ seq: number }>(
      'SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM assets WHERE vault_id = ?',
      vaultId,
    )
    await ctx.db.run(
      `INSERT INTO assets (id, vault_id, filename, content_type, size_bytes, category, sha256, storage_tx_id,
           metadata, credits_consumed, created_at, seq)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      vaultId,
      fields.filename,
      fields.contentType,
      staged.size,
      categoryOf(fields.contentType),
      staged.sha256,
      asset.storageTxId,
      fields.metadata ? JSON.stringify(fields.metadata) : null,
      cost,
      now,
      next?.seq ?? 1,
    )
    await ctx.db.run('UPDATE vaults SET updated_at = ? WHERE id = ?', now, vaultId)
    const row = await ctx.db.get<AssetRow>('SELECT * FROM assets WHERE id = ?', id)
    if (!row) throw new Error(`asset ${id} was inserted but cannot be read back`)
    return row
  })
}
