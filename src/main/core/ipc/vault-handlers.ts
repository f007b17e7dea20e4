// Vault channels: the list (from the watcher), create, release configuration, check-in, cancel.
// After every change the vault is read back once so the window shows what the service holds.
import { creditsToDollars, LIMITS } from '../../../shared/api'
import { IpcError } from '../../../shared/ipc/contract-kit'
import { VaultApiError } from '../api-client'
import type { DesktopSession } from './desktop-session'
import type { HandlerTable } from './handler-table'

type VaultHandlers = Pick<
  HandlerTable,
  | 'getVaults'
  | 'refreshVaults'
  | 'refreshVault'
  | 'createVault'
  | 'configureRelease'
  | 'checkIn'
  | 'cancelRelease'
>

export function createVaultHandlers(session: () => Promise<DesktopSession>): VaultHandlers {
  return {
    getVaults: async () => (await session()).snapshot(),

    refreshVaults: async () => {
      const s = await session()
      await s.watcher.pollNow()
      return s.snapshot()
    },

    refreshVault: async ({ vaultId }) => {
      const s = await session()
      const client = await s.connections.client()
      return s.observe(await client.getVault(vaultId))
    },

    createVault: async ({ preset }) => {
      const s = await session()
      const client = await s.connections.client()
      const vault = await client.createVault({ preset })
      await s.ensureVaultKey(vault.id)
      return s.observe(vault)
    },

    configureRelease: async ({ vaultId, trigger, checkInFrequency }) => {
      const s = await session()
      const client = await s.connections.client()
      const frequency = trigger === 'dead_man_switch' ? (checkInFrequency ?? 'monthly') : undefined
      const config = await client.configureRelease(vaultId, {
        trigger,
        ...(frequency ? { config: { checkInFrequency: frequency } } : {}),
      })
      await s.records.update(vaultId, (r) => ({
        ...r,
        releaseTrigger: config.trigger,
        checkInFrequency: config.checkInFrequency,
        nextCheckInDue: config.nextCheckInDue,
      }))
      await s.observe(await client.getVault(vaultId))
      return config
    },

    checkIn: async ({ vaultId, note }) => {
      const s = await session()
      const client = await s.connections.client()
      const trimmed = note?.trim() || undefined
      let result: Awaited<ReturnType<typeof client.checkIn>>
      try {
        result = await client.checkIn(vaultId, trimmed)
      } catch (error) {
        if (error instanceof VaultApiError && error.status === 402) {
          const balance = s.snapshot().vaults.find((v) => v.id === vaultId)?.creditsBalance
          throw new IpcError({
            code: error.code,
            status: 402,
            message: `A check-in costs ${LIMITS.checkInCostCredits} credits (${creditsToDollars(LIMITS.checkInCostCredits)})${balance !== undefined ? ` and the balance is ${balance} credits` : ''}. Add credits to the account, then check in again.`,
            details: {
              creditsNeeded: LIMITS.checkInCostCredits,
              ...(balance !== undefined ? { creditsBalance: balance } : {}),
            },
          })
        }
        throw error
      }
      const checkedInAt = new Date().toISOString()
      await s.records.update(vaultId, (r) => ({
        ...r,
        lastCheckIn: { at: checkedInAt, note: trimmed ?? null },
        nextCheckInDue: result.nextCheckInDue,
      }))
      await s.observe(await client.getVault(vaultId))
      return { ...result, checkedInAt }
    },

    cancelRelease: async ({ vaultId }) => {
      const s = await session()
      const client = await s.connections.client()
      const result = await client.cancelRelease(vaultId)
      await s.observe(await client.getVault(vaultId))
      return result
    },
  }
}
