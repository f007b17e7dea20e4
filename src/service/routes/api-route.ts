// What every route module under /api and /v1 is given: the route registrar (authorization and rate limit
// attached), the response envelope, and the checks a handler makes on the caller.

import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ErrorStatus, RateLimitPattern } from '../../shared/api'
import type { ServiceContext } from '../context'
import { badRequest, errorEnvelope, forbidden } from '../errors'
import { settleUnreadBody } from '../http-framing'
import type { HttpServerOptions } from '../http-server-options'
import type { AuthFailureLimiter, RateLimiter } from '../rate-limit'
import type { ReadCacheLike } from '../sql-store'
import { ownedVault } from '../vaults'

/** Who may call a route: the owner's keys (sk_human_, sk_agent_), heir tokens, practice heir tokens. */
export interface Access {
  human: boolean
  agent: boolean
  heir: boolean
  practice: boolean
  pattern: RateLimitPattern
  /** The route reads the vault :id: on PostgreSQL, authorization reads it with the key (request.vaultRead). */
  withVault?: boolean
}

/** A vault read during authorization: its owner and view as JSON, or undefined when it does not exist. */
export interface VaultRead {
  found: { accountId: string; json: string } | undefined
}

export type Params = { id: string; pid: string; aid: string }

export type RouteHandler<P> = (request: FastifyRequest<{ Params: P }>, reply: FastifyReply) => unknown

/** Registers one route under the current prefix, behind the authorization hook for `access`. */
export type RegisterRoute = <P extends Partial<Params>>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  access: Access,
  handler: RouteHandler<P>,
  routeBodyLimit?: number,
) => void

export interface ApiRoutes {
  ctx: ServiceContext
  options: HttpServerOptions
  /** '/api' or '/v1': every module registers its routes once per prefix. */
  prefix: string
  bodyLimit: number
  route: RegisterRoute
  limiter: RateLimiter
  authFailures: AuthFailureLimiter
  reads: ReadCacheLike
  /** Unregistered routes (no API key) are added through the app itself. */
  post: (url: string, handler: (request: FastifyRequest, reply: FastifyReply) => unknown) => void
}

export const AGENT_DENIED =
  'sk_agent_ keys may only read and check in; use an sk_human_ key (created by the owner) for this operation'
export const HEIR_DENIED =
  'an heir access token can only read the released vault it was issued for: GET the vault, list its assets and download their content'
export const PRACTICE_DENIED =
  'a practice access token (from a rehearsal e-mail) can only read the vault it was issued for, ' +
  "GET /rehearsal (its practice file) and POST /rehearsal/report; it opens none of the vault's files"
export const PRACTICE_ONLY =
  'only a practice access token (hk_..., from a rehearsal e-mail) can call this; owners see the practice at GET /vault/:id/rehearsal'

export const read: Access = { human: true, agent: true, heir: false, practice: false, pattern: 'getVault' }
export const heirRead: Access = { human: true, agent: true, heir: true, practice: true, pattern: 'getVault' }
// A practice token opens no file of the vault: its practice file comes with GET /rehearsal.
export const heirFiles: Access = { ...heirRead, practice: false }
export const write = (pattern: RateLimitPattern): Access => ({
  human: true,
  agent: false,
  heir: false,
  practice: false,
  pattern,
})
export const practiceOnly = (pattern: RateLimitPattern): Access => ({
  human: false,
  agent: false,
  heir: false,
  practice: true,
  pattern,
})

const meta = (ctx: ServiceContext, request: FastifyRequest) => ({
  timestamp: ctx.clock().toISOString(),
  requestId: request.id,
})

/** The spec's success envelope: { data, meta }. */
export const ok = (
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  data: unknown,
  status = 200,
) => reply.code(status).send({ data, meta: meta(ctx, request) })

/** A list's envelope: meta also says the total and the page asked for. */
export const okPage = (
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  data: unknown,
  page: { total: number; limit: number; offset: number },
) => reply.send({ data, meta: { ...meta(ctx, request), ...page } })

/** ok() for data serialized once and kept: the same bytes, without serializing it again per request. */
export const okSerialized = (
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  dataJson: string,
) =>
  reply
    .type('application/json; charset=utf-8')
    .send(`{"data":${dataJson},"meta":${JSON.stringify(meta(ctx, request))}}`)

/** The account behind an owner key (human or agent). */
export function accountOf(request: FastifyRequest): string {
  const principal = request.principal!
  if (principal.kind === 'heir') throw forbidden(HEIR_DENIED)
  if (principal.kind === 'practice') throw forbidden(PRACTICE_DENIED)
  return principal.accountId
}

/**
 * The vault's id after checking the caller may see it (owner account, the heir it was released to, or the
 * practice heir of its rehearsal).
 */
export async function visibleVault(
  ctx: ServiceContext,
  request: FastifyRequest<{ Params: Partial<Params> }>,
): Promise<string> {
  const id = request.params.id!
  const principal = request.principal!
  if (principal.kind === 'human' || principal.kind === 'agent') {
    await ownedVault(ctx, principal.accountId, id)
  }
  return id
}

/** The rehearsal behind a practice token (the route admits nothing else). */
export function practiceOf(request: FastifyRequest) {
  const principal = request.principal!
  if (principal.kind !== 'practice') throw forbidden(PRACTICE_ONLY)
  return principal
}

export function jsonBody(request: FastifyRequest): unknown {
  if (request.isMultipart())
    throw badRequest('the body must be JSON (Content-Type: application/json), not multipart')
  if (request.body instanceof URLSearchParams) {
    throw badRequest('the body must be JSON (Content-Type: application/json), not a form')
  }
  return request.body
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: ErrorStatus,
  message: string,
) {
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
