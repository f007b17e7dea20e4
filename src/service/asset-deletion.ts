// DELETE /vault/:id/asset/:aid (extension 'asset-delete'): the owner takes a file out of the vault,
// as the key rotation does with every blob encrypted under the old key.
import { findAsset, inBlobTurn, removeUnreferencedBlob, storageIsPermanent } from './assets'
import type { ServiceContext } from './context'
import { ownedVault, requireActive } from './vaults'

/**
 * The asset's record goes, and its blob with it unless another asset holds the same bytes. On a
 * permanent store (Arweave) only the record and the local copy go: the network keeps the blob, which
 * `contentRemoved: false` says.
 */
export async function deleteAsset(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  assetId: string,
): Promise<{ deleted: string; contentRemoved: boolean }> {
  const blob = await ctx.db.transaction(async () => {
    requireActive(await ownedVault(ctx, accountId, vaultId), 'deleting a file')
    const row = await findAsset(ctx, vaultId, assetId)
    await ctx.db.run('DELETE FROM assets WHERE id = ?', assetId)
    return { sha256Hex: row.sha256, storageTxId: row.storage_tx_id }
  })
  // After the transaction, in the blob's turn: an upload of the same bytes may have recorded an asset since.
  const removed = await inBlobTurn(ctx, blob.sha256Hex, () => removeUnreferencedBlob(ctx, blob))
  return { deleted: assetId, contentRemoved: removed && !storageIsPermanent(ctx.blobs) }
}
