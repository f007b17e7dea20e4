// "Start locally": the Vault Service runs inside this process on loopback, its data under
// userData/local-service. The port is remembered so the stored connection keeps working after a
// restart; if that port is taken, a free one is used and the connection is redirected to it.
import { join } from 'node:path'
import type { RunningService } from '../../../service'
import { JsonFileWriter, readJsonFile } from '../json-file'

interface LocalServiceFile {
  version: 1
  /** The URL the connection was stored with. */
  serviceUrl: string | null
  accountId: string | null
}

export class LocalServiceHost {
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

  /** The address to use for a stored URL: the live local one when it is the local service. */
  resolve(serviceUrl: string): string {
    return this.isLocal(serviceUrl) && this.#service ? this.#service.url : serviceUrl
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
    const { startService } = await import('../../../service')
    const remembered = this.#state.serviceUrl ? Number(new URL(this.#state.serviceUrl).port) : 0
    let service: RunningService
    try {
      service = await startService({ dataDir: this.dataDir, port: remembered })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || remembered === 0) throw error
      service = await startService({ dataDir: this.dataDir, port: 0 })
    }
    this.#service = service
    return service
  }

  /** Creates the owner's account on the local service (100 trial credits) and returns its key. */
  async createAccount(email: string): Promise<{ apiKey: string; serviceUrl: string }> {
    const service = await this.start()
    const { accountId, apiKey } = service.admin.createAccount({ email })
    this.#state = { version: 1, serviceUrl: this.#state.serviceUrl ?? service.url, accountId }
    await this.#writer.write(this.#state)
    return { apiKey, serviceUrl: this.#state.serviceUrl ?? service.url }
  }

  async close(): Promise<void> {
    const running = this.#running
    this.#running = undefined
    this.#service = undefined
    if (running) await (await running.catch(() => undefined))?.close()
    await this.#writer.flush()
  }
}
