// Vault channels: the list (from the core's watcher), create, release configuration, check-in,
// cancel. The core reads the vault back after every change, so the window shows what the service holds.

import { isMissingExtension } from '../../../service-client'
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

/** An operation's answer, once the window has the vault as it now is (not after the next 30 ms batch). */
async function shownAtOnce<T>(s: VaultSession, vaultId: string, operation: Promise<T>): Promise<T> {
  const result = await operation
  await s.latestView(vaultId)
  return result
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
      return s.viewOf(await s.vaults.create({ preset, ...(name ? { name } : {}) }))
    },

    setCheckInLinks: async ({ vaultId, on }) => {
      const s = await session()
      return s.viewOf(await s.vaults.setCheckInLinks(vaultId, on))
    },

    renameVault: async ({ vaultId, name }) => {
      const s = await session()
      return s.viewOf(await s.vaults.rename(vaultId, name))
    },

    deleteVault: async ({ vaultId }) => {
      const s = await session()
      return extensionCall('delete a vault', () => s.vaults.remove(vaultId))
    },

    startRelease: async ({ vaultId }) => {
      const s = await session()
      return s.viewOf(await extensionCall('start a release', () => s.vaults.startRelease(vaultId)))
    },

    configureRelease: async ({ vaultId, trigger, checkInFrequency }) => {
      const s = await session()
      const frequency = trigger === 'dead_man_switch' ? (checkInFrequency ?? 'monthly') : undefined
      return shownAtOnce(
        s,
        vaultId,
        s.vaults.configureRelease(vaultId, {
          trigger,
          ...(frequency ? { config: { checkInFrequency: frequency } } : {}),
        }),
      )
    },

    checkIn: async ({ vaultId, note, source }) => {
      const s = await session()
      return shownAtOnce(s, vaultId, s.vaults.checkIn(vaultId, note, source))
    },

    cancelRelease: async ({ vaultId }) => {
      const s = await session()
      return shownAtOnce(s, vaultId, s.vaults.cancelRelease(vaultId))
    },
  }
}
