// Checks that blobs put on a store that confirms permanence (Arweave) really became permanent: put returns
// once the gateway has a transaction, before it is mined, and a transaction the network drops is sent
// again here. Each scheduler pass looks at a batch of unconfirmed assets, oldest first. Several instances
// may run it at once: every change is conditional on the asset still being as this pass read it.
//
// A re-send pays for a new transaction, so it happens only when the store reports a definite drop (never
// on a busy or failing gateway), is claimed in the database before it is paid (one pending re-send per
// asset, whichever instance), counted, logged with its reason, and capped: an asset dropped again after
// MAX_RESENDS re-sends is flagged for the operator (/healthz storage.atResendCap) instead of paid again.
import { inBlobTurn } from './assets'
import { type BlobConfirmation, type BlobStore, BlobStoreError, type BlobToConfirm } from './blob-store'
import type { ServiceContext } from './context'

/** Assets looked at per pass: each costs a gateway request (and a re-send when dropped). */
export const CONFIRM_BATCH = 50
/**
 * The store failing this many assets in a row is out of reach, not troubled by one blob: the pass stops
 * rather than hold the scheduler (and its releases) for a request timeout per asset.
 */
export const UNREACHABLE_AFTER = 3
/** Re-sends an asset's blob may ever cost; past them the operator looks (a gateway that keeps dropping is wrong). */
export const MAX_RESENDS = 3

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
  storage_resends: number | string
  storage_resent_at: string | null
  storage_resend_capped_at: string | null
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
  const columns =
    'id, vault_id, sha256, storage_tx_id, size_bytes, created_at, storage_resends, storage_resent_at, storage_resend_capped_at'
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
  const blob = {
    sha256Hex: row.sha256,
    storageTxId: row.storage_tx_id,
    size: Number(row.size_bytes),
    labels: { vaultId: row.vault_id, assetId: row.id },
    storedAt: new Date(row.created_at),
    sentAt: new Date(row.storage_resent_at ?? row.created_at),
  }
  try {
    // In the blob's turn: an upload of the same bytes, or the removal of its blob, waits for this.
    return await inBlobTurn(ctx, row.sha256, async () => {
      const result = await ctx.blobs.confirm!(blob, now)
      return result.state === 'dropped' ? resendDropped(ctx, row, blob, result.reason, now) : record(result)
    })
  } catch (error) {
    console.error(
      `[vault-service] could not check whether asset ${row.id}'s blob ${row.storage_tx_id} is stored for good; it is checked again at the next pass:`,
      error instanceof Error ? error.message : error,
    )
    return error instanceof BlobStoreError ? 'unreachable' : 'pending'
  }

  async function record(result: Exclude<BlobConfirmation, { state: 'dropped' }>) {
    if (result.state === 'confirmed') {
      // Not if another instance replaced the blob meanwhile: then its new transaction is what needs confirming.
      await ctx.db.run(
        'UPDATE assets SET storage_confirmed_at = ? WHERE id = ? AND storage_confirmed_at IS NULL AND storage_tx_id = ?',
        now.toISOString(),
        row.id,
        row.storage_tx_id,
      )
    } else if (result.state === 'lost') {
      console.error(`[vault-service] BLOB LOST: ${result.reason}`)
    }
    return result.state
  }
}

/** Pays for a dropped blob's re-send, if the asset is under the cap and this pass wins the claim. */
async function resendDropped(
  ctx: ServiceContext,
  row: UnconfirmedRow,
  blob: BlobToConfirm,
  reason: string,
  now: Date,
): Promise<keyof ConfirmationReport> {
  const resends = Number(row.storage_resends)
  if (resends >= MAX_RESENDS) {
    const flagged = await ctx.db.run(
      'UPDATE assets SET storage_resend_capped_at = ? WHERE id = ? AND storage_tx_id = ? AND storage_resend_capped_at IS NULL',
      now.toISOString(),
      row.id,
      row.storage_tx_id,
    )
    // Said once, when flagged; /healthz keeps counting it.
    if (flagged.changes > 0) {
      console.error(
        `[vault-service] BLOB AT RE-SEND CAP: ${reason} It was sent again ${resends} times already, the most the service pays for one asset, so it is not paid for again. Check that the gateway in the configuration is a node of the Arweave network and that the wallet is funded; heirs recovering from Arweave will not find this file until the vault's owner uploads it again.`,
      )
    }
    return 'lost'
  }
  // The claim, before anything is paid: one pass (of any instance) sends it again, and it counts even if
  // the sending then fails, since a failure may come after the payment.
  const claimed = await ctx.db.run(
    `UPDATE assets SET storage_resends = storage_resends + 1, storage_resent_at = ?
      WHERE id = ? AND storage_tx_id = ? AND storage_resends = ? AND storage_confirmed_at IS NULL`,
    now.toISOString(),
    row.id,
    row.storage_tx_id,
    resends,
  )
  if (claimed.changes === 0) return 'pending'
  console.error(
    `[vault-service] asset ${row.id}: sending blob ${row.storage_tx_id} again (re-send ${resends + 1} of at most ${MAX_RESENDS}): ${reason}`,
  )
  const sent = await ctx.blobs.resend!(blob)
  await ctx.db.run(
    'UPDATE assets SET storage_tx_id = ? WHERE id = ? AND storage_tx_id = ?',
    sent.storageTxId,
    row.id,
    row.storage_tx_id,
  )
  console.error(
    `[vault-service] asset ${row.id}: blob ${row.storage_tx_id} sent again as ${sent.storageTxId}${sent.unfinished ? `; its data is not all up yet (${sent.unfinished}) and is finished at a next pass without paying again` : ''}`,
  )
  return 'replaced'
}
