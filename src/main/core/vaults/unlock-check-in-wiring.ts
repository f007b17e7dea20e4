// The check-in on unlock as this device runs it: the agent keys it keeps (its own store, opened on
// first use), a client with the active connection's agent key (issued again by the service on this
// computer when the store forgot it), and the runner (unlock-check-in.ts) wired to what the app knows
// and records: the vaults as the window sees them, the activity history, the device records.
import { VaultApiClient, type VaultDetails } from '../../../service-client'
import type { ActivityEntry, VaultView } from '../../../shared/ipc/vault-types'
import type { ConnectionSummary } from '../connections'
import { type LocalService, requireOwnServiceAt } from '../local-service'
import { openSecretStore, type SecretBox } from '../storage/secret-store'
import type { ActivityInput, ActivityLog } from './activity-log'
import type { DeviceRecords } from './device-records'
import { AgentKeys, UNLOCK_NOTE, UnlockCheckIn, type UnlockOutcome } from './unlock-check-in'

export interface UnlockCheckInWiringDeps {
  userDataDir: string
  secretBox?: SecretBox
  /** Whether agent keys may go to the OS keychain (only when the app's own keys are there). */
  keychain: boolean
  now: () => number
  localService: LocalService
  active: () => ConnectionSummary | undefined
  vaults: () => VaultView[]
  activity: ActivityLog
  records: DeviceRecords
  /** The vault with its new deadline, for the window and the reminders at once. */
  observe: (vault: VaultDetails) => void
  recordActivity: (input: ActivityInput) => ActivityEntry | undefined
  /** Tells the owner a check-in did not go through. */
  failed: (vaultId: string, message: string) => void
}

export class UnlockCheckInWiring {
  readonly #deps: UnlockCheckInWiringDeps
  #agentKeys: Promise<AgentKeys> | undefined
  #runner: UnlockCheckIn | undefined

  constructor(deps: UnlockCheckInWiringDeps) {
    this.#deps = deps
  }

  /**
   * Where agent keys are kept: the OS keychain when the app's keys are there, else a file encrypted by
   * the shell's protected storage (its own file), else memory. Opened on first use.
   */
  agentKeys(): Promise<AgentKeys> {
    const { userDataDir, secretBox, keychain } = this.#deps
    this.#agentKeys ??= openSecretStore({
      userDataDir,
      ...(secretBox ? { secretBox } : {}),
      ...(keychain ? {} : { loadKeytar: null }),
      fileName: 'agent-keys.enc.json',
    }).then(({ store }) => AgentKeys.open(userDataDir, store))
    return this.#agentKeys
  }

  /**
   * A client with the agent key of the active connection; for the service on this computer the app
   * issues the key again when the store forgot it (no keychain). Null when this device holds none.
   */
  async agentClient(): Promise<VaultApiClient | null> {
    const { active: activeOf, localService, now } = this.#deps
    const active = activeOf()
    if (!active) return null
    const keys = await this.agentKeys()
    let apiKey = await keys.get(active.id)
    if (!apiKey && localService.isLocal(active.serviceUrl)) {
      apiKey = await localService.issueAgentKey()
      await keys.set(active.id, apiKey, 'created', now())
    }
    if (!apiKey) return null
    requireOwnServiceAt(localService, active.serviceUrl)
    return new VaultApiClient({
      baseUrl: active.serviceUrl,
      apiKey,
      ...(active.prefix ? { prefix: active.prefix } : {}),
    })
  }

  /** Checks in the vaults due for it (at most once per period); outcomes are recorded, never thrown. */
  run(): Promise<UnlockOutcome[]> {
    const deps = this.#deps
    this.#runner ??= new UnlockCheckIn({
      now: deps.now,
      agentClient: () => this.agentClient(),
      candidates: () =>
        deps.vaults().map((v) => ({
          vaultId: v.id,
          known: {
            state: v.state,
            releaseTrigger: v.releaseTrigger,
            checkInFrequency: v.checkInFrequency,
            nextCheckInDue: v.nextCheckInDue,
          },
        })),
      lastUnlock: (vaultId) => {
        const last = deps.activity.latest(vaultId, 'check-in', 'unlock')
        const due = last?.detail.nextCheckInDue
        return last && due ? { at: Date.parse(last.at), due: Date.parse(due) } : undefined
      },
      checkedIn: (vault, result) => {
        const at = new Date(deps.now()).toISOString()
        void deps.records.update(vault.id, (r) => ({
          ...r,
          lastCheckIn: { at, note: UNLOCK_NOTE },
          nextCheckInDue: result.nextCheckInDue,
        }))
        deps.observe({ ...vault, nextCheckInDue: result.nextCheckInDue })
        return deps.recordActivity({
          vaultId: vault.id,
          kind: 'check-in',
          source: 'unlock',
          at,
          detail: { nextCheckInDue: result.nextCheckInDue },
        })
      },
      failed: (vaultId, message) => {
        deps.failed(vaultId, message)
        return deps.recordActivity({
          vaultId,
          kind: 'check-in-failed',
          source: 'unlock',
          detail: { error: message },
        })
      },
    })
    return this.#runner.run()
  }

  async flush(): Promise<void> {
    await (await this.#agentKeys?.catch(() => undefined))?.flush()
  }
}
