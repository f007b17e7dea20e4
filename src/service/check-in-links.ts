// Check-in reminders with a one-step check-in: a few days before a dead man's switch deadline the owner gets an
// e-mail with a personal link. The link's token is random, single-use, bound to the vault and to that deadline
// (the period), and stored only as a hash; using it checks in exactly as the API does.
import { CHECK_IN_FREQUENCY_DAYS, LIMITS } from '../shared/api'
import { creditsBalance } from './accounts'
import { checkIn } from './check-in'
import type { ServiceContext } from './context'
import { inTransaction, prepared } from './database'
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
}

/** What a link can do now; the pages say each case in the reader's language. */
export type CheckInLinkState =
  | { state: 'unknown' }
  | { state: 'ready'; vault: VaultRow; label: string; dueAt: string; periodDays: number; cost: number }
  | { state: 'used'; usedAt: string; nextDue: string | null }
  | { state: 'checked-in-since'; nextDue: string }
  | { state: 'no-switch' }
  | { state: 'releasing'; label: string; vaultState: string }

const labelOf = (vault: VaultRow) => (vault.name ? `"${vault.name}" (${vault.id})` : vault.id)

function linkByToken(ctx: ServiceContext, token: string): LinkRow | undefined {
  if (!token.startsWith(CHECK_IN_TOKEN_PREFIX)) return undefined
  return prepared(ctx.db, 'SELECT * FROM check_in_links WHERE token_hash = ?').get(hashSecret(token)) as
    | LinkRow
    | undefined
}

function stateOf(ctx: ServiceContext, link: LinkRow | undefined): CheckInLinkState {
  const vault = link && findVault(ctx, link.vault_id)
  if (!link || !vault) return { state: 'unknown' }
  if (vault.state !== 'active') return { state: 'releasing', label: labelOf(vault), vaultState: vault.state }
  if (link.used_at) return { state: 'used', usedAt: link.used_at, nextDue: vault.next_check_in_due }
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
export function inspectCheckInLink(ctx: ServiceContext, token: string): CheckInLinkState {
  return stateOf(ctx, linkByToken(ctx, token))
}

export type CheckInLinkOutcome =
  | { outcome: 'checked-in'; label: string; nextDue: string }
  | { outcome: 'not-enough-credits'; cost: number; balance: number }
  | { outcome: 'refused'; why: Exclude<CheckInLinkState, { state: 'ready' }> }

/** POST: checks in as the API does (credits, Audit Pulse) and uses the link up, in one transaction. */
export function useCheckInLink(ctx: ServiceContext, token: string): CheckInLinkOutcome {
  return inTransaction(ctx.db, (): CheckInLinkOutcome => {
    const link = linkByToken(ctx, token)
    const now = stateOf(ctx, link)
    if (now.state !== 'ready') return { outcome: 'refused', why: now }
    let result: ReturnType<typeof checkIn>
    try {
      result = checkIn(ctx, now.vault.account_id, now.vault.id, REMINDER_CHECK_IN_NOTE)
    } catch (error) {
      if (error instanceof ApiError && error.status === 402) {
        return {
          outcome: 'not-enough-credits',
          cost: now.cost,
          balance: creditsBalance(ctx, now.vault.account_id),
        }
      }
      throw error
    }
    prepared(ctx.db, 'UPDATE check_in_links SET used_at = ? WHERE id = ?').run(
      ctx.clock().toISOString(),
      link!.id,
    )
    return { outcome: 'checked-in', label: now.label, nextDue: result.nextCheckInDue }
  })
}

/**
 * Scheduler step: a reminder with a fresh link for every active dead man's switch whose deadline is at most
 * CHECK_IN_REMINDER_DAYS away and has none yet. A deadline already passed gets none: the release starts instead.
 */
export function sendCheckInReminders(ctx: ServiceContext): { vaultId: string; dueAt: string }[] {
  const now = ctx.clock()
  const soon = addDays(now.toISOString(), CHECK_IN_REMINDER_DAYS)
  const due = prepared(
    ctx.db,
    `SELECT v.id FROM vaults v
      WHERE v.state = 'active' AND v.release_trigger = 'dead_man_switch' AND v.check_in_frequency IS NOT NULL
        AND v.next_check_in_due > ? AND v.next_check_in_due <= ?
        AND NOT EXISTS (SELECT 1 FROM check_in_links l WHERE l.vault_id = v.id AND l.due_at = v.next_check_in_due)`,
  )
    .pluck()
    .all(now.toISOString(), soon) as string[]
  const sent: { vaultId: string; dueAt: string }[] = []
  for (const vaultId of due) {
    inTransaction(ctx.db, () => {
      const vault = findVault(ctx, vaultId)
      const dueAt = vault?.next_check_in_due
      if (vault?.state !== 'active' || vault.release_trigger !== 'dead_man_switch' || !dueAt) return
      if (
        prepared(ctx.db, 'SELECT 1 FROM check_in_links WHERE vault_id = ? AND due_at = ?').get(vaultId, dueAt)
      ) {
        return
      }
      const token = newSecret(CHECK_IN_TOKEN_PREFIX)
      prepared(
        ctx.db,
        'INSERT INTO check_in_links (id, vault_id, due_at, token_hash, created_at) VALUES (?, ?, ?, ?, ?)',
      ).run(newId('cil'), vaultId, dueAt, hashSecret(token), now.toISOString())
      const owner = prepared(ctx.db, 'SELECT email FROM accounts WHERE id = ?')
        .pluck()
        .get(vault.account_id) as string
      queueMail(ctx, {
        vaultId,
        kind: 'check_in_reminder',
        to: owner,
        ...checkInReminder({
          vault: labelOf(vault),
          dueAt,
          link: `${ctx.publicUrl()}/check-in/${token}`,
          cost: LIMITS.checkInCostCredits,
          periodDays: CHECK_IN_FREQUENCY_DAYS[vault.check_in_frequency!],
        }),
      })
      sent.push({ vaultId, dueAt })
    })
  }
  return sent
}
