// Accounts, their API keys and their credit balance (credits belong to the account, not the vault).
import { KEY_PREFIX, type KeyKind, LIMITS } from '../shared/api'
import type { ServiceContext } from './context'
import { inTransaction, prepared } from './database'
import type { Principal } from './principal'
import { HEIR_TOKEN_PREFIX, hashSecret, newId, newSecret, sameHash } from './secrets'

export class AdminError extends Error {}

export function createAccount(ctx: ServiceContext, email: string): { accountId: string; apiKey: string } {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
    throw new AdminError(`"${email}" is not a valid e-mail address; pass --email you@example.com`)
  }
  const accountId = newId('acc')
  const now = ctx.clock().toISOString()
  const apiKey = inTransaction(ctx.db, () => {
    prepared(ctx.db, 'INSERT INTO accounts (id, email, credits_balance, created_at) VALUES (?, ?, 0, ?)').run(
      accountId,
      email,
      now,
    )
    changeCredits(ctx, accountId, LIMITS.trialCredits, 'trial', null)
    return insertKey(ctx, accountId, 'human')
  })
  return { accountId, apiKey }
}

function insertKey(ctx: ServiceContext, accountId: string, kind: KeyKind): string {
  const apiKey = newSecret(KEY_PREFIX[kind])
  prepared(
    ctx.db,
    'INSERT INTO api_keys (id, account_id, kind, key_hash, created_at) VALUES (?, ?, ?, ?, ?)',
  ).run(newId('key'), accountId, kind, hashSecret(apiKey), ctx.clock().toISOString())
  return apiKey
}

export function requireAccount(ctx: ServiceContext, accountId: string): void {
  if (!prepared(ctx.db, 'SELECT 1 FROM accounts WHERE id = ?').get(accountId)) {
    throw new AdminError(`no account ${accountId}; create one with: admin create-account --email <address>`)
  }
}

export function createApiKey(ctx: ServiceContext, accountId: string, kind: KeyKind): string {
  if (kind !== 'human' && kind !== 'agent') throw new AdminError('--kind must be human or agent')
  return inTransaction(ctx.db, () => {
    requireAccount(ctx, accountId)
    return insertKey(ctx, accountId, kind)
  })
}

/** Revokes an account API key, an heir access token or a practice (rehearsal) heir token. */
export function revokeKey(ctx: ServiceContext, key: string): boolean {
  const hash = hashSecret(key)
  const now = ctx.clock().toISOString()
  const sql = key.startsWith(HEIR_TOKEN_PREFIX)
    ? 'UPDATE heir_tokens SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL'
    : 'UPDATE api_keys SET revoked_at = ? WHERE key_hash = ? AND revoked_at IS NULL'
  let result = prepared(ctx.db, sql).run(now, hash)
  if (result.changes === 0 && key.startsWith(HEIR_TOKEN_PREFIX)) {
    // A practice token: ending its rehearsal is what revokes it (as DELETE /vault/:id/rehearsal does).
    result = prepared(
      ctx.db,
      'UPDATE rehearsals SET ended_at = ? WHERE token_hash = ? AND ended_at IS NULL AND expires_at >= ?',
    ).run(now, hash, now)
  }
  if (result.changes === 0)
    throw new AdminError('no active key matches; it may be revoked already or mistyped')
  return true
}

/** Adds (or, negative, removes) credits inside the caller's transaction; false when the balance is short. */
export function changeCredits(
  ctx: ServiceContext,
  accountId: string,
  delta: number,
  reason: string,
  reference: string | null,
): boolean {
  const updated = prepared(
    ctx.db,
    'UPDATE accounts SET credits_balance = credits_balance + ? WHERE id = ? AND credits_balance + ? >= 0',
  ).run(delta, accountId, delta)
  if (updated.changes === 0) return false
  prepared(
    ctx.db,
    'INSERT INTO credit_ledger (account_id, delta, reason, reference, created_at) VALUES (?, ?, ?, ?, ?)',
  ).run(accountId, delta, reason, reference, ctx.clock().toISOString())
  return true
}

export function creditsBalance(ctx: ServiceContext, accountId: string): number {
  const row = prepared(ctx.db, 'SELECT credits_balance AS b FROM accounts WHERE id = ?').get(accountId) as
    | { b: number }
    | undefined
  return row?.b ?? 0
}

export function addCredits(ctx: ServiceContext, accountId: string, credits: number): number {
  if (!Number.isSafeInteger(credits) || credits <= 0) {
    throw new AdminError('--credits must be a positive whole number')
  }
  return inTransaction(ctx.db, () => {
    requireAccount(ctx, accountId)
    changeCredits(ctx, accountId, credits, 'purchase', null)
    return creditsBalance(ctx, accountId)
  })
}

interface KeyRow {
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
export function authenticate(ctx: ServiceContext, presented: string): Principal | null {
  const hash = hashSecret(presented)
  if (presented.startsWith(HEIR_TOKEN_PREFIX)) {
    const row = prepared(
      ctx.db,
      'SELECT id, vault_id, heir_id, token_hash, revoked_at FROM heir_tokens WHERE token_hash = ?',
    ).get(hash) as HeirTokenRow | undefined
    if (!row || row.revoked_at || !sameHash(row.token_hash, hash)) return null
    return { kind: 'heir', keyId: row.id, vaultId: row.vault_id, heirId: row.heir_id }
  }
  const row = prepared(
    ctx.db,
    'SELECT id, account_id, kind, key_hash, revoked_at FROM api_keys WHERE key_hash = ?',
  ).get(hash) as KeyRow | undefined
  if (!row || row.revoked_at || !sameHash(row.key_hash, hash)) return null
  // The prefix must agree with the stored kind, so a key cannot be re-labelled by its holder.
  if (!presented.startsWith(KEY_PREFIX[row.kind])) return null
  return { kind: row.kind, keyId: row.id, accountId: row.account_id }
}
