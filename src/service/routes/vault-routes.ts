// The vaults themselves: list and create, read (kept serialized in the read cache), settings, delete.

import { notFound } from '../errors'
import { markOpened } from '../rehearsal'
import { createVaultBody, parseOrThrow, vaultSettingsBody } from '../validation'
import { changeVaultSettings, createVault, deleteVault, listVaultViews, vaultViewWithOwner } from '../vaults'
import { type ApiRoutes, accountOf, heirRead, jsonBody, ok, okSerialized, read, write } from './api-route'

export function registerVaultRoutes({ ctx, route, reads }: ApiRoutes): void {
  route('GET', '/vault', read, async (request, reply) =>
    ok(ctx, request, reply, await listVaultViews(ctx, accountOf(request))),
  )
  route('POST', '/vault', write('otherPost'), async (request, reply) => {
    const body = parseOrThrow(createVaultBody, jsonBody(request))
    return ok(
      ctx,
      request,
      reply,
      await createVault(ctx, accountOf(request), body?.preset ?? 'standard', body?.name ?? null),
      201,
    )
  })
  route<{ id: string }>('GET', '/vault/:id', { ...heirRead, withVault: true }, async (request, reply) => {
    const vaultId = request.params.id
    const principal = request.principal!
    const found = request.vaultRead
      ? request.vaultRead.found
      : await reads.get(`vault:${vaultId}`, async () => {
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
      return okSerialized(ctx, request, reply, JSON.stringify({ ...JSON.parse(found.json), claims: null }))
    }
    return okSerialized(ctx, request, reply, found.json)
  })
  route<{ id: string }>('PATCH', '/vault/:id', write('otherPost'), async (request, reply) => {
    const body = parseOrThrow(vaultSettingsBody, jsonBody(request))
    return ok(
      ctx,
      request,
      reply,
      await changeVaultSettings(ctx, accountOf(request), request.params.id, body),
    )
  })
  route<{ id: string }>('DELETE', '/vault/:id', write('otherPost'), async (request, reply) =>
    ok(ctx, request, reply, await deleteVault(ctx, accountOf(request), request.params.id)),
  )
}
