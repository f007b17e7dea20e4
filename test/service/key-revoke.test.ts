// Extension key-revoke: DELETE /key revokes the key that authenticates the request and nothing else, so an
// app can give up the agent key it kept for check-ins on any service that offers it (the spec has no
// revocation over the API).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { call, startTestService, type TestService } from './harness'

let t: TestService
beforeEach(async () => {
  t = await startTestService()
})
afterEach(async () => {
  await t.stop()
})

describe('DELETE /key', () => {
  it('is listed among the extensions', async () => {
    const info = await call(t.url, 'GET', '/api/service', { key: t.owner.apiKey })
    expect(info.body.data.extensions).toContain('key-revoke')
  })

  it('an agent key revokes itself; the owner key and other agent keys keep working', async () => {
    const { apiKey: agent } = await t.service.admin.createKey({ account: t.owner.accountId, kind: 'agent' })
    const { apiKey: other } = await t.service.admin.createKey({ account: t.owner.accountId, kind: 'agent' })
    const revoked = await call(t.url, 'DELETE', '/api/key', { key: agent })
    expect(revoked.status).toBe(200)
    expect(revoked.body.data).toEqual({ revoked: true, kind: 'agent' })
    expect((await call(t.url, 'GET', '/api/vault', { key: agent })).status).toBe(401)
    expect((await call(t.url, 'GET', '/v1/vault', { key: agent })).status).toBe(401)
    expect((await call(t.url, 'GET', '/api/vault', { key: other })).status).toBe(200)
    expect((await call(t.url, 'GET', '/api/vault', { key: t.owner.apiKey })).status).toBe(200)
  })

  it('an owner key revokes itself too, under either prefix', async () => {
    const { apiKey: second } = await t.service.admin.createKey({ account: t.owner.accountId, kind: 'human' })
    const revoked = await call(t.url, 'DELETE', '/v1/key', { key: second })
    expect(revoked.body.data).toEqual({ revoked: true, kind: 'human' })
    expect((await call(t.url, 'DELETE', '/v1/key', { key: second })).status).toBe(401)
    expect((await call(t.url, 'GET', '/api/vault', { key: t.owner.apiKey })).status).toBe(200)
  })

  it('needs a key, and an heir token may not use it', async () => {
    expect((await call(t.url, 'DELETE', '/api/key')).status).toBe(401)
    const added = await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/heir`, {
      key: t.owner.apiKey,
      json: { name: 'Hana Heir', email: 'hana@example.com' },
    })
    expect(added.status).toBe(201)
    await t.service.admin.startRelease({ vault: t.owner.vaultId })
    t.advance(31 * 24 * 3600 * 1000)
    await t.service.tick()
    const mail = (await t.service.admin.outbox({ vault: t.owner.vaultId })).messages.find(
      (m) => m.kind === 'heir_access',
    )!
    const heirToken = /(hk_[A-Za-z0-9_-]{43})/.exec(mail.body)![1]!
    const refused = await call(t.url, 'DELETE', '/api/key', { key: heirToken })
    expect(refused.status).toBe(403)
    // The heir's access still works.
    expect((await call(t.url, 'GET', `/api/vault/${t.owner.vaultId}`, { key: heirToken })).status).toBe(200)
  })
})
