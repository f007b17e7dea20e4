// The v1.0 endpoints v2.0 removed answer 410 GONE in the error envelope, naming the spec's replacement
// (vault-api-v2, Versioning), under both prefixes; a v1.0 client learns what to call instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_PREFIXES } from '../../src/shared/api'
import { call, startTestService, type TestService } from './harness'

let t: TestService
beforeAll(async () => {
  t = await startTestService()
})
afterAll(async () => {
  await t.stop()
})

/** Each removed endpoint as the spec lists it, a request that reaches it, and the replacement it names. */
const cases = (prefix: string, vaultId: string) => [
  { method: 'POST', path: `/vault/${vaultId}/lock`, replacement: 'replacement: none: states simplified' },
  { method: 'POST', path: `/vault/${vaultId}/unlock`, replacement: 'replacement: none: states simplified' },
  {
    method: 'POST',
    path: `/vault/${vaultId}/release/contest`,
    replacement: `replacement: POST ${prefix}/vault/:id/release/cancel`,
  },
  ...['GET', 'POST', 'PATCH', 'DELETE'].flatMap((method) => [
    {
      method,
      path: `/vault/${vaultId}/protection`,
      replacement: `replacement: merged into the guardian and heir endpoints (${prefix}/vault/:id/guardian, ${prefix}/vault/:id/heir)`,
    },
    {
      method,
      path: `/vault/${vaultId}/protection/guardians/g1`,
      replacement: 'replacement: merged into the guardian and heir endpoints',
    },
    {
      method,
      path: `/vault/${vaultId}/succession`,
      replacement: 'replacement: merged into the guardian and heir endpoints',
    },
    {
      method,
      path: `/vault/${vaultId}/succession/plan`,
      replacement: 'replacement: merged into the guardian and heir endpoints',
    },
    {
      method,
      path: `/vault/${vaultId}/verification`,
      replacement: 'replacement: none: verification is automatic',
    },
    { method, path: `/vault/${vaultId}/certificate`, replacement: 'replacement: none: removed' },
  ]),
  { method: 'GET', path: `/verify/${'ab'.repeat(32)}`, replacement: 'replacement: none: removed' },
]

describe('v1.0 endpoints removed in v2.0', () => {
  for (const prefix of API_PREFIXES) {
    it(`answer 410 GONE in the error envelope naming the replacement under ${prefix}, with or without a key`, async () => {
      for (const { method, path, replacement } of cases(prefix, t.owner.vaultId)) {
        for (const key of [t.owner.apiKey, null]) {
          const reply = await call(t.url, method, `${prefix}${path}`, { key })
          expect(reply.status, `${method} ${prefix}${path}: ${JSON.stringify(reply.body)}`).toBe(410)
          expect(reply.body).toEqual({
            error: { code: 'GONE', message: expect.stringContaining(replacement), status: 410 },
          })
          expect(reply.body.error.message).toContain('removed in version 2.0 of the Vault API')
          expect(reply.body.error.message).toContain(`${prefix}/openapi.json`)
        }
      }
    })
  }

  it('the exact body of one: what was removed, its replacement, and what to do', async () => {
    const reply = await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/release/contest`)
    expect(reply.body).toEqual({
      error: {
        code: 'GONE',
        message:
          'POST /api/vault/:id/release/contest was removed in version 2.0 of the Vault API; replacement: POST /api/vault/:id/release/cancel. Update the client to v2.0 (described at /api/openapi.json)',
        status: 410,
      },
    })
  })

  it('leaves the v2.0 endpoints next to them as they were', async () => {
    // release/cancel without a release under way is a 409, not a 410; an unknown sibling is still a 404.
    const cancel = await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/release/cancel`, {
      key: t.owner.apiKey,
    })
    expect(cancel.status).toBe(409)
    const unknown = await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/release/contested`, {
      key: t.owner.apiKey,
    })
    expect(unknown.status).toBe(404)
    // Methods the spec never had on lock are not claimed as removed.
    expect((await call(t.url, 'GET', `/api/vault/${t.owner.vaultId}/lock`)).status).toBe(404)
  })
})
