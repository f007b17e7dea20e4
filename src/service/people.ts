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
import { ownedVault, requireActive, touchVault } from './vaults'

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

export function addGuardian(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  body: PersonBody,
): Guardian {
  const token = newSecret(GUARDIAN_TOKEN_PREFIX)
  const id = newId('grd')
  try {
    inTransaction(ctx.db, () => {
      const vault = ownedVault(ctx, accountId, vaultId)
      requireActive(vault, 'changing guardians')
      const { shares } = SSS_PRESET_SHAPE[vault.sss_preset]
      if (
        prepared(ctx.db, 'SELECT 1 FROM guardians WHERE vault_id = ? AND email_key = ?').get(
          vaultId,
          emailKey(body.email),
        )
      ) {
        throw conflict(`a guardian with e-mail ${body.email} already exists on vault ${vaultId}`)
      }
      const count = prepared(ctx.db, 'SELECT COUNT(*) FROM guardians WHERE vault_id = ?')
        .pluck()
        .get(vaultId) as number
      if (count >= shares) {
        throw badRequest(
          `guardian limit reached: a ${vault.sss_preset} vault has at most ${shares} guardians; remove one first`,
        )
      }
      const now = ctx.clock().toISOString()
      prepared(
        ctx.db,
        `INSERT INTO guardians (id, vault_id, name, email, email_key, wallet_address, status, token_hash, invited_at)
           VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
      ).run(
        id,
        vaultId,
        body.name,
        body.email,
        emailKey(body.email),
        body.walletAddress ?? null,
        hashSecret(token),
        now,
      )
      touchVault(ctx, vaultId)
      const owner = prepared(ctx.db, 'SELECT email FROM accounts WHERE id = ?')
        .pluck()
        .get(accountId) as string
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
  } catch (error) {
    if (isUniqueViolation(error))
      throw conflict(`a guardian with e-mail ${body.email} already exists on vault ${vaultId}`)
    throw error
  }
  ctx.outboxChanged()
  return guardianView(prepared(ctx.db, 'SELECT * FROM guardians WHERE id = ?').get(id) as GuardianRow)
}

export function listGuardians(ctx: ServiceContext, vaultId: string): Guardian[] {
  const rows = prepared(ctx.db, 'SELECT * FROM guardians WHERE vault_id = ? ORDER BY invited_at, rowid').all(
    vaultId,
  ) as GuardianRow[]
  return rows.map(guardianView)
}

export function removeGuardian(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  guardianId: string,
): GuardianRemoved {
  return inTransaction(ctx.db, () => {
    const vault = ownedVault(ctx, accountId, vaultId)
    requireActive(vault, 'changing guardians')
    const removed = prepared(ctx.db, 'DELETE FROM guardians WHERE id = ? AND vault_id = ?').run(
      guardianId,
      vaultId,
    )
    if (removed.changes === 0) throw notFound(`guardian ${guardianId} does not exist on vault ${vaultId}`)
    touchVault(ctx, vaultId)
    const remaining = prepared(ctx.db, 'SELECT COUNT(*) FROM guardians WHERE vault_id = ?')
      .pluck()
      .get(vaultId) as number
    // The owner's app re-splits the key for the remaining guardians; nothing left means nothing to split.
    return { removed: guardianId, remainingGuardians: remaining, sharesRegenerated: remaining > 0 }
  })
}

export function addHeir(ctx: ServiceContext, accountId: string, vaultId: string, body: PersonBody): Heir {
  const id = newId('hir')
  try {
    inTransaction(ctx.db, () => {
      const vault = ownedVault(ctx, accountId, vaultId)
      requireActive(vault, 'changing heirs')
      if (
        prepared(ctx.db, 'SELECT 1 FROM heirs WHERE vault_id = ? AND email_key = ?').get(
          vaultId,
          emailKey(body.email),
        )
      ) {
        throw conflict(`an heir with e-mail ${body.email} already exists on vault ${vaultId}`)
      }
      const count = prepared(ctx.db, 'SELECT COUNT(*) FROM heirs WHERE vault_id = ?')
        .pluck()
        .get(vaultId) as number
      if (count >= LIMITS.maxHeirs) {
        throw badRequest(`heir limit reached: a vault has at most ${LIMITS.maxHeirs} heirs; remove one first`)
      }
      prepared(
        ctx.db,
        `INSERT INTO heirs (id, vault_id, name, email, email_key, wallet_address, added_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        vaultId,
        body.name,
        body.email,
        emailKey(body.email),
        body.walletAddress ?? null,
        ctx.clock().toISOString(),
      )
      touchVault(ctx, vaultId)
    })
  } catch (error) {
    if (isUniqueViolation(error))
      throw conflict(`an heir with e-mail ${body.email} already exists on vault ${vaultId}`)
    throw error
  }
  return heirView(prepared(ctx.db, 'SELECT * FROM heirs WHERE id = ?').get(id) as HeirRow)
}

export function listHeirs(ctx: ServiceContext, vaultId: string): Heir[] {
  const rows = prepared(ctx.db, 'SELECT * FROM heirs WHERE vault_id = ? ORDER BY added_at, rowid').all(
    vaultId,
  ) as HeirRow[]
  return rows.map(heirView)
}

export function removeHeir(
  ctx: ServiceContext,
  accountId: string,
  vaultId: string,
  heirId: string,
): HeirRemoved {
  return inTransaction(ctx.db, () => {
    const vault = ownedVault(ctx, accountId, vaultId)
    requireActive(vault, 'changing heirs')
    const removed = prepared(ctx.db, 'DELETE FROM heirs WHERE id = ? AND vault_id = ?').run(heirId, vaultId)
    if (removed.changes === 0) throw notFound(`heir ${heirId} does not exist on vault ${vaultId}`)
    // A practice access given to this heir ends with them.
    endLiveRehearsals(ctx, { heirId })
    touchVault(ctx, vaultId)
    const remaining = prepared(ctx.db, 'SELECT COUNT(*) FROM heirs WHERE vault_id = ?')
      .pluck()
      .get(vaultId) as number
    return { removed: heirId, remainingHeirs: remaining }
  })
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
