// The HTTP policy of the Vault Service client and the request loop every endpoint goes through.
//
// One got.extend per client, used by JSON calls, uploads and downloads alike:
// - Redirects are never followed. got drops only authorization and cookie when a redirect changes
//   origin, and does not refuse https -> http, so following would hand x-api-key (an owner's key or
//   an heir's access code) to whatever address a service names. A Vault Service answers where it
//   lives; a redirect means a wrong address (http instead of https, a moved host), and the error
//   says which address to use instead.
// - Every path is relative to the configured address (prefixUrl): the key goes nowhere else.
// - Timeouts bound each phase (reaching the service, the first byte, silence on the socket). Only
//   short JSON calls also have a total, so a 5 GB transfer runs as long as bytes keep moving.
// - got's errors carry the request options, headers and so the key included: none leaves this
//   module. Every failure becomes a VaultApiError built from redacted text, downloads that fail
//   halfway included.
// - An answer is bounded too: a JSON answer larger than maxResponseBytes, or one still arriving
//   timeoutMs after it started (a drip that keeps the socket alive), is cut off; a download ends
//   with an error once it passes the size the caller expects. A service cannot make the app wait or
//   buffer for ever.
import type { ClientRequest, IncomingHttpHeaders } from 'node:http'
import { PassThrough, type Readable } from 'node:stream'
import got, {
  type CancelableRequest,
  type Delays,
  type Got,
  type Method,
  type Request,
  RequestError,
  type Response,
} from 'got'
import { API_PREFIXES, type ApiPrefix, type ResponseMeta } from '../shared/api'
import { type ApiOperation, codeForStatus, VaultApiError, type VaultApiErrorInit } from './errors'
import { abortableSleep, type RequestPacer, rateLimitPattern } from './request-pacer'

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
  /**
   * How long each wait may last: reaching the service, its first byte, a silent socket; also the
   * whole of an ordinary call. Uploads and downloads have no total limit.
   */
  timeoutMs?: number
  /** Retries of idempotent calls after 5xx or network errors. */
  maxRetries?: number
  /** Longest Retry-After the client waits out by itself; longer ones fail with 429. */
  maxRetryAfterSeconds?: number
  /** How many 429s in a row a single call waits out. */
  maxRateLimitWaits?: number
  backoffBaseMs?: number
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  /** The largest JSON answer accepted (default 16 MiB); downloads are bounded by the caller's size. */
  maxResponseBytes?: number
}

/**
 * A download must move at least this many bytes in each timeoutMs: a service dripping a byte at a
 * time keeps every socket timeout at bay and would hold a recovery for days (30 s: 136 bytes/s).
 */
const MIN_DOWNLOAD_BYTES_PER_TIMEOUT = 4096

/** Answers are small JSON: the largest is a page of 100 assets. */
const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024

/** Why an answer was cut off while it arrived. */
class AnswerCutOff extends Error {
  constructor(
    readonly problem: string,
    /** The answer's HTTP status: it came, it was refused. */
    readonly status: number,
  ) {
    super(problem)
  }
}

export interface Page<T, M> {
  data: T
  meta: M
}

/** The bytes of an upload, built afresh for every attempt (a retry starts from the beginning). */
export interface UploadBody {
  body: () => Readable
  contentType: string
  contentLength: number
  onProgress?: (sentBytes: number, totalBytes: number) => void
}

export interface CallOptions {
  json?: unknown
  searchParams?: Record<string, string | number>
  idempotent: boolean
  signal?: AbortSignal
  upload?: UploadBody
  /** For a 402 on an upload: what it should cost and the balance seen before. */
  credits?: { needed?: number; balance?: number }
  /** Use this prefix as is, without detection (detection itself uses it). */
  prefix?: ApiPrefix
}

type RequestKind = 'call' | 'upload' | 'download'

/** Per-phase limits. Transfers get none on the whole: only silence ends them. */
function phaseTimeouts(kind: RequestKind, ms: number): Delays {
  const reach = { lookup: ms, connect: ms, secureConnect: ms }
  switch (kind) {
    case 'call':
      return { ...reach, response: ms, socket: ms, request: ms }
    // The service may store a large file for a while before it answers.
    case 'upload':
      return { ...reach, response: 2 * ms, socket: 2 * ms }
    case 'download':
      return { ...reach, response: ms, socket: ms }
  }
}

const TIMEOUT_PHASES: Record<string, string> = {
  lookup: 'its address could not be looked up',
  connect: 'no connection could be opened',
  secureConnect: 'the secure (TLS) connection was not set up',
  response: 'no answer came',
  socket: 'no data moved',
  request: 'no complete answer came',
}

export class Transport {
  readonly baseUrl: string
  readonly #secrets: string[]
  readonly #http: Got
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
  readonly #maxResponseBytes: number

  constructor(options: ApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    // The key as sent and as it would look inside an address (a service echoing a URL).
    this.#secrets = options.apiKey
      ? [...new Set([options.apiKey, encodeURIComponent(options.apiKey)])].sort((a, b) => b.length - a.length)
      : []
    this.#http = got.extend({
      prefixUrl: this.baseUrl,
      // No key at all for a guardian's kit check, whose token travels in the body.
      headers: { ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}), accept: 'application/json' },
      followRedirect: false,
      // The loop below retries, knowing which calls are idempotent and what 429 asks for.
      retry: { limit: 0 },
      throwHttpErrors: false,
    })
    this.#prefix = options.prefix
    this.#pacer = options.pacer
    this.#onRetry = options.onRetry
    this.#timeoutMs = options.timeoutMs ?? 30_000
    this.#maxRetries = options.maxRetries ?? 3
    this.#maxRetryAfter = options.maxRetryAfterSeconds ?? 120
    this.#maxRateLimitWaits = options.maxRateLimitWaits ?? 5
    this.#backoffBaseMs = options.backoffBaseMs ?? 500
    this.#sleep = options.sleep ?? abortableSleep
    this.#maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  }

  /** The prefix in use once known (`/api`, or `/v1` on services that 404 the vault list under /api). */
  get prefix(): ApiPrefix | undefined {
    return this.#prefix
  }

  /** The service address as it may appear in messages: never with a user name or password. */
  get displayAddress(): string {
    try {
      const url = new URL(this.baseUrl)
      return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
    } catch {
      return this.redact(this.baseUrl)
    }
  }

  redact(text: string): string {
    let out = text
    for (const secret of this.#secrets) out = out.split(secret).join('[api key]')
    return out
  }

  /** A call's `data`, the envelope unwrapped. */
  async data<T>(operation: ApiOperation, method: Method, path: string, options: CallOptions): Promise<T> {
    return (await this.call<T>(operation, method, path, options)).data
  }

  async call<T, M extends ResponseMeta = ResponseMeta>(
    operation: ApiOperation,
    method: Method,
    path: string,
    options: CallOptions,
  ): Promise<Page<T, M>> {
    const prefix = options.prefix ?? (await this.ensurePrefix(options.signal))
    const pattern = rateLimitPattern(method, path)
    let failures = 0
    let rateLimitWaits = 0
    for (let attempt = 1; ; attempt++) {
      await this.#pace(operation, pattern, options.signal)
      let answer: { statusCode: number; headers: IncomingHttpHeaders; body: string }
      try {
        answer = await (options.upload
          ? this.#sendUpload(relativeUrl(prefix, path), options.upload, options.signal)
          : this.#sendJson(relativeUrl(prefix, path), method, options))
      } catch (error) {
        const failure = this.#failure(operation, error, options.signal, options.upload ? 'upload' : 'call')
        if (
          failure.code !== 'CANCELLED' &&
          failure.code !== 'BAD_RESPONSE' &&
          options.idempotent &&
          failures < this.#maxRetries &&
          !options.signal?.aborted
        ) {
          failures++
          await this.#backoff(operation, 'network', failures, attempt, options.signal)
          continue
        }
        throw failure
      }
      const status = answer.statusCode
      if (status >= 200 && status < 300) return this.#unwrap<T, M>(operation, status, answer.body)

      if (status === 429) {
        const waitSeconds = parseRetryAfter(firstHeader(answer.headers, 'retry-after'))
        if (rateLimitWaits < this.#maxRateLimitWaits && waitSeconds <= this.#maxRetryAfter) {
          rateLimitWaits++
          this.#onRetry?.({
            reason: 'rate_limited',
            operation,
            waitSeconds,
            attempt,
            text: `Rate limited by the service; retrying in ${waitSeconds} s`,
          })
          await this.#wait(operation, waitSeconds * 1000, options.signal)
          continue
        }
        throw this.#refusal(operation, answer, { retryAfterSeconds: waitSeconds })
      }

      if (status >= 500 && options.idempotent && failures < this.#maxRetries) {
        failures++
        await this.#backoff(operation, 'server_error', failures, attempt, options.signal)
        continue
      }
      throw this.#refusal(operation, answer, {
        creditsNeeded: options.credits?.needed,
        creditsBalance: options.credits?.balance,
      })
    }
  }

  /**
   * A binary GET as a stream, from byte `start` on. Not retried: the caller resumes from what it has.
   * Failures after the first byte end the stream with a VaultApiError too.
   */
  async download(
    operation: ApiOperation,
    path: string,
    options: { start: number; signal?: AbortSignal; expectedBytes?: number },
  ): Promise<{ stream: Readable; partial: boolean }> {
    const { start, signal, expectedBytes } = options
    const prefix = await this.ensurePrefix(signal)
    await this.#pace(operation, rateLimitPattern('GET', path), signal)
    let source: Request
    try {
      source = this.#http.stream(relativeUrl(prefix, path), {
        headers: { accept: '*/*', ...(start > 0 ? { range: `bytes=${start}-` } : {}) },
        timeout: phaseTimeouts('download', this.#timeoutMs),
        signal,
      })
    } catch (error) {
      throw this.#failure(operation, error, signal, 'download')
    }
    return new Promise((resolve, reject) => {
      let answered = false
      source.on('error', (error: unknown) => {
        if (!answered) reject(this.#failure(operation, error, signal, 'download'))
      })
      source.once('response', async (response: { statusCode: number; headers: IncomingHttpHeaders }) => {
        answered = true
        const status = response.statusCode
        if (status >= 200 && status < 300) {
          const partial = status === 206
          // What this answer may hold: the rest from `start` when the range was honoured, else all.
          const limit = expectedBytes === undefined ? undefined : expectedBytes - (partial ? start : 0)
          resolve({ stream: this.#guarded(source, operation, signal, limit), partial })
          return
        }
        if (status >= 300 && status < 400) {
          source.destroy()
          reject(this.#refusal(operation, { statusCode: status, headers: response.headers, body: '' }))
          return
        }
        try {
          const chunks: Buffer[] = []
          for await (const chunk of source) chunks.push(chunk as Buffer)
          const body = Buffer.concat(chunks).toString('utf8')
          reject(this.#refusal(operation, { statusCode: status, headers: response.headers, body }))
        } catch (error) {
          reject(this.#failure(operation, error, signal, 'download'))
        }
      })
    })
  }

  /**
   * Finds the prefix the service answers under by listing vaults under each candidate; returns the
   * list it got on the way so the caller need not ask again.
   */
  async detectPrefix<T>(signal?: AbortSignal): Promise<T> {
    let lastError: unknown
    for (const prefix of API_PREFIXES) {
      try {
        const page = await this.call<T>('list vaults', 'GET', '/vault', { idempotent: true, signal, prefix })
        this.#prefix = prefix
        return page.data
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
      userMessage: `No Vault Service answers at ${this.displayAddress} (tried ${API_PREFIXES.join(' and ')}). Check the service address.`,
    })
  }

  async ensurePrefix(signal?: AbortSignal): Promise<ApiPrefix> {
    if (this.#prefix) return this.#prefix
    this.#detecting ??= this.detectPrefix(signal).then(
      () => this.#prefix as ApiPrefix,
      (error: unknown) => {
        this.#detecting = undefined
        throw error
      },
    )
    return this.#detecting
  }

  #sendJson(url: string, method: Method, options: CallOptions) {
    const search = options.searchParams
    return this.#bounded(
      this.#http(url, {
        method,
        ...(options.json !== undefined ? { json: options.json } : {}),
        ...(search && Object.keys(search).length ? { searchParams: search } : {}),
        responseType: 'text',
        timeout: phaseTimeouts('call', this.#timeoutMs),
        signal: options.signal,
      }),
    )
  }

  #sendUpload(url: string, upload: UploadBody, signal: AbortSignal | undefined) {
    const request = this.#http.post(url, {
      headers: { 'content-type': upload.contentType, 'content-length': String(upload.contentLength) },
      body: upload.body(),
      responseType: 'text',
      timeout: phaseTimeouts('upload', this.#timeoutMs),
      signal,
    })
    const onProgress = upload.onProgress
    if (onProgress) request.on('uploadProgress', (p) => onProgress(p.transferred, upload.contentLength))
    return this.#bounded(request)
  }

  /**
   * A JSON answer that stops at maxResponseBytes and must arrive whole within timeoutMs of its
   * first byte (uploads have no total limit, and a drip keeps the socket alive).
   */
  async #bounded(request: CancelableRequest<Response<string>>): Promise<{
    statusCode: number
    headers: IncomingHttpHeaders
    body: string
  }> {
    let cutOff: AnswerCutOff | undefined
    let timer: NodeJS.Timeout | undefined
    let status = 0
    request.on('request', (outgoing: ClientRequest) =>
      outgoing.once('response', (incoming) => {
        status = incoming.statusCode ?? 0
      }),
    )
    const cut = (problem: string) => {
      cutOff ??= new AnswerCutOff(problem, status)
      request.cancel()
    }
    // The promise's first progress event comes with the answer's head ('response' only once it is whole).
    request.on('downloadProgress', (progress) => {
      timer ??= setTimeout(
        () => cut(`it was still arriving after ${formatSeconds(this.#timeoutMs)}`),
        this.#timeoutMs,
      )
      if (progress.transferred > this.#maxResponseBytes) {
        cut(`it was larger than ${this.#maxResponseBytes} bytes`)
      }
    })
    try {
      const answer = await request
      return { statusCode: answer.statusCode, headers: answer.headers, body: answer.body }
    } catch (error) {
      throw cutOff ?? error
    } finally {
      clearTimeout(timer)
    }
  }

  /** The download handed to the caller: got's stream behind a pass-through that fails only with our errors. */
  #guarded(
    source: Request,
    operation: ApiOperation,
    signal: AbortSignal | undefined,
    limit: number | undefined,
  ): Readable {
    const out = new PassThrough()
    // The guards below may fail the stream before the caller has attached to it: the caller still gets
    // the error (a destroyed stream keeps it for pipeline and for-await), and the process does not crash.
    out.on('error', () => {})
    source.on('error', (error: unknown) => out.destroy(this.#failure(operation, error, signal, 'download')))
    if (limit !== undefined) {
      let received = 0
      source.on('data', (piece: Buffer) => {
        received += piece.length
        if (received > limit) {
          source.destroy()
          out.destroy(
            this.#error({
              code: 'BAD_RESPONSE',
              status: 200,
              operation,
              message: `the service sent more than the ${limit} bytes it listed`,
              userMessage: `The Vault Service at ${this.displayAddress} sent more than the ${limit} bytes it listed for this file, so the download was stopped. Nothing more was written; if this keeps happening, the address may not be a genuine Vault Service.`,
            }),
          )
        }
      })
    }
    let moved = 0
    source.on('data', (piece: Buffer) => {
      moved += piece.length
    })
    const drip = setInterval(() => {
      if (moved >= MIN_DOWNLOAD_BYTES_PER_TIMEOUT) {
        moved = 0
        return
      }
      source.destroy()
      out.destroy(
        this.#error({
          code: 'TIMEOUT',
          status: 0,
          operation,
          message: `timed out: fewer than ${MIN_DOWNLOAD_BYTES_PER_TIMEOUT} bytes came in ${formatSeconds(this.#timeoutMs)}`,
          userMessage: `The Vault Service at ${this.displayAddress} sent this download too slowly (fewer than ${MIN_DOWNLOAD_BYTES_PER_TIMEOUT} bytes in ${formatSeconds(this.#timeoutMs)}), so it was stopped. Check the connection and try again later; what already arrived is kept.`,
        }),
      )
    }, this.#timeoutMs)
    // A caller that stops reading ends the download instead of leaving the socket open.
    out.on('close', () => {
      clearInterval(drip)
      source.destroy()
    })
    source.on('end', () => clearInterval(drip))
    source.on('error', () => clearInterval(drip))
    source.pipe(out)
    return out
  }

  async #pace(
    operation: ApiOperation,
    pattern: ReturnType<typeof rateLimitPattern>,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#pacer?.acquire(pattern, signal).catch((error: unknown) => {
      throw this.#failure(operation, error, signal, 'call')
    })
  }

  async #wait(operation: ApiOperation, ms: number, signal?: AbortSignal): Promise<void> {
    await this.#sleep(ms, signal).catch((error: unknown) => {
      throw this.#failure(operation, error, signal, 'call')
    })
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
    await this.#wait(operation, ms, signal)
  }

  #unwrap<T, M>(operation: ApiOperation, status: number, text: string): Page<T, M> {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw this.#error({ code: 'BAD_RESPONSE', status, operation, message: 'the response is not JSON' })
    }
    if (!parsed || typeof parsed !== 'object' || !('data' in parsed)) {
      throw this.#error({
        code: 'BAD_RESPONSE',
        status,
        operation,
        message: 'the response has no data envelope',
      })
    }
    const envelope = parsed as { data: T; meta?: M }
    return { data: envelope.data, meta: (envelope.meta ?? {}) as M }
  }

  /** The error for an answer that is not a success: a refused redirect, or the service's error body. */
  #refusal(
    operation: ApiOperation,
    answer: { statusCode: number; headers: IncomingHttpHeaders; body: string },
    extra: Pick<VaultApiErrorInit, 'retryAfterSeconds' | 'creditsNeeded' | 'creditsBalance'> = {},
  ): VaultApiError {
    const status = answer.statusCode
    const headerRequestId = firstHeader(answer.headers, 'x-request-id')
    if (status >= 300 && status < 400) {
      return this.#error({
        code: 'REDIRECT_REFUSED',
        status,
        operation,
        requestId: headerRequestId,
        ...redirectRefusal(this.displayAddress, firstHeader(answer.headers, 'location')),
      })
    }
    let code: string | undefined
    let message: string | undefined
    let requestId: string | undefined
    try {
      const parsed = JSON.parse(answer.body) as {
        error?: { code?: string; message?: string }
        meta?: { requestId?: string }
        requestId?: string
      }
      code = parsed.error?.code
      message = parsed.error?.message
      requestId = parsed.meta?.requestId ?? parsed.requestId
    } catch {
      // Not JSON (a proxy page, for example): fall back to the status.
    }
    return this.#error({
      code: code ?? codeForStatus(status),
      status,
      operation,
      message: message ?? `HTTP ${status}`,
      ...extra,
      requestId: requestId ?? headerRequestId,
    })
  }

  /** Any thrown thing (got's errors, aborts, timeouts) as a VaultApiError; only its words are kept. */
  #failure(operation: ApiOperation, error: unknown, signal: AbortSignal | undefined, kind: RequestKind) {
    if (error instanceof VaultApiError) return error
    if (error instanceof AnswerCutOff) {
      return this.#error({
        code: 'BAD_RESPONSE',
        status: error.status,
        operation,
        message: `answer refused: ${error.problem}`,
        userMessage: `The answer of the Vault Service at ${this.displayAddress} was refused (${operation}): ${error.problem}. Nothing was used from it. Try again later; if this keeps happening, the address may not be a genuine Vault Service.`,
      })
    }
    if (signal?.aborted || (error instanceof Error && error.name === 'AbortError')) {
      return this.#error({ code: 'CANCELLED', status: 0, operation, message: 'cancelled' })
    }
    if (error instanceof RequestError && (error.name === 'TimeoutError' || error.code === 'ETIMEDOUT')) {
      const phase = 'event' in error && typeof error.event === 'string' ? error.event : 'request'
      const limit = (phaseTimeouts(kind, this.#timeoutMs) as Record<string, number | undefined>)[phase]
      const within = limit === undefined ? '' : ` within ${formatSeconds(limit)}`
      return this.#error({
        code: 'TIMEOUT',
        status: 0,
        operation,
        message: `timed out: ${TIMEOUT_PHASES[phase] ?? `waited too long (${phase})`}${within}`,
      })
    }
    return this.#error({
      code: 'NETWORK_ERROR',
      status: 0,
      operation,
      message: error instanceof Error ? error.message : String(error),
    })
  }

  /** Every VaultApiError of the client is made here, so every text in it is redacted. */
  #error(init: VaultApiErrorInit): VaultApiError {
    return new VaultApiError({
      ...init,
      message: this.redact(init.message),
      ...(init.userMessage !== undefined ? { userMessage: this.redact(init.userMessage) } : {}),
      ...(init.requestId !== undefined ? { requestId: this.redact(init.requestId) } : {}),
    })
  }
}

/**
 * Why a redirect was refused, in words for the user. The target is shown by origin only: its path
 * or query could carry anything.
 */
export function redirectRefusal(
  serviceAddress: string,
  location: string | undefined,
): { message: string; userMessage: string } {
  const from = new URL(serviceAddress)
  const here = from.origin
  let to: URL | undefined
  try {
    to = location ? new URL(location, `${serviceAddress}/`) : undefined
  } catch {
    to = undefined
  }
  if (!to) {
    return {
      message: 'redirect without a usable target refused',
      userMessage: `The service at ${here} answered with a redirect instead of an answer. Check the service address: it may not be a Vault Service.`,
    }
  }
  const there = to.protocol === 'http:' || to.protocol === 'https:' ? to.origin : `${to.protocol}//${to.host}`
  if (from.protocol === 'http:' && to.protocol === 'https:' && to.hostname === from.hostname) {
    const secure = `https://${to.host}${from.pathname.replace(/\/+$/, '')}`
    return {
      message: `redirect to ${there} refused: the service only answers over https`,
      userMessage: `The service at ${here} only answers over https. Change the service address to ${secure} and connect again. (Redirects are not followed, so the key is only ever sent to the address you entered.)`,
    }
  }
  if (from.protocol === 'https:' && to.protocol !== 'https:') {
    return {
      message: `redirect from https to ${there} refused: it would send the key unencrypted`,
      userMessage: `The service at ${here} tried to send this request to ${there}, an unencrypted address. This was refused and the key was not sent there. Check the service address; if the service has moved, use the https address its operator gives.`,
    }
  }
  return {
    message: `redirect to ${there} refused`,
    userMessage: `The service at ${here} redirected this request to ${there === here ? 'another path' : there}. Redirects are not followed, so the key is only ever sent to the address you entered: if the service has moved, change the service address to its new one.`,
  }
}

/** `/api` + `/vault/x` as a path relative to the service address (got's prefixUrl wants no leading slash). */
function relativeUrl(prefix: ApiPrefix, path: string): string {
  return `${prefix}${path}`.replace(/^\/+/, '')
}

function firstHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 1000 ? 2 : 1))} s`
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
