// Vault rows, their wire form and the owner-scoped lookups every endpoint starts with.
import {
  type CheckInFrequency,
  type ReleaseTrigger,
  SSS_PRESET_SHAPE,
  SSS_PRESETS,
  type SssPreset,
  type Vault,
  type VaultClaims,
  type VaultState,
} from '../shared/api'
import { AdminError, type KeyRow, ownerKeyPrincipal, requireAccount } from './accounts'
import { inBlobTurn, removeUnreferencedBlob } from './assets'
import type { StoredBlob } from './blob-store'
import type { ServiceContext } from './context'
import { conflict, notFound } from './errors'
import type { Principal } from './principal'
import { hashSecret, newId } from './secrets'

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
  /** 1: reminders carry a one-step check-in link (extension 'check-in-links'); 0, the default: they do not. */
  check_in_links: number
}

/** The local service's extra vault fields (the spec's Vault plus release timing the app shows). */
export interface VaultView extends Vault {
  /** The owner's name for the vault (extension 'vault-name'), or null. */
  name: string | null
  /** Reminder e-mails carry a one-step check-in link (extension 'check-in-links'); off by default. */
  checkInLinks: boolean
  checkInFrequency: CheckInFrequency | null
  nextCheckInDue: string | null
  releaseStartedAt: string | null
  contestationEndsAt: string | null
  releasedAt: string | null
  /** Guardian claims that count now (guardian_claim vaults), null when none: the owner's app alarms on them. */
  claims: VaultClaims | null
}

const VIEW_SQL = `
  SELECT v.*, a.credits_balance,
    (SELECT COUNT(*) FROM assets WHERE vault_id = v.id) AS asset_count,
    (SELECT COUNT(*) FROM guardians WHERE vault_id = v.id) AS guardian_count,
    (SELECT COUNT(*) FROM heirs WHERE vault_id = v.id) AS heir_count,
    r.started_at AS release_started_at, r.contestation_ends_at, r.released_at,
    c.claim_count, c.last_claim_at,
    (SELECT name FROM guardians WHERE vault_id = v.id AND status = 'accepted' AND claimed_at IS NOT NULL
       ORDER BY claimed_at DESC, rowid DESC LIMIT 1) AS last_claim_by
  FROM vaults v
  JOIN accounts a ON a.id = v.account_id
  LEFT JOIN releases r ON r.id = (
    SELECT id FROM releases WHERE vault_id = v.id AND cancelled_at IS NULL ORDER BY started_at DESC LIMIT 1)
  LEFT JOIN (
    SELECT vault_id, COUNT(*) AS claim_count, MAX(claimed_at) AS last_claim_at FROM guardians
      WHERE status = 'accepted' AND claimed_at IS NOT NULL GROUP BY vault_id) c ON c.vault_id = v.id`

interface ViewRow extends VaultRow {
  credits_balance: number
  asset_count: number
  guardian_count: number
  heir_count: number
  release_started_at: string | null
  contestation_ends_at: string | null
  released_at: string | null
  claim_count: number | null
  last_claim_at: string | null
  last_claim_by: string | null
}

function claimsOfRow(row: ViewRow): VaultClaims | null {
  const count = row.claim_count ?? 0
  if (count === 0 || !row.last_claim_at) return null
  return {
    count,
    needed: SSS_PRESET_SHAPE[row.sss_preset].threshold,
    lastAt: row.last_claim_at,
    lastBy: row.last_claim_by ?? '',
  }
}

function toView(row: ViewRow, includeUpdatedAt: boolean): VaultView {
  const releaseShown = row.state !== 'active'
  const view: VaultView = {
    id: row.id,
    name: row.name ?? null,
    checkInLinks: row.check_in_links === 1,
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
    claims: claimsOfRow(row),
  }
  if (includeUpdatedAt) view.updatedAt = row.updated_at
  return view
}

export async function listVaultViews(ctx: ServiceContext, accountId: string): Promise<VaultView[]> {
  const rows = await ctx.db.all<ViewRow>(
    `${VIEW_SQL} WHERE v.account_id = ? ORDER BY v.created_at, v.rowid`,
    accountId,
  )
  return rows.map((row) => toView(row, false))
}

export async function vaultView(ctx: ServiceContext, vaultId: string): Promise<VaultView> {
  const row = await ctx.db.get<ViewRow>(`${VIEW_SQL} WHERE v.id = ?`, vaultId)
  if (!row) throw notFound(`vault ${vaultId} does not exist`)
  return toView(row, true)
}

/** The view and the owning account in one query (the hot path of GET /vault/:id), or undefined. */
export async function vaultViewWithOwner(
  ctx: ServiceContext,
  vaultId: string,
): Promise<{ view: VaultView; accountId: string } | undefined> {
  const row = await ctx.db.get<ViewRow>(`${VIEW_SQL} WHERE v.id = ?`, vaultId)
  return row ? { view: toView(row, true), accountId: row.account_id } : undefined
}

/**
 * An owner key's principal and a vault's view with its owner, in one statement: GET /vault/:id on
 * PostgreSQL, where every statement is a round trip to another machine (SQLite keeps both in its read
 * cache instead). principal is null when the key is unknown, revoked or re-labelled; vault undefined when
 * the vault does not exist.
 */
export async function ownerKeyWithVaultView(
  ctx: ServiceContext,
  presented: string,
  vaultId: string,
): Promise<{ principal: Principal | null; vault: { view: VaultView; accountId: string } | undefined }> {
  const hash = hashSecret(presented)
  const row = await ctx.db.get<ViewRow & KeyColumns>(
    `SELECT k.id AS key_id, k.account_id AS key_account_id, k.kind AS key_kind, k.key_hash AS key_hash,
       k.revoked_at AS key_revoked_at, view.*
     FROM api_keys k LEFT JOIN (${VIEW_SQL} WHERE v.id = ?) view ON 1 = 1
     WHERE k.key_hash = ?`,
    vaultId,
    hash,
  )
  if (!row) return { principal: null, vault: undefined }
  const key: KeyRow = {
    id: row.key_id,
    account_id: row.key_account_id,
    kind: row.key_kind,
    key_hash: row.key_hash,
    revoked_at: row.key_revoked_at,
  }
  const principal = ownerKeyPrincipal(key, presented, hash)
  // The vault is only told to a key that is good.
  if (!principal || row.id === null) return { principal, vault: undefined }
  return { principal, vault: { view: toView(row, true), accountId: row.account_id } }
}

interface KeyColumns {
  key_id: string
  key_account_id: string
  key_kind: KeyRow['kind']
  key_hash: Buffer
  key_revoked_at: string | null
}

export function findVault(ctx: ServiceContext, vaultId: string): Promise<VaultRow | undefined> {
  return ctx.db.get<VaultRow>('SELECT * FROM vaults WHERE id = ?', vaultId)
}

/** The vault if the account owns it; another account's vault is reported as missing, not forbidden. */
export async function ownedVault(ctx: ServiceContext, accountId: string, vaultId: string): Promise<VaultRow> {
  const row = await findVault(ctx, vaultId)
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

export async function touchVault(ctx: ServiceContext, vaultId: string): Promise<void> {
  await ctx.db.run('UPDATE vaults SET updated_at = ? WHERE id = ?', ctx.clock().toISOString(), vaultId)
}

export async function createVault(
  ctx: ServiceContext,
  accountId: string,
  preset: SssPreset,
  name: string | null = null,
): Promise<VaultView> {
  if (!SSS_PRESETS.includes(preset)) throw new AdminError('--preset must be standard or enhanced')
  const id = newId('vlt')
  const now = ctx.clock().toISOString()
  await ctx.db.transaction(async () => {
    await requireAccount(ctx, accountId)
    await ctx.db.run(
      `INSERT INTO vaults (id, account_id, sss_preset, state, created_at, updated_at, name)
         VALUES (?, ?, ?, 'active', ?, ?, ?)`,
      id,
      accountId,
      preset,
      now,
      now,
      name,
    )
  })
  return vaultView(ctx, id)
}

/**
 * PATCH /vault/:id: sets (or, with null, clears) the vault's name and turns one-step check-in links in
 * reminders on or off; allowed in every state. Fields left out keep their value.
 */
export async function changeVaultSettings(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  change: { name?: string | null; checkInLinks?: boolean },
): Promise<VaultView> {
  await ctx.db.transaction(async () => {
    const row = await ownedVault(ctx, accountId, vaultId)
    if (change.checkInLinks === false) {
      // The links already sent stay refused for good (check-in-links.ts): an owner who turns them off
      // may distrust the mailbox that holds them, and turning links on again is about later reminders.
      await ctx.db.run(
        'UPDATE check_in_links SET voided_at = ? WHERE vault_id = ? AND used_at IS NULL AND voided_at IS NULL',
        ctx.clock().toISOString(),
        vaultId,
      )
    }
    await ctx.db.run(
      'UPDATE vaults SET name = ?, check_in_links = ?, updated_at = ? WHERE id = ?',
      change.name !== undefined ? change.name : row.name,
      change.checkInLinks !== undefined ? (change.checkInLinks ? 1 : 0) : row.check_in_links,
      ctx.clock().toISOString(),
      vaultId,
    )
  })
  return vaultView(ctx, vaultId)
}

/** Deletes an active vault with everything in it; blobs no other asset shares are removed from the store. */
export async function deleteVault(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
): Promise<{ deleted: string }> {
  const unshared = await ctx.db.transaction(async () => {
    const row = await ownedVault(ctx, accountId, vaultId)
    requireActive(row, 'deleting the vault')
    const blobs = await ctx.db.all<{ sha256: string; storage_tx_id: string }>(
      'SELECT DISTINCT sha256, storage_tx_id FROM assets WHERE vault_id = ?',
      vaultId,
    )
    await ctx.db.run('DELETE FROM vaults WHERE id = ?', vaultId)
    const left: StoredBlob[] = []
    for (const blob of blobs) {
      const shared = await ctx.db.get('SELECT 1 AS found FROM assets WHERE sha256 = ? LIMIT 1', blob.sha256)
      if (!shared) left.push({ sha256Hex: blob.sha256, storageTxId: blob.storage_tx_id })
    }
    return left
  })
  // After the transaction (which may run twice on PostgreSQL); each blob is checked again in its turn, as
  // an upload of the same bytes may have recorded an asset since.
  for (const blob of unshared) {
    await inBlobTurn(ctx, blob.sha256Hex, () => removeUnreferencedBlob(ctx, blob)).catch(() => {
      // The vault is gone, which is what was asked; a blob left behind is removed by the garbage
      // collection at the next start.
    })
  }
  return { deleted: vaultId }
}
