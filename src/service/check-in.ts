// The owner's check-in (an Audit Pulse): it costs credits and moves the dead man's switch deadline one period on.
// Used by the API and by the one-step link of a check-in reminder.
import { CHECK_IN_FREQUENCY_DAYS, type CheckInResult, LIMITS } from '../shared/api'
import { changeCredits, creditsBalance } from './accounts'
import type { ServiceContext } from './context'
import { addDays, DAY_MS } from './days'
import { conflict, insufficientCredits } from './errors'
import { ownedVault, requireActive } from './vaults'

/**
 * One transaction: the state checks, the charge and the new deadline, so a check-in racing a release or
 * a configuration change (here or on another instance) sees it whole or not at all.
 */
export async function checkIn(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  note: string | null,
): Promise<CheckInResult> {
  return ctx.db.transaction(async () => {
    const vault = await ownedVault(ctx, accountId, vaultId)
    requireActive(vault, 'checking in')
    if (vault.release_trigger !== 'dead_man_switch' || !vault.check_in_frequency) {
      throw conflict(
        `no dead man's switch is configured for vault ${vaultId}, so there is nothing to check in to; ` +
          'configure one with POST release/config {"trigger":"dead_man_switch","config":{"checkInFrequency":"monthly"}}',
      )
    }
    const cost = LIMITS.checkInCostCredits
    if (!(await changeCredits(ctx, accountId, -cost, 'check_in', vaultId))) {
      throw insufficientCredits(
        `a check-in costs ${cost} credits and the balance is ${await creditsBalance(ctx, accountId)}; add credits, then check in again`,
      )
    }
    const now = ctx.clock()
    const nextDue = addDays(now.toISOString(), CHECK_IN_FREQUENCY_DAYS[vault.check_in_frequency])
    await ctx.db.run(
      'UPDATE vaults SET next_check_in_due = ?, updated_at = ? WHERE id = ?',
      nextDue,
      now.toISOString(),
      vaultId,
    )
    await ctx.db.run(
      'INSERT INTO audit_pulses (vault_id, note, credits_consumed, next_check_in_due, created_at) VALUES (?, ?, ?, ?, ?)',
      vaultId,
      note,
      cost,
      nextDue,
      now.toISOString(),
    )
    return {
      success: true,
      nextCheckInDue: nextDue,
      daysRemaining: Math.ceil((Date.parse(nextDue) - now.getTime()) / DAY_MS),
    }
  })
}
