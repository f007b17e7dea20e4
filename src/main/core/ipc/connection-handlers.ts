// Connections: connect to a service with an API key, start the local service (its steps and credits
// are the session's local-trial operations), switch, replace a key, forget. The key goes straight
// into the secret store; the window only ever sees its summary.

import { VaultApiError } from '../../../service-client'
import { AppError } from '../../../shared/app-error'
import type { VaultSession } from '../vault-session'
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

    startLocally: async ({ email }) => (await session()).localTrial.start(email),

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

    addLocalCredits: async ({ credits }) => (await session()).localTrial.addCredits(credits),

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
