// The trial on this computer, each step owned here: starting it (the local service, its account and
// connection, the first vault with its key made on this device) and adding its credits, with the
// history line each writes. The IPC handlers only call these.
import type { SssPreset } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import type {
  ActivityEntry,
  ConnectionInfo,
  VaultsSnapshot,
  VaultView,
} from '../../../shared/ipc/vault-types'
import type { ConnectionSummary } from '../connections'
import type { LocalService } from '../local-service'
import type { SessionConnections } from '../session-connections'
import type { ActivityInput } from './activity-log'
import type { ReadinessFacts } from './readiness-facts'
import { buyCreditsText } from './vault-notices'
import type { VaultOperations } from './vault-operations'

const FIRST_VAULT_PRESET: SssPreset = 'standard'

/** The session's parts these calls use (the session itself, in the app). */
export interface LocalTrialDeps {
  connections: Pick<SessionConnections, 'list' | 'active' | 'add' | 'switchTo'>
  localService: Pick<LocalService, 'isLocal' | 'start' | 'createAccount' | 'addCredits'>
  vaults: Pick<VaultOperations, 'list' | 'create'>
  facts: Pick<ReadinessFacts, 'service'>
  connection(id: string): ConnectionSummary
  connectionInfo(summary: ConnectionSummary): ConnectionInfo
  viewOf(vault: Awaited<ReturnType<VaultOperations['create']>>): Promise<VaultView>
  vaultsRead(): Promise<void>
  snapshot(): VaultsSnapshot
  recordActivity(input: ActivityInput): ActivityEntry | undefined
}

export type LocalTrialOperations = ReturnType<typeof localTrialOperations>

export function localTrialOperations(s: LocalTrialDeps) {
  return {
    /** The service on this computer, its connection active and a vault to show (made if there is none). */
    async start(email: string): Promise<{ connection: ConnectionInfo; vault: VaultView }> {
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

    /** Credits for the service on this computer; they belong to the account, so every vault records them. */
    async addCredits(credits: number): Promise<{ creditsBalance: number }> {
      const active = s.connections.active()
      if (!active || !s.localService.isLocal(active.serviceUrl)) {
        throw new AppError({
          code: 'NOT_LOCAL',
          userMessage: `Credits are added here only for the Vault Service on this computer. ${buyCreditsText(s.facts.service)}`,
        })
      }
      const creditsBalance = await s.localService.addCredits(credits)
      await s.vaultsRead()
      for (const v of s.snapshot().vaults) {
        s.recordActivity({ vaultId: v.id, kind: 'credits-added', source: 'window', detail: { credits } })
      }
      return { creditsBalance }
    },
  }
}
