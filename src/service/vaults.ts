// Vault rows, their wire form and the owner-scoped lookups every endpoint starts with.
import {
  type CheckInFrequency,
  type ReleaseTrigger,
  SSS_PRESETS,
  type SssPreset,
  type Vault,
  type VaultState,
} from '../shared/api'
import { AdminError, requireAccount } from './accounts'
import type { ServiceContext } from './context'
import { inTransaction, prepared } from './database'
import { conflict, notFound } from './errors'
import { newId } from './secrets'

export interface VaultRow {
  id: string
  account_id: string
  sss_preset: SssPreset
  state: VaultState
  release_trigger: ReleaseTrigger | null
  check_in_frequency: CheckInFrequency | null
  next_check_in_due: string | null
  created_at: string
  updated_at: string
  name: string | null
}

/** The local service's extra vault fields (the spec's Vault plus release timing the app shows). */
export interface VaultView extends Vault {
  /** The owner's name for the vault (extension 'vault-name'), or null. */
  name: string | null
  checkInFrequency: CheckInFrequency | null
  nextCheckInDue: string | null
  releaseStartedAt: string | null
  contestationEndsAt: string | null
  releasedAt: string | null
}

const VIEW_SQL = `
  SELECT v.*, a.credits_balance,
    (SELECT COUNT(*) FROM assets WHERE vault_id = v.id) AS asset_count,
    (SELECT COUNT(*) FROM guardians WHERE vault_id = v.id) AS guardian_count,
    (SELECT COUNT(*) FROM heirs WHERE vault_id = v.id) AS heir_count,
    r.started_at AS release_started_at, r.contestation_ends_at, r.released_at
  FROM vaults v
  JOIN accounts a ON a.id = v.account_id
  LEFT JOIN releases r ON r.id = (
    SELECT id FROM releases WHERE vault_id = v.id AND cancelled_at IS NULL ORDER BY started_at DESC LIMIT 1)`

interface ViewRow extends VaultRow {
  credits_balance: number
  asset_count: number
  guardian_count: number
  heir_count: number
  release_started_at: string | null
  contestation_ends_at: string | null
  released_at: string | null
}

function toView(row: ViewRow, includeUpdatedAt: boolean): VaultView {
  const releaseShown = row.state !== 'active'
  const view: VaultView = {
    id: row.id,
    name: row.name ?? null,
    state: row.state,
    createdAt: row.created_at,
    creditsBalance: row.credits_balance,
    assetCount: row.asset_count,
    guardianCount: row.guardian_count,
    heirCount: row.heir_count,
    releaseTrigger: row.release_trigger,
    sssPreset: row.sss_preset,
    checkInFrequency: row.release_trigger === 'dead_man_switch' ? row.check_in_frequency : null,
    nextCheckInDue:
      row.release_trigger === 'dead_man_switch' && row.state === 'active' ? row.next_check_in_due : null,
    releaseStartedAt: releaseShown ? row.release_started_at : null,
    contestationEndsAt: releaseShown ? row.contestation_ends_at : null,
    releasedAt: releaseShown ? row.released_at : null,
  }
  if (includeUpdatedAt) view.updatedAt = row.updated_at
  return view
}

export function listVaultViews(ctx: ServiceContext, accountId: string): VaultView[] {
  const rows = prepared(ctx.db, `${VIEW_SQL} WHERE v.account_id = ? ORDER BY v.created_at, v.rowid`).all(
    accountId,
  ) as ViewRow[]
  return rows.map((row) => toView(row, false))
}

export function vaultView(ctx: ServiceContext, vaultId: string): VaultView {
  const row = prepared(ctx.db, `${VIEW_SQL} WHERE v.id = ?`).get(vaultId) as ViewRow | undefined
  if (!row) throw notFound(`vault ${vaultId} does not exist`)
  return toView(row, true)
}

/** The view and the owning account in one query (the hot path of GET /vault/:id), or undefined. */
export function vaultViewWithOwner(
  ctx: ServiceContext,
  vaultId: string,
): { view: VaultView; accountId: string } | undefined {
  const row = prepared(ctx.db, `${VIEW_SQL} WHERE v.id = ?`).get(vaultId) as ViewRow | undefined
  return row ? { view: toView(row, true), accountId: row.account_id } : undefined
}

export function findVault(ctx: ServiceContext, vaultId: string): VaultRow | undefined {
  return prepared(ctx.db, 'SELECT * FROM vaults WHERE id = ?').get(vaultId) as VaultRow | undefined
}

/** The vault if the account owns it; another account's vault is reported as missing, not forbidden. */
export function ownedVault(ctx: ServiceContext, accountId: string, vaultId: string): VaultRow {
  const row = findVault(ctx, vaultId)
  if (!row || row.account_id !== accountId) {
    throw notFound(`vault ${vaultId} does not exist or belongs to another account`)
  }
  return row
}

export function requireActive(row: VaultRow, what: string): void {
  if (row.state !== 'active') {
    throw conflict(
      `vault ${row.id} is ${row.state}; ${what} is only possible while it is active` +
        (row.state === 'releasing' ? ' (cancel the release first)' : ''),
    )
  }
}

export function touchVault(ctx: ServiceContext, vaultId: string): void {
  prepared(ctx.db, 'UPDATE vaults SET updated_at = ? WHERE id = ?').run(ctx.clock().toISOString(), vaultId)
}

export function createVault(
  ctx: ServiceContext,
  accountId: string,
  preset: SssPreset,
  name: string | null = null,
): VaultView {
  if (!SSS_PRESETS.includes(preset)) throw new AdminError('--preset must be standard or enhanced')
  const id = newId('vlt')
  const now = ctx.clock().toISOString()
  inTransaction(ctx.db, () => {
    requireAccount(ctx, accountId)
    prepared(
      ctx.db,
      `INSERT INTO vaults (id, account_id, sss_preset, state, created_at, updated_at, name)
         VALUES (?, ?, ?, 'active', ?, ?, ?)`,
    ).run(id, accountId, preset, now, now, name)
  })
  return vaultView(ctx, id)
}

/** Sets (or, with null, clears) the vault's name; allowed in every state. */
export function renameVault(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  name: string | null,
): VaultView {
  inTransaction(ctx.db, () => {
    ownedVault(ctx, accountId, vaultId)
    prepared(ctx.db, 'UPDATE vaults SET name = ?, updated_at = ? WHERE id = ?').run(
      name,
      ctx.clock().toISOString(),
      vaultId,
    )
  })
  return vaultView(ctx, vaultId)
}

/** Deletes an active vault with everything in it; blobs no other asset shares are removed from disk. */
export function deleteVault(ctx: ServiceContext, accountId: string, vaultId: string): { deleted: string } {
  const shas = inTransaction(ctx.db, () => {
    const row = ownedVault(ctx, accountId, vaultId)
    requireActive(row, 'deleting the vault')
    const blobs = prepared(ctx.db, 'SELECT DISTINCT sha256 FROM assets WHERE vault_id = ?')
      .pluck()
      .all(vaultId) as string[]
    prepared(ctx.db, 'DELETE FROM vaults WHERE id = ?').run(vaultId)
    return blobs.filter((sha) => !prepared(ctx.db, 'SELECT 1 FROM assets WHERE sha256 = ?').get(sha))
  })
  for (const sha of shas) ctx.blobs.remove(sha)
  return { deleted: vaultId }
}
