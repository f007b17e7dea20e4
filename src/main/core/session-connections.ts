// The owner's connections as the session keeps them: summaries only (keys stay in the secret store),
// one request pacer per API key dropped with its key, and the vaults read afresh whenever the active
// account or its key changes; and the connections as the window sees them (which keys the store
// forgot, whether a service is the local one).
import type { RequestPacer } from '../../service-client/request-pacer'
import { eventChannels } from '../../shared/ipc/contract'
import type { ConnectionInfo, ConnectionStatus, KeyStorageInfo } from '../../shared/ipc/vault-types'
import {
  type AddConnectionRequest,
  ConnectionError,
  type ConnectionRegistry,
  type ConnectionSummary,
} from './connections'
import type { EventHub } from './ipc/handler-table'
import type { LocalService } from './local-service'
import { readAfresh } from './session-parts'
import type { CheckInReminders } from './vaults/checkin-schedule'
import type { ReadinessFacts } from './vaults/readiness-facts'
import type { VaultWatcher } from './vaults/vault-watcher'

export interface SessionConnectionDeps {
  registry: ConnectionRegistry
  pacers: Map<string, RequestPacer>
  localService: LocalService
  watcher: VaultWatcher
  reminders: CheckInReminders
  window: EventHub
  secretStoreKind: ConnectionStatus['secretStore']
  keyStorage: () => KeyStorageInfo
  service: () => ReadinessFacts['service']
  /** The list changed: the session forgets what it showed of the old account and tells the window. */
  listed: () => void
}

export class SessionConnections {
  readonly #deps: SessionConnectionDeps
  #keyMissing = new Set<string>()

  constructor(deps: SessionConnectionDeps) {
    this.#deps = deps
  }

  list = (): ConnectionSummary[] => this.#deps.registry.list()
  active = (): ConnectionSummary | undefined => this.#deps.registry.active()
  hasKey = (id: string) => this.#deps.registry.hasKey(id)

  add = async (request: AddConnectionRequest): Promise<ConnectionSummary> => {
    const added = await this.#deps.registry.add(request)
    this.#changed()
    return added
  }

  replaceKey = async (id: string, apiKey: string): Promise<ConnectionSummary> => {
    const replaced = await this.#deps.registry.replaceKey(id, apiKey)
    this.#deps.pacers.delete(id)
    if (this.#deps.registry.active()?.id === id) this.#changed()
    return replaced
  }

  rename = async (id: string, label: string): Promise<ConnectionSummary> => {
    const renamed = await this.#deps.registry.rename(id, label)
    this.#deps.listed()
    return renamed
  }

  remove = async (id: string): Promise<void> => {
    await this.#deps.registry.remove(id)
    this.#deps.pacers.delete(id)
    this.#changed()
  }

  switchTo = async (id: string): Promise<ConnectionSummary> => {
    const active = await this.#deps.registry.switchTo(id)
    this.#changed()
    return active
  }

  /** After the connections changed: the new account's vaults are read from scratch. */
  #changed(): void {
    readAfresh(this.#deps.watcher, this.#deps.reminders, this.#deps.listed)
  }

  connection(id: string): ConnectionSummary {
    const found = this.#deps.registry.list().find((c) => c.id === id)
    if (!found) {
      throw new ConnectionError(
        `no connection ${id}`,
        'That connection is no longer on this device (it may have been removed in another window). Open Settings → Connections and choose one from the list.',
      )
    }
    return found
  }

  info(summary: ConnectionSummary): ConnectionInfo {
    return {
      id: summary.id,
      serviceUrl: summary.serviceUrl,
      label: summary.label,
      keyKind: summary.keyKind,
      keyLast4: summary.keyLast4,
      keyStore: summary.keyStore,
      addedAt: summary.addedAt,
      active: summary.active,
      local: this.#deps.localService.isLocal(summary.serviceUrl),
      keyMissing: this.#keyMissing.has(summary.id),
    }
  }

  /**
   * Which connections' keys their store no longer gives back (memory only, after a restart), for the
   * connections list; the window is told when that changed.
   */
  async refreshKeyPresence(): Promise<void> {
    const { registry } = this.#deps
    const missing = new Set<string>()
    for (const c of registry.list()) if (!(await registry.hasKey(c.id))) missing.add(c.id)
    const same =
      missing.size === this.#keyMissing.size && [...missing].every((id) => this.#keyMissing.has(id))
    this.#keyMissing = missing
    if (!same) this.#deps.window.emit(eventChannels.connectionChanged, this.status())
  }

  status(): ConnectionStatus {
    const connections = this.#deps.registry.list().map((c) => this.info(c))
    const localUrl = this.#deps.localService.currentUrl
    return {
      connections,
      active: connections.find((c) => c.active) ?? null,
      secretStore: this.#deps.secretStoreKind,
      localService: { running: localUrl !== null, url: localUrl },
      keyStorage: this.#deps.keyStorage(),
      service: this.#deps.service(),
    }
  }
}
