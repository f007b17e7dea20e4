// "Start locally": the Vault Service runs inside this process on loopback, its data under
// userData/local-service. Both shells hand it to the core (createVaultApp's localService), which
// reaches the service over HTTP only. The port is remembered so the stored connection keeps working
// after a restart; if another program has taken it meanwhile, the error says so.
import { join } from 'node:path'
import type { RunningService } from '../service'
import { AppError } from '../shared/app-error'
import type { LocalMailbox, LocalMailMessage } from '../shared/ipc/local-mail'
import type { LocalService } from './core/local-service'
import { JsonFileWriter, readJsonFile } from './core/storage/json-file'

interface LocalServiceFile {
  version: 1
  /** The URL the connection was stored with. */
  serviceUrl: string | null
  accountId: string | null
}

/** The service on this computer cannot do what was asked: the sentence says why and what to do. */
export class LocalServiceError extends AppError {
  override readonly name = 'LocalServiceError'
  constructor(userMessage: string, cause?: unknown) {
    super({ code: 'LOCAL_SERVICE', userMessage, ...(cause !== undefined ? { cause } : {}) })
  }
}

export class LocalServiceHost implements LocalService {
  readonly dataDir: string
  readonly #writer: JsonFileWriter<LocalServiceFile>
  #state: LocalServiceFile
  #running: Promise<RunningService> | undefined
  #service: RunningService | undefined

  private constructor(userDataDir: string, state: LocalServiceFile) {
    this.dataDir = join(userDataDir, 'local-service')
    this.#writer = new JsonFileWriter(join(userDataDir, 'local-service.json'))
    this.#state = state
  }

  static async open(userDataDir: string): Promise<LocalServiceHost> {
    const state = await readJsonFile<LocalServiceFile>(join(userDataDir, 'local-service.json'), {
      version: 1,
      serviceUrl: null,
      accountId: null,
    })
    return new LocalServiceHost(userDataDir, state)
  }

  /** The URL stored in the connection, if a local service was ever set up here. */
  get rememberedUrl(): string | null {
    return this.#state.serviceUrl
  }

  /** Where the service answers right now (null when not started). */
  get currentUrl(): string | null {
    return this.#service?.url ?? null
  }

  isLocal(serviceUrl: string): boolean {
    return this.#state.serviceUrl !== null && serviceUrl === this.#state.serviceUrl
  }

  start(): Promise<RunningService> {
    this.#running ??= this.#start().catch((error: unknown) => {
      this.#running = undefined
      throw error
    })
    return this.#running
  }

  async #start(): Promise<RunningService> {
    // Loaded on demand: a remote-only user never opens the service's database.
    const { startService } = await import('../service')
    const { LOOPBACK_HOST_NAMES } = await import('../service/allowed-hosts')
    const remembered = this.#state.serviceUrl ? Number(new URL(this.#state.serviceUrl).port) : 0
    try {
      // Only its own loopback names: a web page the owner visits could otherwise reach it by DNS rebinding.
      this.#service = await startService({
        dataDir: this.dataDir,
        port: remembered,
        allowedHosts: [...LOOPBACK_HOST_NAMES],
      })
      return this.#service
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
      throw new LocalServiceError(
        `The vault service on this computer cannot start: another program is using its port ${remembered}. Close that program (or restart the computer), then open Vault Desktop again.`,
        error,
      )
    }
  }

  /** Creates the owner's account on the local service (100 trial credits) and returns its key. */
  async createAccount(email: string): Promise<{ apiKey: string; serviceUrl: string }> {
    const service = await this.start()
    const { accountId, apiKey } = await service.admin.createAccount({ email })
    this.#state = { version: 1, serviceUrl: this.#state.serviceUrl ?? service.url, accountId }
    await this.#writer.write(this.#state)
    return { apiKey, serviceUrl: this.#state.serviceUrl ?? service.url }
  }

  /**
   * A new owner key for the local account, through the service's admin path: the app owns the
   * local data folder, so a key lost with a restart (no keychain) is issued again, not typed.
   */
  async issueKey(): Promise<string> {
    const accountId = this.#state.accountId
    if (!accountId)
      throw new LocalServiceError('The local Vault Service has no account on this computer yet.')
    const service = await this.start()
    return (await service.admin.createKey({ account: accountId, kind: 'human' })).apiKey
  }

  /**
   * A read-and-check-in (sk_agent_) key for the local account, for the check-in on unlock: a key that
   * cannot change or delete anything if read from this device's keychain (it still reads and checks in).
   */
  async issueAgentKey(): Promise<string> {
    const accountId = this.#state.accountId
    if (!accountId)
      throw new LocalServiceError('The local Vault Service has no account on this computer yet.')
    const service = await this.start()
    return (await service.admin.createKey({ account: accountId, kind: 'agent' })).apiKey
  }

  /** Revokes a key of the local account (an agent key the owner no longer wants kept). */
  async revokeKey(apiKey: string): Promise<void> {
    const service = await this.start()
    await service.admin.revokeKey({ key: apiKey })
  }

  /** Adds credits to the owner's local account (the local service is the owner's own). */
  async addCredits(credits: number): Promise<number> {
    const accountId = this.#state.accountId
    if (!accountId)
      throw new LocalServiceError('The local Vault Service has no account on this computer yet.')
    const service = await this.start()
    return (await service.admin.addCredits({ account: accountId, credits })).creditsBalance
  }

  /**
   * The outbox of the service on this computer, newest first, through the service's own admin path
   * (which opens the sealed bodies with the data folder's mail key): nothing here touches the crypto.
   * This service is started without SMTP, so an unsent message without an error stayed here for that reason.
   */
  async localMail(): Promise<LocalMailbox> {
    const service = await this.start()
    const { messages } = await service.admin.outbox()
    return {
      serviceUrl: service.url,
      messages: messages
        .map(
          (m): LocalMailMessage => ({
            id: m.id,
            kind: m.kind,
            vaultId: m.vaultId,
            to: m.to,
            subject: m.subject,
            body: m.body,
            createdAt: m.createdAt,
            delivery: m.sentAt
              ? { state: 'sent', at: m.sentAt }
              : m.lastError
                ? { state: 'not-sent', reason: 'failed', attempts: m.attempts, lastError: m.lastError }
                : { state: 'not-sent', reason: 'no-mail-server' },
          }),
        )
        .sort((a, b) => b.id - a.id),
    }
  }

  async close(): Promise<void> {
    const running = this.#running
    this.#running = undefined
    this.#service = undefined
    if (running) await (await running.catch(() => undefined))?.close()
    await this.#writer.flush()
  }
}
