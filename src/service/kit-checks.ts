// Kit checks (extension kit-check): a guardian shows they still hold their paper kit by its check code
// (FORMAT.md 5.5), which the service knows only as a hash per guardian and split. The owner registers a
// split's hashes; a guardian confirms on their page, or through the app or the CLI, which derive the code
// from the words and send only the code. The scheduler reminds each guardian after every new split and
// once a year after their last check, and tells the owner, once per reminder, about a guardian who has
// not confirmed within KIT_CHECK_LIMITS.confirmWithinDays.
import {
  type GuardianKitCheck,
  KIT_CHECK_LIMITS,
  type KitCheckRegistered,
  type KitCheckResult,
} from '../shared/api'
import type { ServiceContext } from './context'
import { addDays } from './days'
import { badRequest, conflict } from './errors'
import { kitCheckHash, readKitCheckCode } from './kit-check-code'
import { kitCheckOverdue, kitCheckReminder } from './mail-messages'
import { queueMail } from './outbox'
import { GUARDIAN_TOKEN_PREFIX, hashSecret, KIT_CHECK_TOKEN_PREFIX, newSecret } from './secrets'
import type { KitCheckRegistrationBody } from './validation'
import { ownedVault, requireActive } from './vaults'

interface SplitRow {
  vault_id: string
  split: string
  registered_at: string
  superseded_at: string | null
}

interface CodeRow {
  vault_id: string
  split: string
  guardian_id: string
  code_hash: string
  confirmed_at: string | null
  reminded_at: string | null
  owner_told_at: string | null
}

/** The guardian a kit check is for, with what the page and the e-mails name. */
export interface KitCheckGuardian {
  guardianId: string
  guardianName: string
  vaultId: string
  ownerEmail: string
}

const currentSplit = (ctx: ServiceContext, vaultId: string) =>
  ctx.db.get<SplitRow>('SELECT * FROM kit_check_splits WHERE vault_id = ? AND superseded_at IS NULL', vaultId)

/** Reminded, and not confirmed since, for longer than confirmWithinDays. */
function isOverdue(row: CodeRow, now: string): boolean {
  if (!row.reminded_at) return false
  if (row.confirmed_at && row.confirmed_at >= row.reminded_at) return false
  return addDays(row.reminded_at, KIT_CHECK_LIMITS.confirmWithinDays) <= now
}

/** PUT /vault/:id/kit-checks: the split becomes current (or, sent again, has its hashes replaced). */
export async function registerKitChecks(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  body: KitCheckRegistrationBody,
): Promise<KitCheckRegistered> {
  return ctx.db.transaction(async () => {
    const vault = await ownedVault(ctx, accountId, vaultId)
    requireActive(vault, 'registering kit check codes')
    const known = new Set(
      (await ctx.db.all<{ id: string }>('SELECT id FROM guardians WHERE vault_id = ?', vaultId)).map(
        (g) => g.id,
      ),
    )
    const stranger = body.guardians.find((g) => !known.has(g.guardianId))
    if (stranger) {
      throw badRequest(
        `guardian ${stranger.guardianId} is not a guardian of vault ${vaultId}; list its guardians with GET /vault/${vaultId}/guardian`,
      )
    }
    const now = ctx.clock().toISOString()
    const same = await ctx.db.get<SplitRow>(
      'SELECT * FROM kit_check_splits WHERE vault_id = ? AND split = ?',
      vaultId,
      body.split,
    )
    if (same?.superseded_at) {
      throw conflict(
        `split ${body.split} of vault ${vaultId} was replaced by a newer split on ${same.superseded_at}; register the current split's codes under a new split name`,
      )
    }
    if (!same) {
      await ctx.db.run(
        'UPDATE kit_check_splits SET superseded_at = ? WHERE vault_id = ? AND superseded_at IS NULL',
        now,
        vaultId,
      )
      await ctx.db.run(
        'INSERT INTO kit_check_splits (vault_id, split, registered_at) VALUES (?, ?, ?)',
        vaultId,
        body.split,
        now,
      )
    }
    const before = new Map(
      (
        await ctx.db.all<CodeRow>(
          'SELECT * FROM kit_check_codes WHERE vault_id = ? AND split = ?',
          vaultId,
          body.split,
        )
      ).map((row) => [row.guardian_id, row]),
    )
    // Sent again: a guardian whose hash did not change keeps their confirmation and reminder.
    await ctx.db.run('DELETE FROM kit_check_codes WHERE vault_id = ? AND split = ?', vaultId, body.split)
    for (const { guardianId, codeHash } of body.guardians) {
      const kept = before.get(guardianId)?.code_hash === codeHash ? before.get(guardianId) : undefined
      await ctx.db.run(
        `INSERT INTO kit_check_codes (vault_id, split, guardian_id, code_hash, confirmed_at, reminded_at, owner_told_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        vaultId,
        body.split,
        guardianId,
        codeHash,
        kept?.confirmed_at ?? null,
        kept?.reminded_at ?? null,
        kept?.owner_told_at ?? null,
      )
    }
    return { split: body.split, registeredAt: same?.registered_at ?? now }
  })
}

/** Each guardian's kit check in the vault's current split (guardians without a code are absent). */
export async function kitChecksOf(
  ctx: ServiceContext,
  vaultId: string,
): Promise<Map<string, GuardianKitCheck>> {
  const rows = await ctx.db.all<CodeRow>(
    `SELECT c.* FROM kit_check_codes c JOIN kit_check_splits s ON s.vault_id = c.vault_id AND s.split = c.split
      WHERE c.vault_id = ? AND s.superseded_at IS NULL`,
    vaultId,
  )
  const now = ctx.clock().toISOString()
  return new Map(
    rows.map((row) => [
      row.guardian_id,
      {
        split: row.split,
        confirmedAt: row.confirmed_at,
        remindedAt: row.reminded_at,
        overdue: isOverdue(row, now),
      },
    ]),
  )
}

/**
 * The guardian behind a guardian token (gt_..., the invitation's links) or a kit-check link token (kc_...,
 * a reminder's link, which can do nothing but a kit check); null when it matches none.
 */
export async function kitCheckGuardian(ctx: ServiceContext, token: string): Promise<KitCheckGuardian | null> {
  let guardianId: string | undefined
  if (token.startsWith(GUARDIAN_TOKEN_PREFIX)) {
    guardianId = (
      await ctx.db.get<{ id: string }>('SELECT id FROM guardians WHERE token_hash = ?', hashSecret(token))
    )?.id
  } else if (token.startsWith(KIT_CHECK_TOKEN_PREFIX)) {
    guardianId = (
      await ctx.db.get<{ guardian_id: string }>(
        'SELECT guardian_id FROM kit_check_links WHERE token_hash = ?',
        hashSecret(token),
      )
    )?.guardian_id
  }
  if (!guardianId) return null
  const row = await ctx.db.get<{ id: string; name: string; vault_id: string; owner_email: string }>(
    `SELECT g.id, g.name, g.vault_id, a.email AS owner_email
       FROM guardians g JOIN vaults v ON v.id = g.vault_id JOIN accounts a ON a.id = v.account_id WHERE g.id = ?`,
    guardianId,
  )
  return row
    ? { guardianId: row.id, guardianName: row.name, vaultId: row.vault_id, ownerEmail: row.owner_email }
    : null
}

/** A typed or derived code checked against the guardian's kits; a match of their current kit is recorded. */
export async function checkKit(
  ctx: ServiceContext,
  guardian: KitCheckGuardian,
  typed: string,
): Promise<KitCheckResult> {
  const code = readKitCheckCode(typed)
  if (!code) return { outcome: 'typo' }
  const hash = kitCheckHash(code, guardian.vaultId)
  return ctx.db.transaction(async (): Promise<KitCheckResult> => {
    const matches = await ctx.db.all<CodeRow & { superseded_at: string | null }>(
      `SELECT c.*, s.superseded_at FROM kit_check_codes c
         JOIN kit_check_splits s ON s.vault_id = c.vault_id AND s.split = c.split
        WHERE c.vault_id = ? AND c.code_hash = ?`,
      guardian.vaultId,
      hash,
    )
    const mine = matches.filter((row) => row.guardian_id === guardian.guardianId)
    const current = mine.find((row) => row.superseded_at === null)
    if (current) {
      const now = ctx.clock().toISOString()
      await ctx.db.run(
        'UPDATE kit_check_codes SET confirmed_at = ? WHERE vault_id = ? AND split = ? AND guardian_id = ?',
        now,
        current.vault_id,
        current.split,
        current.guardian_id,
      )
      return { outcome: 'confirmed', confirmedAt: now }
    }
    const split = await currentSplit(ctx, guardian.vaultId)
    if (mine.length > 0) {
      return split ? { outcome: 'older-split', newSplitAt: split.registered_at } : { outcome: 'older-split' }
    }
    if (matches.length > 0) return { outcome: 'other-guardian' }
    const registered =
      split &&
      (await ctx.db.get(
        'SELECT 1 AS found FROM kit_check_codes WHERE vault_id = ? AND split = ? AND guardian_id = ?',
        guardian.vaultId,
        split.split,
        guardian.guardianId,
      ))
    return { outcome: registered ? 'unknown' : 'not-registered' }
  })
}

export interface KitCheckTickReport {
  /** Guardians asked to check their kit (after a new split, or a year after their last check). */
  reminded: { vaultId: string; guardianId: string }[]
  /** Guardians the owner was told about: not confirmed within confirmWithinDays of a reminder. */
  ownersTold: { vaultId: string; guardianId: string }[]
}

/** The later of a guardian's last confirmation and last reminder, in SQL both stores read alike. */
const LAST_CONTACT = `CASE WHEN c.confirmed_at IS NULL THEN c.reminded_at WHEN c.reminded_at IS NULL THEN c.confirmed_at
  WHEN c.confirmed_at > c.reminded_at THEN c.confirmed_at ELSE c.reminded_at END`

/** Rows of active vaults' current splits, of guardians who did not decline. */
const LIVE_CODES = `FROM kit_check_codes c
  JOIN kit_check_splits s ON s.vault_id = c.vault_id AND s.split = c.split AND s.superseded_at IS NULL
  JOIN vaults v ON v.id = c.vault_id AND v.state = 'active'
  JOIN guardians g ON g.id = c.guardian_id AND g.status != 'declined'`

const vaultLabel = (vault: { id: string; name: string | null }) =>
  vault.name ? `"${vault.name}" (${vault.id})` : vault.id

/**
 * Scheduler step. Each change is a conditional update of the row as it was read, inside a transaction
 * that also queues the mail, so instances running it at once send each message once.
 */
export async function sendKitCheckReminders(ctx: ServiceContext): Promise<KitCheckTickReport> {
  const now = ctx.clock().toISOString()
  const yearAgo = addDays(now, -KIT_CHECK_LIMITS.reminderEveryDays)
  const monthAgo = addDays(now, -KIT_CHECK_LIMITS.confirmWithinDays)
  const report: KitCheckTickReport = { reminded: [], ownersTold: [] }

  const due = await ctx.db.all<CodeRow>(
    `SELECT c.* ${LIVE_CODES} WHERE (${LAST_CONTACT}) IS NULL OR (${LAST_CONTACT}) <= ?`,
    yearAgo,
  )
  for (const row of due) {
    const token = newSecret(KIT_CHECK_TOKEN_PREFIX)
    const sent = await ctx.db.transaction(async () => {
      const { changes } = await ctx.db.run(
        `UPDATE kit_check_codes SET reminded_at = ?, owner_told_at = NULL
          WHERE vault_id = ? AND split = ? AND guardian_id = ? AND COALESCE(reminded_at, '') = ?`,
        now,
        row.vault_id,
        row.split,
        row.guardian_id,
        row.reminded_at ?? '',
      )
      if (changes !== 1) return false
      const about = await ctx.db.get<{
        guardian_name: string
        guardian_email: string
        owner_email: string
        registered_at: string
      }>(
        `SELECT g.name AS guardian_name, g.email AS guardian_email, a.email AS owner_email, s.registered_at
           FROM guardians g JOIN vaults v ON v.id = g.vault_id JOIN accounts a ON a.id = v.account_id
           JOIN kit_check_splits s ON s.vault_id = v.id AND s.split = ?
          WHERE g.id = ?`,
        row.split,
        row.guardian_id,
      )
      await ctx.db.run(
        'INSERT INTO kit_check_links (token_hash, guardian_id, created_at) VALUES (?, ?, ?)',
        hashSecret(token),
        row.guardian_id,
        now,
      )
      await queueMail(ctx, {
        vaultId: row.vault_id,
        kind: 'kit_check_reminder',
        to: about!.guardian_email,
        ...kitCheckReminder({
          guardianName: about!.guardian_name,
          ownerEmail: about!.owner_email,
          vaultId: row.vault_id,
          link: `${ctx.publicUrl()}/kit-check/${token}`,
          newKitsOn: row.confirmed_at || row.reminded_at ? null : about!.registered_at,
          lastConfirmedAt: row.confirmed_at,
          confirmWithinDays: KIT_CHECK_LIMITS.confirmWithinDays,
        }),
      })
      return true
    })
    if (sent) report.reminded.push({ vaultId: row.vault_id, guardianId: row.guardian_id })
  }

  const late = await ctx.db.all<CodeRow>(
    `SELECT c.* ${LIVE_CODES}
      WHERE c.reminded_at IS NOT NULL AND c.reminded_at <= ? AND c.owner_told_at IS NULL
        AND (c.confirmed_at IS NULL OR c.confirmed_at < c.reminded_at)`,
    monthAgo,
  )
  for (const row of late) {
    const told = await ctx.db.transaction(async () => {
      const { changes } = await ctx.db.run(
        `UPDATE kit_check_codes SET owner_told_at = ?
          WHERE vault_id = ? AND split = ? AND guardian_id = ? AND owner_told_at IS NULL AND reminded_at = ?`,
        now,
        row.vault_id,
        row.split,
        row.guardian_id,
        row.reminded_at,
      )
      if (changes !== 1) return false
      const about = await ctx.db.get<{
        guardian_name: string
        owner_email: string
        vault_id: string
        vault_name: string | null
        registered_at: string
      }>(
        `SELECT g.name AS guardian_name, a.email AS owner_email, v.id AS vault_id, v.name AS vault_name, s.registered_at
           FROM guardians g JOIN vaults v ON v.id = g.vault_id JOIN accounts a ON a.id = v.account_id
           JOIN kit_check_splits s ON s.vault_id = v.id AND s.split = ?
          WHERE g.id = ?`,
        row.split,
        row.guardian_id,
      )
      await queueMail(ctx, {
        vaultId: row.vault_id,
        kind: 'kit_check_overdue',
        to: about!.owner_email,
        ...kitCheckOverdue({
          guardianName: about!.guardian_name,
          vault: vaultLabel({ id: about!.vault_id, name: about!.vault_name }),
          lastConfirmedAt: row.confirmed_at,
          kitsMadeAt: about!.registered_at,
          remindedAt: row.reminded_at!,
        }),
      })
      return true
    })
    if (told) report.ownersTold.push({ vaultId: row.vault_id, guardianId: row.guardian_id })
  }
  return report
}
