// The recovery page's remote sources: a Vault Service read with the heir access code from the release
// e-mail, and an Arweave gateway searched by the vault's tags. Browser code (fetch, ReadableStream),
// following the recovery tool's rules (recovery/heir-recovery.ts, recovery/arweave-recovery.ts) through
// the same shared checks and words: the vault is opened under /api then /v1 and only when released, a
// service's or gateway's answer is checked before use (shared/service-answers.ts, shared/arweave-search.ts),
// ids reach request paths only and never names, a blob never streams past the size it was listed with,
// and a read that breaks resumes with a byte range. Messages are the heir's, in the page's language
// (shared/heir-source-text.ts).

import type { Asset } from '../shared/api'
import {
  ARWEAVE_ID,
  type ArweaveBlob,
  DEFAULT_MAX_PAGES,
  gatewayAddress,
  gatewayEndpoint,
  MAX_PAGE_BYTES,
  readSearchPage,
  searchBody,
} from '../shared/arweave-search'
import {
  type GatewayStep,
  HEIR_SOURCE_TEXT,
  type HeirLanguage,
  type HeirSourceText,
  type ServiceStep,
} from '../shared/heir-source-text'
import { checkServiceAddress } from '../shared/service-address'
import { assetPageProblem, isObject, listedFiles, vaultProblem } from '../shared/service-answers'
import { arweaveVaultRef, contentHash, plaintextLength } from '../vault-format'
import { type PageBlob, type PageSource, PageSourceError } from './page-source'

/** The heir's words for these sources, by language (the page shows a PageSourceError's message as is). */
export const REMOTE_SOURCE_TEXT: Record<HeirLanguage, HeirSourceText> = HEIR_SOURCE_TEXT

/**
 * What the page's Content-Security-Policy must let it connect to for these sources: any https
 * service or gateway the heir types, and plain http only on this computer (a local service or
 * arlocal; shared/service-address.ts refuses plain http anywhere else before any request).
 */
export const REMOTE_CONNECT_SOURCES = ['https:', 'http://127.0.0.1:*', 'http://localhost:*'] as const

/** The API prefixes a Vault Service answers under, tried in this order (an heir code cannot list vaults). */
const API_PREFIXES = ['/api', '/v1'] as const

/** A vault or one page of its listing weighs far less: a longer answer is refused, not read. */
const MAX_ANSWER_BYTES = 8 << 20

/** Reads of one blob that may break before it is given up (each resumes where the last stopped). */
const MAX_RESUMES = 5

export interface ServiceSourceOptions {
  /** The service address from the e-mail. */
  serviceUrl: string
  /** The heir access code (hk_…) from the e-mail. */
  accessToken: string
  /** The vault id (also inside every kit). */
  vaultId: string
  /** The language of the heir-facing messages (default English). */
  language?: HeirLanguage
  /** The longest a request waits for an answer, or a download for its next bytes (default 60 s). */
  timeoutMs?: number
}

export interface ArweaveSourceOptions {
  /** A gateway serving /graphql and transaction data, e.g. https://arweave.net. */
  gatewayUrl: string
  vaultId: string
  /** Accept only transactions this wallet posted (the vault service's operator address). */
  owner?: string
  language?: HeirLanguage
  timeoutMs?: number
  /** Pages of 100 followed at most (DEFAULT_MAX_PAGES). */
  maxPages?: number
}

/** A failed fetch: a network error, or a timeout this module set. */
function causeOf(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string } }
  if (e?.name === 'TimeoutError') return 'timeout'
  return e?.cause?.code ?? e?.message ?? String(error)
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        reject(signal.reason)
      },
      { once: true },
    )
  })
}

/** The caller's signal (if any) and a timeout, as one. */
function withTimeout(signal: AbortSignal | undefined, ms: number): AbortSignal {
  const timeout = AbortSignal.timeout(ms)
  return signal ? AbortSignal.any([signal, timeout]) : timeout
}

/** At most `limit` bytes of a body, as text; null when it is longer (the rest is not read). */
async function boundedText(response: Response, limit: number): Promise<string | null> {
  if (!response.body) return ''
  const reader = response.body.getReader()
  const pieces: Uint8Array[] = []
  let length = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    length += value.length
    if (length > limit) {
      await reader.cancel().catch(() => {})
      return null
    }
    pieces.push(value)
  }
  const all = new Uint8Array(length)
  let at = 0
  for (const piece of pieces) {
    all.set(piece, at)
    at += piece.length
  }
  return new TextDecoder().decode(all)
}

interface ResumableRead {
  size: number
  /** Sends the request for the bytes from `start` on (a Range when start > 0). */
  request(start: number, signal: AbortSignal): Promise<Response>
  /** The first answer was no stream of the blob: the error to give (404, 401, …). */
  refused(response: Response): PageSourceError
  tooLong(): PageSourceError
  /** The reads broke (or stalled) more than MAX_RESUMES times, or could not be sent. */
  broken(cause: string): PageSourceError
  /** Checked once all `size` bytes came: an error when they are not the blob's. */
  finish?: (bytes: number) => PageSourceError | null
  onBytes?: (bytes: Uint8Array) => void
  timeoutMs: number
}

/**
 * The blob's bytes as one stream, exactly `size` of them: a read that breaks, stalls or ends early is
 * sent again from where it stopped (a byte range; a service that ignores it sends the whole blob again,
 * and what was already given is skipped). More bytes than `size` fail the stream.
 */
async function resumableStream(
  read: ResumableRead,
  signal?: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  const control = new AbortController()
  const stop = () => control.abort(signal?.reason)
  if (signal?.aborted) throw signal.reason
  signal?.addEventListener('abort', stop, { once: true })

  let given = 0
  let resumes = 0
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  /** Bytes to drop at the start of the current answer (a whole-blob answer to a range request). */
  let skip = 0
  let stall: ReturnType<typeof setTimeout> | undefined
  let attempt: AbortController

  /**
   * Sends the request for the bytes not given yet. Throws what the heir is told; on a resumed read, a
   * failure worth another try comes back as its cause instead.
   */
  const open = async (first: boolean): Promise<string | undefined> => {
    for (let waited = 0; ; waited++) {
      attempt = new AbortController()
      const current = attempt
      // The timeout covers the wait for an answer; once bytes flow, the stall timer watches them.
      const answerTimer = setTimeout(
        () => current.abort(new DOMException('no answer in time', 'TimeoutError')),
        read.timeoutMs,
      )
      let response: Response
      try {
        response = await read.request(given, AbortSignal.any([control.signal, current.signal]))
      } catch (error) {
        if (control.signal.aborted) throw control.signal.reason
        if (first) throw read.broken(causeOf(error))
        return causeOf(error)
      } finally {
        clearTimeout(answerTimer)
      }
      // Under a rate limit or a moment's trouble: wait as told (a little), then ask again.
      if ((response.status === 429 || response.status === 503) && waited < MAX_RESUMES) {
        await response.body?.cancel().catch(() => {})
        const told = Number(response.headers.get('retry-after'))
        await delay(
          Math.min(Number.isFinite(told) && told > 0 ? told * 1000 : 1000 * (waited + 1), 30_000),
          control.signal,
        )
        continue
      }
      if (!response.ok || !response.body) {
        await response.body?.cancel().catch(() => {})
        if (first || response.status === 404 || response.status === 401 || response.status === 403) {
          throw read.refused(response)
        }
        return `HTTP ${response.status}`
      }
      skip = given > 0 && response.status !== 206 ? given : 0
      reader = response.body.getReader()
      return undefined
    }
  }

  const armStall = () => {
    clearTimeout(stall)
    stall = setTimeout(() => attempt.abort(new Error('stalled')), read.timeoutMs)
  }

  const finish = (error?: unknown) => {
    clearTimeout(stall)
    signal?.removeEventListener('abort', stop)
    if (error) control.abort(error)
  }

  await open(true)
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        let piece: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>
        try {
          armStall()
          piece = await reader!.read()
        } catch (error) {
          if (control.signal.aborted) {
            finish()
            controller.error(control.signal.reason)
            return
          }
          piece = { done: true, value: undefined }
          if (!(await resume(controller, causeOf(error)))) return
          continue
        }
        if (piece.done) {
          if (given === read.size) {
            finish()
            const wrong = read.finish?.(given)
            if (wrong) controller.error(wrong)
            else controller.close()
            return
          }
          // Ended early: the connection was cut between the service and here.
          if (!(await resume(controller, 'the answer ended early'))) return
          continue
        }
        let value = piece.value
        if (skip > 0) {
          const dropped = Math.min(skip, value.length)
          skip -= dropped
          value = value.subarray(dropped)
          if (value.length === 0) continue
        }
        if (given + value.length > read.size) {
          finish(read.tooLong())
          await reader!.cancel().catch(() => {})
          controller.error(read.tooLong())
          return
        }
        given += value.length
        resumes = 0
        read.onBytes?.(value)
        controller.enqueue(value)
        return
      }
    },
    async cancel(reason) {
      finish(reason ?? new Error('cancelled'))
      await reader?.cancel(reason).catch(() => {})
    },
  })

  async function resume(
    controller: ReadableStreamDefaultController<Uint8Array>,
    cause: string,
  ): Promise<boolean> {
    await reader?.cancel().catch(() => {})
    for (;;) {
      resumes++
      if (resumes > MAX_RESUMES) {
        finish()
        controller.error(read.broken(cause))
        return false
      }
      try {
        await delay(Math.min(250 * 2 ** (resumes - 1), 4000), control.signal)
        const again = await open(false)
        if (again === undefined) return true
        cause = again
      } catch (error) {
        finish()
        controller.error(error)
        return false
      }
    }
  }
}

// ---- the Vault Service ----

/**
 * The released vault's blobs on a Vault Service, read with the heir access code. list() opens the vault
 * (under /api, then /v1), refuses one that is not released, and lists every asset; each blob's open()
 * downloads its content.
 */
export function serviceSource(options: ServiceSourceOptions): PageSource {
  const text = HEIR_SOURCE_TEXT[options.language ?? 'en']
  const timeoutMs = options.timeoutMs ?? 60_000
  const { vaultId, accessToken } = options
  const vaultPath = (...under: string[]) => ['', 'vault', vaultId, ...under].map(encodeURIComponent).join('/')
  let base: string | undefined
  let shownAddress = options.serviceUrl.trim()

  const send = async (url: string, signal: AbortSignal | undefined, headers: Record<string, string> = {}) => {
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(url, {
        headers: { 'x-api-key': accessToken, accept: 'application/json', ...headers },
        // Never followed: the access code would go along to wherever it points.
        redirect: 'manual',
        credentials: 'omit',
        signal: withTimeout(signal, timeoutMs),
      })
      // Under the service's rate limits, or a moment's trouble: wait as told (a little), then again.
      if ((response.status === 429 || response.status === 503) && attempt < 3) {
        const told = Number(response.headers.get('retry-after'))
        await response.body?.cancel().catch(() => {})
        await delay(
          Math.min(Number.isFinite(told) && told > 0 ? told * 1000 : 1000 * (attempt + 1), 30_000),
          signal,
        )
        continue
      }
      return response
    }
  }

  const refusal = (response: Response, at: ServiceStep): PageSourceError => {
    const { status } = response
    if (response.type === 'opaqueredirect' || (status >= 300 && status < 400)) {
      return new PageSourceError(
        'INVALID_ADDRESS',
        text.redirected(shownAddress, response.headers.get('location')),
      )
    }
    if (status === 401) return new PageSourceError('ACCESS_REFUSED', text.accessRefused)
    if (status === 403) return new PageSourceError('ACCESS_REFUSED', text.otherVault(vaultId))
    if (status === 404) {
      return at.step === 'download'
        ? new PageSourceError('NOT_FOUND', text.fileGone(at.name))
        : new PageSourceError('NOT_FOUND', text.vaultUnknown)
    }
    return new PageSourceError('UNREACHABLE', text.serviceProblem(at, status))
  }

  /** The `data` (and `meta`) of an answer, or BAD_ANSWER. */
  const envelope = async (
    response: Response,
    operation: string,
  ): Promise<{ data: unknown; meta: unknown }> => {
    const body = await boundedText(response, MAX_ANSWER_BYTES)
    if (body === null) {
      throw new PageSourceError(
        'BAD_ANSWER',
        text.badAnswer(shownAddress, operation, 'an answer far too long'),
      )
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(body)
    } catch {
      parsed = undefined
    }
    if (!isObject(parsed) || !('data' in parsed)) {
      throw new PageSourceError(
        'BAD_ANSWER',
        text.badAnswer(shownAddress, operation, 'the response has no data envelope'),
      )
    }
    return { data: parsed.data, meta: parsed.meta }
  }

  const openVault = async (signal?: AbortSignal): Promise<string> => {
    const address = checkServiceAddress(options.serviceUrl, options.language)
    if (!address.ok) throw new PageSourceError('INVALID_ADDRESS', address.message)
    shownAddress = address.url
    let last: Response | undefined
    for (const prefix of API_PREFIXES) {
      let response: Response
      try {
        response = await send(`${address.url}${prefix}${vaultPath()}`, signal)
      } catch {
        if (signal?.aborted) throw signal.reason
        throw new PageSourceError('UNREACHABLE', text.unreachable(shownAddress, { step: 'open' }))
      }
      if (response.status === 404) {
        await response.body?.cancel().catch(() => {})
        last = response
        continue
      }
      if (!response.ok) throw refusal(response, { step: 'open' })
      let vault: { data: unknown }
      try {
        vault = await envelope(response, 'get vault')
      } catch (error) {
        if (error instanceof PageSourceError) throw error
        throw new PageSourceError('UNREACHABLE', text.unreachable(shownAddress, { step: 'open' }))
      }
      const problem = vaultProblem(vault.data, vaultId)
      if (problem) throw new PageSourceError('BAD_ANSWER', text.badAnswer(shownAddress, 'get vault', problem))
      const state = (vault.data as { state: string }).state
      // An heir's code opens a released vault only: a service that says otherwise is not to be believed.
      if (state !== 'released') throw new PageSourceError('NOT_RELEASED', text.notReleased(vaultId, state))
      return `${address.url}${prefix}`
    }
    throw refusal(last!, { step: 'open' })
  }

  const listAssets = async (root: string, signal?: AbortSignal): Promise<Asset[]> => {
    const all: Asset[] = []
    const seen = new Set<string>()
    for (let offset = 0; ; ) {
      let page: { data: unknown; meta: unknown }
      try {
        const response = await send(`${root}${vaultPath('asset')}?limit=100&offset=${offset}`, signal)
        if (!response.ok) throw refusal(response, { step: 'list' })
        page = await envelope(response, 'list assets')
      } catch (error) {
        if (error instanceof PageSourceError) throw error
        if (signal?.aborted) throw signal.reason
        throw new PageSourceError('UNREACHABLE', text.unreachable(shownAddress, { step: 'list' }))
      }
      const total = isObject(page.meta) ? page.meta.total : undefined
      const problem = assetPageProblem(page.data, total, seen)
      if (problem)
        throw new PageSourceError('BAD_ANSWER', text.badAnswer(shownAddress, 'list assets', problem))
      const assets = page.data as Asset[]
      all.push(...assets)
      offset += assets.length
      if (assets.length === 0 || typeof total !== 'number' || offset >= total) return all
    }
  }

  return {
    describe: () =>
      options.language === 'es'
        ? `el servicio de la bóveda en ${shownAddress}`
        : `the Vault Service at ${shownAddress}`,
    async list(signal) {
      const root = await openVault(signal)
      base = root
      const assets = await listAssets(root, signal)
      const files = listedFiles(assets, (index) =>
        options.language === 'es' ? `archivo ${index + 1}` : `file ${index + 1}`,
      )
      return assets.map((asset, index): PageBlob => {
        const file = files[index]!
        const at: ServiceStep = { step: 'download', name: file.name }
        return {
          label:
            options.language === 'es' ? `«${file.name}» en el servicio` : `“${file.name}” on the service`,
          size: asset.sizeBytes,
          ...(file.uploadedAtMs !== undefined ? { sourceDateMs: file.uploadedAtMs } : {}),
          open: (openSignal) =>
            resumableStream(
              {
                size: asset.sizeBytes,
                timeoutMs,
                request: (start, requestSignal) =>
                  fetch(`${base}${vaultPath('asset', asset.id, 'content')}`, {
                    headers: { 'x-api-key': accessToken, ...(start > 0 ? { range: `bytes=${start}-` } : {}) },
                    redirect: 'manual',
                    credentials: 'omit',
                    signal: requestSignal,
                  }),
                refused: (response) => refusal(response, at),
                tooLong: () => new PageSourceError('BAD_ANSWER', text.tooLong(shownAddress, asset.sizeBytes)),
                broken: () =>
                  new PageSourceError('UNREACHABLE', text.unreachable(shownAddress, { ...at, cutOff: true })),
              },
              openSignal,
            ),
        }
      })
    },
  }
}

// ---- Arweave ----

/** A length an encrypted blob can have (FORMAT.md 3.1): any other is someone else's transaction. */
function isBlobLength(size: number): boolean {
  try {
    plaintextLength(size)
    return true
  } catch {
    return false
  }
}

/**
 * The vault's blobs on Arweave, found through a gateway's GraphQL by the vault's tags. Transactions of
 * a length no encrypted file has are left out; which of the rest belong to the vault under this key is
 * what decrypting them says (anyone can tag a transaction with a vault's reference).
 */
/**
 * Each transaction's date for a file of format 1 or 2 (FORMAT.md 9.3): the first block that carried
 * the same bytes, known here by the Content-SHA256 tag (checked against the bytes when the file is
 * written). Anyone can post an old blob's bytes again later; one posted without the tag, as the
 * vault's service never does, gets no date, and so never outranks a dated copy (FORMAT.md 3.11).
 */
export function firstMinedByTag(blobs: readonly ArweaveBlob[]): Map<string, number> {
  const first = new Map<string, number>()
  for (const { sha256Hex, minedAtMs } of blobs) {
    if (sha256Hex === undefined || minedAtMs === undefined) continue
    first.set(sha256Hex, Math.min(first.get(sha256Hex) ?? minedAtMs, minedAtMs))
  }
  const dated = new Map<string, number>()
  for (const blob of blobs)
    if (blob.sha256Hex && first.has(blob.sha256Hex)) dated.set(blob.txId, first.get(blob.sha256Hex)!)
  return dated
}

export function arweaveSource(options: ArweaveSourceOptions): PageSource {
  const text = HEIR_SOURCE_TEXT[options.language ?? 'en']
  const timeoutMs = options.timeoutMs ?? 60_000
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES
  const gateway = gatewayAddress(options.gatewayUrl)
  const origin = gateway?.origin ?? options.gatewayUrl

  const findBlobs = async (signal?: AbortSignal): Promise<ArweaveBlob[]> => {
    if (!gateway) throw new PageSourceError('INVALID_ADDRESS', text.gatewayAddress(options.gatewayUrl))
    const owner = options.owner?.trim() || undefined
    if (owner !== undefined && !ARWEAVE_ID.test(owner)) {
      throw new PageSourceError('INVALID_ADDRESS', text.ownerAddress(options.owner ?? ''))
    }
    const vaultRef = arweaveVaultRef(options.vaultId)
    const blobs = new Map<string, ArweaveBlob>()
    const cursors = new Set<string>()
    let after: string | undefined
    for (let page = 1; ; page++) {
      if (page > maxPages) throw new PageSourceError('BAD_ANSWER', text.gatewayTooManyPages(origin, maxPages))
      const unreachable = (at: GatewayStep, error: unknown) => {
        if (signal?.aborted) return signal.reason
        // Opened at a service's address, the page's policy allows that origin only: say so, not "offline".
        const served = (globalThis as { location?: { protocol?: string; origin?: string } }).location
        if (served && /^https?:$/.test(served.protocol ?? '') && served.origin !== gateway.origin) {
          return new PageSourceError('UNREACHABLE', text.gatewayFromServedPage(origin))
        }
        return new PageSourceError('UNREACHABLE', text.gatewayUnreachable(origin, at, causeOf(error)))
      }
      let response: Response
      try {
        response = await fetch(gatewayEndpoint(gateway, 'graphql'), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: searchBody(vaultRef, owner, after),
          credentials: 'omit',
          signal: withTimeout(signal, timeoutMs),
        })
      } catch (error) {
        throw unreachable({ step: 'search' }, error)
      }
      let body: string | null
      try {
        body = await boundedText(response, MAX_PAGE_BYTES)
      } catch (error) {
        throw unreachable({ step: 'search-read' }, error)
      }
      if (body === null) {
        throw new PageSourceError(
          'BAD_ANSWER',
          text.gatewayUntrustworthy(origin, { kind: 'big-page', mb: MAX_PAGE_BYTES >> 20 }),
        )
      }
      const read = readSearchPage(body, response.ok, vaultRef, owner, cursors)
      if (read.kind === 'failed') {
        throw new PageSourceError(
          'BAD_ANSWER',
          text.gatewaySearchFailed(origin, response.status, read.detail),
        )
      }
      if (read.kind === 'untrustworthy') {
        throw new PageSourceError('BAD_ANSWER', text.gatewayUntrustworthy(origin, read.oddity))
      }
      for (const blob of read.blobs) blobs.set(blob.txId, blob)
      if (read.after === undefined) return [...blobs.values()]
      after = read.after
    }
  }

  return {
    describe: () => (options.language === 'es' ? `Arweave a través de ${origin}` : `Arweave via ${origin}`),
    async list(signal) {
      const found = await findBlobs(signal)
      const minedAt = firstMinedByTag(found)
      return found
        .filter((blob) => isBlobLength(blob.size))
        .map((blob): PageBlob => {
          const at = (cutOff: boolean): GatewayStep => ({ step: 'download', txId: blob.txId, cutOff })
          return {
            label: `arweave:${blob.txId}`,
            size: blob.size,
            ...(minedAt.has(blob.txId) ? { sourceDateMs: minedAt.get(blob.txId)! } : {}),
            open: (openSignal) => {
              // Hashed as it streams when the transaction names its SHA-256; a resumed read hashes on.
              const hash = blob.sha256Hex ? contentHash() : undefined
              return resumableStream(
                {
                  size: blob.size,
                  timeoutMs,
                  // The gateway only holds public ciphertext: its redirects (to its data hosts) are followed.
                  request: (start, requestSignal) =>
                    fetch(gatewayEndpoint(gateway!, blob.txId), {
                      headers: start > 0 ? { range: `bytes=${start}-` } : {},
                      credentials: 'omit',
                      signal: requestSignal,
                    }),
                  refused: (response) =>
                    new PageSourceError(
                      response.status === 404 ? 'NOT_FOUND' : 'UNREACHABLE',
                      text.gatewayNotServed(origin, blob.txId, response.status),
                    ),
                  tooLong: () =>
                    new PageSourceError('BAD_ANSWER', text.gatewayTooLong(origin, blob.txId, blob.size)),
                  broken: (cause) =>
                    new PageSourceError('UNREACHABLE', text.gatewayUnreachable(origin, at(true), cause)),
                  onBytes: hash ? (bytes) => hash.update(bytes) : undefined,
                  finish: () =>
                    hash && hash.hex() !== blob.sha256Hex
                      ? new PageSourceError('BAD_ANSWER', text.gatewayMismatch(blob.txId))
                      : null,
                },
                openSignal,
              )
            },
          }
        })
    },
  }
}
