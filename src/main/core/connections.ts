// The owner's connections to Vault Services: which service, which key (kept in the SecretStore,
// never in the connections file), which one is active. The UI sees only summaries: the store
// that holds the key, the key's kind and its last four characters.
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { keyKindOf, VaultApiClient, VaultApiError } from '../../service-client'
import { checkServiceAddress } from '../../service-client/service-address'
import type { ApiPrefix, KeyKind } from '../../shared/api'
import { AppError } from '../../shared/app-error'
import { JsonFileWriter, readJsonFile } from './storage/json-file'
import type { SecretStore, SecretStoreKind } from './storage/secret-store'

export interface ConnectionSummary {
  id: string
  serviceUrl: string
  label: string
  keyKind: KeyKind | 'unknown'
  keyLast4: string
  keyStore: SecretStoreKind
  /** The path prefix the service answered on, once known. */
  prefix?: ApiPrefix
  addedAt: string
  active: boolean
}

interface StoredConnection extends Omit<ConnectionSummary, 'active'> {}

interface ConnectionsFile {
  version: 1
  activeId: string | null
  connections: StoredConnection[]
}

export interface AddConnectionRequest {
  serviceUrl: string
  apiKey: string
  label?: string
  /** Check the key against the service before storing it (default true). */
  verify?: boolean
}

export type ClientFactory = (connection: {
  id: string
  serviceUrl: string
  apiKey: string
  prefix?: ApiPrefix
}) => VaultApiClient

/** A connection that cannot be made or used: `detail` says what failed, `userMessage` what to do. */
export class ConnectionError extends AppError {
  override readonly name = 'ConnectionError'
  constructor(detail: string, userMessage: string = detail) {
    super({ code: 'CONNECTION_PROBLEM', userMessage, detail })
  }
}

export function apiKeyAccount(connectionId: string): string {
  return `api-key:${connectionId}`
}

export function normaliseServiceUrl(input: string): string {
  const checked = checkServiceAddress(input)
  if (!checked.ok) throw new ConnectionError(`service address refused: ${checked.problem}`, checked.message)
  return checked.url
}

function validateApiKey(apiKey: string): string {
  const key = apiKey.trim()
  if (key.startsWith('hk_')) {
    // Heirs copy this from their e-mail; it opens a released vault in Recovery, not a connection.
    throw new ConnectionError(
      'heir access token',
      'This is an heir access code (it starts with hk_). You do not need to connect or set anything up: choose Recovery on the left and enter it there, with the service address and vault id from the same e-mail.',
    )
  }
  if (!keyKindOf(key)) {
    throw new ConnectionError(
      'malformed API key',
      'This does not look like a Vault API key: keys start with sk_human_ (full access) or sk_agent_ (read and check-in only). Copy it again from the dashboard settings.',
    )
  }
  // The prefix is right: say what is wrong with the rest, not what is already right.
  if (/\s/.test(key)) {
    throw new ConnectionError(
      'malformed API key',
      'This key has a space or a line break inside it, which a Vault API key never has: part of something else was copied with it. Copy the key again from the dashboard settings, on its own.',
    )
  }
  if (key.length < 16) {
    throw new ConnectionError(
      'malformed API key',
      `This key is too short to be a Vault API key (${key.length} characters; real ones are much longer, about 50): only its start was copied. Copy the whole key again from the dashboard settings.`,
    )
  }
  return key
}

export class ConnectionRegistry {
  readonly #writer: JsonFileWriter<ConnectionsFile>
  #state: ConnectionsFile
  readonly #clients = new Map<string, VaultApiClient>()

  private constructor(
    file: string,
    state: ConnectionsFile,
    readonly secrets: SecretStore,
    private readonly createClient: ClientFactory,
  ) {
    this.#writer = new JsonFileWriter(file)
    this.#state = state
  }

  static async open(options: {
    userDataDir: string
    secrets: SecretStore
    createClient?: ClientFactory
  }): Promise<ConnectionRegistry> {
    const file = join(options.userDataDir, 'connections.json')
    const state = await readJsonFile<ConnectionsFile>(file, { version: 1, activeId: null, connections: [] })
    return new ConnectionRegistry(
      file,
      state,
      options.secrets,
      options.createClient ??
        ((c) => new VaultApiClient({ baseUrl: c.serviceUrl, apiKey: c.apiKey, prefix: c.prefix })),
    )
  }

  list(): ConnectionSummary[] {
    return this.#state.connections.map((c) => ({ ...c, active: c.id === this.#state.activeId }))
  }

  active(): ConnectionSummary | undefined {
    return this.list().find((c) => c.active)
  }

  get(id: string): ConnectionSummary {
    const found = this.list().find((c) => c.id === id)
    if (!found)
      throw new ConnectionError(
        `no connection ${id}`,
        'This connection no longer exists. Choose another one.',
      )
    return found
  }

  /** Verifies the key (unless told not to), stores it, and makes the new connection active. */
  async add(request: AddConnectionRequest): Promise<ConnectionSummary> {
    const serviceUrl = normaliseServiceUrl(request.serviceUrl)
    const apiKey = validateApiKey(request.apiKey)
    const id = randomUUID()
    const prefix = request.verify === false ? undefined : await this.#verify(id, serviceUrl, apiKey)
    await this.secrets.set(apiKeyAccount(id), apiKey)
    const stored: StoredConnection = {
      id,
      serviceUrl,
      label: request.label?.trim() || new URL(serviceUrl).host,
      keyKind: keyKindOf(apiKey) ?? 'unknown',
      keyLast4: apiKey.slice(-4),
      keyStore: this.secrets.kind,
      ...(prefix ? { prefix } : {}),
      addedAt: new Date().toISOString(),
    }
    this.#state = {
      ...this.#state,
      activeId: id,
      connections: [...this.#state.connections, stored],
    }
    await this.#writer.write(this.#state)
    return this.get(id)
  }

  async replaceKey(id: string, newApiKey: string, verify = true): Promise<ConnectionSummary> {
    const current = this.get(id)
    const apiKey = validateApiKey(newApiKey)
    const prefix = verify ? await this.#verify(id, current.serviceUrl, apiKey) : current.prefix
    await this.secrets.set(apiKeyAccount(id), apiKey)
    this.#clients.delete(id)
    this.#update(id, {
      keyKind: keyKindOf(apiKey) ?? 'unknown',
      keyLast4: apiKey.slice(-4),
      keyStore: this.secrets.kind,
      ...(prefix ? { prefix } : {}),
    })
    await this.#writer.write(this.#state)
    return this.get(id)
  }

  async rename(id: string, label: string): Promise<ConnectionSummary> {
    this.get(id)
    this.#update(id, { label: label.trim() || this.get(id).label })
    await this.#writer.write(this.#state)
    return this.get(id)
  }

  async remove(id: string): Promise<void> {
    this.get(id)
    await this.secrets.delete(apiKeyAccount(id))
    this.#clients.delete(id)
    const connections = this.#state.connections.filter((c) => c.id !== id)
    const activeId = this.#state.activeId === id ? (connections[0]?.id ?? null) : this.#state.activeId
    this.#state = { ...this.#state, activeId, connections }
    await this.#writer.write(this.#state)
  }

  async switchTo(id: string): Promise<ConnectionSummary> {
    this.get(id)
    this.#state = { ...this.#state, activeId: id }
    await this.#writer.write(this.#state)
    return this.get(id)
  }

  /** Whether the secret store still holds the connection's key (a memory store forgets at restart). */
  async hasKey(id: string): Promise<boolean> {
    return (await this.secrets.get(apiKeyAccount(id))) !== null
  }

  /** The API client of a connection (the active one by default). */
  async client(id?: string): Promise<VaultApiClient> {
    const connection = id ? this.get(id) : this.active()
    if (!connection) {
      throw new ConnectionError(
        'no active connection',
        'No Vault Service is connected. Add a connection with your API key in Settings → Connections.',
      )
    }
    const cached = this.#clients.get(connection.id)
    if (cached) return cached
    const apiKey = await this.secrets.get(apiKeyAccount(connection.id))
    if (!apiKey) {
      throw new ConnectionError(
        `no stored key for connection ${connection.id}`,
        connection.keyStore === 'memory'
          ? `The API key for ${connection.label} was kept in memory only (no keychain on this computer) and is gone after the restart. Enter the key again in Settings → Connections.`
          : `The API key for ${connection.label} is missing from the ${connection.keyStore === 'keychain' ? 'OS keychain' : 'encrypted key file'}. Enter the key again in Settings → Connections.`,
      )
    }
    const client = this.createClient({
      id: connection.id,
      serviceUrl: connection.serviceUrl,
      apiKey,
      prefix: connection.prefix,
    })
    this.#clients.set(connection.id, client)
    return client
  }

  async flush(): Promise<void> {
    await this.#writer.flush()
  }

  async #verify(id: string, serviceUrl: string, apiKey: string): Promise<ApiPrefix | undefined> {
    const client = this.createClient({ id, serviceUrl, apiKey })
    try {
      await client.listVaults()
    } catch (error) {
      if (error instanceof VaultApiError) throw error
      throw new ConnectionError(String(error), `Could not check the key with ${serviceUrl}. Try again.`)
    }
    return client.prefix
  }

  #update(id: string, patch: Partial<StoredConnection>): void {
    this.#state = {
      ...this.#state,
      connections: this.#state.connections.map((c) => (c.id === id ? { ...c, ...patch } : c)),
    }
  }
}
