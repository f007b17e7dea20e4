// The HTTP face of the service: every spec endpoint under /api and /v1, the local extensions, the
// response and error envelopes, authentication, permissions and rate limits.

import { randomUUID } from 'node:crypto'
import multipart from '@fastify/multipart'
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type onRequestHookHandler,
} from 'fastify'
import {
  API_PREFIXES,
  type ErrorStatus,
  EXTENSION_LIMITS,
  type KeyRevoked,
  type RateLimitPattern,
  REMOVED_V1_ENDPOINTS,
} from '../shared/api'
import { FALLBACK_CONTENT_TYPE } from '../shared/content-types'
import { authenticate, revokeOwnKey } from './accounts'
import { isHostAllowed, parseAllowedHosts } from './allowed-hosts'
import { deleteAsset } from './asset-deletion'
import { findAsset, listAssets } from './assets'
import { BlobStoreError } from './blob-store'
import { checkIn } from './check-in'
import { registerCheckInPages } from './check-in-pages'
import type { ServiceContext } from './context'
import { ApiError, badRequest, errorEnvelope, forbidden, notFound, unauthorized } from './errors'
import { registerGuardianPages } from './guardian-pages'
import { healthReport } from './health'
import { answerClientError, handleExpectations, settleUnreadBody } from './http-framing'
import { registerKitCheckPages } from './kit-check-pages'
import { checkKit, kitCheckGuardian, registerKitChecks } from './kit-checks'
import { vaultApiDocumentJson } from './openapi/vault-api-document'
import type { MailSender } from './outbox'
import { addGuardian, addHeir, listGuardians, listHeirs, removeGuardian, removeHeir } from './people'
import type { Principal } from './principal'
import {
  AuthFailureLimiter,
  type RateCounterKind,
  RateLimiter,
  type RateLimitSettings,
  rateCounter,
} from './rate-limit'
import { allowHeirReadsFromPages, registerRecoveryPage } from './recovery-page'
import {
  authenticatePractice,
  cancelRehearsal,
  latestRehearsal,
  markOpened,
  rehearsalTicket,
  reportRehearsal,
  startRehearsal,
} from './rehearsal'
import { cancelRelease, configureRelease, startRelease } from './release'
import { hashSecretText } from './secrets'
import { runMailTest, serviceInfo } from './service-info'
import { receiveUpload } from './upload'
import {
  assetListQuery,
  checkInBody,
  createVaultBody,
  isValidContentType,
  kitCheckBody,
  kitCheckRegistrationBody,
  parseOrThrow,
  personBody,
  rehearsalBody,
  rehearsalReportBody,
  releaseConfigBody,
  vaultSettingsBody,
} from './validation'
import {
  changeVaultSettings,
  createVault,
  deleteVault,
  listVaultViews,
  ownedVault,
  vaultView,
  vaultViewWithOwner,
} from './vaults'

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null
  }
  interface FastifyInstance {
    /** Requests whose response has not closed yet (shutdown waits for them). */
    activeRequests: () => number
  }
}

export interface HttpServerOptions {
  rateLimits?: RateLimitSettings
  /**
   * Where rate-limit windows are counted: 'database' (the rate_windows table, one limit for every instance
   * sharing the database) or 'memory' (this instance alone). Default: 'database' on PostgreSQL, 'memory'
   * on SQLite (one instance, and no write per request).
   */
  rateCounters?: RateCounterKind
  /** Largest JSON body accepted, in bytes (uploads are not bound by it). */
  bodyLimit?: number
  /** Called with every upload's promise so shutdown can wait for it to settle. */
  trackUpload?: (settled: Promise<unknown>) => void
  /** SMTP delivery, for GET /service and the mail test; without it mail counts as not configured. */
  mail?: MailSender
  /** Host names the service answers to (Host header, port ignored); unset: any. See allowed-hosts.ts. */
  allowedHosts?: readonly string[]
  /** Addresses (or CIDR ranges) of reverse proxies whose X-Forwarded-For/-Host are believed. */
  trustProxy?: readonly string[]
  /** Serve https with this certificate chain and private key (PEM) instead of plain http. */
  https?: { cert: Buffer | string; key: Buffer | string }
}

/** Who may call a route: the owner's keys (sk_human_, sk_agent_), heir tokens, practice heir tokens. */
interface Access {
  human: boolean
  agent: boolean
  heir: boolean
  practice: boolean
  pattern: RateLimitPattern
}

type Params = { id: string; pid: string; aid: string }

const AGENT_DENIED =
  'sk_agent_ keys may only read and check in; use an sk_human_ key (created by the owner) for this operation'
const UNSUPPORTED_CONTENT_TYPE =
  'unsupported Content-Type; send JSON bodies as application/json and uploads as multipart/form-data'
const HEIR_DENIED =
  'an heir access token can only read the released vault it was issued for: GET the vault, list its assets and download their content'
const PRACTICE_DENIED =
  'a practice access token (from a rehearsal e-mail) can only read the vault it was issued for, ' +
  "GET /rehearsal (its practice file) and POST /rehearsal/report; it opens none of the vault's files"
const PRACTICE_ONLY =
  'only a practice access token (hk_..., from a rehearsal e-mail) can call this; owners see the practice at GET /vault/:id/rehearsal'

export function buildHttpServer(ctx: ServiceContext, options: HttpServerOptions = {}): FastifyInstance {
  const bodyLimit = options.bodyLimit ?? 64 * 1024
  const app = Fastify({
    logger: false,
    bodyLimit,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Refusals made below the routes (node's parser, the router) are answered in the error envelope too.
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    trustProxy: options.trustProxy?.length ? [...options.trustProxy] : false,
    ...(options.https ? { https: { cert: options.https.cert, key: options.https.key } } : {}),
    // The https variant differs only in the server's type; everything used here exists on both.
  }) as unknown as FastifyInstance
  handleExpectations(app.server)
  const counters = options.rateCounters ?? (ctx.db.kind === 'postgres' ? 'database' : 'memory')
  const now = () => ctx.clock().getTime()
  const limiter = new RateLimiter(options.rateLimits, rateCounter(counters, ctx.db, 'requests', now))
  const authFailures = new AuthFailureLimiter(
    options.rateLimits,
    rateCounter(counters, ctx.db, 'auth-failures', now),
  )
  const allowedHosts = options.allowedHosts ? parseAllowedHosts(options.allowedHosts) : null
  const reads = ctx.db.readCache

  app.decorateRequest('principal', null)
  let active = 0
  app.decorate('activeRequests', () => active)
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    active++
    reply.raw.once('close', () => {
      active--
    })
    done()
  })
  if (allowedHosts) {
    app.addHook('onRequest', (request, _reply, done) => {
      if (isHostAllowed(allowedHosts, request.hostname)) return done()
      done(
        badRequest(
          `this service does not answer to the host name "${request.hostname}"; use the address its operator published (--allowed-hosts)`,
        ),
      )
    })
  }

  // Bodies: JSON for the API, multipart for uploads, form posts for the guardian pages. Anything else is a 400.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_request, text, done) => {
    const source = String(text)
    if (source.trim() === '') return done(null, undefined)
    try {
      done(null, JSON.parse(source))
    } catch (error) {
      done(badRequest(`the body is not valid JSON: ${(error as Error).message}`), undefined)
    }
  })
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit },
    // The fields reach only the pages that read them (the kit check's code); jsonBody refuses them.
    (_r, text, done) => done(null, new URLSearchParams(String(text))),
  )
  // Any other type: an empty body is simply no body (body-less POSTs from any client); content is a 400.
  app.addContentTypeParser('*', (request, _payload, done) => {
    const length = Number(request.headers['content-length'] ?? 0)
    if (length === 0 && request.headers['transfer-encoding'] === undefined) return done(null, undefined)
    done(badRequest(UNSUPPORTED_CONTENT_TYPE), undefined)
  })
  app.register(multipart)

  const meta = (request: FastifyRequest) => ({ timestamp: ctx.clock().toISOString(), requestId: request.id })
  const ok = (request: FastifyRequest, reply: FastifyReply, data: unknown, status = 200) =>
    reply.code(status).send({ data, meta: meta(request) })
  /** ok() for data serialized once and kept: the same bytes, without serializing it again per request. */
  const okSerialized = (request: FastifyRequest, reply: FastifyReply, dataJson: string) =>
    reply
      .type('application/json; charset=utf-8')
      .send(`{"data":${dataJson},"meta":${JSON.stringify(meta(request))}}`)

  function authorize(access: Access): onRequestHookHandler {
    return async (request, reply) => {
      const presented = request.headers['x-api-key']
      if (typeof presented !== 'string' || presented === '') {
        throw unauthorized(
          'the x-api-key header is missing; send your API key (sk_human_... or sk_agent_...)',
        )
      }
      reads.sync()
      // Practice tokens expire with time, so only keys and heir tokens are kept between requests.
      const found =
        (await reads.get(`key:${hashSecretText(presented)}`, async () => authenticate(ctx, presented))) ??
        (await authenticatePractice(ctx, presented))
      if (found && 'ended' in found) throw unauthorized(found.ended)
      const principal = found
      // Looked up before the failure count is consulted: a valid key is never refused for other clients'
      // failures (on loopback every local program shares the address); wrong ones past the limit get 429.
      if (!principal) {
        const refusal = await authFailures.recordFailure(request.ip)
        if (refusal) throw new ApiError(429, AuthFailureLimiter.message(refusal), refusal.retryAfterSeconds)
        throw unauthorized('the API key is not valid or has been revoked; use an active key')
      }
      const decision = await limiter.check(principal.keyId, access.pattern)
      if (!decision.allowed) {
        throw new ApiError(
          429,
          `rate limit of ${decision.limit} requests per minute reached for this kind of call; retry after ${decision.retryAfterSeconds} s`,
          decision.retryAfterSeconds,
        )
      }
      if (Number.isFinite(decision.limit)) {
        reply.header('x-ratelimit-limit', decision.limit).header('x-ratelimit-remaining', decision.remaining)
      }
      const { id } = request.params as Partial<Params>
      switch (principal.kind) {
        case 'human':
          if (!access.human) throw forbidden(PRACTICE_ONLY)
          break
        case 'agent':
          if (!access.agent) throw forbidden(access.human ? AGENT_DENIED : PRACTICE_ONLY)
          break
        case 'heir':
          if (!access.heir || id !== principal.vaultId) throw forbidden(HEIR_DENIED)
          break
        case 'practice':
          if (!access.practice || (id !== undefined && id !== principal.vaultId)) {
            throw forbidden(PRACTICE_DENIED)
          }
          break
      }
      request.principal = principal
    }
  }

  /** The account behind an owner key (human or agent). */
  const accountOf = (request: FastifyRequest) => {
    const principal = request.principal!
    if (principal.kind === 'heir') throw forbidden(HEIR_DENIED)
    if (principal.kind === 'practice') throw forbidden(PRACTICE_DENIED)
    return principal.accountId
  }
  /**
   * The vault's id after checking the caller may see it (owner account, the heir it was released to, or the
   * practice heir of its rehearsal).
   */
  const visibleVault = async (request: FastifyRequest<{ Params: Partial<Params> }>) => {
    const id = request.params.id!
    const principal = request.principal!
    if (principal.kind === 'human' || principal.kind === 'agent') {
      await ownedVault(ctx, principal.accountId, id)
    }
    return id
  }
  /** The rehearsal behind a practice token (the route admits nothing else). */
  const practiceOf = (request: FastifyRequest) => {
    const principal = request.principal!
    if (principal.kind !== 'practice') throw forbidden(PRACTICE_ONLY)
    return principal
  }
  const jsonBody = (request: FastifyRequest) => {
    if (request.isMultipart())
      throw badRequest('the body must be JSON (Content-Type: application/json), not multipart')
    if (request.body instanceof URLSearchParams) {
      throw badRequest('the body must be JSON (Content-Type: application/json), not a form')
    }
    return request.body
  }

  for (const prefix of API_PREFIXES) {
    const route = <P extends Partial<Params>>(
      method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      path: string,
      access: Access,
      handler: (request: FastifyRequest<{ Params: P }>, reply: FastifyReply) => unknown,
      routeBodyLimit?: number,
    ) => {
      app.route<{ Params: P }>({
        method,
        url: `${prefix}${path}`,
        onRequest: authorize(access),
        handler,
        ...(routeBodyLimit ? { bodyLimit: routeBodyLimit } : {}),
      })
    }
    const read: Access = { human: true, agent: true, heir: false, practice: false, pattern: 'getVault' }
    const heirRead: Access = { human: true, agent: true, heir: true, practice: true, pattern: 'getVault' }
    // A practice token opens no file of the vault: its practice file comes with GET /rehearsal.
    const heirFiles: Access = { ...heirRead, practice: false }
    const write = (pattern: RateLimitPattern): Access => ({
      human: true,
      agent: false,
      heir: false,
      practice: false,
      pattern,
    })
    const practiceOnly = (pattern: RateLimitPattern): Access => ({
      human: false,
      agent: false,
      heir: false,
      practice: true,
      pattern,
    })

    route('GET', '/service', read, async (request, reply) =>
      ok(request, reply, await serviceInfo(ctx, accountOf(request), options.mail)),
    )
    route('POST', '/service/mail-test', write('otherPost'), async (request, reply) => {
      jsonBody(request)
      return ok(request, reply, await runMailTest(ctx, accountOf(request), options.mail))
    })

    // An agent key may give itself up too: revoking is never a privilege to guard.
    route('DELETE', '/key', { ...read, pattern: 'otherPost' }, async (request, reply) => {
      const principal = request.principal!
      if (principal.kind !== 'human' && principal.kind !== 'agent') throw forbidden(HEIR_DENIED)
      await revokeOwnKey(ctx, principal.keyId)
      const revoked: KeyRevoked = { revoked: true, kind: principal.kind }
      return ok(request, reply, revoked)
    })

    route('GET', '/vault', read, async (request, reply) =>
      ok(request, reply, await listVaultViews(ctx, accountOf(request))),
    )
    route('POST', '/vault', write('otherPost'), async (request, reply) => {
      const body = parseOrThrow(createVaultBody, jsonBody(request))
      return ok(
        request,
        reply,
        await createVault(ctx, accountOf(request), body?.preset ?? 'standard', body?.name ?? null),
        201,
      )
    })
    route<{ id: string }>('GET', '/vault/:id', heirRead, async (request, reply) => {
      const vaultId = request.params.id
      const principal = request.principal!
      const found = await reads.get(`vault:${vaultId}`, async () => {
        const row = await vaultViewWithOwner(ctx, vaultId)
        return row && { accountId: row.accountId, json: JSON.stringify(row.view) }
      })
      // Another account's vault is reported as missing, as ownedVault() does.
      const owner = principal.kind === 'human' || principal.kind === 'agent' ? principal.accountId : undefined
      if (!found || (owner !== undefined && found.accountId !== owner)) {
        throw notFound(
          `vault ${vaultId} does not exist${owner !== undefined ? ' or belongs to another account' : ''}`,
        )
      }
      if (principal.kind === 'practice') await markOpened(ctx, principal.rehearsalId)
      // Who claimed is for the owner and the guardians (the circle), not for an heir's access code.
      if (owner === undefined) {
        return okSerialized(request, reply, JSON.stringify({ ...JSON.parse(found.json), claims: null }))
      }
      return okSerialized(request, reply, found.json)
    })
    route<{ id: string }>('PATCH', '/vault/:id', write('otherPost'), async (request, reply) => {
      const body = parseOrThrow(vaultSettingsBody, jsonBody(request))
      return ok(request, reply, await changeVaultSettings(ctx, accountOf(request), request.params.id, body))
    })
    route<{ id: string }>('DELETE', '/vault/:id', write('otherPost'), async (request, reply) =>
      ok(request, reply, await deleteVault(ctx, accountOf(request), request.params.id)),
    )

    route<{ id: string }>('GET', '/vault/:id/rehearsal', read, async (request, reply) =>
      ok(request, reply, await latestRehearsal(ctx, await visibleVault(request))),
    )
    route<{ id: string }>(
      'POST',
      '/vault/:id/rehearsal',
      write('otherPost'),
      async (request, reply) => {
        const body = parseOrThrow(rehearsalBody, jsonBody(request))
        return ok(request, reply, await startRehearsal(ctx, accountOf(request), request.params.id, body), 201)
      },
      // The practice file travels in the JSON body, as base64, beside the practice kits.
      Math.max(bodyLimit, Math.ceil((EXTENSION_LIMITS.rehearsalSampleMaxBytes * 4) / 3) + 64 * 1024),
    )
    route<{ id: string }>('DELETE', '/vault/:id/rehearsal', write('otherPost'), async (request, reply) =>
      ok(request, reply, await cancelRehearsal(ctx, accountOf(request), request.params.id)),
    )
    route('GET', '/rehearsal', practiceOnly('getVault'), async (request, reply) =>
      ok(request, reply, await rehearsalTicket(ctx, practiceOf(request).rehearsalId)),
    )
    route('POST', '/rehearsal/report', practiceOnly('otherPost'), async (request, reply) => {
      const body = parseOrThrow(rehearsalReportBody, jsonBody(request))
      return ok(request, reply, await reportRehearsal(ctx, practiceOf(request).rehearsalId, body.proof))
    })

    route<{ id: string }>(
      'POST',
      '/vault/:id/release/config',
      write('postRelease'),
      async (request, reply) => {
        const body = parseOrThrow(releaseConfigBody, jsonBody(request))
        return ok(request, reply, await configureRelease(ctx, accountOf(request), request.params.id, body))
      },
    )
    route<{ id: string }>(
      'POST',
      '/vault/:id/release/checkin',
      { human: true, agent: true, heir: false, practice: false, pattern: 'postRelease' },
      async (request, reply) => {
        const body = parseOrThrow(checkInBody, jsonBody(request))
        return ok(
          request,
          reply,
          await checkIn(ctx, accountOf(request), request.params.id, body?.note ?? null),
        )
      },
    )
    route<{ id: string }>('POST', '/vault/:id/release/cancel', write('postRelease'), async (request, reply) =>
      ok(request, reply, await cancelRelease(ctx, accountOf(request), request.params.id)),
    )
    route<{ id: string }>(
      'POST',
      '/vault/:id/release/start',
      write('postRelease'),
      async (request, reply) => {
        const accountId = accountOf(request)
        await startRelease(ctx, request.params.id, { accountId, reason: 'started by the owner' })
        return ok(request, reply, await vaultView(ctx, request.params.id))
      },
    )

    // Guardians and heirs: the same three routes each.
    const peopleRoutes = [
      {
        path: 'guardian',
        pattern: 'postGuardian',
        list: listGuardians,
        add: addGuardian,
        remove: removeGuardian,
      },
      { path: 'heir', pattern: 'postHeir', list: listHeirs, add: addHeir, remove: removeHeir },
    ] as const
    for (const people of peopleRoutes) {
      route<{ id: string }>('GET', `/vault/:id/${people.path}`, read, async (request, reply) =>
        ok(request, reply, await people.list(ctx, await visibleVault(request))),
      )
      route<{ id: string }>(
        'POST',
        `/vault/:id/${people.path}`,
        write(people.pattern),
        async (request, reply) => {
          const body = parseOrThrow(personBody, jsonBody(request))
          return ok(request, reply, await people.add(ctx, accountOf(request), request.params.id, body), 201)
        },
      )
      route<{ id: string; pid: string }>(
        'DELETE',
        `/vault/:id/${people.path}/:pid`,
        write('otherPost'),
        async (request, reply) =>
          ok(
            request,
            reply,
            await people.remove(ctx, accountOf(request), request.params.id, request.params.pid),
          ),
      )
    }

    // Extension kit-check: the owner registers a split's code hashes; a guardian token checks a code.
    route<{ id: string }>('PUT', '/vault/:id/kit-checks', write('otherPost'), async (request, reply) => {
      const body = parseOrThrow(kitCheckRegistrationBody, jsonBody(request))
      return ok(request, reply, await registerKitChecks(ctx, accountOf(request), request.params.id, body))
    })
    // No API key: the guardian's token (from their e-mail links) is the credential, so a token matching
    // nothing counts as a failed authentication, and each token is held to otherPost's rate.
    app.post(`${prefix}/kit-check`, async (request, reply) => {
      const body = parseOrThrow(kitCheckBody, jsonBody(request))
      reads.sync()
      const guardian = await kitCheckGuardian(ctx, body.guardianToken)
      if (!guardian) {
        const refusal = await authFailures.recordFailure(request.ip)
        if (refusal) throw new ApiError(429, AuthFailureLimiter.message(refusal), refusal.retryAfterSeconds)
        throw notFound(
          'this guardian link is not valid (any more): copy the whole link from your guardian e-mail, or ask the owner whether they removed you as a guardian',
        )
      }
      const decision = await limiter.check(`kit-check:${hashSecretText(body.guardianToken)}`, 'otherPost')
      if (!decision.allowed) {
        throw new ApiError(
          429,
          `too many kit checks with this guardian link (${decision.limit} a minute); retry after ${decision.retryAfterSeconds} s`,
          decision.retryAfterSeconds,
        )
      }
      return ok(request, reply, await checkKit(ctx, guardian, body.code))
    })

    route<{ id: string }>('GET', '/vault/:id/asset', heirFiles, async (request, reply) => {
      const vaultId = await visibleVault(request)
      const query = parseOrThrow(assetListQuery, request.query ?? {})
      const { assets, total } = await listAssets(ctx, vaultId, query)
      return reply.send({
        data: assets,
        meta: { ...meta(request), total, limit: query.limit, offset: query.offset },
      })
    })
    route<{ id: string }>('POST', '/vault/:id/asset', write('postAsset'), async (request, reply) => {
      const upload = receiveUpload(ctx, request, accountOf(request), request.params.id)
      options.trackUpload?.(upload.catch(() => undefined))
      return ok(request, reply, await upload, 201)
    })
    route<{ id: string; aid: string }>(
      'DELETE',
      '/vault/:id/asset/:aid',
      write('otherPost'),
      async (request, reply) =>
        ok(request, reply, await deleteAsset(ctx, accountOf(request), request.params.id, request.params.aid)),
    )
    route<{ id: string; aid: string }>(
      'GET',
      '/vault/:id/asset/:aid/content',
      heirFiles,
      async (request, reply) => {
        const asset = await findAsset(ctx, await visibleVault(request), request.params.aid)
        const blob = { sha256Hex: asset.sha256, storageTxId: asset.storage_tx_id }
        const size = await ctx.blobs.sizeOf(blob)
        if (size === null)
          throw new Error(`blob ${asset.sha256} of asset ${asset.id} is missing from the blob store`)
        // One byte range resumes an interrupted download; anything else gets the whole content.
        const range = parseByteRange(request.headers.range, size)
        // Opened before any header is set: a store that cannot serve it (Arweave unreachable) is then
        // answered in the plain JSON error envelope, not under a binary content type.
        const content = await ctx.blobs.read(blob, range ?? undefined)
        reply
          .header('content-type', 'application/octet-stream')
          .header('accept-ranges', 'bytes')
          .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(asset.filename)}`)
          // Assets stored before contentType was checked may hold characters a header cannot carry.
          .header(
            'x-asset-content-type',
            isValidContentType(asset.content_type) ? asset.content_type : FALLBACK_CONTENT_TYPE,
          )
          .header('x-storage-tx-id', asset.storage_tx_id)
        if (range) {
          return reply
            .code(206)
            .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
            .header('content-length', range.end - range.start + 1)
            .send(content)
        }
        return reply.header('content-length', size).send(content)
      },
    )
  }

  // v1.0 endpoints v2.0 removed: 410 naming the spec's replacement, so an old client learns what to call
  // instead of meeting a bare 404. No key is needed to learn that an endpoint is gone.
  for (const prefix of API_PREFIXES) {
    for (const removed of REMOVED_V1_ENDPOINTS) {
      const urls = [`${prefix}${removed.path}`, ...(removed.below ? [`${prefix}${removed.path}/*`] : [])]
      for (const url of urls) {
        for (const method of removed.methods) {
          const message = `${method} ${prefix}${removed.path}${removed.below ? '/*' : ''} was removed in version 2.0 of the Vault API; replacement: ${removed.replacement.replaceAll('{prefix}', prefix)}. Update the client to v2.0 (described at ${prefix}/openapi.json)`
          app.route({ method, url, handler: (request, reply) => sendError(request, reply, 410, message) })
        }
      }
    }
  }

  // The interface's description (OpenAPI 3.1): public like the spec it describes, so tools fetch it without a key.
  for (const prefix of API_PREFIXES) {
    app.get(`${prefix}/openapi.json`, (_request, reply) =>
      reply.type('application/json; charset=utf-8').send(vaultApiDocumentJson()),
    )
  }

  // Outside /api: not part of the spec, and monitors call it without a key.
  app.get('/healthz', async (_request, reply) => {
    const report = await healthReport(ctx, options.mail)
    return reply
      .code(report.status === 'ok' ? 200 : 503)
      .header('cache-control', 'no-store')
      .send(report)
  })

  // The heir's recovery page, and the CORS a copy of it opened from file:// needs (heir reads only).
  registerRecoveryPage(app, ctx)
  allowHeirReadsFromPages(app)
  registerGuardianPages(app, ctx, authFailures)
  registerCheckInPages(app, ctx, authFailures)
  registerKitCheckPages(app, ctx, authFailures, limiter)

  app.setNotFoundHandler((request, reply) => {
    sendError(
      request,
      reply,
      404,
      `no route for ${request.method} ${request.url.split('?')[0]}; the API is under /api and /v1`,
    )
  })

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ApiError) {
      if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter))
      return sendError(request, reply, error.status, error.message)
    }
    if (error instanceof BlobStoreError) {
      console.error(`[vault-service] request ${request.id}: the blob store failed: ${error.message}`)
      reply.header('retry-after', '300')
      return sendError(
        request,
        reply,
        503,
        `the service cannot reach its file storage just now; nothing was changed and no credits were used: retry in a few minutes (request ${request.id})`,
      )
    }
    if (request.raw.destroyed || (error as { code?: string }).code === 'ECONNRESET') {
      // The client went away mid-request; there is nobody to answer and nothing went wrong here.
      return sendError(
        request,
        reply,
        400,
        'the request was interrupted before it was complete; nothing was stored',
      )
    }
    const known = translateFrameworkError(
      error as { code?: string; statusCode?: number; message: string },
      bodyLimit,
    )
    if (known) return sendError(request, reply, known.status, known.message)
    console.error(`[vault-service] request ${request.id} ${request.method} ${request.url} failed:`, error)
    return sendError(request, reply, 500, `internal error; retry after a short delay (request ${request.id})`)
  })

  return app
}

/** A single satisfiable `bytes=` range (inclusive end), or null to send everything. */
function parseByteRange(header: string | undefined, size: number): { start: number; end: number } | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null
  if (!match || size === 0) return null
  const [, from, to] = match
  let start: number
  let end: number
  if (from === '') {
    if (to === '') return null
    start = Math.max(0, size - Number(to))
    end = size - 1
  } else {
    start = Number(from)
    end = to === '' ? size - 1 : Math.min(Number(to), size - 1)
  }
  if (start > end || start >= size) return null
  return { start, end }
}

function sendError(request: FastifyRequest, reply: FastifyReply, status: ErrorStatus, message: string) {
  // A body not read yet (a refused upload) is discarded, or the connection closed, so the client reads this
  // answer. fastify marks body-parser refusals `connection: close`; discarding keeps the connection in step,
  // so the header says what the client asked for (removing it would leave a closing connection unannounced).
  if (settleUnreadBody(request.raw, reply.raw)) reply.header('connection', 'close')
  else if (reply.hasHeader('connection')) {
    reply.header('connection', reply.raw.shouldKeepAlive ? 'keep-alive' : 'close')
  }
  // Framework refusals come before the onRequest hook that sets it.
  if (!reply.hasHeader('x-request-id')) reply.header('x-request-id', request.id)
  return reply.code(status).send(errorEnvelope(status, message))
}

/** Longest path segment the router matches; ids and tokens are far shorter. */
const MAX_PARAM_LENGTH = 100

/** fastify's frameworkErrors: the router refused the URL before any route or hook ran. */
function answerFrameworkError(error: { code?: string }, request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split('?')[0]!
  switch (error.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return sendError(
        request,
        reply,
        414,
        `a path segment is longer than ${MAX_PARAM_LENGTH} characters; no identifier is that long, check the URL`,
      )
    case 'FST_ERR_BAD_URL':
      return sendError(
        request,
        reply,
        400,
        `the URL path ${JSON.stringify(path.slice(0, 200))} holds an invalid percent-encoding; encode each path segment with encodeURIComponent`,
      )
  }
  console.error(`[vault-service] request ${request.id} ${request.method} ${path} failed in routing:`, error)
  return sendError(request, reply, 500, `internal error; retry after a short delay (request ${request.id})`)
}

function translateFrameworkError(
  error: { code?: string; statusCode?: number; message: string },
  bodyLimit: number,
): { status: ErrorStatus; message: string } | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 400, message: `the request body is larger than ${bodyLimit} bytes` }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        status: 400,
        message:
          'unsupported Content-Type; send JSON bodies as application/json and uploads as multipart/form-data',
      }
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, message: 'the Content-Length header does not match the body' }
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, message: 'the JSON body is empty' }
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode === 404 ? 404 : 400, message: error.message }
  }
  return null
}
