// The caller's own account: what the service offers it (GET /service), its mail test, and giving up its key.

import type { KeyRevoked } from '../../shared/api'
import { revokeOwnKey } from '../accounts'
import { forbidden } from '../errors'
import { runMailTest, serviceInfo } from '../service-info'
import { type ApiRoutes, accountOf, HEIR_DENIED, jsonBody, ok, read, write } from './api-route'

export function registerAccountRoutes({ ctx, route, options }: ApiRoutes): void {
  route('GET', '/service', read, async (request, reply) =>
    ok(ctx, request, reply, await serviceInfo(ctx, accountOf(request), options.mail)),
  )
  route('POST', '/service/mail-test', write('otherPost'), async (request, reply) => {
    jsonBody(request)
    return ok(ctx, request, reply, await runMailTest(ctx, accountOf(request), options.mail))
  })

  // An agent key may give itself up too: revoking is never a privilege to guard.
  route('DELETE', '/key', { ...read, pattern: 'otherPost' }, async (request, reply) => {
    const principal = request.principal!
    if (principal.kind !== 'human' && principal.kind !== 'agent') throw forbidden(HEIR_DENIED)
    await revokeOwnKey(ctx, principal.keyId)
    const revoked: KeyRevoked = { revoked: true, kind: principal.kind }
    return ok(ctx, request, reply, revoked)
  })
}
