// Rehearsals: a practice release with throwaway material. The owner's app makes a practice key, splits it
// like the vault key and encrypts a practice file under it; the service mails each guardian one practice
// kit and the heir a practice access token (hk_..., like a real heir token) that opens only that practice
// file for a few days. The vault key is never involved: no real kit is asked for, no vault asset opens,
// no credits move, and the practice file's content is forgotten when the practice ends.
import { createHash } from 'node:crypto'
import {
  EXTENSION_LIMITS,
  type Rehearsal,
  type RehearsalState,
  type RehearsalTicket,
  SSS_PRESET_SHAPE,
} from '../shared/api'
import type { ServiceContext } from './context'
import { addDays } from './days'
import { badRequest, conflict, notFound } from './errors'
import { rehearsalGuardianMessage, rehearsalHeirMessage } from './mail-messages'
import { queueMail } from './outbox'
import type { PracticePrincipal } from './principal'
import { HEIR_TOKEN_PREFIX, hashSecret, newId, newSecret, sameHash } from './secrets'
import type { RehearsalBody } from './validation'
import { ownedVault, requireActive } from './vaults'

interface RehearsalRow {
  id: string
  vault_id: string
  heir_id: string
  heir_name: string
  heir_email: string
  sample_filename: string
  sample_bytes: number
  sample_owner_file: number
  /** The practice file, encrypted under the practice key; NULL once the practice ended or expired. */
  sample: Buffer | null
  challenge: string
  proof_hash: string
  token_hash: Buffer
  guardians_notified: number
  started_at: string
  expires_at: string
  ended_at: string | null
  opened_at: string | null
  downloaded_at: string | null
  passed_at: string | null
  failed_reports: number
}

/**
 * passed (reported, whatever happened after) > cancelled (ended by the owner, a new practice, a real
 * release, the heir's removal or the operator) > expired (past expiresAt) > running.
 */
function stateOf(row: RehearsalRow, now: string): RehearsalState {
  if (row.passed_at) return 'passed'
  if (row.ended_at) return 'cancelled'
  if (now > row.expires_at) return 'expired'
  return 'running'
}

/** The practice token still opens the sample: not ended and not past its expiry. */
const isLive = (row: RehearsalRow, now: string) => row.ended_at === null && now <= row.expires_at

function toView(row: RehearsalRow, now: string): Rehearsal {
  return {
    id: row.id,
    vaultId: row.vault_id,
    state: stateOf(row, now),
    heir: { id: row.heir_id, name: row.heir_name, email: row.heir_email },
    sample: {
      filename: row.sample_filename,
      sizeBytes: row.sample_bytes,
      ownerFile: row.sample_owner_file === 1,
    },
    guardiansNotified: row.guardians_notified,
    startedAt: row.started_at,
    expiresAt: row.expires_at,
    openedAt: row.opened_at,
    downloadedAt: row.downloaded_at,
    passedAt: row.passed_at,
    failedReports: row.failed_reports,
  }
}

const byId = async (ctx: ServiceContext, id: string) =>
  (await ctx.db.get<RehearsalRow>('SELECT * FROM rehearsals WHERE id = ?', id))!

/**
 * Forgets the practice file of every practice that ended or expired: it was only ever for the practice.
 * Run on each start and read, so no practice file outlives its practice by more than that.
 */
async function forgetEndedSamples(ctx: ServiceContext): Promise<void> {
  await ctx.db.run(
    'UPDATE rehearsals SET sample = NULL WHERE sample IS NOT NULL AND (ended_at IS NOT NULL OR expires_at < ?)',
    ctx.clock().toISOString(),
  )
}

/**
 * The practice started last. Of two started in the same millisecond (two instances at once), the later
 * one ended the earlier, so the one not ended (or ended last) comes first; only then insertion order.
 */
function latestRow(ctx: ServiceContext, vaultId: string): Promise<RehearsalRow | undefined> {
  return ctx.db.get<RehearsalRow>(
    `SELECT * FROM rehearsals WHERE vault_id = ?
       ORDER BY started_at DESC, CASE WHEN ended_at IS NULL THEN 1 ELSE 0 END DESC, ended_at DESC,
         rowid DESC
       LIMIT 1`,
    vaultId,
  )
}

/**
 * Ends (revokes) the practice accesses that are still live, inside the caller's transaction: of one vault,
 * or of one heir. Expired ones are left as they are, so they keep reading as expired.
 */
export async function endLiveRehearsals(
  ctx: ServiceContext,
  scope: { vaultId: string } | { heirId: string },
): Promise<number> {
  const now = ctx.clock().toISOString()
  const [column, value] = 'vaultId' in scope ? ['vault_id', scope.vaultId] : ['heir_id', scope.heirId]
  const ended = await ctx.db.run(
    `UPDATE rehearsals SET ended_at = ?, sample = NULL WHERE ${column} = ? AND ended_at IS NULL AND expires_at >= ?`,
    now,
    value,
    now,
  )
  return ended.changes
}

/**
 * One transaction: the checks, ending the previous practice and the new one with its e-mails, so two
 * practices started at once (here or on another instance) never leave two live practice tokens.
 * Each practice kit goes to the guardian it names; the heir's e-mail lists exactly those guardians.
 */
export async function startRehearsal(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  body: RehearsalBody,
): Promise<Rehearsal> {
  const token = newSecret(HEIR_TOKEN_PREFIX)
  const id = newId('rhs')
  await ctx.db.transaction(async () => {
    const vault = await ownedVault(ctx, accountId, vaultId)
    requireActive(vault, 'a practice release (rehearsal)')
    const heir = await ctx.db.get<{ id: string; name: string; email: string }>(
      'SELECT id, name, email FROM heirs WHERE id = ? AND vault_id = ?',
      body.heirId,
      vaultId,
    )
    if (!heir) throw notFound(`heir ${body.heirId} does not exist on vault ${vaultId}`)
    const guardians = await practiceGuardians(ctx, vaultId, vault.sss_preset, body.practiceKits)
    await endLiveRehearsals(ctx, { vaultId })
    await forgetEndedSamples(ctx)

    const now = ctx.clock()
    const startedAt = now.toISOString()
    const expiresAt = addDays(now.toISOString(), EXTENSION_LIMITS.rehearsalDays)
    await ctx.db.run(
      `INSERT INTO rehearsals (id, vault_id, heir_id, heir_name, heir_email, sample_filename, sample_bytes,
         sample_owner_file, sample, challenge, proof_hash, token_hash, guardians_notified, started_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      vaultId,
      heir.id,
      heir.name,
      heir.email,
      body.sample.filename,
      body.sample.content.length,
      body.sample.ownerFile ? 1 : 0,
      body.sample.content,
      body.challenge,
      body.proofHash,
      hashSecret(token),
      guardians.length,
      startedAt,
      expiresAt,
    )
    const owner = await ctx.db.get<{ email: string }>('SELECT email FROM accounts WHERE id = ?', accountId)
    const ownerEmail = owner!.email
    await queueMail(ctx, {
      vaultId,
      kind: 'rehearsal_heir',
      to: heir.email,
      ...rehearsalHeirMessage({
        heirName: heir.name,
        ownerEmail,
        vaultId,
        preset: vault.sss_preset,
        baseUrl: ctx.publicUrl(),
        token,
        sampleFilename: body.sample.filename,
        expiresAt,
        guardians,
      }),
    })
    for (const guardian of guardians) {
      await queueMail(ctx, {
        vaultId,
        kind: 'rehearsal_guardian',
        to: guardian.email,
        ...rehearsalGuardianMessage({
          guardianName: guardian.name,
          ownerEmail,
          vaultId,
          heirName: heir.name,
          heirEmail: heir.email,
          practiceKitWords: guardian.words,
          expiresAt,
        }),
      })
    }
  })
  ctx.outboxChanged()
  return toView(await byId(ctx, id), ctx.clock().toISOString())
}

/**
 * The guardians the practice kits name, in the vault's guardian order: each one on this vault, not
 * declined, named once; as many kits as the vault's preset needs at least, and no more than it makes.
 */
async function practiceGuardians(
  ctx: ServiceContext,
  vaultId: string,
  preset: keyof typeof SSS_PRESET_SHAPE,
  kits: RehearsalBody['practiceKits'],
): Promise<{ name: string; email: string; words: string }[]> {
  const { threshold, shares } = SSS_PRESET_SHAPE[preset]
  if (kits.length < threshold || kits.length > shares) {
    throw badRequest(
      `practiceKits holds ${kits.length} kit(s); a practice of this vault needs ${threshold} to ${shares}, one per guardian taking part (its preset is ${threshold} of ${shares})`,
    )
  }
  const rows = await ctx.db.all<{ id: string; name: string; email: string; status: string }>(
    'SELECT id, name, email, status FROM guardians WHERE vault_id = ? ORDER BY invited_at, rowid',
    vaultId,
  )
  const seen = new Set<string>()
  for (const kit of kits) {
    const row = rows.find((g) => g.id === kit.guardianId)
    if (!row) throw notFound(`guardian ${kit.guardianId} does not exist on vault ${vaultId}`)
    if (row.status === 'declined') {
      throw conflict(
        `guardian ${kit.guardianId} declined; a practice kit can only go to a guardian who has not declined`,
      )
    }
    if (seen.has(kit.guardianId)) {
      throw badRequest(`guardian ${kit.guardianId} is named by two practice kits; give each guardian one`)
    }
    seen.add(kit.guardianId)
  }
  const words = new Map(kits.map((k) => [k.guardianId, k.words]))
  if (new Set(words.values()).size !== kits.length) {
    throw badRequest('two practice kits hold the same words; each guardian needs a kit of their own')
  }
  return rows
    .filter((g) => words.has(g.id))
    .map((g) => ({ name: g.name, email: g.email, words: words.get(g.id)! }))
}

/** The vault's latest rehearsal, or null (the caller has checked it may see the vault). */
export async function latestRehearsal(ctx: ServiceContext, vaultId: string): Promise<Rehearsal | null> {
  await forgetEndedSamples(ctx)
  const row = await latestRow(ctx, vaultId)
  return row ? toView(row, ctx.clock().toISOString()) : null
}

/** Ends the vault's live practice access (its token stops working). */
export async function cancelRehearsal(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
): Promise<Rehearsal> {
  return ctx.db.transaction(async () => {
    await ownedVault(ctx, accountId, vaultId)
    const now = ctx.clock().toISOString()
    const row = await latestRow(ctx, vaultId)
    if (!row || !isLive(row, now)) {
      throw conflict(
        row
          ? `the latest practice of vault ${vaultId} is ${stateOf(row, now)}; no practice is running, so there is nothing to cancel`
          : `vault ${vaultId} has no practice running; there is nothing to cancel`,
      )
    }
    await ctx.db.run('UPDATE rehearsals SET ended_at = ?, sample = NULL WHERE id = ?', now, row.id)
    return toView(await byId(ctx, row.id), now)
  })
}

/**
 * Looks up a practice token: its principal while live; `ended` (with the reason) once it expired or was
 * cancelled, or the vault is no longer active; null when no rehearsal has it.
 */
export async function authenticatePractice(
  ctx: ServiceContext,
  presented: string,
): Promise<PracticePrincipal | { ended: string } | null> {
  if (!presented.startsWith(HEIR_TOKEN_PREFIX)) return null
  const hash = hashSecret(presented)
  const row = await ctx.db.get<RehearsalRow>('SELECT * FROM rehearsals WHERE token_hash = ?', hash)
  if (!row || !sameHash(row.token_hash, hash)) return null
  const now = ctx.clock().toISOString()
  const vaultState = (
    await ctx.db.get<{ state: string }>('SELECT state FROM vaults WHERE id = ?', row.vault_id)
  )?.state
  // A practice file outlives its practice only until someone next asks for it.
  if (row.sample && (row.ended_at || now > row.expires_at)) await forgetEndedSamples(ctx)
  if (row.ended_at) {
    return { ended: `this practice access has ended: the practice was cancelled on ${row.ended_at}` }
  }
  if (now > row.expires_at) {
    return { ended: `this practice access has ended: the practice expired on ${row.expires_at}` }
  }
  if (vaultState !== 'active') {
    return {
      ended: 'this practice access has ended: a practice access never opens a vault that is not active',
    }
  }
  return {
    kind: 'practice',
    keyId: row.id,
    rehearsalId: row.id,
    vaultId: row.vault_id,
    heirId: row.heir_id,
  }
}

/** The heir read the vault or its asset list: the first time is recorded as openedAt. */
export async function markOpened(ctx: ServiceContext, rehearsalId: string): Promise<void> {
  await ctx.db.run(
    'UPDATE rehearsals SET opened_at = ? WHERE id = ? AND opened_at IS NULL',
    ctx.clock().toISOString(),
    rehearsalId,
  )
}

/** The heir downloaded the practice file (which also counts as opening the practice access). */
export async function markDownloaded(ctx: ServiceContext, rehearsalId: string): Promise<void> {
  const now = ctx.clock().toISOString()
  await ctx.db.run(
    'UPDATE rehearsals SET downloaded_at = COALESCE(downloaded_at, ?), opened_at = COALESCE(opened_at, ?) WHERE id = ?',
    now,
    now,
    rehearsalId,
  )
}

/** The practice file and the challenge, for a live practice token (authenticatePractice checked it). */
export async function rehearsalTicket(ctx: ServiceContext, rehearsalId: string): Promise<RehearsalTicket> {
  const row = await byId(ctx, rehearsalId)
  if (!row.sample) {
    throw conflict(
      'this practice has no practice file any more: it ended. Ask the owner to start a new practice',
    )
  }
  await markDownloaded(ctx, rehearsalId)
  return {
    rehearsalId: row.id,
    vaultId: row.vault_id,
    challenge: row.challenge,
    expiresAt: row.expires_at,
    sample: {
      filename: row.sample_filename,
      sizeBytes: row.sample_bytes,
      content: row.sample.toString('base64'),
    },
  }
}

/** Lowercase hex SHA-256 of the proof's text (its 64 lowercase hex characters, as UTF-8). */
export const proofDigest = (proof: string) =>
  createHash('sha256').update(proof.toLowerCase(), 'utf8').digest('hex')

/**
 * The heir's client reports the proof it computed with the practice key it rebuilt from the practice
 * kits; a match passes the practice.
 * The proof hash never changes once stored, so each outcome is one statement, whatever reports arrive at
 * once: the first match sets passedAt (later ones keep it), each mismatch adds one to the count.
 */
export async function reportRehearsal(
  ctx: ServiceContext,
  rehearsalId: string,
  proof: string,
): Promise<{ passed: true }> {
  const row = await byId(ctx, rehearsalId)
  const matched = proofDigest(proof) === row.proof_hash
  if (matched) {
    await ctx.db.run(
      'UPDATE rehearsals SET passed_at = ? WHERE id = ? AND passed_at IS NULL',
      ctx.clock().toISOString(),
      rehearsalId,
    )
  } else {
    await ctx.db.run('UPDATE rehearsals SET failed_reports = failed_reports + 1 WHERE id = ?', rehearsalId)
  }
  if (!matched) {
    throw badRequest(
      "the proof does not match: the kits rebuilt a different key than this practice's. " +
        'Use the practice kits from the e-mails of this practice (not real guardian kits, nor those of an earlier practice)',
    )
  }
  return { passed: true }
}
