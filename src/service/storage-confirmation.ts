// Checks that blobs put on a store that confirms permanence (Arweave) really became permanent: put returns
// once the gateway has a transaction, before it is mined, and a transaction the network drops is sent
// again here. Each scheduler pass looks at a batch of unconfirmed assets, oldest first. Several instances
// may run it at once: every change is conditional on the asset still being as this pass read it.
import { inBlobTurn } from './assets'
import { type BlobConfirmation, type BlobStore, BlobStoreError } from './blob-store'
import type { ServiceContext } from './context'

/** Assets looked at per pass: each costs a gateway request (and a re-send when dropped). */
export const CONFIRM_BATCH = 50
/**
 * The store failing this many assets in a row is out of reach, not troubled by one blob: the pass stops
 * rather than hold the scheduler (and its releases) for a request timeout per asset.
 */
export const UNREACHABLE_AFTER = 3

export interface ConfirmationReport {
  confirmed: number
  replaced: number
  pending: number
  lost: number
}

interface UnconfirmedRow {
  id: string
  vault_id: string
  sha256: string
  storage_tx_id: string
  size_bytes: number | string
  created_at: string
}

/**
 * Where the last full batch ended, per store: the next pass goes on from there (and starts again from the
 * oldest after a short batch), so assets that stay pending or lost cannot hold the newer ones back for good.
 */
const cursors = new WeakMap<BlobStore, { createdAt: string; id: string }>()

export async function confirmStoredBlobs(ctx: ServiceContext, now: Date): Promise<ConfirmationReport> {
  const report: ConfirmationReport = { confirmed: 0, replaced: 0, pending: 0, lost: 0 }
  if (!ctx.blobs.confirm) return report
  const rows = await unconfirmedBatch(ctx)
  let failedInARow = 0
  for (const [index, row] of rows.entries()) {
    // Outside any database transaction: the store talks to the network.
    const outcome = await confirmOne(ctx, row, now)
    report[outcome === 'unreachable' ? 'pending' : outcome]++
    failedInARow = outcome === 'unreachable' ? failedInARow + 1 : 0
    if (failedInARow === UNREACHABLE_AFTER && index < rows.length - 1) {
      report.pending += rows.length - index - 1
      console.error(
        `[vault-service] the blob store failed ${UNREACHABLE_AFTER} assets in a row; the other ${rows.length - index - 1} unconfirmed assets are checked at the next pass`,
      )
      break
    }
  }
  return report
}

async function unconfirmedBatch(ctx: ServiceContext): Promise<UnconfirmedRow[]> {
  const columns = 'id, vault_id, sha256, storage_tx_id, size_bytes, created_at'
  const after = cursors.get(ctx.blobs)
  const rows = after
    ? await ctx.db.all<UnconfirmedRow>(
        `SELECT ${columns} FROM assets
         WHERE storage_confirmed_at IS NULL AND (created_at > ? OR (created_at = ? AND id > ?))
         ORDER BY created_at, id LIMIT ?`,
        after.createdAt,
        after.createdAt,
        after.id,
        CONFIRM_BATCH,
      )
    : await ctx.db.all<UnconfirmedRow>(
        `SELECT ${columns} FROM assets WHERE storage_confirmed_at IS NULL ORDER BY created_at, id LIMIT ?`,
        CONFIRM_BATCH,
      )
  const last = rows[rows.length - 1]
  if (rows.length === CONFIRM_BATCH && last)
    cursors.set(ctx.blobs, { createdAt: last.created_at, id: last.id })
  else cursors.delete(ctx.blobs)
  return rows
}

async function confirmOne(
  ctx: ServiceContext,
  row: UnconfirmedRow,
  now: Date,
): Promise<keyof ConfirmationReport | 'unreachable'> {
  let result: BlobConfirmation
  try {
    // In the blob's turn: an upload of the same bytes, or the removal of its blob, waits for this.
    result = await inBlobTurn(ctx, row.sha256, () =>
      ctx.blobs.confirm!(
        {
          sha256Hex: row.sha256,
          storageTxId: row.storage_tx_id,
          size: Number(row.size_bytes),
          labels: { vaultId: row.vault_id, assetId: row.id },
          storedAt: new Date(row.created_at),
        },
        now,
      ),
    )
  } catch (error) {
    console.error(
      `[vault-service] could not check whether asset ${row.id}'s blob ${row.storage_tx_id} is stored for good; it is checked again at the next pass:`,
      error instanceof Error ? error.message : error,
    )
    return error instanceof BlobStoreError ? 'unreachable' : 'pending'
  }
  if (result.state === 'confirmed') {
    // Not if another instance replaced the blob meanwhile: then its new transaction is what needs confirming.
    await ctx.db.run(
      'UPDATE assets SET storage_confirmed_at = ? WHERE id = ? AND storage_confirmed_at IS NULL AND storage_tx_id = ?',
      now.toISOString(),
      row.id,
      row.storage_tx_id,
    )
  } else if (result.state === 'replaced') {
    await ctx.db.run(
      'UPDATE assets SET storage_tx_id = ? WHERE id = ? AND storage_tx_id = ?',
      result.storageTxId,
      row.id,
      row.storage_tx_id,
    )
    console.error(
      `[vault-service] asset ${row.id}: the network dropped blob ${row.storage_tx_id} before mining it; sent again as ${result.storageTxId}`,
    )
  } else if (result.state === 'lost') {
    console.error(`[vault-service] BLOB LOST: ${result.reason}`)
  }
  return result.state
}
