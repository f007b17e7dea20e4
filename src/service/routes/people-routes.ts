// Guardians and heirs: the same three routes each (list, add, remove).

import { addGuardian, addHeir, listGuardians, listHeirs, removeGuardian, removeHeir } from '../people'
import { parseOrThrow, personBody } from '../validation'
import { type ApiRoutes, accountOf, jsonBody, ok, read, visibleVault, write } from './api-route'

const PEOPLE = [
  {
    path: 'guardian',
    pattern: 'postGuardian',
    list: listGuardians,
    add: addGuardian,
    remove: removeGuardian,
  },
  { path: 'heir', pattern: 'postHeir', list: listHeirs, add: addHeir, remove: removeHeir },
] as const

export function registerPeopleRoutes({ ctx, route }: ApiRoutes): void {
  for (const people of PEOPLE) {
    route<{ id: string }>('GET', `/vault/:id/${people.path}`, read, async (request, reply) =>
      ok(ctx, request, reply, await people.list(ctx, await visibleVault(ctx, request))),
    )
    route<{ id: string }>(
      'POST',
      `/vault/:id/${people.path}`,
      write(people.pattern),
      async (request, reply) => {
        const body = parseOrThrow(personBody, jsonBody(request))
        return ok(
          ctx,
          request,
          reply,
          await people.add(ctx, accountOf(request), request.params.id, body),
          201,
        )
      },
    )
    route<{ id: string; pid: string }>(
      'DELETE',
      `/vault/:id/${people.path}/:pid`,
      write('otherPost'),
      async (request, reply) =>
        ok(
          ctx,
          request,
          reply,
          await people.remove(ctx, accountOf(request), request.params.id, request.params.pid),
        ),
    )
  }
}
