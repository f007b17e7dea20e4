// Connections: connect to a service with an API key, start the local service, switch, replace a key,
// forget, send a test mail. Adapters over the connection and local-trial operations
// (vaults/connection-operations.ts, vaults/local-trial-operations.ts), which own every step; the key
// goes straight into the secret store and the window only ever sees its summary.

import type { VaultSession } from '../vault-session'
import {
  connect,
  forgetConnection,
  replaceApiKey,
  sendTestMail,
  switchConnection,
} from '../vaults/connection-operations'
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

export function createConnectionHandlers(session: () => Promise<VaultSession>): ConnectionHandlers {
  return {
    getConnectionStatus: async () => {
      const s = await session()
      await s.refreshKeyPresence()
      return s.connectionStatus()
    },

    connectService: async ({ serviceUrl, apiKey, label }) =>
      connect(await session(), { serviceUrl, apiKey, label }),

    startLocally: async ({ email }) => (await session()).localTrial.start(email),

    switchConnection: async ({ connectionId }) => switchConnection(await session(), connectionId),
    replaceApiKey: async ({ connectionId, apiKey }) => replaceApiKey(await session(), connectionId, apiKey),

    sendTestMail: async () => {
      const s = await session()
      return sendTestMail(s, () => extensionCall('send a test e-mail', () => s.activeService.sendTestMail()))
    },

    addLocalCredits: async ({ credits }) => (await session()).localTrial.addCredits(credits),

    forgetConnection: async ({ connectionId }) => forgetConnection(await session(), connectionId),
  }
}
