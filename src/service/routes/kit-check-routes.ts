// Extension kit-check: the owner registers a split's code hashes; a guardian token checks a code.

import { ApiError, notFound } from '../errors'
import { checkKit, kitCheckGuardian, registerKitChecks } from '../kit-checks'
import { AuthFailureLimiter } from '../rate-limit'
import { hashSecretText } from '../secrets'
import { kitCheckBody, kitCheckRegistrationBody, parseOrThrow } from '../validation'
import { type ApiRoutes, accountOf, jsonBody, ok, write } from './api-route'

export function registerKitCheckRoutes({
  ctx,
  route,
  post,
  prefix,
  reads,
  limiter,
  authFailures,
}: ApiRoutes): void {
  route<{ id: string }>('PUT', '/vault/:id/kit-checks', write('otherPost'), async (request, reply) => {
    const body = parseOrThrow(kitCheckRegistrationBody, jsonBody(request))
    return ok(ctx, request, reply, await registerKitChecks(ctx, accountOf(request), request.params.id, body))
  })
  // No API key: the guardian's token (from their e-mail links) is the credential, so a token matching
  // nothing counts as a failed authentication, and each token is held to otherPost's rate.
  post(`${prefix}/kit-check`, async (request, reply) => {
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
    return ok(ctx, request, reply, await checkKit(ctx, guardian, body.code))
  })
}
