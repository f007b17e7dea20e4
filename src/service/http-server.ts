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
import { API_PREFIXES, type ErrorStatus } from '../shared/api'
import { authenticate } from './accounts'
import { isHostAllowed, parseAllowedHosts } from './allowed-hosts'
import { BlobStoreError } from './blob-store'
import { registerCheckInPages } from './check-in-pages'
import type { ServiceContext } from './context'
import { ApiError, badRequest, forbidden, unauthorized } from './errors'
import { registerGuardianPages } from './guardian-pages'
import { answerClientError, handleExpectations } from './http-framing'
import type { HttpServerOptions } from './http-server-options'
import { registerKitCheckPages } from './kit-check-pages'
import type { Principal } from './principal'
import { AuthFailureLimiter, RateLimiter, rateCounter } from './rate-limit'
import { allowHeirReadsFromPages, registerRecoveryPage } from './recovery-page'
import { authenticatePractice } from './rehearsal'
import { registerAccountRoutes } from './routes/account-routes'
import {
  type Access,
  AGENT_DENIED,
  type ApiRoutes,
  HEIR_DENIED,
  type Params,
  PRACTICE_DENIED,
  PRACTICE_ONLY,
  sendError,
  type VaultRead,
} from './routes/api-route'
import { registerAssetRoutes } from './routes/asset-routes'
import { registerKitCheckRoutes } from './routes/kit-check-routes'
import { registerPeopleRoutes } from './routes/people-routes'
import { registerPublicRoutes } from './routes/public-routes'
import { registerRehearsalRoutes } from './routes/rehearsal-routes'
import { registerReleaseRoutes } from './routes/release-routes'
import { registerVaultRoutes } from './routes/vault-routes'
import { HEIR_TOKEN_PREFIX, hashSecretText } from './secrets'
import { ownerKeyWithVaultView } from './vaults'

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null
    /** The vault of GET /vault/:id when authorization read it in the same statement as the key, else null. */
    vaultRead: VaultRead | null
  }
  interface FastifyInstance {
    /** Requests whose response has not closed yet (shutdown waits for them). */
    activeRequests: () => number
  }
}

export type { HttpServerOptions } from './http-server-options'

const UNSUPPORTED_CONTENT_TYPE =
  'unsupported Content-Type; send JSON bodies as application/json and uploads as multipart/form-data'

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
  app.decorateRequest('vaultRead', null)
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

  /**
   * PostgreSQL, an owner key on GET /vault/:id: the key and the vault in one round trip, kept together in the
   * read cache (none at all when it holds them), the vault kept on the request for the route (SQLite serves
   * both from its read cache, so it looks them up as before).
   */
  async function ownerKeyAlongsideVault(request: FastifyRequest, presented: string) {
    const { id } = request.params as Partial<Params>
    const read = await reads.get(`key-vault:${hashSecretText(presented)}:${id}`, async () => {
      const { principal, vault } = await ownerKeyWithVaultView(ctx, presented, id!)
      // Undefined (never kept) for an unknown or revoked key: made-up keys must not fill the cache.
      return principal
        ? { principal, found: vault && { accountId: vault.accountId, json: JSON.stringify(vault.view) } }
        : undefined
    })
    if (!read) return null
    request.vaultRead = { found: read.found }
    return read.principal
  }

  function authorize(access: Access): onRequestHookHandler {
    return async (request, reply) => {
      const presented = request.headers['x-api-key']
      if (typeof presented !== 'string' || presented === '') {
        throw unauthorized(
          'the x-api-key header is missing; send your API key (sk_human_... or sk_agent_...)',
        )
      }
      reads.sync()
      const found =
        access.withVault && ctx.db.kind === 'postgres' && !presented.startsWith(HEIR_TOKEN_PREFIX)
          ? await ownerKeyAlongsideVault(request, presented)
          : // Practice tokens expire with time, so only keys and heir tokens are kept between requests.
            ((await reads.get(`key:${hashSecretText(presented)}`, async () =>
              authenticate(ctx, presented),
            )) ?? (await authenticatePractice(ctx, presented)))
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

  // The spec's routes, once under each prefix, each module behind the authorization hook above.
  for (const prefix of API_PREFIXES) {
    const routes: ApiRoutes = {
      ctx,
      options,
      prefix,
      bodyLimit,
      limiter,
      authFailures,
      reads,
      route: (method, path, access, handler, routeBodyLimit) => {
        app.route({
          method,
          url: `${prefix}${path}`,
          onRequest: authorize(access),
          handler: handler as Parameters<typeof app.route>[0]['handler'],
          ...(routeBodyLimit ? { bodyLimit: routeBodyLimit } : {}),
        })
      },
      post: (url, handler) => {
        app.post(url, handler)
      },
    }
    registerAccountRoutes(routes)
    registerVaultRoutes(routes)
    registerRehearsalRoutes(routes)
    registerReleaseRoutes(routes)
    registerPeopleRoutes(routes)
    registerKitCheckRoutes(routes)
    registerAssetRoutes(routes)
  }
  registerPublicRoutes(app, ctx, options)

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
