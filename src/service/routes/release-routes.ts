// The release: its configuration, the owner's check-in, cancelling it and starting it by hand.

import { checkIn } from '../check-in'
import { cancelRelease, configureRelease, startRelease } from '../release'
import { checkInBody, parseOrThrow, releaseConfigBody } from '../validation'
import { vaultView } from '../vaults'
import { type ApiRoutes, accountOf, jsonBody, ok, write } from './api-route'

export function registerReleaseRoutes({ ctx, route }: ApiRoutes): void {
  route<{ id: string }>('POST', '/vault/:id/release/config', write('postRelease'), async (request, reply) => {
    const body = parseOrThrow(releaseConfigBody, jsonBody(request))
    return ok(ctx, request, reply, await configureRelease(ctx, accountOf(request), request.params.id, body))
  })
  route<{ id: string }>(
    'POST',
    '/vault/:id/release/checkin',
    { human: true, agent: true, heir: false, practice: false, pattern: 'postRelease' },
    async (request, reply) => {
      const body = parseOrThrow(checkInBody, jsonBody(request))
      return ok(
        ctx,
        request,
        reply,
        await checkIn(ctx, accountOf(request), request.params.id, body?.note ?? null),
      )
    },
  )
  route<{ id: string }>('POST', '/vault/:id/release/cancel', write('postRelease'), async (request, reply) =>
    ok(ctx, request, reply, await cancelRelease(ctx, accountOf(request), request.params.id)),
  )
  route<{ id: string }>('POST', '/vault/:id/release/start', write('postRelease'), async (request, reply) => {
    const accountId = accountOf(request)
    await startRelease(ctx, request.params.id, { accountId, reason: 'started by the owner' })
    return ok(ctx, request, reply, await vaultView(ctx, request.params.id))
  })
}
