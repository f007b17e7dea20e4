// The service keeps keys and vault views between requests (read-cache.ts). Every way the database can
// change under it must drop them at once: a write by the service itself, or a commit by another
// process on the same data directory (the admin CLI while the service runs).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { adminOperations } from '../../src/service/admin'
import { openServiceContext } from '../../src/service/service-context'
import { call, startTestService, type TestService } from './harness'

let t: TestService
beforeEach(async () => {
  t = await startTestService()
})
afterEach(async () => {
  await t.stop()
})

/** Admin operations through a second connection, as `service admin ...` in another process. */
function otherProcess<T>(work: (admin: ReturnType<typeof adminOperations>) => T): T {
  const { ctx, db } = openServiceContext(t.dataDir, t.now)
  try {
    return work(adminOperations(ctx))
  } finally {
    db.close()
  }
}

const getVault = (key: string, vaultId = t.owner.vaultId) =>
  call(t.url, 'GET', `/api/vault/${vaultId}`, { key })

describe('kept answers of GET /vault/:id', () => {
  it('a key revoked by the service stops working on the next request', async () => {
    expect((await getVault(t.owner.apiKey)).status).toBe(200)
    t.service.admin.revokeKey({ key: t.owner.apiKey })
    expect((await getVault(t.owner.apiKey)).status).toBe(401)
  })

  it('a key revoked by another process on the same data directory stops working at once', async () => {
    expect((await getVault(t.owner.apiKey)).status).toBe(200)
    otherProcess((admin) => admin.revokeKey({ key: t.owner.apiKey }))
    const after = await getVault(t.owner.apiKey)
    expect(after.status).toBe(401)
    expect(after.body.error.code).toBe('UNAUTHORIZED')
  })

  it('a vault changed by another process is read again', async () => {
    const before = await getVault(t.owner.apiKey)
    otherProcess((admin) => admin.addCredits({ account: t.owner.accountId, credits: 250 }))
    const after = await getVault(t.owner.apiKey)
    expect(after.body.data.creditsBalance).toBe(before.body.data.creditsBalance + 250)
  })

  it('a vault renamed, then deleted, through the service is read again', async () => {
    expect((await getVault(t.owner.apiKey)).body.data.name).toBeNull()
    const renamed = await call(t.url, 'PATCH', `/api/vault/${t.owner.vaultId}`, {
      key: t.owner.apiKey,
      json: { name: 'Family papers' },
    })
    expect(renamed.status).toBe(200)
    expect((await getVault(t.owner.apiKey)).body.data.name).toBe('Family papers')
    expect(
      (await call(t.url, 'DELETE', `/api/vault/${t.owner.vaultId}`, { key: t.owner.apiKey })).status,
    ).toBe(200)
    expect((await getVault(t.owner.apiKey)).status).toBe(404)
  })

  it("never shows another account's vault, even once it is kept for its owner", async () => {
    expect((await getVault(t.owner.apiKey)).status).toBe(200)
    const other = t.service.admin.createAccount({ email: 'other@example.com' })
    const reply = await getVault(other.apiKey)
    expect(reply.status).toBe(404)
    expect(reply.body.error.message).toMatch(/does not exist or belongs to another account/)
  })

  it('a new key works at once, and an unknown key is refused every time', async () => {
    expect((await getVault('sk_human_unknown')).status).toBe(401)
    const { apiKey } = otherProcess((admin) => admin.createKey({ account: t.owner.accountId, kind: 'agent' }))
    expect((await getVault(apiKey)).status).toBe(200)
    expect((await getVault('sk_human_unknown')).status).toBe(401)
  })
})
