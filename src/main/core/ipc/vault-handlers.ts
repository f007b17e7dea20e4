// Vault channels: the list (from the core's watcher), create, release configuration, check-in,
// cancel. The core reads the vault back after every change, so the window shows what the service holds.

import { isMissingExtension, VaultApiError } from '../../../service-client'
import { creditsToDollars, LIMITS } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import type { VaultSession } from '../vault-session'
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
  | 'renameVault'
  | 'setCheckInLinks'
  | 'deleteVault'
  | 'startRelease'
>

/** A 404 for a route the service lacks becomes one clear code the window can act on. */
export async function extensionCall<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (isMissingExtension(error)) {
      throw new AppError({
        code: 'EXTENSION_MISSING',
        userMessage: `This Vault Service cannot ${what} from the app (it lacks that extension of the local Vault Service). Use the service's own dashboard, or connect to a service that offers it.`,
        detail: error.detail,
        cause: error,
      })
    }
    throw error
  }
}

export function createVaultHandlers(session: () => Promise<VaultSession>): VaultHandlers {
  return {
    getVaults: async () => (await session()).snapshot(),

    // Refreshing also reads again what readiness needs (guardians' answers come by e-mail links).
    refreshVaults: async () => {
      const s = await session()
      await Promise.all([s.watcher.pollNow(), s.facts.refreshService()])
      await Promise.all(s.snapshot().vaults.map((v) => s.facts.refresh(v.id)))
      return s.snapshot()
    },

    refreshVault: async ({ vaultId }) => {
      const s = await session()
      const vault = await s.vaults.get(vaultId)
      await s.facts.refresh(vaultId)
      return s.viewOf(vault)
    },

    createVault: async ({ preset, name }) => {
      const s = await session()
      const named = name?.trim() || undefined
      const offersNames = s.facts.service?.extensions.includes('vault-name') ?? false
      const created = await s.vaults.create({ preset, ...(named && offersNames ? { name: named } : {}) })
      if (named && !offersNames) await s.records.update(created.id, (r) => ({ ...r, name: named }))
      return s.viewOf(created)
    },

    setCheckInLinks: async ({ vaultId, on }) => {
      const s = await session()
      if (!s.facts.service?.extensions.includes('check-in-links')) {
        throw new AppError({
          code: 'NOT_OFFERED',
          userMessage:
            'The connected service does not let the app choose whether reminder e-mails carry a check-in link. Ask whoever runs it what its reminders contain; nothing was changed.',
        })
      }
      return s.viewOf(await s.vaults.setCheckInLinks(vaultId, on))
    },

    renameVault: async ({ vaultId, name }) => {
      const s = await session()
      const trimmed = name.trim()
      if (s.facts.service?.extensions.includes('vault-name')) {
        return s.viewOf(await s.vaults.rename(vaultId, trimmed || null))
      }
      // A service that keeps no names: the name lives on this device.
      await s.records.update(vaultId, (r) => {
        const { name: _old, ...rest } = r
        return trimmed ? { ...rest, name: trimmed } : rest
      })
      return s.latestView(vaultId)
    },

    deleteVault: async ({ vaultId }) => {
      const s = await session()
      const result = await extensionCall('delete a vault', () => s.vaults.remove(vaultId))
      // The service has dropped the files; the key and kits on this device open nothing now.
      await s.forgetVault(vaultId)
      return result
    },

    startRelease: async ({ vaultId }) => {
      const s = await session()
      return s.viewOf(await extensionCall('start a release', () => s.vaults.startRelease(vaultId)))
    },

    configureRelease: async ({ vaultId, trigger, checkInFrequency }) => {
      const s = await session()
      const frequency = trigger === 'dead_man_switch' ? (checkInFrequency ?? 'monthly') : undefined
      const config = await s.vaults.configureRelease(vaultId, {
        trigger,
        ...(frequency ? { config: { checkInFrequency: frequency } } : {}),
      })
      await s.records.update(vaultId, (r) => ({
        ...r,
        releaseTrigger: config.trigger,
        checkInFrequency: config.checkInFrequency,
        nextCheckInDue: config.nextCheckInDue,
      }))
      await s.latestView(vaultId)
      return config
    },

    checkIn: async ({ vaultId, note }) => {
      const s = await session()
      const trimmed = note?.trim() || undefined
      let result: Awaited<ReturnType<typeof s.vaults.checkIn>>
      try {
        result = await s.vaults.checkIn(vaultId, trimmed)
      } catch (error) {
        if (error instanceof VaultApiError && error.status === 402) {
          const balance = s.snapshot().vaults.find((v) => v.id === vaultId)?.creditsBalance
          throw new AppError({
            code: error.code,
            status: 402,
            userMessage: `A check-in costs ${LIMITS.checkInCostCredits} credits (${creditsToDollars(LIMITS.checkInCostCredits)})${balance !== undefined ? ` and the balance is ${balance} credits` : ''}. Add credits to the account, then check in again.`,
            details: {
              creditsNeeded: LIMITS.checkInCostCredits,
              ...(balance !== undefined ? { creditsBalance: balance } : {}),
            },
            detail: error.detail,
            cause: error,
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
      await s.latestView(vaultId)
      return { ...result, checkedInAt }
    },

    cancelRelease: async ({ vaultId }) => {
      const s = await session()
      const result = await s.vaults.cancelRelease(vaultId)
      await s.latestView(vaultId)
      return result
    },
  }
}
