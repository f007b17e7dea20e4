// The heir rehearsal (extension): the owner starts, reads and cancels it; the practice token reads its
// practice file and reports the proof.

import { EXTENSION_LIMITS } from '../../shared/api'
import {
  cancelRehearsal,
  latestRehearsal,
  rehearsalTicket,
  reportRehearsal,
  startRehearsal,
} from '../rehearsal'
import { parseOrThrow, rehearsalBody, rehearsalReportBody } from '../validation'
import {
  type ApiRoutes,
  accountOf,
  jsonBody,
  ok,
  practiceOf,
  practiceOnly,
  read,
  visibleVault,
  write,
} from './api-route'

export function registerRehearsalRoutes({ ctx, route, bodyLimit }: ApiRoutes): void {
  route<{ id: string }>('GET', '/vault/:id/rehearsal', read, async (request, reply) =>
    ok(ctx, request, reply, await latestRehearsal(ctx, await visibleVault(ctx, request))),
  )
  route<{ id: string }>(
    'POST',
    '/vault/:id/rehearsal',
    write('otherPost'),
    async (request, reply) => {
      const body = parseOrThrow(rehearsalBody, jsonBody(request))
      return ok(
        ctx,
        request,
        reply,
        await startRehearsal(ctx, accountOf(request), request.params.id, body),
        201,
      )
    },
    // The practice file travels in the JSON body, as base64, beside the practice kits.
    Math.max(bodyLimit, Math.ceil((EXTENSION_LIMITS.rehearsalSampleMaxBytes * 4) / 3) + 64 * 1024),
  )
  route<{ id: string }>('DELETE', '/vault/:id/rehearsal', write('otherPost'), async (request, reply) =>
    ok(ctx, request, reply, await cancelRehearsal(ctx, accountOf(request), request.params.id)),
  )
  route('GET', '/rehearsal', practiceOnly('getVault'), async (request, reply) =>
    ok(ctx, request, reply, await rehearsalTicket(ctx, practiceOf(request).rehearsalId)),
  )
  route('POST', '/rehearsal/report', practiceOnly('otherPost'), async (request, reply) => {
    const body = parseOrThrow(rehearsalReportBody, jsonBody(request))
    return ok(ctx, request, reply, await reportRehearsal(ctx, practiceOf(request).rehearsalId, body.proof))
  })
}
