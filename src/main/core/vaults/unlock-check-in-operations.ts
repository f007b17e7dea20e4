// The unlock check-in, owning what it writes: the read-and-check-in key kept for the active connection
// (made by the service on this computer, or pasted and tried first), stamped by the session's clock,
// the setting turned on or off, and the key removed (and revoked where the app can) when it is off.
import { VaultApiClient, VaultApiError } from '../../../service-client'
import { AppError } from '../../../shared/app-error'
import type { Settings, SettingsPatch } from '../../../shared/ipc/settings'
import type { UnlockCheckInStatus } from '../../../shared/ipc/vault-types'
import { describeSecretStore } from '../storage/secret-store'
import type { VaultSession } from '../vault-session'
import { checkAgentKey } from './unlock-check-in'

type UnlockSession = Pick<VaultSession, 'connections' | 'unlockCheckIn' | 'localService' | 'now'>

async function unlockStatus(s: UnlockSession, settings: Settings): Promise<UnlockCheckInStatus> {
  const active = s.connections.active()
  const keys = await s.unlockCheckIn.agentKeys()
  const info = active ? keys.info(active.id) : undefined
  // A key the store forgot (memory, after a restart) is not shown as kept.
  const held = active && info ? (await keys.get(active.id)) !== null : false
  return {
    enabled: settings.checkInOnUnlock,
    local: active ? s.localService.isLocal(active.serviceUrl) : false,
    connectionLabel: active?.label ?? null,
    agentKey:
      info && held
        ? { ...info, storedIn: keys.store.kind, durable: describeSecretStore(keys.store.kind).durable }
        : null,
  }
}

export type UnlockCheckInOperations = ReturnType<typeof unlockCheckInOperations>

export function unlockCheckInOperations(options: {
  settings: () => Promise<Settings>
  /** Saves a settings change and tells the window and the session (as the settings channel does). */
  updateSettings: (patch: SettingsPatch) => Promise<Settings>
}) {
  return {
    status: async (s: UnlockSession) => unlockStatus(s, await options.settings()),

    async enable(s: UnlockSession, agentKey: string | undefined): Promise<UnlockCheckInStatus> {
      const active = s.connections.active()
      if (!active) {
        throw new AppError({
          code: 'NO_CONNECTION',
          userMessage:
            'No Vault Service is connected, so there is nothing to check in to. Connect first (Settings → Connections), then turn this on.',
        })
      }
      const keys = await s.unlockCheckIn.agentKeys()
      if (s.localService.isLocal(active.serviceUrl)) {
        // The app owns the service on this computer: it makes the read-and-check-in key itself.
        if (!(await keys.get(active.id))) {
          await keys.set(active.id, await s.localService.issueAgentKey(), 'created', s.now())
        }
      } else if (agentKey !== undefined) {
        const key = checkAgentKey(agentKey)
        const client = new VaultApiClient({
          baseUrl: active.serviceUrl,
          apiKey: key,
          ...(active.prefix ? { prefix: active.prefix } : {}),
        })
        try {
          await client.listVaults()
        } catch (error) {
          if (error instanceof VaultApiError && error.status === 401) {
            throw new AppError({
              code: 'KEY_REJECTED',
              status: 401,
              userMessage: `The service at ${active.serviceUrl} did not accept this key. Check that you copied the whole sk_agent_ key of this account from the dashboard settings and that it has not been revoked; nothing was stored.`,
              detail: error.detail,
              cause: error,
            })
          }
          throw error
        }
        await keys.set(active.id, key, 'pasted', s.now())
      } else if (!(await keys.get(active.id))) {
        throw new AppError({
          code: 'AGENT_KEY_NEEDED',
          userMessage: `Paste a read-and-check-in key (it starts with sk_agent_), created in the dashboard settings of ${active.label}. It cannot change or delete anything, but it reads your file names, your guardians' and heirs' e-mail addresses and your encrypted files, and it can check in: keep it as private as your e-mail.`,
        })
      }
      const settings = await options.updateSettings({ checkInOnUnlock: true })
      return unlockStatus(s, settings)
    },

    async disable(s: UnlockSession): Promise<UnlockCheckInStatus> {
      const settings = await options.updateSettings({ checkInOnUnlock: false })
      const active = s.connections.active()
      let removedKey: UnlockCheckInStatus['removedKey']
      if (active) {
        const keys = await s.unlockCheckIn.agentKeys()
        const key = await keys.get(active.id)
        const info = keys.info(active.id)
        // Revoked where the app can: the service on this computer through its admin path, another
        // service that offers DELETE /key (extension key-revoke) with the key itself. The spec gives no
        // revocation over the API, so elsewhere the owner is told the key still works and where to
        // revoke it; the window says which happened, never guesses.
        const revoke = async (): Promise<boolean> => {
          if (!key) return false
          if (s.localService.isLocal(active.serviceUrl)) {
            await s.localService.revokeKey(key)
            return true
          }
          const client = new VaultApiClient({
            baseUrl: active.serviceUrl,
            apiKey: key,
            ...(active.prefix ? { prefix: active.prefix } : {}),
          })
          if (!(await client.getServiceInfo()).extensions.includes('key-revoke')) return false
          await client.revokeOwnKey()
          return true
        }
        const revokedOnService = await revoke().catch((error: unknown) => {
          console.warn('[vault-desktop] the service did not revoke the agent key:', error)
          return false
        })
        if (info) {
          await keys.remove(active.id)
          removedKey = { last4: info.last4, revokedOnService }
        }
      }
      return { ...(await unlockStatus(s, settings)), ...(removedKey ? { removedKey } : {}) }
    },
  }
}
