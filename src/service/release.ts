// The release lifecycle: trigger configuration, starting, cancelling and completing a release,
// guardian claims, and the scheduler pass that moves vaults through their states as time passes.
import {
  type CancelResult,
  CHECK_IN_FREQUENCY_DAYS,
  type CheckInFrequency,
  LIMITS,
  type ReleaseConfig,
  SSS_PRESET_SHAPE,
} from '../shared/api'
import { sendCheckInReminders } from './check-in-links'
import type { ServiceContext } from './context'
import { inTransaction, prepared } from './database'
import { addDays } from './days'
import { conflict } from './errors'
import { contestationAlert, heirNotification, releaseCancelled } from './mail-messages'
import { queueMail } from './outbox'
import { type GuardianByToken, guardianByToken } from './people'
import { endLiveRehearsals } from './rehearsal'
import { HEIR_TOKEN_PREFIX, hashSecret, newId, newSecret } from './secrets'
import type { ReleaseConfigBody } from './validation'
import { findVault, ownedVault, requireActive, type VaultRow } from './vaults'

export function configureRelease(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  body: ReleaseConfigBody,
): ReleaseConfig {
  return inTransaction(ctx.db, () => {
    const vault = ownedVault(ctx, accountId, vaultId)
    requireActive(vault, 'changing the release trigger')
    const frequency: CheckInFrequency = body.config?.checkInFrequency ?? vault.check_in_frequency ?? 'monthly'
    const now = ctx.clock().toISOString()
    const nextDue = addDays(now, CHECK_IN_FREQUENCY_DAYS[frequency])
    prepared(
      ctx.db,
      `UPDATE vaults SET release_trigger = ?, check_in_frequency = ?, next_check_in_due = ?, updated_at = ?
         WHERE id = ?`,
    ).run(body.trigger, frequency, nextDue, now, vaultId)
    // Claims made under an earlier configuration do not carry over.
    prepared(ctx.db, 'UPDATE guardians SET claimed_at = NULL WHERE vault_id = ?').run(vaultId)
    return {
      trigger: body.trigger,
      checkInFrequency: frequency,
      contestationDays: LIMITS.contestationDays,
      nextCheckInDue: nextDue,
    }
  })
}

interface ReleaseRow {
  id: string
  vault_id: string
  reason: string
  started_at: string
  contestation_ends_at: string
  cancelled_at: string | null
  released_at: string | null
}

function openRelease(ctx: ServiceContext, vaultId: string): ReleaseRow | undefined {
  return prepared(
    ctx.db,
    'SELECT * FROM releases WHERE vault_id = ? AND cancelled_at IS NULL AND released_at IS NULL ORDER BY started_at DESC LIMIT 1',
  ).get(vaultId) as ReleaseRow | undefined
}

function ownerEmail(ctx: ServiceContext, vault: VaultRow): string {
  return prepared(ctx.db, 'SELECT email FROM accounts WHERE id = ?').pluck().get(vault.account_id) as string
}

function sendAlert(ctx: ServiceContext, vault: VaultRow, release: ReleaseRow, day: number): void {
  prepared(ctx.db, "INSERT INTO release_alerts (release_id, day, outcome, at) VALUES (?, ?, 'sent', ?)").run(
    release.id,
    day,
    ctx.clock().toISOString(),
  )
  const mail = contestationAlert({
    day,
    vaultId: vault.id,
    reason: release.reason,
    startedAt: release.started_at,
    endsAt: release.contestation_ends_at,
    baseUrl: ctx.publicUrl(),
  })
  queueMail(ctx, {
    vaultId: vault.id,
    kind: `contestation_alert_day_${day}`,
    to: ownerEmail(ctx, vault),
    ...mail,
  })
}

/** active -> releasing, inside the caller's transaction; the day-0 alert goes out at once. */
function beginRelease(ctx: ServiceContext, vault: VaultRow, reason: string): ReleaseRow {
  const now = ctx.clock().toISOString()
  const release: ReleaseRow = {
    id: newId('rel'),
    vault_id: vault.id,
    reason,
    started_at: now,
    contestation_ends_at: addDays(now, LIMITS.contestationDays),
    cancelled_at: null,
    released_at: null,
  }
  prepared(
    ctx.db,
    'INSERT INTO releases (id, vault_id, reason, started_at, contestation_ends_at) VALUES (?, ?, ?, ?, ?)',
  ).run(release.id, vault.id, reason, release.started_at, release.contestation_ends_at)
  prepared(ctx.db, "UPDATE vaults SET state = 'releasing', updated_at = ? WHERE id = ?").run(now, vault.id)
  // A practice access never outlives the start of a real release.
  endLiveRehearsals(ctx, { vaultId: vault.id })
  sendAlert(ctx, vault, release, 0)
  return release
}

/** Starts a release now. Owners may do so only with the manual trigger; the operator (admin) always may. */
export function startRelease(
  ctx: ServiceContext,
  vaultId: string,
  opts: { accountId?: string; reason: string },
): void {
  inTransaction(ctx.db, () => {
    const vault = opts.accountId ? ownedVault(ctx, opts.accountId, vaultId) : findVault(ctx, vaultId)
    if (!vault) throw conflict(`vault ${vaultId} does not exist`)
    requireActive(vault, 'starting a release')
    if (opts.accountId && vault.release_trigger !== 'manual') {
      throw conflict(
        `vault ${vaultId} has release trigger ${vault.release_trigger ?? 'none'}; an owner can start a release by hand only ` +
          'when the trigger is manual (set it with POST release/config {"trigger":"manual"})',
      )
    }
    beginRelease(ctx, vault, opts.reason)
  })
  ctx.outboxChanged()
}

export function cancelRelease(ctx: ServiceContext, accountId: string, vaultId: string): CancelResult {
  const result = inTransaction(ctx.db, () => {
    const vault = ownedVault(ctx, accountId, vaultId)
    if (vault.state !== 'releasing') {
      throw conflict(`vault ${vaultId} is ${vault.state}, not releasing; there is no release to cancel`)
    }
    const release = openRelease(ctx, vaultId)!
    const now = ctx.clock().toISOString()
    if (now >= release.contestation_ends_at) {
      throw conflict(
        `the ${LIMITS.contestationDays}-day contestation period of vault ${vaultId} ended on ${release.contestation_ends_at}; the release can no longer be cancelled`,
      )
    }
    prepared(ctx.db, 'UPDATE releases SET cancelled_at = ? WHERE id = ?').run(now, release.id)
    // A fresh countdown: otherwise the missed deadline would start a new release at the next tick.
    const nextDue = vault.check_in_frequency
      ? addDays(now, CHECK_IN_FREQUENCY_DAYS[vault.check_in_frequency])
      : null
    prepared(
      ctx.db,
      "UPDATE vaults SET state = 'active', next_check_in_due = ?, updated_at = ? WHERE id = ?",
    ).run(nextDue, now, vaultId)
    prepared(ctx.db, 'UPDATE guardians SET claimed_at = NULL WHERE vault_id = ?').run(vaultId)
    queueMail(ctx, {
      vaultId,
      kind: 'release_cancelled',
      to: ownerEmail(ctx, vault),
      ...releaseCancelled({ vaultId, cancelledAt: now }),
    })
    return { cancelled: true, vaultState: 'active' as const, cancelledAt: now }
  })
  ctx.outboxChanged()
  return result
}

export type ClaimOutcome =
  | { outcome: 'recorded'; claims: number; threshold: number; found: GuardianByToken }
  | { outcome: 'release_started'; claims: number; threshold: number; found: GuardianByToken }
  | { outcome: 'already_releasing'; found: GuardianByToken }

/** A guardian claims a release; the preset's threshold of accepted guardians claiming starts it. */
export function claimRelease(ctx: ServiceContext, token: string): ClaimOutcome {
  const outcome = inTransaction(ctx.db, (): ClaimOutcome => {
    const found = guardianByToken(ctx, token)
    const { guardian, vault } = found
    if (vault.state !== 'active') return { outcome: 'already_releasing', found }
    if (guardian.status !== 'accepted') {
      throw conflict(
        `only guardians who accepted their invitation can claim; yours is ${guardian.status}. Accept it first (link in the invitation e-mail)`,
      )
    }
    if (vault.release_trigger !== 'guardian_claim') {
      throw conflict(
        `this vault does not release on guardian claims (its trigger is ${vault.release_trigger ?? 'not set'}); nothing was recorded`,
      )
    }
    if (!guardian.claimed_at) {
      prepared(ctx.db, 'UPDATE guardians SET claimed_at = ? WHERE id = ?').run(
        ctx.clock().toISOString(),
        guardian.id,
      )
    }
    const claims = prepared(
      ctx.db,
      "SELECT COUNT(*) FROM guardians WHERE vault_id = ? AND status = 'accepted' AND claimed_at IS NOT NULL",
    )
      .pluck()
      .get(vault.id) as number
    const { threshold } = SSS_PRESET_SHAPE[vault.sss_preset]
    if (claims >= threshold) {
      beginRelease(ctx, findVault(ctx, vault.id)!, `claimed by ${claims} of its guardians`)
      return { outcome: 'release_started', claims, threshold, found }
    }
    return { outcome: 'recorded', claims, threshold, found }
  })
  ctx.outboxChanged()
  return outcome
}

export interface TickReport {
  now: string
  releasesStarted: { vaultId: string; reason: string }[]
  alertsSent: { vaultId: string; day: number }[]
  alertsSkipped: { vaultId: string; day: number }[]
  released: { vaultId: string; heirsNotified: number }[]
  /** Check-in reminders (with their one-step links) sent to owners: vault and the deadline they are for. */
  remindersSent: { vaultId: string; dueAt: string }[]
}

/** releasing -> released inside the caller's transaction: heirs get an access token and instructions. */
function completeRelease(ctx: ServiceContext, vault: VaultRow, release: ReleaseRow): number {
  const now = ctx.clock().toISOString()
  prepared(ctx.db, 'UPDATE releases SET released_at = ? WHERE id = ?').run(now, release.id)
  prepared(ctx.db, "UPDATE vaults SET state = 'released', updated_at = ? WHERE id = ?").run(now, vault.id)
  const heirs = prepared(
    ctx.db,
    'SELECT id, name, email FROM heirs WHERE vault_id = ? ORDER BY added_at, rowid',
  ).all(vault.id) as {
    id: string
    name: string
    email: string
  }[]
  const guardians = prepared(
    ctx.db,
    "SELECT name, email FROM guardians WHERE vault_id = ? AND status != 'declined' ORDER BY invited_at, rowid",
  ).all(vault.id) as { name: string; email: string }[]
  const owner = ownerEmail(ctx, vault)
  for (const heir of heirs) {
    const token = newSecret(HEIR_TOKEN_PREFIX)
    prepared(
      ctx.db,
      'INSERT INTO heir_tokens (id, vault_id, heir_id, token_hash, created_at) VALUES (?, ?, ?, ?, ?)',
    ).run(newId('htk'), vault.id, heir.id, hashSecret(token), now)
    const mail = heirNotification({
      heirName: heir.name,
      ownerEmail: owner,
      vaultId: vault.id,
      preset: vault.sss_preset,
      baseUrl: ctx.publicUrl(),
      token,
      guardians,
    })
    queueMail(ctx, { vaultId: vault.id, kind: 'heir_access', to: heir.email, ...mail })
  }
  return heirs.length
}

/**
 * One scheduler pass at the clock's current time. After downtime it catches up without spamming:
 * a check-in deadline missed while the service was off starts the release now (the owner still gets the
 * full contestation period and its alerts); of several alerts that fell due meanwhile only the latest is
 * sent and the rest are recorded as skipped; a release whose period ended meanwhile completes now.
 */
export function runSchedulerPass(ctx: ServiceContext): TickReport {
  const now = ctx.clock().toISOString()
  const report: TickReport = {
    now,
    releasesStarted: [],
    alertsSent: [],
    alertsSkipped: [],
    released: [],
    remindersSent: [],
  }

  const overdue = prepared(
    ctx.db,
    "SELECT id FROM vaults WHERE state = 'active' AND release_trigger = 'dead_man_switch' AND next_check_in_due <= ?",
  )
    .pluck()
    .all(now) as string[]
  for (const vaultId of overdue) {
    inTransaction(ctx.db, () => {
      const vault = findVault(ctx, vaultId)
      if (vault?.state !== 'active' || vault.release_trigger !== 'dead_man_switch') return
      if (!vault.next_check_in_due || vault.next_check_in_due > now) return
      const reason = `no check-in by the deadline ${vault.next_check_in_due}`
      beginRelease(ctx, vault, reason)
      report.releasesStarted.push({ vaultId, reason })
      report.alertsSent.push({ vaultId, day: 0 })
    })
  }

  const releasing = prepared(ctx.db, "SELECT id FROM vaults WHERE state = 'releasing'")
    .pluck()
    .all() as string[]
  for (const vaultId of releasing) {
    inTransaction(ctx.db, () => {
      const vault = findVault(ctx, vaultId)
      if (vault?.state !== 'releasing') return
      const release = openRelease(ctx, vaultId)
      if (!release) return
      const recorded = new Set(
        prepared(ctx.db, 'SELECT day FROM release_alerts WHERE release_id = ?')
          .pluck()
          .all(release.id) as number[],
      )
      const finished = now >= release.contestation_ends_at
      const due = LIMITS.contestationAlertDays.filter(
        (day) => !recorded.has(day) && addDays(release.started_at, day) <= now,
      )
      const latest = finished ? undefined : due[due.length - 1]
      for (const day of due) {
        if (day === latest) {
          sendAlert(ctx, vault, release, day)
          report.alertsSent.push({ vaultId, day })
        } else {
          prepared(
            ctx.db,
            "INSERT INTO release_alerts (release_id, day, outcome, at) VALUES (?, ?, 'skipped', ?)",
          ).run(release.id, day, now)
          report.alertsSkipped.push({ vaultId, day })
        }
      }
      if (finished) {
        const heirsNotified = completeRelease(ctx, vault, release)
        report.released.push({ vaultId, heirsNotified })
      }
    })
  }
  // After the overdue vaults started releasing: a deadline already passed gets no reminder.
  report.remindersSent = sendCheckInReminders(ctx)
  if (report.alertsSent.length || report.released.length || report.remindersSent.length) ctx.outboxChanged()
  return report
}
