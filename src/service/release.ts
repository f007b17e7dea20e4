// The release lifecycle: trigger configuration, starting, cancelling and completing a release,
// guardian claims, and the scheduler pass that moves vaults through their states as time passes.
// Several instances may run the scheduler on one shared database at the same moment: every transition
// is made by a conditional statement inside its transaction, and only the pass whose statement changed
// a row goes on to queue the transition's mail and report it.
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
import { addDays } from './days'
import { conflict } from './errors'
import { type KitCheckTickReport, sendKitCheckReminders } from './kit-checks'
import {
  type ClaimMade,
  contestationAlert,
  guardianClaimNotice,
  heirNotification,
  releaseCancelled,
  releaseCancelledToGuardian,
  releaseStartedToGuardian,
} from './mail-messages'
import { queueMail } from './outbox'
import { type GuardianByToken, guardianByToken } from './people'
import { loadRecoveryPage, RECOVERY_PAGE_PATH } from './recovery-page'
import { endLiveRehearsals } from './rehearsal'
import { HEIR_TOKEN_PREFIX, hashSecret, newId, newSecret } from './secrets'
import type { ReleaseConfigBody } from './validation'
import { findVault, ownedVault, requireActive, type VaultRow } from './vaults'

export async function configureRelease(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  body: ReleaseConfigBody,
): Promise<ReleaseConfig> {
  return ctx.db.transaction(async () => {
    const vault = await ownedVault(ctx, accountId, vaultId)
    requireActive(vault, 'changing the release trigger')
    const frequency: CheckInFrequency = body.config?.checkInFrequency ?? vault.check_in_frequency ?? 'monthly'
    const now = ctx.clock().toISOString()
    const nextDue = addDays(now, CHECK_IN_FREQUENCY_DAYS[frequency])
    await ctx.db.run(
      `UPDATE vaults SET release_trigger = ?, check_in_frequency = ?, next_check_in_due = ?, updated_at = ?
         WHERE id = ?`,
      body.trigger,
      frequency,
      nextDue,
      now,
      vaultId,
    )
    // Claims made under an earlier configuration do not carry over.
    await ctx.db.run('UPDATE guardians SET claimed_at = NULL WHERE vault_id = ?', vaultId)
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

function openRelease(ctx: ServiceContext, vaultId: string): Promise<ReleaseRow | undefined> {
  return ctx.db.get<ReleaseRow>(
    'SELECT * FROM releases WHERE vault_id = ? AND cancelled_at IS NULL AND released_at IS NULL ORDER BY started_at DESC LIMIT 1',
    vaultId,
  )
}

/** The guardians who are told of claims and releases: all but those who declined, in invitation order. */
function circleOf(ctx: ServiceContext, vaultId: string) {
  return ctx.db.all<{ id: string; name: string; email: string }>(
    `SELECT id, name, email FROM guardians WHERE vault_id = ? AND status != 'declined' ORDER BY invited_at, rowid`,
    vaultId,
  )
}

/** The claims that count now (accepted guardians who claimed), earliest first. */
export async function claimsOf(
  ctx: ServiceContext,
  vaultId: string,
): Promise<(ClaimMade & { id: string })[]> {
  const rows = await ctx.db.all<{ id: string; name: string; claimed_at: string }>(
    `SELECT id, name, claimed_at FROM guardians
       WHERE vault_id = ? AND status = 'accepted' AND claimed_at IS NOT NULL ORDER BY claimed_at, rowid`,
    vaultId,
  )
  return rows.map((row) => ({ id: row.id, name: row.name, at: row.claimed_at }))
}

async function ownerEmail(ctx: ServiceContext, vault: VaultRow): Promise<string> {
  const row = await ctx.db.get<{ email: string }>('SELECT email FROM accounts WHERE id = ?', vault.account_id)
  return row!.email
}

/**
 * Records the day's alert as sent and queues it, inside the caller's transaction; false (nothing queued)
 * when another pass recorded that day first.
 */
async function sendAlert(
  ctx: ServiceContext,
  vault: VaultRow,
  release: ReleaseRow,
  day: number,
): Promise<boolean> {
  if (!(await recordAlert(ctx, release, day, 'sent', ctx.clock().toISOString()))) return false
  const mail = contestationAlert({
    day,
    vaultId: vault.id,
    vaultName: vault.name,
    reason: release.reason,
    startedAt: release.started_at,
    endsAt: release.contestation_ends_at,
    baseUrl: ctx.publicUrl(),
    ...(day === 0 ? { claims: await claimsOf(ctx, vault.id) } : {}),
  })
  await queueMail(ctx, {
    vaultId: vault.id,
    kind: `contestation_alert_day_${day}`,
    to: await ownerEmail(ctx, vault),
    ...mail,
  })
  return true
}

/** Records a due alert as skipped (a later one went out instead); false when another pass recorded it first. */
function skipAlert(ctx: ServiceContext, release: ReleaseRow, day: number, now: string): Promise<boolean> {
  return recordAlert(ctx, release, day, 'skipped', now)
}

/** The day's alert of a release, recorded once: false when another pass recorded that day first. */
async function recordAlert(
  ctx: ServiceContext,
  release: ReleaseRow,
  day: number,
  outcome: 'sent' | 'skipped',
  at: string,
): Promise<boolean> {
  const { changes } = await ctx.db.run(
    `INSERT INTO release_alerts (release_id, day, outcome, at) VALUES (?, ?, ?, ?)
       ON CONFLICT (release_id, day) DO NOTHING`,
    release.id,
    day,
    outcome,
    at,
  )
  return changes === 1
}

/**
 * active -> releasing, inside the caller's transaction; the day-0 alert goes out at once. The state
 * changes only if the vault is still active (and, given `overdueAt`, still a dead man's switch whose
 * deadline is at or before it): null, with nothing done, when another request or pass got there first.
 */
async function beginRelease(
  ctx: ServiceContext,
  vault: VaultRow,
  reason: string,
  overdueAt?: string,
): Promise<ReleaseRow | null> {
  const now = ctx.clock().toISOString()
  const { changes } = overdueAt
    ? await ctx.db.run(
        `UPDATE vaults SET state = 'releasing', updated_at = ?
           WHERE id = ? AND state = 'active' AND release_trigger = 'dead_man_switch' AND next_check_in_due <= ?`,
        now,
        vault.id,
        overdueAt,
      )
    : await ctx.db.run(
        "UPDATE vaults SET state = 'releasing', updated_at = ? WHERE id = ? AND state = 'active'",
        now,
        vault.id,
      )
  if (changes !== 1) return null
  const release: ReleaseRow = {
    id: newId('rel'),
    vault_id: vault.id,
    reason,
    started_at: now,
    contestation_ends_at: addDays(now, LIMITS.contestationDays),
    cancelled_at: null,
    released_at: null,
  }
  await ctx.db.run(
    'INSERT INTO releases (id, vault_id, reason, started_at, contestation_ends_at) VALUES (?, ?, ?, ?, ?)',
    release.id,
    vault.id,
    reason,
    release.started_at,
    release.contestation_ends_at,
  )
  // A practice access never outlives the start of a real release.
  await endLiveRehearsals(ctx, { vaultId: vault.id })
  await sendAlert(ctx, vault, release, 0)
  // The whole circle learns of it too, not only the owner: a guardian can then ask the owner, and nobody
  // is surprised by an heir's request for their kit.
  const owner = await ownerEmail(ctx, vault)
  const claims = await claimsOf(ctx, vault.id)
  for (const guardian of await circleOf(ctx, vault.id)) {
    await queueMail(ctx, {
      vaultId: vault.id,
      kind: 'release_started_guardian',
      to: guardian.email,
      ...releaseStartedToGuardian({
        guardianName: guardian.name,
        ownerEmail: owner,
        vaultId: vault.id,
        startedAt: release.started_at,
        endsAt: release.contestation_ends_at,
        claims,
      }),
    })
  }
  return release
}

/** Starts a release now. Owners may do so only with the manual trigger; the operator (admin) always may. */
export async function startRelease(
  ctx: ServiceContext,
  vaultId: string,
  opts: { accountId?: string; reason: string },
): Promise<void> {
  await ctx.db.transaction(async () => {
    const vault = opts.accountId
      ? await ownedVault(ctx, opts.accountId, vaultId)
      : await findVault(ctx, vaultId)
    if (!vault) throw conflict(`vault ${vaultId} does not exist`)
    requireActive(vault, 'starting a release')
    if (opts.accountId && vault.release_trigger !== 'manual') {
      throw conflict(
        `vault ${vaultId} has release trigger ${vault.release_trigger ?? 'none'}; an owner can start a release by hand only ` +
          'when the trigger is manual (set it with POST release/config {"trigger":"manual"})',
      )
    }
    if (!(await beginRelease(ctx, vault, opts.reason))) {
      throw conflict(`vault ${vaultId} started releasing a moment ago; there is nothing more to start`)
    }
  })
  ctx.outboxChanged()
}

export async function cancelRelease(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
): Promise<CancelResult> {
  const result = await ctx.db.transaction(async () => {
    const vault = await ownedVault(ctx, accountId, vaultId)
    if (vault.state !== 'releasing') {
      throw conflict(`vault ${vaultId} is ${vault.state}, not releasing; there is no release to cancel`)
    }
    const release = (await openRelease(ctx, vaultId))!
    const now = ctx.clock().toISOString()
    if (now >= release.contestation_ends_at) {
      throw conflict(
        `the ${LIMITS.contestationDays}-day contestation period of vault ${vaultId} ended on ${release.contestation_ends_at}; the release can no longer be cancelled`,
      )
    }
    // Only while the release is still open: a scheduler pass may have completed it a moment ago.
    const { changes } = await ctx.db.run(
      'UPDATE releases SET cancelled_at = ? WHERE id = ? AND cancelled_at IS NULL AND released_at IS NULL',
      now,
      release.id,
    )
    if (changes !== 1) {
      throw conflict(`the release of vault ${vaultId} ended a moment ago; there is no release to cancel`)
    }
    // A fresh countdown: otherwise the missed deadline would start a new release at the next tick.
    const nextDue = vault.check_in_frequency
      ? addDays(now, CHECK_IN_FREQUENCY_DAYS[vault.check_in_frequency])
      : null
    await ctx.db.run(
      "UPDATE vaults SET state = 'active', next_check_in_due = ?, updated_at = ? WHERE id = ?",
      nextDue,
      now,
      vaultId,
    )
    await ctx.db.run('UPDATE guardians SET claimed_at = NULL WHERE vault_id = ?', vaultId)
    const owner = await ownerEmail(ctx, vault)
    await queueMail(ctx, {
      vaultId,
      kind: 'release_cancelled',
      to: owner,
      ...releaseCancelled({ vaultId, vaultName: vault.name, cancelledAt: now }),
    })
    for (const guardian of await circleOf(ctx, vaultId)) {
      await queueMail(ctx, {
        vaultId,
        kind: 'release_cancelled_guardian',
        to: guardian.email,
        ...releaseCancelledToGuardian({
          guardianName: guardian.name,
          ownerEmail: owner,
          vaultId,
          cancelledAt: now,
        }),
      })
    }
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
export async function claimRelease(ctx: ServiceContext, token: string): Promise<ClaimOutcome> {
  const outcome = await ctx.db.transaction(async (): Promise<ClaimOutcome> => {
    const found = await guardianByToken(ctx, token)
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
    // Only a guardian's first claim changes anything (and is told); a repeated press counts once.
    const newClaim = !guardian.claimed_at
    if (newClaim) {
      await ctx.db.run(
        'UPDATE guardians SET claimed_at = ? WHERE id = ?',
        ctx.clock().toISOString(),
        guardian.id,
      )
    }
    const made = await claimsOf(ctx, vault.id)
    const claims = made.length
    const { threshold } = SSS_PRESET_SHAPE[vault.sss_preset]
    if (newClaim && claims < threshold) {
      // Short of the threshold: the owner (who can still check in) and the other guardians are told now;
      // the claim that reaches it is told by the release's own messages.
      const notice = (toOwner: boolean, recipientName?: string) =>
        guardianClaimNotice({
          claimer: guardian.name,
          ownerEmail: vault.owner_email,
          vaultId: vault.id,
          claims: made,
          threshold,
          toOwner,
          ...(recipientName !== undefined ? { recipientName } : {}),
        })
      await queueMail(ctx, {
        vaultId: vault.id,
        kind: 'guardian_claim_owner',
        to: vault.owner_email,
        ...notice(true),
      })
      for (const other of await circleOf(ctx, vault.id)) {
        if (other.id === guardian.id) continue
        await queueMail(ctx, {
          vaultId: vault.id,
          kind: 'guardian_claim_guardian',
          to: other.email,
          ...notice(false, other.name),
        })
      }
    }
    if (claims >= threshold) {
      const started = await beginRelease(
        ctx,
        (await findVault(ctx, vault.id))!,
        `claimed by ${claims} of its guardians`,
      )
      // Another guardian's claim, made at the same moment, started it.
      if (!started) return { outcome: 'already_releasing', found }
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
  /** Kit checks (extension kit-check): guardians reminded, and guardians the owner was told about. */
  kitChecks: KitCheckTickReport
}

/**
 * releasing -> released inside the caller's transaction: heirs get an access token and instructions.
 * Null, with nothing done, when the release is no longer open (another pass completed it first).
 */
async function completeRelease(
  ctx: ServiceContext,
  vault: VaultRow,
  release: ReleaseRow,
): Promise<number | null> {
  const now = ctx.clock().toISOString()
  const { changes } = await ctx.db.run(
    'UPDATE releases SET released_at = ? WHERE id = ? AND released_at IS NULL AND cancelled_at IS NULL',
    now,
    release.id,
  )
  if (changes !== 1) return null
  await ctx.db.run(
    "UPDATE vaults SET state = 'released', updated_at = ? WHERE id = ? AND state = 'releasing'",
    now,
    vault.id,
  )
  const heirs = await ctx.db.all<{ id: string; name: string; email: string }>(
    `SELECT id, name, email FROM heirs WHERE vault_id = ? ORDER BY added_at, rowid`,
    vault.id,
  )
  const guardians = await ctx.db.all<{ name: string; email: string }>(
    `SELECT name, email FROM guardians WHERE vault_id = ? AND status != 'declined' ORDER BY invited_at, rowid`,
    vault.id,
  )
  const owner = await ownerEmail(ctx, vault)
  // Named in the e-mail only when this service has the page to serve; its SHA-256 from the bytes served.
  const page = await loadRecoveryPage(ctx)
  for (const heir of heirs) {
    const token = newSecret(HEIR_TOKEN_PREFIX)
    await ctx.db.run(
      'INSERT INTO heir_tokens (id, vault_id, heir_id, token_hash, created_at) VALUES (?, ?, ?, ?, ?)',
      newId('htk'),
      vault.id,
      heir.id,
      hashSecret(token),
      now,
    )
    const mail = heirNotification({
      heirName: heir.name,
      ownerEmail: owner,
      vaultId: vault.id,
      preset: vault.sss_preset,
      baseUrl: ctx.publicUrl(),
      token,
      guardians,
      ...(page
        ? { recoveryPage: { url: `${ctx.publicUrl()}${RECOVERY_PAGE_PATH}`, sha256Hex: page.sha256Hex } }
        : {}),
    })
    await queueMail(ctx, { vaultId: vault.id, kind: 'heir_access', to: heir.email, ...mail })
  }
  return heirs.length
}

/** What one releasing vault's step did in this pass (only what this pass's own statements changed). */
interface ReleasingStep {
  alertsSent: number[]
  alertsSkipped: number[]
  heirsNotified: number | null
}

/** Alerts that fell due and, once the period ended, completion: one transaction for one releasing vault. */
function advanceRelease(ctx: ServiceContext, vaultId: string, now: string): Promise<ReleasingStep | null> {
  // Built inside the transaction: on PostgreSQL fn may run again after a conflict, and only its last run counts.
  return ctx.db.transaction(async () => {
    const vault = await findVault(ctx, vaultId)
    if (vault?.state !== 'releasing') return null
    const release = await openRelease(ctx, vaultId)
    if (!release) return null
    const step: ReleasingStep = { alertsSent: [], alertsSkipped: [], heirsNotified: null }
    const recorded = new Set(
      (
        await ctx.db.all<{ day: number }>('SELECT day FROM release_alerts WHERE release_id = ?', release.id)
      ).map((row) => row.day),
    )
    const finished = now >= release.contestation_ends_at
    const due = LIMITS.contestationAlertDays.filter(
      (day) => !recorded.has(day) && addDays(release.started_at, day) <= now,
    )
    const latest = finished ? undefined : due[due.length - 1]
    for (const day of due) {
      if (day === latest) {
        if (await sendAlert(ctx, vault, release, day)) step.alertsSent.push(day)
      } else if (await skipAlert(ctx, release, day, now)) {
        step.alertsSkipped.push(day)
      }
    }
    if (finished) step.heirsNotified = await completeRelease(ctx, vault, release)
    return step
  })
}

/** A missed check-in deadline starts the release: one transaction; the reason when this pass started it. */
function startOverdueRelease(ctx: ServiceContext, vaultId: string, now: string): Promise<string | null> {
  return ctx.db.transaction(async () => {
    const vault = await findVault(ctx, vaultId)
    if (!vault?.next_check_in_due) return null
    const reason = `no check-in by the deadline ${vault.next_check_in_due}`
    return (await beginRelease(ctx, vault, reason, now)) ? reason : null
  })
}

/**
 * One scheduler pass at the clock's current time. After downtime it catches up without spamming:
 * a check-in deadline missed while the service was off starts the release now (the owner still gets the
 * full contestation period and its alerts); of several alerts that fell due meanwhile only the latest is
 * sent and the rest are recorded as skipped; a release whose period ended meanwhile completes now.
 * Passes of several instances may run at once: each transition is made, and reported, by one of them.
 */
export async function runSchedulerPass(ctx: ServiceContext): Promise<TickReport> {
  const now = ctx.clock().toISOString()
  const report: TickReport = {
    now,
    releasesStarted: [],
    alertsSent: [],
    alertsSkipped: [],
    released: [],
    remindersSent: [],
    kitChecks: { reminded: [], ownersTold: [] },
  }

  const overdue = await ctx.db.all<{ id: string }>(
    "SELECT id FROM vaults WHERE state = 'active' AND release_trigger = 'dead_man_switch' AND next_check_in_due <= ?",
    now,
  )
  for (const { id: vaultId } of overdue) {
    const reason = await startOverdueRelease(ctx, vaultId, now)
    if (reason === null) continue
    report.releasesStarted.push({ vaultId, reason })
    report.alertsSent.push({ vaultId, day: 0 })
  }

  const releasing = await ctx.db.all<{ id: string }>("SELECT id FROM vaults WHERE state = 'releasing'")
  for (const { id: vaultId } of releasing) {
    const step = await advanceRelease(ctx, vaultId, now)
    if (!step) continue
    for (const day of step.alertsSkipped) report.alertsSkipped.push({ vaultId, day })
    for (const day of step.alertsSent) report.alertsSent.push({ vaultId, day })
    if (step.heirsNotified !== null) report.released.push({ vaultId, heirsNotified: step.heirsNotified })
  }
  // After the overdue vaults started releasing: a deadline already passed gets no reminder.
  report.remindersSent = await sendCheckInReminders(ctx)
  report.kitChecks = await sendKitCheckReminders(ctx)
  if (
    report.alertsSent.length ||
    report.released.length ||
    report.remindersSent.length ||
    report.kitChecks.reminded.length ||
    report.kitChecks.ownersTold.length
  ) {
    ctx.outboxChanged()
  }
  return report
}

/** Where a guardian claim on a vault stands, as the guardians' claim page shows it. */
export type ClaimStand =
  | { kind: 'none' }
  | { kind: 'claims'; claims: ClaimMade[]; threshold: number }
  | { kind: 'releasing'; claims: ClaimMade[]; heirsAt: string }
  | { kind: 'cancelled'; at: string }
  | { kind: 'released'; at: string }

export async function claimStandOf(ctx: ServiceContext, vaultId: string): Promise<ClaimStand> {
  const vault = (await findVault(ctx, vaultId))!
  const latest = await ctx.db.get<ReleaseRow>(
    'SELECT * FROM releases WHERE vault_id = ? ORDER BY started_at DESC LIMIT 1',
    vaultId,
  )
  const claims = (await claimsOf(ctx, vaultId)).map(({ name, at }) => ({ name, at }))
  if (vault.state === 'released' && latest?.released_at) return { kind: 'released', at: latest.released_at }
  if (vault.state === 'releasing' && latest) {
    return { kind: 'releasing', claims, heirsAt: latest.contestation_ends_at }
  }
  if (claims.length)
    return { kind: 'claims', claims, threshold: SSS_PRESET_SHAPE[vault.sss_preset].threshold }
  if (latest?.cancelled_at) return { kind: 'cancelled', at: latest.cancelled_at }
  return { kind: 'none' }
}
