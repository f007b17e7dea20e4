// Operator commands, shared by the CLI (`admin <command>`) and startService().admin.
import type { KeyKind, SssPreset } from '../shared/api'
import { AdminError, addCredits, createAccount, createApiKey, revokeKey } from './accounts'
import type { ServiceContext } from './context'
import { ApiError } from './errors'
import { listOutbox, type OutboxMessage } from './outbox'
import { runSchedulerPass, startRelease, type TickReport } from './release'
import { createVault, findVault, type VaultView, vaultView } from './vaults'

export interface AdminOperations {
  createAccount(args: { email: string }): { accountId: string; apiKey: string }
  createKey(args: { account: string; kind: KeyKind }): { apiKey: string }
  revokeKey(args: { key: string }): { revoked: true }
  createVault(args: { account: string; preset: SssPreset }): { vaultId: string }
  addCredits(args: { account: string; credits: number }): { creditsBalance: number }
  startRelease(args: { vault: string }): VaultView
  tick(args?: { now?: Date }): TickReport
  outbox(args?: { vault?: string }): { messages: OutboxMessage[] }
}

/** Runs fn; service errors (ApiError) become AdminError so the CLI reports them as plain messages. */
function asAdmin<T>(fn: () => T): T {
  try {
    return fn()
  } catch (error) {
    if (error instanceof ApiError) throw new AdminError(error.message)
    throw error
  }
}

export function adminOperations(ctx: ServiceContext): AdminOperations {
  return {
    createAccount: ({ email }) => createAccount(ctx, email),
    createKey: ({ account, kind }) => ({ apiKey: createApiKey(ctx, account, kind) }),
    revokeKey: ({ key }) => ({ revoked: revokeKey(ctx, key) as true }),
    createVault: ({ account, preset }) => ({ vaultId: createVault(ctx, account, preset).id }),
    addCredits: ({ account, credits }) => ({ creditsBalance: addCredits(ctx, account, credits) }),
    startRelease: ({ vault }) =>
      asAdmin(() => {
        if (!findVault(ctx, vault)) throw new AdminError(`no vault ${vault}`)
        startRelease(ctx, vault, { reason: 'started by the service operator' })
        return vaultView(ctx, vault)
      }),
    tick: ({ now } = {}) => runSchedulerPass(now ? { ...ctx, clock: () => now } : ctx),
    outbox: ({ vault } = {}) => ({ messages: listOutbox(ctx, vault) }),
  }
}
