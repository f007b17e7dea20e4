// Connections: connect to a service with an API key, start the local service, switch, replace a
// key, forget. The key goes straight into the secret store; the window only ever sees its summary.

import { VaultApiError } from '../../../service-client'
import type { SssPreset } from '../../../shared/api'
import { IpcError } from '../../../shared/ipc/contract-kit'
import type { DesktopSession } from '../desktop-session'
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
      throw new IpcError({
        code: 'KEY_REJECTED',
        status: 401,
        message: `The service at ${serviceUrl} did not accept this API key. Check that you copied the whole key (it starts with sk_human_ or sk_agent_) from the dashboard settings, and that it has not been revoked; nothing was stored.`,
      })
    }
    throw error
  }
}

export function createConnectionHandlers(session: () => Promise<DesktopSession>): ConnectionHandlers {
  return {
    getConnectionStatus: async () => (await session()).connectionStatus(),

    connectService: async ({ serviceUrl, apiKey, label }) => {
      const s = await session()
      const added = await checkingKey(serviceUrl, () => s.core.connections.add({ serviceUrl, apiKey, label }))
      await s.vaultsRead()
      return s.connectionInfo(s.connection(added.id))
    },

    startLocally: async ({ email }) => {
      const s = await session()
      const existing = s.core.connections.list().find((c) => s.host.isLocal(c.serviceUrl))
      let id: string
      if (existing) {
        await s.host.start()
        id = (await s.core.connections.switchTo(existing.id)).id
      } else {
        const { apiKey, serviceUrl } = await s.host.createAccount(email)
        id = (await s.core.connections.add({ serviceUrl, apiKey, label: 'This computer' })).id
      }
      const vaults = await s.core.vaults.list()
      // A new vault's key is made here, on this device, and never leaves it.
      const first = vaults[0] ?? (await s.core.vaults.create({ preset: FIRST_VAULT_PRESET }))
      await s.ensureVaultKey(first.id)
      return { connection: s.connectionInfo(s.connection(id)), vault: await s.viewOf(first) }
    },

    switchConnection: async ({ connectionId }) => {
      const s = await session()
      if (s.host.isLocal(s.connection(connectionId).serviceUrl)) await s.host.start()
      const active = await s.core.connections.switchTo(connectionId)
      await s.vaultsRead()
      return s.connectionInfo(active)
    },

    replaceApiKey: async ({ connectionId, apiKey }) => {
      const s = await session()
      const replaced = await checkingKey(s.connection(connectionId).serviceUrl, () =>
        s.core.connections.replaceKey(connectionId, apiKey),
      )
      await s.vaultsRead()
      return s.connectionInfo(s.connection(replaced.id))
    },

    sendTestMail: async () => {
      const s = await session()
      const active = s.core.connections.active()
      if (active && s.host.isLocal(active.serviceUrl)) {
        throw new IpcError({
          code: 'NO_MAIL',
          message:
            'The Vault Service on this computer sends no e-mail. Connect to an always-on service that does (Settings → Connections) so guardians and heirs can be reached.',
        })
      }
      const result = await extensionCall('send a test e-mail', () => s.core.service.sendTestMail())
      await s.refreshService()
      return result
    },

    addLocalCredits: async ({ credits }) => {
      const s = await session()
      const active = s.core.connections.active()
      if (!active || !s.host.isLocal(active.serviceUrl)) {
        throw new IpcError({
          code: 'NOT_LOCAL',
          message: `Credits are added here only for the Vault Service on this computer. Buy credits from your service${active ? ` at ${new URL(active.serviceUrl).origin}` : ''}.`,
        })
      }
      const creditsBalance = await s.host.addCredits(credits)
      await s.vaultsRead()
      return { creditsBalance }
    },

    forgetConnection: async ({ connectionId }) => {
      const s = await session()
      if (!s.core.connections.list().some((c) => c.id === connectionId)) {
        throw new IpcError({ code: 'NOT_FOUND', message: 'This connection was already removed.' })
      }
      await s.core.connections.remove(connectionId)
      await s.vaultsRead()
      return s.connectionStatus()
    },
  }
}
