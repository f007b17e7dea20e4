// Accounts, their API keys and their credit balance (credits belong to the account, not the vault).
import { KEY_PREFIX, type KeyKind, LIMITS } from '../shared/api'
import type { ServiceContext } from './context'
import type { Principal } from './principal'
import { HEIR_TOKEN_PREFIX, hashSecret, newId, newSecret, sameHash } from './secrets'

export class AdminError extends Error {}

export async function createAccount(
  ctx: ServiceContext,
  email: string,
): Promise<{ accountId: string; apiKey: string }> {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
    throw new AdminError(`"${email}" is not a valid e-mail address; pass --email you@example.com`)
  }
  const accountId = newId('acc')
  const now = ctx.clock().toISOString()
  const apiKey = await ctx.db.transaction(async () => {
    await ctx.db.run(
      'INSERT INTO accounts (id, email, credits_balance, created_at) VALUES (?, ?, 0, ?)',
      accountId,
      email,
      now,
    )
    await changeCredits(ctx, accountId, LIMITS.trialCredits, 'trial', null)
    return insertKey(ctx, accountId, 'human')
  })
  return { accountId, apiKey }
}

async function insertKey(ctx: ServiceContext, accountId: string, kind: KeyKind): Promise<string> {
  const apiKey = newSecret(KEY_PREFIX[kind])
  await ctx.db.run(
    'INSERT INTO api_keys (id, account_id, kind, key_hash, created_at) VALUES (?, ?, ?, ?, ?)',
    newId('key'),
    accountId,
    kind,
    hashSecret(apiKey),
    ctx.clock().toISOString(),
  )
  return apiKey
}

export async function requireAccount(ctx: ServiceContext, accountId: string): Promise<void> {
  if (!(await ctx.db.get('SELECT 1 AS found FROM accounts WHERE id = ?', accountId))) {
    throw new AdminError(`no account ${accountId}; create one with: admin create-account --email <address>`)
  }
}

export async function createApiKey(ctx: ServiceContext, accountId: string, kind: KeyKind): Promise<string> {
  if (kind !== 'human' && kind !== 'agent') throw new AdminError('--kind must be human or agent')
  return ctx.db.transaction(async () => {
    await requireAccount(ctx, accountId)
    return insertKey(ctx, accountId, kind)
  })
}

/** Revokes an account API key, an heir access token or a practice (rehearsal) heir token. */
/** Revokes the account key a request authenticated with (DELETE /key): a key may always give itself up. */
export async function revokeOwnKey(ctx: ServiceContext, keyId: string): Promise<void> {
  await ctx.db.run(
    'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
    ctx.clock().toISOString(),
    keyId,
  )
}

export async function revokeKey(ctx: ServiceContext, key: string): Promise<boolean> {
  const hash = hashSecret(key)
  const now = ctx.clock().toISOString()
  const sql = key.startsWith(HEIR_TOKEN_PREFIX)
    ? 'UPDATE heir_tokens SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL'
    : 'UPDATE api_keys SET revoked_at = ? WHERE key_hash = ? AND revoked_at IS NULL'
  let result = await ctx.db.run(sql, now, hash)
  if (result.changes === 0 && key.startsWith(HEIR_TOKEN_PREFIX)) {
    // A practice token: ending its rehearsal is what revokes it (as DELETE /vault/:id/rehearsal does).
    result = await ctx.db.run(
      'UPDATE rehearsals SET ended_at = ? WHERE token_hash = ? AND ended_at IS NULL AND expires_at >= ?',
      now,
      hash,
      now,
    )
  }
  if (result.changes === 0)
    throw new AdminError('no active key matches; it may be revoked already or mistyped')
  return true
}

/**
 * Adds (or, negative, removes) credits inside the caller's transaction; false when the balance is short.
 * One conditional UPDATE, so two debits racing (even from two instances) never take the balance below 0.
 */
export async function changeCredits(
  ctx: ServiceContext,
  accountId: string,
  delta: number,
  reason: string,
  reference: string | null,
): Promise<boolean> {
  const updated = await ctx.db.run(
    'UPDATE accounts SET credits_balance = credits_balance + ? WHERE id = ? AND credits_balance + ? >= 0',
    delta,
    accountId,
    delta,
  )
  if (updated.changes === 0) return false
  await ctx.db.run(
    'INSERT INTO credit_ledger (account_id, delta, reason, reference, created_at) VALUES (?, ?, ?, ?, ?)',
    accountId,
    delta,
    reason,
    reference,
    ctx.clock().toISOString(),
  )
  return true
}

/**
 * Takes an upload's cost before the blob store is paid (inside the caller's transaction), keeping a row
 * until the asset is recorded or the credits refunded; false when the balance is short.
 */
export async function reserveCredits(
  ctx: ServiceContext,
  accountId: string,
  credits: number,
  assetId: string,
): Promise<boolean> {
  if (!(await changeCredits(ctx, accountId, -credits, 'upload', assetId))) return false
  await ctx.db.run(
    'INSERT INTO upload_reservations (asset_id, account_id, credits, created_at) VALUES (?, ?, ?, ?)',
    assetId,
    accountId,
    credits,
    ctx.clock().toISOString(),
  )
  return true
}

/**
 * The reserved credits pay for the recorded asset (inside its transaction); false when they were refunded
 * meanwhile (an upload stuck for over a day, taken for abandoned).
 */
export async function spendReservation(ctx: ServiceContext, assetId: string): Promise<boolean> {
  return (await ctx.db.run('DELETE FROM upload_reservations WHERE asset_id = ?', assetId)).changes === 1
}

/** Gives an upload's reserved credits back, once however often it is called; the credits refunded. */
export async function refundReservation(ctx: ServiceContext, assetId: string): Promise<number> {
  return ctx.db.transaction(async () => {
    const row = await ctx.db.get<{ account_id: string; credits: number | string }>(
      'SELECT account_id, credits FROM upload_reservations WHERE asset_id = ?',
      assetId,
    )
    if (!row || !(await spendReservation(ctx, assetId))) return 0
    await changeCredits(ctx, row.account_id, Number(row.credits), 'upload-refund', assetId)
    return Number(row.credits)
  })
}

/** An upload runs for at most a day (as staged files and blobs in flight: blob-store.ts). */
const RESERVATION_IN_FLIGHT_MS = 24 * 60 * 60 * 1000

/**
 * Refunds reservations left by an upload that crashed between reserving and recording. At start: on
 * SQLite every one (the data-folder lock makes this the only instance, so none is in flight), on
 * PostgreSQL those over a day old (other instances may be uploading now).
 */
export async function refundAbandonedReservations(ctx: ServiceContext): Promise<number> {
  const rows =
    ctx.db.kind === 'sqlite'
      ? await ctx.db.all<{ asset_id: string }>('SELECT asset_id FROM upload_reservations')
      : await ctx.db.all<{ asset_id: string }>(
          'SELECT asset_id FROM upload_reservations WHERE created_at < ?',
          new Date(ctx.clock().getTime() - RESERVATION_IN_FLIGHT_MS).toISOString(),
        )
  let refunded = 0
  for (const row of rows) {
    const credits = await refundReservation(ctx, row.asset_id)
    if (credits > 0) {
      refunded++
      console.error(
        `[vault-service] refunded the ${credits} credits upload ${row.asset_id} reserved and never used (it was interrupted before its file was recorded)`,
      )
    }
  }
  return refunded
}

export async function creditsBalance(ctx: ServiceContext, accountId: string): Promise<number> {
  const row = await ctx.db.get<{ balance: number }>(
    'SELECT credits_balance AS balance FROM accounts WHERE id = ?',
    accountId,
  )
  return row?.balance ?? 0
}

export async function addCredits(ctx: ServiceContext, accountId: string, credits: number): Promise<number> {
  if (!Number.isSafeInteger(credits) || credits <= 0) {
    throw new AdminError('--credits must be a positive whole number')
  }
  return ctx.db.transaction(async () => {
    await requireAccount(ctx, accountId)
    await changeCredits(ctx, accountId, credits, 'purchase', null)
    return creditsBalance(ctx, accountId)
  })
}

export interface KeyRow {
  id: string
  account_id: string
  kind: 'human' | 'agent'
  key_hash: Buffer
  revoked_at: string | null
}
interface HeirTokenRow {
  id: string
  vault_id: string
  heir_id: string
  token_hash: Buffer
  revoked_at: string | null
}

/** Looks a presented key up by its hash; null when unknown or revoked. */
export async function authenticate(ctx: ServiceContext, presented: string): Promise<Principal | null> {
  const hash = hashSecret(presented)
  if (presented.startsWith(HEIR_TOKEN_PREFIX)) {
    const row = await ctx.db.get<HeirTokenRow>(
      'SELECT id, vault_id, heir_id, token_hash, revoked_at FROM heir_tokens WHERE token_hash = ?',
      hash,
    )
    if (!row || row.revoked_at || !sameHash(row.token_hash, hash)) return null
    return { kind: 'heir', keyId: row.id, vaultId: row.vault_id, heirId: row.heir_id }
  }
  const row = await ctx.db.get<KeyRow>(
    'SELECT id, account_id, kind, key_hash, revoked_at FROM api_keys WHERE key_hash = ?',
    hash,
  )
  return ownerKeyPrincipal(row, presented, hash)
}

/** The owner (human or agent) behind an api_keys row found by `hash`; null when none, revoked or re-labelled. */
export function ownerKeyPrincipal(
  row: KeyRow | undefined,
  presented: string,
  hash: Buffer,
): Principal | null {
  if (!row || row.revoked_at || !sameHash(row.key_hash, hash)) return null
  // The prefix must agree with the stored kind, so a key cannot be re-labelled by its holder.
  if (!presented.startsWith(KEY_PREFIX[row.kind])) return null
  return { kind: row.kind, keyId: row.id, accountId: row.account_id }
}
