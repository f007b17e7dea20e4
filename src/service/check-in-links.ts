// Check-in reminders: a few days before a dead man's switch deadline the owner gets an e-mail. Only a vault
// whose owner opted in (extension 'check-in-links', off by default) gets a one-step link in it: a link makes
// "proof of life" mean "access to the owner's mailbox". The link's token is random, single-use, bound to the
// vault and to that deadline (the period), and stored only as a hash; using it checks in as the API does.
// Turned off, the links already sent stop working at once, and for good: turning links on again only puts
// links in later reminders (vaults.ts, changeVaultSettings).
import { CHECK_IN_FREQUENCY_DAYS, type CheckInResult, LIMITS } from '../shared/api'
import { creditsBalance } from './accounts'
import { checkIn } from './check-in'
import type { ServiceContext } from './context'
import { addDays } from './days'
import { ApiError } from './errors'
import { checkInReminder } from './mail-messages'
import { queueMail } from './outbox'
import { CHECK_IN_TOKEN_PREFIX, hashSecret, newId, newSecret } from './secrets'
import { findVault, type VaultRow } from './vaults'

/** How many days before the deadline the reminder goes out (once per deadline). */
export const CHECK_IN_REMINDER_DAYS = 3

/** The note of the Audit Pulse a check-in through the link records. */
export const REMINDER_CHECK_IN_NOTE = 'checked in from the reminder e-mail'

interface LinkRow {
  id: string
  vault_id: string
  due_at: string
  created_at: string
  used_at: string | null
  voided_at: string | null
}

/** What a link can do now; the pages say each case in the reader's language. */
export type CheckInLinkState =
  | { state: 'unknown' }
  | { state: 'ready'; vault: VaultRow; label: string; dueAt: string; periodDays: number; cost: number }
  | { state: 'used'; usedAt: string; nextDue: string | null }
  | { state: 'checked-in-since'; nextDue: string }
  | { state: 'no-switch' }
  | { state: 'links-off' }
  | { state: 'releasing'; label: string; vaultState: string }

const labelOf = (vault: VaultRow) => (vault.name ? `"${vault.name}" (${vault.id})` : vault.id)

async function linkByToken(ctx: ServiceContext, token: string): Promise<LinkRow | undefined> {
  if (!token.startsWith(CHECK_IN_TOKEN_PREFIX)) return undefined
  return ctx.db.get<LinkRow>('SELECT * FROM check_in_links WHERE token_hash = ?', hashSecret(token))
}

async function stateOf(ctx: ServiceContext, link: LinkRow | undefined): Promise<CheckInLinkState> {
  const vault = link && (await findVault(ctx, link.vault_id))
  if (!link || !vault) return { state: 'unknown' }
  if (vault.state !== 'active') return { state: 'releasing', label: labelOf(vault), vaultState: vault.state }
  if (link.used_at) return { state: 'used', usedAt: link.used_at, nextDue: vault.next_check_in_due }
  // The owner turned one-step links off (or never turned them on, for a link sent before the choice),
  // now or at any time since this link was sent.
  if (vault.check_in_links !== 1 || link.voided_at) return { state: 'links-off' }
  if (vault.release_trigger !== 'dead_man_switch' || !vault.check_in_frequency) return { state: 'no-switch' }
  // Another check-in (app, API, a later link) or a new configuration moved the deadline this link was for.
  if (vault.next_check_in_due !== link.due_at) {
    return { state: 'checked-in-since', nextDue: vault.next_check_in_due ?? link.due_at }
  }
  return {
    state: 'ready',
    vault,
    label: labelOf(vault),
    dueAt: link.due_at,
    periodDays: CHECK_IN_FREQUENCY_DAYS[vault.check_in_frequency],
    cost: LIMITS.checkInCostCredits,
  }
}

/** What the link would do (GET: shows, changes nothing). */
export async function inspectCheckInLink(ctx: ServiceContext, token: string): Promise<CheckInLinkState> {
  return stateOf(ctx, await linkByToken(ctx, token))
}

export type CheckInLinkOutcome =
  | { outcome: 'checked-in'; label: string; nextDue: string }
  | { outcome: 'not-enough-credits'; cost: number; balance: number }
  | { outcome: 'refused'; why: Exclude<CheckInLinkState, { state: 'ready' }> }

/**
 * POST: checks in as the API does (credits, Audit Pulse) and uses the link up, in one transaction. Two
 * uses at once (a double click, two instances) cannot both check in: SQLite runs one writer at a time,
 * and on PostgreSQL the second conflicts with the first, is run again and finds the link used.
 */
export async function useCheckInLink(ctx: ServiceContext, token: string): Promise<CheckInLinkOutcome> {
  return ctx.db.transaction(async (): Promise<CheckInLinkOutcome> => {
    const link = await linkByToken(ctx, token)
    const now = await stateOf(ctx, link)
    if (now.state !== 'ready') return { outcome: 'refused', why: now }
    let result: CheckInResult
    try {
      result = await checkIn(ctx, now.vault.account_id, now.vault.id, REMINDER_CHECK_IN_NOTE)
    } catch (error) {
      if (error instanceof ApiError && error.status === 402) {
        return {
          outcome: 'not-enough-credits',
          cost: now.cost,
          balance: await creditsBalance(ctx, now.vault.account_id),
        }
      }
      throw error
    }
    await ctx.db.run(
      'UPDATE check_in_links SET used_at = ? WHERE id = ?',
      ctx.clock().toISOString(),
      link!.id,
    )
    return { outcome: 'checked-in', label: now.label, nextDue: result.nextCheckInDue }
  })
}

/**
 * Scheduler step: a reminder for every active dead man's switch whose deadline is at most
 * CHECK_IN_REMINDER_DAYS away and has none yet, with a fresh one-step link only when the vault opted in.
 * A deadline already passed gets none: the release starts instead.
 */
export async function sendCheckInReminders(
  ctx: ServiceContext,
): Promise<{ vaultId: string; dueAt: string }[]> {
  const now = ctx.clock()
  const soon = addDays(now.toISOString(), CHECK_IN_REMINDER_DAYS)
  const due = await ctx.db.all<{ id: string }>(
    `SELECT v.id FROM vaults v
      WHERE v.state = 'active' AND v.release_trigger = 'dead_man_switch' AND v.check_in_frequency IS NOT NULL
        AND v.next_check_in_due > ? AND v.next_check_in_due <= ?
        AND NOT EXISTS (SELECT 1 FROM check_in_links l WHERE l.vault_id = v.id AND l.due_at = v.next_check_in_due)`,
    now.toISOString(),
    soon,
  )
  const sent: { vaultId: string; dueAt: string }[] = []
  for (const { id: vaultId } of due) {
    const token = newSecret(CHECK_IN_TOKEN_PREFIX)
    // Returns the deadline reminded of, or null; nothing outside the database is touched inside, since
    // PostgreSQL may run the transaction again.
    const dueAt = await ctx.db.transaction(async (): Promise<string | null> => {
      const vault = await findVault(ctx, vaultId)
      const dueAt = vault?.next_check_in_due
      if (vault?.state !== 'active' || vault.release_trigger !== 'dead_man_switch' || !dueAt) return null
      // One row per vault and deadline, however many instances run this step at once: the insert that
      // finds one there already changes nothing, and then no reminder is queued. Without the opt-in the
      // row only records the reminder: its token is never sent, and the link would be refused anyway.
      const withLink = vault.check_in_links === 1
      const inserted = await ctx.db.run(
        `INSERT INTO check_in_links (id, vault_id, due_at, token_hash, created_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (vault_id, due_at) DO NOTHING`,
        newId('cil'),
        vaultId,
        dueAt,
        hashSecret(token),
        now.toISOString(),
      )
      if (inserted.changes === 0) return null
      const owner = await ctx.db.get<{ email: string }>(
        'SELECT email FROM accounts WHERE id = ?',
        vault.account_id,
      )
      await queueMail(ctx, {
        vaultId,
        kind: 'check_in_reminder',
        to: owner!.email,
        ...checkInReminder({
          vault: labelOf(vault),
          dueAt,
          link: withLink ? `${ctx.publicUrl()}/check-in/${token}` : null,
          cost: LIMITS.checkInCostCredits,
          periodDays: CHECK_IN_FREQUENCY_DAYS[vault.check_in_frequency!],
        }),
      })
      return dueAt
    })
    if (dueAt) sent.push({ vaultId, dueAt })
  }
  return sent
}
