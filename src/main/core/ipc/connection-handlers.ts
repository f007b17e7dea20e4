// Connections: connect to a service with an API key, start the local service, switch, replace a
// key, forget. The key goes straight into the secret store; the window only ever sees its summary.

import { VaultApiError } from '../../../service-client'
import type { SssPreset } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import type { VaultSession } from '../vault-session'
import { buyCreditsText } from '../vaults/vault-notices'
import type { HandlerTable } from './handler-table'
import { extensionCall } from './vault-handlers'

type ConnectionHandlers = Pick<
  HandlerTable,
  | 'getConnectionStatus'
  | 'connectService'
  | 'startLocally'
  | 'switchConnection'
  | 'replaceApiKey'
  | 'forgetConnection'
  | 'sendTestMail'
  | 'addLocalCredits'
>

const FIRST_VAULT_PRESET: SssPreset = 'standard'

/** While a key is being entered, a 401 means "this key", not "reconnect": say what to check. */
async function checkingKey<T>(serviceUrl: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof VaultApiError && error.status === 401) {
      throw new AppError({
        code: 'KEY_REJECTED',
        status: 401,
        userMessage: `The service at ${serviceUrl} did not accept this API key. Check that you copied the whole key (it starts with sk_human_ or sk_agent_) from the dashboard settings, and that it has not been revoked; nothing was stored.`,
        detail: error.detail,
        cause: error,
      })
    }
    throw error
  }
}

export function createConnectionHandlers(session: () => Promise<VaultSession>): ConnectionHandlers {
  return {
    getConnectionStatus: async () => {
      const s = await session()
      await s.refreshKeyPresence()
      return s.connectionStatus()
    },

    connectService: async ({ serviceUrl, apiKey, label }) => {
      const s = await session()
      const added = await checkingKey(serviceUrl, () => s.connections.add({ serviceUrl, apiKey, label }))
      await s.refreshKeyPresence()
      await s.vaultsRead()
      return s.connectionInfo(s.connection(added.id))
    },

    startLocally: async ({ email }) => {
      const s = await session()
      const existing = s.connections.list().find((c) => s.localService.isLocal(c.serviceUrl))
      let id: string
      if (existing) {
        await s.localService.start()
        id = (await s.connections.switchTo(existing.id)).id
      } else {
        const { apiKey, serviceUrl } = await s.localService.createAccount(email)
        id = (await s.connections.add({ serviceUrl, apiKey, label: 'This computer' })).id
      }
      const vaults = await s.vaults.list()
      // A new vault's key is made with it, here, and never leaves this device. A vault the service
      // already has keeps the key it was made with: when that key is gone, the vault says so and its
      // owner kit brings it back; a second key would open none of its files or kits.
      const first = vaults[0] ?? (await s.vaults.create({ preset: FIRST_VAULT_PRESET }))
      return { connection: s.connectionInfo(s.connection(id)), vault: await s.viewOf(first) }
    },

    switchConnection: async ({ connectionId }) => {
      const s = await session()
      if (s.localService.isLocal(s.connection(connectionId).serviceUrl)) await s.localService.start()
      const active = await s.connections.switchTo(connectionId)
      await s.vaultsRead()
      return s.connectionInfo(active)
    },

    replaceApiKey: async ({ connectionId, apiKey }) => {
      const s = await session()
      const replaced = await checkingKey(s.connection(connectionId).serviceUrl, () =>
        s.connections.replaceKey(connectionId, apiKey),
      )
      // A key entered again after its store forgot it: the list stops calling it gone.
      await s.refreshKeyPresence()
      await s.vaultsRead()
      return s.connectionInfo(s.connection(replaced.id))
    },

    sendTestMail: async () => {
      const s = await session()
      const active = s.connections.active()
      if (active && s.localService.isLocal(active.serviceUrl)) {
        throw new AppError({
          code: 'NO_MAIL',
          userMessage:
            'The Vault Service on this computer sends no e-mail. Connect to an always-on service that does (Settings → Connections) so guardians and heirs can be reached.',
        })
      }
      const result = await extensionCall('send a test e-mail', () => s.activeService.sendTestMail())
      await s.facts.refreshService()
      return result
    },

    addLocalCredits: async ({ credits }) => {
      const s = await session()
      const active = s.connections.active()
      if (!active || !s.localService.isLocal(active.serviceUrl)) {
        throw new AppError({
          code: 'NOT_LOCAL',
          userMessage: `Credits are added here only for the Vault Service on this computer. ${buyCreditsText(s.facts.service)}`,
        })
      }
      const creditsBalance = await s.localService.addCredits(credits)
      await s.vaultsRead()
      return { creditsBalance }
    },

    forgetConnection: async ({ connectionId }) => {
      const s = await session()
      if (!s.connections.list().some((c) => c.id === connectionId)) {
        throw new AppError({ code: 'NOT_FOUND', userMessage: 'This connection was already removed.' })
      }
      await s.connections.remove(connectionId)
      await s.vaultsRead()
      return s.connectionStatus()
    },
  }
}
