// Typed client for the Vault Service (vault-api-v2 plus the local service's extensions).
// Unwraps the envelope, turns every failure into one VaultApiError with a sentence for the user,
// waits out 429s (bounded, reported through onRetry), retries idempotent calls on 5xx/network
// errors with backoff, paces requests under the spec's per-minute limits, and never lets the API
// key reach an error, a log line or anything the renderer sees.
import type { Readable } from 'node:stream'
import got, { type Method, RequestError } from 'got'
import {
  API_PREFIXES,
  type ApiPrefix,
  type Asset,
  type AssetListMeta,
  type AssetListQuery,
  type CancelResult,
  type CheckInFrequency,
  type CheckInResult,
  creditsToDollars,
  type Guardian,
  type GuardianRemoved,
  type Heir,
  type HeirRemoved,
  KEY_PREFIX,
  type KeyKind,
  LIMITS,
  type MailTestResult,
  type PersonRequest,
  type Rehearsal,
  type RehearsalRequest,
  type RehearsalTicket,
  type ReleaseConfig,
  type ReleaseConfigRequest,
  type ResponseMeta,
  type ServiceInfo,
  type SssPreset,
  type UploadedAsset,
  type Vault,
} from '../../shared/api'
import { abortableSleep, type RequestPacer, rateLimitPattern } from './request-pacer'

/** What a call was trying to do; picks the user-facing sentence for 402/409 and friends. */
export type ApiOperation =
  | 'list vaults'
  | 'get vault'
  | 'create vault'
  | 'delete vault'
  | 'configure release'
  | 'add guardian'
  | 'remove guardian'
  | 'list guardians'
  | 'add heir'
  | 'remove heir'
  | 'list heirs'
  | 'upload asset'
  | 'list assets'
  | 'download asset'
  | 'check in'
  | 'cancel release'
  | 'start release'
  | 'read service info'
  | 'send a test e-mail'
  | 'rename vault'
  | 'start a rehearsal'
  | 'read the rehearsal'
  | 'end the rehearsal'
  | 'report the rehearsal'

/** Codes from the spec plus the client's own for failures that never got an HTTP answer. */
export type VaultApiErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'INSUFFICIENT_CREDITS'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'NETWORK_ERROR'
  | 'TIMEOUT'
  | 'CANCELLED'
  | 'BAD_RESPONSE'
  | (string & {})

export interface VaultApiErrorInit {
  code: VaultApiErrorCode
  status: number
  message: string
  operation: ApiOperation
  requestId?: string
  userMessage?: string
  /** For 402 on uploads: credits the call needs and the balance, when known. */
  creditsNeeded?: number
  creditsBalance?: number
  retryAfterSeconds?: number
}

export class VaultApiError extends Error {
  override readonly name = 'VaultApiError'
  readonly code: VaultApiErrorCode
  /** HTTP status; 0 when no answer came (network error, timeout, cancel). */
  readonly status: number
  readonly requestId: string | undefined
  readonly operation: ApiOperation
  /** One sentence for the user: what happened and what to do. */
  readonly userMessage: string
  readonly retryAfterSeconds: number | undefined

  constructor(init: VaultApiErrorInit) {
    super(`${init.operation}: ${init.message}${init.status ? ` (HTTP ${init.status} ${init.code})` : ''}`)
    this.code = init.code
    this.status = init.status
    this.requestId = init.requestId
    this.operation = init.operation
    this.retryAfterSeconds = init.retryAfterSeconds
    this.userMessage = init.userMessage ?? userMessageFor(init)
  }

  /** Plain data, safe to send to the renderer. */
  toJSON(): {
    name: string
    code: string
    status: number
    message: string
    requestId?: string
    operation: string
    userMessage: string
  } {
    return {
      name: this.name,
      code: this.code,
      status: this.status,
      message: this.message,
      ...(this.requestId ? { requestId: this.requestId } : {}),
      operation: this.operation,
      userMessage: this.userMessage,
    }
  }
}

/** Calls the v2 spec does not define; the local service adds them, other services may not. */
const EXTENSION_OPERATIONS: ReadonlySet<ApiOperation> = new Set<ApiOperation>([
  'create vault',
  'delete vault',
  'list guardians',
  'list heirs',
  'download asset',
  'start release',
  'read service info',
  'send a test e-mail',
  'rename vault',
  'start a rehearsal',
  'read the rehearsal',
  'end the rehearsal',
  'report the rehearsal',
])

/** True when a 404 means the service has no such route (an extension it lacks), not a missing thing. */
export function isMissingExtension(error: unknown): boolean {
  return (
    error instanceof VaultApiError &&
    error.status === 404 &&
    EXTENSION_OPERATIONS.has(error.operation) &&
    (error.operation === 'create vault' ||
      error.operation === 'read service info' ||
      /no route/i.test(error.message))
  )
}

function userMessageFor(init: VaultApiErrorInit): string {
  const { status, code, operation, message } = init
  if (code === 'CANCELLED') return 'The request was cancelled; nothing was changed and no credits were used.'
  if (code === 'TIMEOUT')
    return `The Vault Service did not answer in time while trying to ${operation}. Check your connection and try again.`
  if (code === 'NETWORK_ERROR')
    return `Could not reach the Vault Service to ${operation}. Check your connection or that the service is running, then try again.`
  if (code === 'BAD_RESPONSE')
    return `The Vault Service sent an answer this app does not understand (${operation}). Check the service address in Settings; it may not be a Vault Service.`
  switch (status) {
    case 400:
      if (operation === 'upload asset' && /5 ?GB|too large|exceed/i.test(message))
        return 'This file is larger than the 5 GB limit per file. Split it or compress it, then upload again.'
      if (operation === 'add guardian')
        return `The guardian could not be added: ${message}. The vault's preset limits the number of guardians; remove one or change the preset.`
      if (operation === 'add heir')
        return `The heir could not be added: ${message}. A vault can have at most ${LIMITS.maxHeirs} heirs.`
      return `The service rejected the request to ${operation}: ${message}. Correct it and try again.`
    case 401:
      return 'The Vault Service did not accept this API key. Reconnect with a valid key in Settings → Connections.'
    case 402:
      if (operation === 'check in')
        return `A check-in needs ${LIMITS.checkInCostCredits} credits (${creditsToDollars(LIMITS.checkInCostCredits)}) and the balance is too low. Add credits, then check in again.`
      if (operation === 'upload asset') {
        const need =
          init.creditsNeeded !== undefined
            ? ` needs ${init.creditsNeeded} credits (${creditsToDollars(init.creditsNeeded)})`
            : ' needs more credits'
        const have =
          init.creditsBalance !== undefined ? ` and the balance is ${init.creditsBalance} credits` : ''
        return `This upload${need}${have}. Add credits or choose smaller files; nothing was charged.`
      }
      return `Your Vault Credits balance is too low to ${operation}. Add credits and try again.`
    case 403:
      return `This API key cannot ${operation}: agent keys (${KEY_PREFIX.agent}) may only read and check in. Connect with an ${KEY_PREFIX.human} key to make changes.`
    case 404:
      if (
        EXTENSION_OPERATIONS.has(operation) &&
        (operation === 'create vault' || operation === 'read service info' || /no route/i.test(message))
      )
        return `This Vault Service does not offer "${operation}" (an extension of the local Vault Service, not part of the v2 interface). Use the service's own dashboard for it, or connect to a local Vault Service.`
      return `Not found while trying to ${operation}: the vault, guardian, heir or asset may have been removed. Refresh and try again.`
    case 409:
      if (operation === 'cancel release')
        return 'The release cannot be cancelled: the vault is not releasing, or its 30-day contestation period has ended.'
      if (operation === 'add guardian') return 'A guardian with this e-mail address is already on this vault.'
      if (operation === 'add heir') return 'An heir with this e-mail address is already on this vault.'
      if (operation === 'start release')
        return 'A release can be started by hand only while the vault is active and its release trigger is "manual". Change the trigger first.'
      if (operation === 'send a test e-mail')
        return `The service cannot send e-mail: ${message}. Until it can, invitations and release e-mails stay unsent.`
      if (operation === 'start a rehearsal')
        return `A practice run can start only while the vault is active (${message}).`
      return `This conflicts with the vault's current state (${message}). Refresh and try again.`
    case 429:
      return `Too many requests for this API key right now${init.retryAfterSeconds ? `; the service asks to wait ${init.retryAfterSeconds} s` : ''}. Wait a moment and try again.`
    default:
      if (status >= 500)
        return `The Vault Service had an internal error (${operation}). Try again in a moment.`
      return `The Vault Service answered ${status} while trying to ${operation}: ${message}.`
  }
}

/**
 * A vault as the local service reports it: the spec's fields plus release timing. Other services
 * may omit the extra fields; the app then keeps the deadline from check-in and configuration answers.
 */
export interface VaultDetails extends Vault {
  checkInFrequency?: CheckInFrequency | null
  nextCheckInDue?: string | null
  releaseStartedAt?: string | null
  contestationEndsAt?: string | null
  releasedAt?: string | null
  /** The owner's name for the vault (local service extension). */
  name?: string | null
}

export function keyKindOf(apiKey: string): KeyKind | undefined {
  if (apiKey.startsWith(KEY_PREFIX.human)) return 'human'
  if (apiKey.startsWith(KEY_PREFIX.agent)) return 'agent'
  return undefined
}

export interface RetryNotice {
  reason: 'rate_limited' | 'server_error' | 'network'
  operation: ApiOperation
  /** Whole seconds until the next attempt. */
  waitSeconds: number
  attempt: number
  /** e.g. "Rate limited by the service; retrying in 5 s". */
  text: string
}

export interface ApiClientOptions {
  baseUrl: string
  apiKey: string
  /** Skip prefix detection when known (e.g. remembered from an earlier session). */
  prefix?: ApiPrefix
  pacer?: RequestPacer
  onRetry?: (notice: RetryNotice) => void
  /** Per-call timeout for ordinary calls. */
  timeoutMs?: number
  /** Retries of idempotent calls after 5xx or network errors. */
  maxRetries?: number
  /** Longest Retry-After the client waits out by itself; longer ones fail with 429. */
  maxRetryAfterSeconds?: number
  /** How many 429s in a row a single call waits out. */
  maxRateLimitWaits?: number
  backoffBaseMs?: number
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
}

export interface UploadAssetRequest {
  vaultId: string
  /** Builds a fresh multipart body (each retry starts from the beginning of the file). */
  body: () => Readable
  contentType: string
  contentLength: number
  signal?: AbortSignal
  onProgress?: (sentBytes: number, totalBytes: number) => void
  /** For a 402 message: what the upload should cost and the balance seen before. */
  creditsNeeded?: number
  creditsBalance?: number
  /** Retry after 5xx/network errors (from the start of the file). Default true. */
  retry?: boolean
}

/** Local service extension: POST /vault with an optional preset (default standard) and name. */
export interface CreateVaultRequest {
  preset?: SssPreset
  name?: string
}

export interface Page<T, M> {
  data: T
  meta: M
}

interface CallOptions {
  json?: unknown
  searchParams?: Record<string, string | number>
  idempotent: boolean
  signal?: AbortSignal
  upload?: UploadAssetRequest
  raw?: boolean
  /** Do not fall back or detect the prefix (used by detection itself). */
  prefix?: ApiPrefix
}

export class VaultApiClient {
  readonly baseUrl: string
  readonly keyKind: KeyKind | undefined
  readonly #apiKey: string
  #prefix: ApiPrefix | undefined
  #detecting: Promise<ApiPrefix> | undefined
  readonly #pacer: RequestPacer | undefined
  readonly #onRetry: ((notice: RetryNotice) => void) | undefined
  readonly #timeoutMs: number
  readonly #maxRetries: number
  readonly #maxRetryAfter: number
  readonly #maxRateLimitWaits: number
  readonly #backoffBaseMs: number
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>

  constructor(options: ApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.#apiKey = options.apiKey
    this.keyKind = keyKindOf(options.apiKey)
    this.#prefix = options.prefix
    this.#pacer = options.pacer
    this.#onRetry = options.onRetry
    this.#timeoutMs = options.timeoutMs ?? 30_000
    this.#maxRetries = options.maxRetries ?? 3
    this.#maxRetryAfter = options.maxRetryAfterSeconds ?? 120
    this.#maxRateLimitWaits = options.maxRateLimitWaits ?? 5
    this.#backoffBaseMs = options.backoffBaseMs ?? 500
    this.#sleep = options.sleep ?? abortableSleep
  }

  /** The prefix in use once known (`/api`, or `/v1` on services that 404 the vault list under /api). */
  get prefix(): ApiPrefix | undefined {
    return this.#prefix
  }

  // ---- spec endpoints ----

  async listVaults(signal?: AbortSignal): Promise<VaultDetails[]> {
    if (!this.#prefix) {
      const { prefix, vaults } = await this.#detectPrefix(signal)
      this.#prefix = prefix
      return vaults
    }
    return (await this.#call<VaultDetails[]>('list vaults', 'GET', '/vault', { idempotent: true, signal }))
      .data
  }

  async getVault(vaultId: string, signal?: AbortSignal): Promise<VaultDetails> {
    return (
      await this.#call<VaultDetails>('get vault', 'GET', `/vault/${enc(vaultId)}`, {
        idempotent: true,
        signal,
      })
    ).data
  }

  async configureRelease(vaultId: string, request: ReleaseConfigRequest): Promise<ReleaseConfig> {
    return (
      await this.#call<ReleaseConfig>('configure release', 'POST', `/vault/${enc(vaultId)}/release/config`, {
        json: request,
        idempotent: false,
      })
    ).data
  }

  async addGuardian(vaultId: string, person: PersonRequest): Promise<Guardian> {
    return (
      await this.#call<Guardian>('add guardian', 'POST', `/vault/${enc(vaultId)}/guardian`, {
        json: person,
        idempotent: false,
      })
    ).data
  }

  async removeGuardian(vaultId: string, guardianId: string): Promise<GuardianRemoved> {
    return (
      await this.#call<GuardianRemoved>(
        'remove guardian',
        'DELETE',
        `/vault/${enc(vaultId)}/guardian/${enc(guardianId)}`,
        { idempotent: false },
      )
    ).data
  }

  async addHeir(vaultId: string, person: PersonRequest): Promise<Heir> {
    return (
      await this.#call<Heir>('add heir', 'POST', `/vault/${enc(vaultId)}/heir`, {
        json: person,
        idempotent: false,
      })
    ).data
  }

  async removeHeir(vaultId: string, heirId: string): Promise<HeirRemoved> {
    return (
      await this.#call<HeirRemoved>('remove heir', 'DELETE', `/vault/${enc(vaultId)}/heir/${enc(heirId)}`, {
        idempotent: false,
      })
    ).data
  }

  async listAssets(vaultId: string, query: AssetListQuery = {}): Promise<Page<Asset[], AssetListMeta>> {
    const searchParams: Record<string, string | number> = {}
    if (query.category) searchParams.category = query.category
    if (query.limit !== undefined) searchParams.limit = query.limit
    if (query.offset !== undefined) searchParams.offset = query.offset
    return this.#call<Asset[], AssetListMeta>('list assets', 'GET', `/vault/${enc(vaultId)}/asset`, {
      searchParams,
      idempotent: true,
    })
  }

  /** Every asset of a vault, page by page. */
  async listAllAssets(vaultId: string): Promise<Asset[]> {
    const all: Asset[] = []
    for (let offset = 0; ; ) {
      const page = await this.listAssets(vaultId, { limit: LIMITS.assetPageMax, offset })
      all.push(...page.data)
      offset += page.data.length
      if (page.data.length === 0 || offset >= page.meta.total) return all
    }
  }

  async uploadAsset(request: UploadAssetRequest): Promise<UploadedAsset> {
    return (
      await this.#call<UploadedAsset>('upload asset', 'POST', `/vault/${enc(request.vaultId)}/asset`, {
        idempotent: request.retry ?? true,
        signal: request.signal,
        upload: request,
      })
    ).data
  }

  async checkIn(vaultId: string, note?: string): Promise<CheckInResult> {
    return (
      await this.#call<CheckInResult>('check in', 'POST', `/vault/${enc(vaultId)}/release/checkin`, {
        json: note ? { note } : {},
        idempotent: false,
      })
    ).data
  }

  async cancelRelease(vaultId: string): Promise<CancelResult> {
    return (
      await this.#call<CancelResult>('cancel release', 'POST', `/vault/${enc(vaultId)}/release/cancel`, {
        idempotent: false,
      })
    ).data
  }

  // ---- local service extensions (404 on services that do not offer them) ----

  async createVault(request: CreateVaultRequest = {}): Promise<VaultDetails> {
    return (
      await this.#call<VaultDetails>('create vault', 'POST', '/vault', { json: request, idempotent: false })
    ).data
  }

  async deleteVault(vaultId: string): Promise<{ deleted: string }> {
    return (
      await this.#call<{ deleted: string }>('delete vault', 'DELETE', `/vault/${enc(vaultId)}`, {
        idempotent: false,
      })
    ).data
  }

  async listGuardians(vaultId: string): Promise<Guardian[]> {
    return (
      await this.#call<Guardian[]>('list guardians', 'GET', `/vault/${enc(vaultId)}/guardian`, {
        idempotent: true,
      })
    ).data
  }

  async listHeirs(vaultId: string): Promise<Heir[]> {
    return (
      await this.#call<Heir[]>('list heirs', 'GET', `/vault/${enc(vaultId)}/heir`, { idempotent: true })
    ).data
  }

  /** Encrypted content of an asset as a stream (decrypt with the vault key). */
  async downloadAsset(vaultId: string, assetId: string, signal?: AbortSignal): Promise<Readable> {
    return (await this.downloadAssetFrom(vaultId, assetId, 0, signal)).stream
  }

  /**
   * Encrypted content from byte `start` on (resuming a download). `partial` says whether the service
   * honoured the range (206); when it did not, the stream holds the whole content from byte 0.
   */
  async downloadAssetFrom(
    vaultId: string,
    assetId: string,
    start: number,
    signal?: AbortSignal,
  ): Promise<{ stream: Readable; partial: boolean }> {
    const prefix = await this.#ensurePrefix(signal)
    const url = `${this.baseUrl}${prefix}/vault/${enc(vaultId)}/asset/${enc(assetId)}/content`
    await this.#pacer?.acquire('getVault', signal)
    const stream = got.stream(url, {
      headers: { 'x-api-key': this.#apiKey, ...(start > 0 ? { range: `bytes=${start}-` } : {}) },
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { connect: this.#timeoutMs, response: this.#timeoutMs, socket: this.#timeoutMs },
      signal,
    })
    return new Promise<{ stream: Readable; partial: boolean }>((resolve, reject) => {
      stream.once('response', async (response: { statusCode: number }) => {
        if (response.statusCode < 300) {
          resolve({ stream, partial: response.statusCode === 206 })
          return
        }
        const chunks: Buffer[] = []
        for await (const c of stream) chunks.push(c as Buffer)
        reject(
          this.#errorFromBody('download asset', response.statusCode, Buffer.concat(chunks).toString('utf8')),
        )
      })
      stream.once('error', (error: unknown) =>
        reject(this.#errorFromException('download asset', error, signal)),
      )
    })
  }

  /** Manual release (local service extension); answers with the vault, now releasing. */
  async startRelease(vaultId: string): Promise<VaultDetails> {
    return (
      await this.#call<VaultDetails>('start release', 'POST', `/vault/${enc(vaultId)}/release/start`, {
        idempotent: false,
      })
    ).data
  }

  async getServiceInfo(): Promise<ServiceInfo> {
    return (await this.#call<ServiceInfo>('read service info', 'GET', '/service', { idempotent: true })).data
  }

  async sendTestMail(): Promise<MailTestResult> {
    return (
      await this.#call<MailTestResult>('send a test e-mail', 'POST', '/service/mail-test', {
        idempotent: false,
      })
    ).data
  }

  /** A null or empty name clears it. */
  async renameVault(vaultId: string, name: string | null): Promise<VaultDetails> {
    return (
      await this.#call<VaultDetails>('rename vault', 'PATCH', `/vault/${enc(vaultId)}`, {
        json: { name },
        idempotent: true,
      })
    ).data
  }

  async startRehearsal(vaultId: string, request: RehearsalRequest): Promise<Rehearsal> {
    return (
      await this.#call<Rehearsal>('start a rehearsal', 'POST', `/vault/${enc(vaultId)}/rehearsal`, {
        json: request,
        idempotent: false,
      })
    ).data
  }

  async getRehearsal(vaultId: string): Promise<Rehearsal | null> {
    return (
      await this.#call<Rehearsal | null>('read the rehearsal', 'GET', `/vault/${enc(vaultId)}/rehearsal`, {
        idempotent: true,
      })
    ).data
  }

  async endRehearsal(vaultId: string): Promise<Rehearsal> {
    return (
      await this.#call<Rehearsal>('end the rehearsal', 'DELETE', `/vault/${enc(vaultId)}/rehearsal`, {
        idempotent: false,
      })
    ).data
  }

  /** With a practice heir token: the rehearsal it belongs to (404 or 403 for any other key). */
  async getRehearsalTicket(): Promise<RehearsalTicket> {
    return (
      await this.#call<RehearsalTicket>('read the rehearsal', 'GET', '/rehearsal', { idempotent: true })
    ).data
  }

  async reportRehearsal(proof: string): Promise<{ passed: boolean }> {
    return (
      await this.#call<{ passed: boolean }>('report the rehearsal', 'POST', '/rehearsal/report', {
        json: { proof },
        idempotent: true,
      })
    ).data
  }

  // ---- plumbing ----

  async #detectPrefix(signal?: AbortSignal): Promise<{ prefix: ApiPrefix; vaults: VaultDetails[] }> {
    let lastError: unknown
    for (const prefix of API_PREFIXES) {
      try {
        const page = await this.#call<VaultDetails[]>('list vaults', 'GET', '/vault', {
          idempotent: true,
          signal,
          prefix,
        })
        return { prefix, vaults: page.data }
      } catch (error) {
        if (error instanceof VaultApiError && error.status === 404) {
          lastError = error
          continue
        }
        throw error
      }
    }
    throw new VaultApiError({
      code: 'NOT_FOUND',
      status: 404,
      operation: 'list vaults',
      message: `no vault list under ${API_PREFIXES.join(' or ')}`,
      requestId: lastError instanceof VaultApiError ? lastError.requestId : undefined,
      userMessage: `No Vault Service answers at ${this.baseUrl} (tried ${API_PREFIXES.join(' and ')}). Check the service address.`,
    })
  }

  async #ensurePrefix(signal?: AbortSignal): Promise<ApiPrefix> {
    if (this.#prefix) return this.#prefix
    this.#detecting ??= this.#detectPrefix(signal).then(
      (r) => r.prefix,
      (e) => {
        this.#detecting = undefined
        throw e
      },
    )
    this.#prefix = await this.#detecting
    return this.#prefix
  }

  async #call<T, M extends ResponseMeta = ResponseMeta>(
    operation: ApiOperation,
    method: Method,
    path: string,
    options: CallOptions,
  ): Promise<Page<T, M>> {
    const prefix = options.prefix ?? (await this.#ensurePrefix(options.signal))
    const url = `${this.baseUrl}${prefix}${path}`
    const pattern = rateLimitPattern(method, path)
    let failures = 0
    let rateLimitWaits = 0
    for (let attempt = 1; ; attempt++) {
      await this.#pacer?.acquire(pattern, options.signal).catch((e) => {
        throw this.#errorFromException(operation, e, options.signal)
      })
      let status: number
      let text: string
      let retryAfterHeader: string | undefined
      let requestIdHeader: string | undefined
      try {
        const upload = options.upload
        const response = await (upload ? this.#sendUpload(url, upload) : this.#send(url, method, options))
        status = response.statusCode
        text = response.body
        const ra = response.headers['retry-after']
        retryAfterHeader = Array.isArray(ra) ? ra[0] : ra
        const rid = response.headers['x-request-id']
        requestIdHeader = Array.isArray(rid) ? rid[0] : rid
      } catch (error) {
        const apiError = this.#errorFromException(operation, error, options.signal)
        if (
          apiError.code !== 'CANCELLED' &&
          options.idempotent &&
          failures < this.#maxRetries &&
          !options.signal?.aborted
        ) {
          failures++
          await this.#backoff(operation, 'network', failures, attempt, options.signal)
          continue
        }
        throw apiError
      }

      if (status >= 200 && status < 300) return this.#parseSuccess<T, M>(operation, status, text)

      if (status === 429) {
        const waitSeconds = parseRetryAfter(retryAfterHeader)
        if (rateLimitWaits < this.#maxRateLimitWaits && waitSeconds <= this.#maxRetryAfter) {
          rateLimitWaits++
          this.#onRetry?.({
            reason: 'rate_limited',
            operation,
            waitSeconds,
            attempt,
            text: `Rate limited by the service; retrying in ${waitSeconds} s`,
          })
          await this.#sleep(waitSeconds * 1000, options.signal).catch((e) => {
            throw this.#errorFromException(operation, e, options.signal)
          })
          continue
        }
        throw this.#errorFromBody(operation, status, text, {
          retryAfterSeconds: waitSeconds,
          requestId: requestIdHeader,
        })
      }

      if (status >= 500 && options.idempotent && failures < this.#maxRetries) {
        failures++
        await this.#backoff(operation, 'server_error', failures, attempt, options.signal)
        continue
      }
      throw this.#errorFromBody(operation, status, text, {
        requestId: requestIdHeader,
        creditsNeeded: options.upload?.creditsNeeded,
        creditsBalance: options.upload?.creditsBalance,
      })
    }
  }

  async #backoff(
    operation: ApiOperation,
    reason: 'network' | 'server_error',
    failures: number,
    attempt: number,
    signal?: AbortSignal,
  ): Promise<void> {
    const ms = Math.round(this.#backoffBaseMs * 2 ** (failures - 1) * (0.75 + Math.random() * 0.5))
    const waitSeconds = Math.max(1, Math.round(ms / 1000))
    this.#onRetry?.({
      reason,
      operation,
      waitSeconds,
      attempt,
      text: `${reason === 'network' ? 'Could not reach the service' : 'The service had an error'}; retrying in ${waitSeconds} s`,
    })
    await this.#sleep(ms, signal).catch((e) => {
      throw this.#errorFromException(operation, e, signal)
    })
  }

  #send(url: string, method: Method, options: CallOptions) {
    const hasBody = options.json !== undefined
    return got(url, {
      method,
      headers: { 'x-api-key': this.#apiKey, accept: 'application/json' },
      ...(hasBody ? { json: options.json } : {}),
      ...(options.searchParams && Object.keys(options.searchParams).length
        ? { searchParams: options.searchParams }
        : {}),
      responseType: 'text',
      throwHttpErrors: false,
      retry: { limit: 0 },
      followRedirect: false,
      timeout: { request: this.#timeoutMs },
      signal: options.signal,
    })
  }

  #sendUpload(url: string, upload: UploadAssetRequest) {
    const request = got.post(url, {
      headers: {
        'x-api-key': this.#apiKey,
        accept: 'application/json',
        'content-type': upload.contentType,
        'content-length': String(upload.contentLength),
      },
      body: upload.body(),
      responseType: 'text',
      throwHttpErrors: false,
      retry: { limit: 0 },
      followRedirect: false,
      // Idle-based: a 5 GB body takes long, but a stalled socket or a silent server fails.
      timeout: { connect: this.#timeoutMs, socket: 2 * this.#timeoutMs, response: 10 * this.#timeoutMs },
      signal: upload.signal,
    })
    if (upload.onProgress) {
      const onProgress = upload.onProgress
      request.on('uploadProgress', (p) => onProgress(p.transferred, upload.contentLength))
    }
    return request
  }

  #parseSuccess<T, M>(operation: ApiOperation, status: number, text: string): Page<T, M> {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new VaultApiError({
        code: 'BAD_RESPONSE',
        status,
        operation,
        message: 'the response is not JSON',
      })
    }
    if (!parsed || typeof parsed !== 'object' || !('data' in parsed)) {
      throw new VaultApiError({
        code: 'BAD_RESPONSE',
        status,
        operation,
        message: 'the response has no data envelope',
      })
    }
    const envelope = parsed as { data: T; meta?: M }
    return { data: envelope.data, meta: (envelope.meta ?? {}) as M }
  }

  #errorFromBody(
    operation: ApiOperation,
    status: number,
    text: string,
    extra: {
      retryAfterSeconds?: number
      creditsNeeded?: number
      creditsBalance?: number
      requestId?: string
    } = {},
  ): VaultApiError {
    let code: string | undefined
    let message: string | undefined
    let requestId: string | undefined
    try {
      const parsed = JSON.parse(text) as {
        error?: { code?: string; message?: string }
        meta?: { requestId?: string }
        requestId?: string
      }
      code = parsed.error?.code
      message = parsed.error?.message
      requestId = parsed.meta?.requestId ?? parsed.requestId ?? extra.requestId
    } catch {
      // Not JSON (a proxy page, for example): fall back to the status.
    }
    return new VaultApiError({
      code: code ?? codeForStatus(status),
      status,
      operation,
      message: this.#redact(message ?? `HTTP ${status}`),
      ...extra,
      requestId: requestId ?? extra.requestId,
    })
  }

  #errorFromException(operation: ApiOperation, error: unknown, signal?: AbortSignal): VaultApiError {
    if (error instanceof VaultApiError) return error
    if (signal?.aborted || (error instanceof Error && error.name === 'AbortError')) {
      return new VaultApiError({ code: 'CANCELLED', status: 0, operation, message: 'cancelled' })
    }
    // Copy only the message: got's errors carry the request options, headers (and so the key) included.
    const message = this.#redact(error instanceof Error ? error.message : String(error))
    const isTimeout =
      error instanceof RequestError ? error.name === 'TimeoutError' || error.code === 'ETIMEDOUT' : false
    return new VaultApiError({
      code: isTimeout ? 'TIMEOUT' : 'NETWORK_ERROR',
      status: 0,
      operation,
      message,
    })
  }

  #redact(text: string): string {
    return this.#apiKey ? text.split(this.#apiKey).join('[api key]') : text
  }

  /** Keeps the key out of console.log / util.inspect of the client. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `VaultApiClient { baseUrl: '${this.baseUrl}', keyKind: ${this.keyKind ?? 'unknown'}, prefix: ${this.#prefix ?? 'undetected'} }`
  }

  toJSON(): { baseUrl: string; keyKind: KeyKind | undefined; prefix: ApiPrefix | undefined } {
    return { baseUrl: this.baseUrl, keyKind: this.keyKind, prefix: this.#prefix }
  }
}

function enc(segment: string): string {
  return encodeURIComponent(segment)
}

function codeForStatus(status: number): VaultApiErrorCode {
  const table: Record<number, VaultApiErrorCode> = {
    400: 'VALIDATION_ERROR',
    401: 'UNAUTHORIZED',
    402: 'INSUFFICIENT_CREDITS',
    403: 'FORBIDDEN',
    404: 'NOT_FOUND',
    409: 'CONFLICT',
    429: 'RATE_LIMITED',
  }
  return table[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'BAD_RESPONSE')
}

/** Retry-After as whole seconds: delta-seconds or an HTTP date; 1 s when absent or unreadable. */
export function parseRetryAfter(header: string | undefined, now = Date.now()): number {
  if (!header) return 1
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds))
  const date = Date.parse(header)
  if (Number.isFinite(date)) return Math.max(0, Math.ceil((date - now) / 1000))
  return 1
}
