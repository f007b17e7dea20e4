// Operator commands, shared by the CLI (`admin <command>`) and startService().admin.
import type { KeyKind, SssPreset } from '../shared/api'
import { AdminError, addCredits, createAccount, createApiKey, revokeKey } from './accounts'
import type { ServiceContext } from './context'
import { ApiError } from './errors'
import { listOutbox, type OutboxMessage } from './outbox'
import { runSchedulerPass, startRelease, type TickReport } from './release'
import { createVault, findVault, type VaultView, vaultView } from './vaults'

/** One line of the operator's view of accounts (`admin accounts`). */
export interface AccountSummary {
  accountId: string
  email: string
  creditsBalance: number
  vaults: number
  createdAt: string
}

export interface AdminOperations {
  createAccount(args: { email: string }): Promise<{ accountId: string; apiKey: string }>
  createKey(args: { account: string; kind: KeyKind }): Promise<{ apiKey: string }>
  revokeKey(args: { key: string }): Promise<{ revoked: true }>
  createVault(args: { account: string; preset: SssPreset }): Promise<{ vaultId: string }>
  addCredits(args: { account: string; credits: number }): Promise<{ creditsBalance: number }>
  startRelease(args: { vault: string }): Promise<VaultView>
  tick(args?: { now?: Date }): Promise<TickReport>
  outbox(args?: { vault?: string }): Promise<{ messages: OutboxMessage[] }>
  /** Every account with its balance and vault count, oldest first. */
  accounts(): Promise<{ accounts: AccountSummary[] }>
}

/** Runs fn; service errors (ApiError) become AdminError so the CLI reports them as plain messages. */
async function asAdmin<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (error) {
    if (error instanceof ApiError) throw new AdminError(error.message)
    throw error
  }
}

export function adminOperations(ctx: ServiceContext): AdminOperations {
  return {
    createAccount: ({ email }) => createAccount(ctx, email),
    createKey: async ({ account, kind }) => ({ apiKey: await createApiKey(ctx, account, kind) }),
    revokeKey: async ({ key }) => ({ revoked: (await revokeKey(ctx, key)) as true }),
    createVault: async ({ account, preset }) => ({
      vaultId: (await createVault(ctx, account, preset)).id,
    }),
    addCredits: async ({ account, credits }) => ({
      creditsBalance: await addCredits(ctx, account, credits),
    }),
    startRelease: ({ vault }) =>
      asAdmin(async () => {
        if (!(await findVault(ctx, vault))) throw new AdminError(`no vault ${vault}`)
        await startRelease(ctx, vault, { reason: 'started by the service operator' })
        return vaultView(ctx, vault)
      }),
    tick: ({ now } = {}) => {
      // A pass "as of" a past time would date releases back and shorten (or end) the owner's 30 days to
      // cancel; a deadline missed while the service was off already starts its release now, in full.
      if (now && now.getTime() < ctx.clock().getTime()) {
        return Promise.reject(
          new AdminError(
            `--now ${now.toISOString()} is in the past (the service's time is ${ctx.clock().toISOString()}): a pass dated back would shorten the owners' time to cancel a release. Run it without --now; deadlines missed while the service was off start their release now, with the full contestation period.`,
          ),
        )
      }
      return runSchedulerPass(now ? { ...ctx, clock: () => now } : ctx)
    },
    outbox: async ({ vault } = {}) => ({ messages: await listOutbox(ctx, vault) }),
    accounts: async () => ({
      accounts: (
        await ctx.db.all<{ id: string; email: string; balance: number; vaults: number; created_at: string }>(
          `SELECT a.id, a.email, a.credits_balance AS balance, a.created_at,
                  (SELECT count(*) FROM vaults v WHERE v.account_id = a.id) AS vaults
           FROM accounts a ORDER BY a.created_at, a.id`,
        )
      ).map((row) => ({
        accountId: row.id,
        email: row.email,
        creditsBalance: row.balance,
        vaults: row.vaults,
        createdAt: row.created_at,
      })),
    }),
  }
}
