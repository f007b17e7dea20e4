// Connections: connect to a service with an API key, start the local service, switch, replace a
// key, forget. The key goes straight into the secret store; the window only ever sees its summary.
import type { SssPreset } from '../../../shared/api'
import { IpcError } from '../../../shared/ipc/contract-kit'
import { VaultApiError } from '../api-client'
import type { DesktopSession } from './desktop-session'
import type { HandlerTable } from './handler-table'

type ConnectionHandlers = Pick<
  HandlerTable,
  | 'getConnectionStatus'
  | 'connectService'
  | 'startLocally'
  | 'switchConnection'
  | 'replaceApiKey'
  | 'forgetConnection'
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
      const added = await checkingKey(serviceUrl, () => s.connections.add({ serviceUrl, apiKey, label }))
      await s.connectionChanged()
      return s.connectionInfo(added)
    },

    startLocally: async ({ email }) => {
      const s = await session()
      const existing = s.connections.list().find((c) => s.host.isLocal(c.serviceUrl))
      let summary = existing
      if (existing) {
        await s.host.start()
        summary = await s.connections.switchTo(existing.id)
      } else {
        const { apiKey, serviceUrl } = await s.host.createAccount(email)
        summary = await s.connections.add({ serviceUrl, apiKey, label: 'This computer' })
      }
      const client = await s.connections.client(summary.id)
      const vaults = await client.listVaults()
      const first = vaults[0] ?? (await client.createVault({ preset: FIRST_VAULT_PRESET }))
      // The vault key is made here, on this device, and never leaves it.
      await s.ensureVaultKey(first.id)
      await s.connectionChanged()
      const vault = await s.observe(first)
      return { connection: s.connectionInfo(s.connections.get(summary.id)), vault }
    },

    switchConnection: async ({ connectionId }) => {
      const s = await session()
      const summary = await s.connections.switchTo(connectionId)
      if (s.host.isLocal(summary.serviceUrl)) await s.host.start()
      await s.connectionChanged()
      return s.connectionInfo(summary)
    },

    replaceApiKey: async ({ connectionId, apiKey }) => {
      const s = await session()
      const summary = await checkingKey(s.connections.get(connectionId).serviceUrl, () =>
        s.connections.replaceKey(connectionId, apiKey),
      )
      await s.connectionChanged()
      return s.connectionInfo(summary)
    },

    forgetConnection: async ({ connectionId }) => {
      const s = await session()
      if (!s.connections.list().some((c) => c.id === connectionId)) {
        throw new IpcError({ code: 'NOT_FOUND', message: 'This connection was already removed.' })
      }
      await s.connections.remove(connectionId)
      await s.connectionChanged()
      return s.connectionStatus()
    },
  }
}
