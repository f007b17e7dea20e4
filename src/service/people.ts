// Guardians and heirs of a vault: add, list, remove, and the guardians' answers to their invitation.
import {
  type Guardian,
  type GuardianKitCheck,
  type GuardianRemoved,
  type GuardianStatus,
  type Heir,
  type HeirRemoved,
  LIMITS,
  SSS_PRESET_SHAPE,
} from '../shared/api'
import type { ServiceContext } from './context'
import { badRequest, conflict, notFound } from './errors'
import { kitChecksOf } from './kit-checks'
import { guardianInvitation } from './mail-messages'
import { queueMail } from './outbox'
import { endLiveRehearsals } from './rehearsal'
import { GUARDIAN_TOKEN_PREFIX, hashSecret, newId, newSecret } from './secrets'
import type { PersonBody } from './validation'
import { ownedVault, requireActive, touchVault, type VaultRow } from './vaults'

interface GuardianRow {
  id: string
  vault_id: string
  name: string
  email: string
  wallet_address: string | null
  status: GuardianStatus
  invited_at: string
  accepted_at: string | null
  declined_at: string | null
  claimed_at: string | null
}
interface HeirRow {
  id: string
  vault_id: string
  name: string
  email: string
  wallet_address: string | null
  added_at: string
}

/** `kitCheck`: the guardian's kit check in the current split (extension kit-check), null when none. */
function guardianView(row: GuardianRow, kitCheck: GuardianKitCheck | null): Guardian {
  const g: Guardian = {
    id: row.id,
    name: row.name,
    email: row.email,
    status: row.status,
    invitedAt: row.invited_at,
    kitCheck,
  }
  if (row.wallet_address) g.walletAddress = row.wallet_address
  if (row.accepted_at) g.acceptedAt = row.accepted_at
  return g
}

function heirView(row: HeirRow): Heir {
  const h: Heir = { id: row.id, name: row.name, email: row.email, addedAt: row.added_at }
  if (row.wallet_address) h.walletAddress = row.wallet_address
  return h
}

const emailKey = (email: string) => email.trim().toLowerCase()

/** A UNIQUE constraint refused the insert (SQLite's code, or PostgreSQL's SQLSTATE 23505). */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505'
}

/** What differs between guardians and heirs where adding and removing them works the same. */
interface People {
  table: 'guardians' | 'heirs'
  /** The column they are listed by, earliest first. */
  since: 'invited_at' | 'added_at'
  /** "a guardian" / "an heir", as the messages say it. */
  one: string
  noun: string
  /** The most people the vault can have, and the sentence saying so. */
  limit(vault: VaultRow): { max: number; reason: string }
}

const GUARDIANS: People = {
  table: 'guardians',
  since: 'invited_at',
  one: 'a guardian',
  noun: 'guardian',
  limit: (vault) => {
    const { shares } = SSS_PRESET_SHAPE[vault.sss_preset]
    return { max: shares, reason: `a ${vault.sss_preset} vault has at most ${shares} guardians` }
  },
}

const HEIRS: People = {
  table: 'heirs',
  since: 'added_at',
  one: 'an heir',
  noun: 'heir',
  limit: () => ({ max: LIMITS.maxHeirs, reason: `a vault has at most ${LIMITS.maxHeirs} heirs` }),
}

/**
 * Adds a person in one transaction, refused unless the vault is active, nobody there has that e-mail
 * and the limit leaves room. `columns` are the table's own besides the person's; `then` runs after the insert.
 */
async function addPerson(
  ctx: ServiceContext,
  people: People,
  accountId: string,
  vaultId: string,
  person: { id: string; body: PersonBody; columns: Record<string, string | Buffer> },
  then?: (vault: VaultRow) => Promise<void>,
): Promise<void> {
  const { id, body, columns } = person
  const taken = () => conflict(`${people.one} with e-mail ${body.email} already exists on vault ${vaultId}`)
  try {
    // The duplicate and limit checks and the insert are one transaction, so two requests (or two
    // instances) adding at once cannot both pass the checks.
    await ctx.db.transaction(async () => {
      const vault = await ownedVault(ctx, accountId, vaultId)
      requireActive(vault, `changing ${people.table}`)
      if (
        await ctx.db.get(
          `SELECT 1 AS found FROM ${people.table} WHERE vault_id = ? AND email_key = ?`,
          vaultId,
          emailKey(body.email),
        )
      ) {
        throw taken()
      }
      const { max, reason } = people.limit(vault)
      if ((await countOf(ctx, people, vaultId)) >= max) {
        throw badRequest(`${people.noun} limit reached: ${reason}; remove one first`)
      }
      const names = Object.keys(columns)
      await ctx.db.run(
        `INSERT INTO ${people.table} (id, vault_id, name, email, email_key, wallet_address, ${names.join(', ')})
           VALUES (${Array(6 + names.length)
             .fill('?')
             .join(', ')})`,
        id,
        vaultId,
        body.name,
        body.email,
        emailKey(body.email),
        body.walletAddress ?? null,
        ...Object.values(columns),
      )
      await then?.(vault)
      await touchVault(ctx, vaultId)
    })
  } catch (error) {
    if (isUniqueViolation(error)) throw taken()
    throw error
  }
}

/** Removes a person in one transaction; `also` runs before the vault is touched. Returns how many remain. */
async function removePerson(
  ctx: ServiceContext,
  people: People,
  accountId: string,
  vaultId: string,
  id: string,
  also?: () => Promise<unknown>,
): Promise<number> {
  return ctx.db.transaction(async () => {
    const vault = await ownedVault(ctx, accountId, vaultId)
    requireActive(vault, `changing ${people.table}`)
    const removed = await ctx.db.run(`DELETE FROM ${people.table} WHERE id = ? AND vault_id = ?`, id, vaultId)
    if (removed.changes === 0) throw notFound(`${people.noun} ${id} does not exist on vault ${vaultId}`)
    await also?.()
    await touchVault(ctx, vaultId)
    return countOf(ctx, people, vaultId)
  })
}

function rowsOf<Row>(ctx: ServiceContext, people: People, vaultId: string): Promise<Row[]> {
  return ctx.db.all<Row>(
    `SELECT * FROM ${people.table} WHERE vault_id = ? ORDER BY ${people.since}, rowid`,
    vaultId,
  )
}

async function countOf(ctx: ServiceContext, people: People, vaultId: string): Promise<number> {
  const row = await ctx.db.get<{ count: number }>(
    `SELECT COUNT(*) AS count FROM ${people.table} WHERE vault_id = ?`,
    vaultId,
  )
  return row?.count ?? 0
}

export async function addGuardian(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  body: PersonBody,
): Promise<Guardian> {
  const token = newSecret(GUARDIAN_TOKEN_PREFIX)
  const id = newId('grd')
  const columns = { status: 'pending', token_hash: hashSecret(token), invited_at: ctx.clock().toISOString() }
  await addPerson(ctx, GUARDIANS, accountId, vaultId, { id, body, columns }, async (vault) => {
    const owner = await ctx.db.get<{ email: string }>('SELECT email FROM accounts WHERE id = ?', accountId)
    const mail = guardianInvitation({
      guardianName: body.name,
      ownerEmail: owner!.email,
      vaultId,
      preset: vault.sss_preset,
      baseUrl: ctx.publicUrl(),
      token,
    })
    await queueMail(ctx, { vaultId, kind: 'guardian_invitation', to: body.email, ...mail })
  })
  ctx.outboxChanged()
  return guardianView((await ctx.db.get<GuardianRow>('SELECT * FROM guardians WHERE id = ?', id))!, null)
}

export async function listGuardians(ctx: ServiceContext, vaultId: string): Promise<Guardian[]> {
  const kitChecks = await kitChecksOf(ctx, vaultId)
  return (await rowsOf<GuardianRow>(ctx, GUARDIANS, vaultId)).map((row) =>
    guardianView(row, kitChecks.get(row.id) ?? null),
  )
}

export async function removeGuardian(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  guardianId: string,
): Promise<GuardianRemoved> {
  const remaining = await removePerson(ctx, GUARDIANS, accountId, vaultId, guardianId)
  // The owner's app re-splits the key for the remaining guardians; nothing left means nothing to split.
  return { removed: guardianId, remainingGuardians: remaining, sharesRegenerated: remaining > 0 }
}

export async function addHeir(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  body: PersonBody,
): Promise<Heir> {
  const id = newId('hir')
  await addPerson(ctx, HEIRS, accountId, vaultId, {
    id,
    body,
    columns: { added_at: ctx.clock().toISOString() },
  })
  return heirView((await ctx.db.get<HeirRow>('SELECT * FROM heirs WHERE id = ?', id))!)
}

export async function listHeirs(ctx: ServiceContext, vaultId: string): Promise<Heir[]> {
  return (await rowsOf<HeirRow>(ctx, HEIRS, vaultId)).map(heirView)
}

export async function removeHeir(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  heirId: string,
): Promise<HeirRemoved> {
  // A practice access given to this heir ends with them.
  const remaining = await removePerson(ctx, HEIRS, accountId, vaultId, heirId, () =>
    endLiveRehearsals(ctx, { heirId }),
  )
  return { removed: heirId, remainingHeirs: remaining }
}

export interface GuardianByToken {
  guardian: GuardianRow
  vault: {
    id: string
    state: string
    release_trigger: string | null
    sss_preset: keyof typeof SSS_PRESET_SHAPE
    owner_email: string
  }
}

export async function guardianByToken(ctx: ServiceContext, token: string): Promise<GuardianByToken> {
  const guardian = token.startsWith(GUARDIAN_TOKEN_PREFIX)
    ? await ctx.db.get<GuardianRow>('SELECT * FROM guardians WHERE token_hash = ?', hashSecret(token))
    : undefined
  if (!guardian) {
    throw notFound('this guardian link is not valid any more: the owner may have removed you as a guardian')
  }
  const vault = await ctx.db.get<GuardianByToken['vault']>(
    `SELECT v.id, v.state, v.release_trigger, v.sss_preset, a.email AS owner_email
       FROM vaults v JOIN accounts a ON a.id = v.account_id WHERE v.id = ?`,
    guardian.vault_id,
  )
  return { guardian, vault: vault! }
}

/**
 * pending -> accepted or declined. An answer is final; the owner can remove and re-invite a guardian.
 * Read, check and update are one transaction: of two answers given at once (two clicks, two instances)
 * the second sees the first's and is refused, or repeats the same answer.
 */
export async function answerInvitation(
  ctx: ServiceContext,
  token: string,
  answer: 'accepted' | 'declined',
): Promise<GuardianByToken> {
  return ctx.db.transaction(async () => {
    const found = await guardianByToken(ctx, token)
    const { guardian } = found
    if (guardian.status === answer) return found
    if (guardian.status !== 'pending') {
      throw conflict(
        `you already ${guardian.status} this invitation; to change your answer, ask ${found.vault.owner_email} to remove and re-invite you`,
      )
    }
    const now = ctx.clock().toISOString()
    await ctx.db.run(
      answer === 'accepted'
        ? "UPDATE guardians SET status = 'accepted', accepted_at = ? WHERE id = ?"
        : "UPDATE guardians SET status = 'declined', declined_at = ? WHERE id = ?",
      now,
      guardian.id,
    )
    await touchVault(ctx, guardian.vault_id)
    return guardianByToken(ctx, token)
  })
}
