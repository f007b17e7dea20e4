// Guardians and heirs of a vault: add, list, remove, and the guardians' answers to their invitation.
import {
  type Guardian,
  type GuardianRemoved,
  type GuardianStatus,
  type Heir,
  type HeirRemoved,
  LIMITS,
  SSS_PRESET_SHAPE,
} from '../shared/api'
import type { ServiceContext } from './context'
import { inTransaction, prepared } from './database'
import { badRequest, conflict, notFound } from './errors'
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

function guardianView(row: GuardianRow): Guardian {
  const g: Guardian = {
    id: row.id,
    name: row.name,
    email: row.email,
    status: row.status,
    invitedAt: row.invited_at,
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

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE'
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
function addPerson(
  ctx: ServiceContext,
  people: People,
  accountId: string,
  vaultId: string,
  person: { id: string; body: PersonBody; columns: Record<string, string | Buffer> },
  then?: (vault: VaultRow) => void,
): void {
  const { id, body, columns } = person
  const taken = () => conflict(`${people.one} with e-mail ${body.email} already exists on vault ${vaultId}`)
  try {
    inTransaction(ctx.db, () => {
      const vault = ownedVault(ctx, accountId, vaultId)
      requireActive(vault, `changing ${people.table}`)
      if (
        prepared(ctx.db, `SELECT 1 FROM ${people.table} WHERE vault_id = ? AND email_key = ?`).get(
          vaultId,
          emailKey(body.email),
        )
      ) {
        throw taken()
      }
      const { max, reason } = people.limit(vault)
      if (countOf(ctx, people, vaultId) >= max) {
        throw badRequest(`${people.noun} limit reached: ${reason}; remove one first`)
      }
      const names = Object.keys(columns)
      prepared(
        ctx.db,
        `INSERT INTO ${people.table} (id, vault_id, name, email, email_key, wallet_address, ${names.join(', ')})
           VALUES (${Array(6 + names.length)
             .fill('?')
             .join(', ')})`,
      ).run(
        id,
        vaultId,
        body.name,
        body.email,
        emailKey(body.email),
        body.walletAddress ?? null,
        ...Object.values(columns),
      )
      then?.(vault)
      touchVault(ctx, vaultId)
    })
  } catch (error) {
    if (isUniqueViolation(error)) throw taken()
    throw error
  }
}

/** Removes a person in one transaction; `also` runs before the vault is touched. Returns how many remain. */
function removePerson(
  ctx: ServiceContext,
  people: People,
  accountId: string,
  vaultId: string,
  id: string,
  also?: () => void,
): number {
  return inTransaction(ctx.db, () => {
    const vault = ownedVault(ctx, accountId, vaultId)
    requireActive(vault, `changing ${people.table}`)
    const removed = prepared(ctx.db, `DELETE FROM ${people.table} WHERE id = ? AND vault_id = ?`).run(
      id,
      vaultId,
    )
    if (removed.changes === 0) throw notFound(`${people.noun} ${id} does not exist on vault ${vaultId}`)
    also?.()
    touchVault(ctx, vaultId)
    return countOf(ctx, people, vaultId)
  })
}

function rowsOf<Row>(ctx: ServiceContext, people: People, vaultId: string): Row[] {
  return prepared(
    ctx.db,
    `SELECT * FROM ${people.table} WHERE vault_id = ? ORDER BY ${people.since}, rowid`,
  ).all(vaultId) as Row[]
}

function countOf(ctx: ServiceContext, people: People, vaultId: string): number {
  return prepared(ctx.db, `SELECT COUNT(*) FROM ${people.table} WHERE vault_id = ?`)
    .pluck()
    .get(vaultId) as number
}

export function addGuardian(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  body: PersonBody,
): Guardian {
  const token = newSecret(GUARDIAN_TOKEN_PREFIX)
  const id = newId('grd')
  const columns = { status: 'pending', token_hash: hashSecret(token), invited_at: ctx.clock().toISOString() }
  addPerson(ctx, GUARDIANS, accountId, vaultId, { id, body, columns }, (vault) => {
    const owner = prepared(ctx.db, 'SELECT email FROM accounts WHERE id = ?').pluck().get(accountId) as string
    const mail = guardianInvitation({
      guardianName: body.name,
      ownerEmail: owner,
      vaultId,
      preset: vault.sss_preset,
      baseUrl: ctx.publicUrl(),
      token,
    })
    queueMail(ctx, { vaultId, kind: 'guardian_invitation', to: body.email, ...mail })
  })
  ctx.outboxChanged()
  return guardianView(prepared(ctx.db, 'SELECT * FROM guardians WHERE id = ?').get(id) as GuardianRow)
}

export function listGuardians(ctx: ServiceContext, vaultId: string): Guardian[] {
  return rowsOf<GuardianRow>(ctx, GUARDIANS, vaultId).map(guardianView)
}

export function removeGuardian(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  guardianId: string,
): GuardianRemoved {
  const remaining = removePerson(ctx, GUARDIANS, accountId, vaultId, guardianId)
  // The owner's app re-splits the key for the remaining guardians; nothing left means nothing to split.
  return { removed: guardianId, remainingGuardians: remaining, sharesRegenerated: remaining > 0 }
}

export function addHeir(ctx: ServiceContext, accountId: string, vaultId: string, body: PersonBody): Heir {
  const id = newId('hir')
  addPerson(ctx, HEIRS, accountId, vaultId, { id, body, columns: { added_at: ctx.clock().toISOString() } })
  return heirView(prepared(ctx.db, 'SELECT * FROM heirs WHERE id = ?').get(id) as HeirRow)
}

export function listHeirs(ctx: ServiceContext, vaultId: string): Heir[] {
  return rowsOf<HeirRow>(ctx, HEIRS, vaultId).map(heirView)
}

export function removeHeir(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  heirId: string,
): HeirRemoved {
  // A practice access given to this heir ends with them.
  const remaining = removePerson(ctx, HEIRS, accountId, vaultId, heirId, () =>
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

export function guardianByToken(ctx: ServiceContext, token: string): GuardianByToken {
  const guardian = token.startsWith(GUARDIAN_TOKEN_PREFIX)
    ? (prepared(ctx.db, 'SELECT * FROM guardians WHERE token_hash = ?').get(hashSecret(token)) as
        | GuardianRow
        | undefined)
    : undefined
  if (!guardian) {
    throw notFound('this guardian link is not valid any more: the owner may have removed you as a guardian')
  }
  const vault = prepared(
    ctx.db,
    `SELECT v.id, v.state, v.release_trigger, v.sss_preset, a.email AS owner_email
       FROM vaults v JOIN accounts a ON a.id = v.account_id WHERE v.id = ?`,
  ).get(guardian.vault_id) as GuardianByToken['vault']
  return { guardian, vault }
}

/** pending -> accepted or declined. An answer is final; the owner can remove and re-invite a guardian. */
export function answerInvitation(
  ctx: ServiceContext,
  token: string,
  answer: 'accepted' | 'declined',
): GuardianByToken {
  return inTransaction(ctx.db, () => {
    const found = guardianByToken(ctx, token)
    const { guardian } = found
    if (guardian.status === answer) return found
    if (guardian.status !== 'pending') {
      throw conflict(
        `you already ${guardian.status} this invitation; to change your answer, ask ${found.vault.owner_email} to remove and re-invite you`,
      )
    }
    const now = ctx.clock().toISOString()
    prepared(
      ctx.db,
      answer === 'accepted'
        ? "UPDATE guardians SET status = 'accepted', accepted_at = ? WHERE id = ?"
        : "UPDATE guardians SET status = 'declined', declined_at = ? WHERE id = ?",
    ).run(now, guardian.id)
    touchVault(ctx, guardian.vault_id)
    return guardianByToken(ctx, token)
  })
}
