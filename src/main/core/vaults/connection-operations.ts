// The owner's connections, each change owning its steps: the connection kept (its key in the secret
// store), which keys the stores still hold read again, and the vaults of the now-active connection
// read so the window, the tray and the reminders follow at once. A test mail asks the service again
// afterwards (its mail status may have changed).
import { VaultApiError } from '../../../service-client'
import { AppError } from '../../../shared/app-error'
import type { ConnectionInfo, ConnectionStatus } from '../../../shared/ipc/vault-types'
import type { VaultSession } from '../vault-session'

type ConnectionSession = Pick<
  VaultSession,
  | 'connections'
  | 'localService'
  | 'activeService'
  | 'facts'
  | 'connection'
  | 'connectionInfo'
  | 'connectionStatus'
  | 'refreshKeyPresence'
  | 'vaultsRead'
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

export async function connect(
  s: ConnectionSession,
  request: { serviceUrl: string; apiKey: string; label?: string | undefined },
): Promise<ConnectionInfo> {
  const added = await checkingKey(request.serviceUrl, () => s.connections.add(request))
  await s.refreshKeyPresence()
  await s.vaultsRead()
  return s.connectionInfo(s.connection(added.id))
}

export async function switchConnection(s: ConnectionSession, connectionId: string): Promise<ConnectionInfo> {
  if (s.localService.isLocal(s.connection(connectionId).serviceUrl)) await s.localService.start()
  const active = await s.connections.switchTo(connectionId)
  await s.vaultsRead()
  return s.connectionInfo(active)
}

export async function replaceApiKey(
  s: ConnectionSession,
  connectionId: string,
  apiKey: string,
): Promise<ConnectionInfo> {
  const replaced = await checkingKey(s.connection(connectionId).serviceUrl, () =>
    s.connections.replaceKey(connectionId, apiKey),
  )
  // A key entered again after its store forgot it: the list stops calling it gone.
  await s.refreshKeyPresence()
  await s.vaultsRead()
  return s.connectionInfo(s.connection(replaced.id))
}

export async function forgetConnection(
  s: ConnectionSession,
  connectionId: string,
): Promise<ConnectionStatus> {
  if (!s.connections.list().some((c) => c.id === connectionId)) {
    throw new AppError({ code: 'NOT_FOUND', userMessage: 'This connection was already removed.' })
  }
  await s.connections.remove(connectionId)
  await s.vaultsRead()
  return s.connectionStatus()
}

/** A test e-mail from the active service (never the one on this computer, which sends none). */
export async function sendTestMail(
  s: ConnectionSession,
  send: () => ReturnType<VaultSession['activeService']['sendTestMail']> = () =>
    s.activeService.sendTestMail(),
) {
  const active = s.connections.active()
  if (active && s.localService.isLocal(active.serviceUrl)) {
    throw new AppError({
      code: 'NO_MAIL',
      userMessage:
        'The Vault Service on this computer sends no e-mail. Connect to an always-on service that does (Settings → Connections) so guardians and heirs can be reached.',
    })
  }
  const result = await send()
  await s.facts.refreshService()
  return result
}
