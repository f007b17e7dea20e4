// The service keeps keys and vault views between requests (read-cache.ts). Every way the database can
// change under it must drop them at once: a write by the service itself, or a commit by another
// process on the same data directory (the admin CLI while the service runs).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { adminOperations } from '../../src/service/admin'
import { hashSecret } from '../../src/service/secrets'
import { openServiceContext } from '../../src/service/service-context'
import type { SqlStore } from '../../src/service/sql-store'
import { call, DAY_MS, startTestService, type TestService } from './harness'

let t: TestService
beforeEach(async () => {
  t = await startTestService()
})
afterEach(async () => {
  await t.stop()
})

/** Admin operations through a second connection, as `service admin ...` in another process. */
async function otherProcess<T>(
  work: (admin: ReturnType<typeof adminOperations>, db: SqlStore) => Promise<T>,
): Promise<T> {
  const { ctx, db } = await openServiceContext(t.dataDir, t.now)
  try {
    return await work(adminOperations(ctx), db)
  } finally {
    await db.close()
  }
}

/** Releases the owner's vault to one heir and returns the heir access token from the e-mail. */
async function releasedToHeir(): Promise<string> {
  const added = await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/heir`, {
    key: t.owner.apiKey,
    json: { name: 'Hana Heir', email: 'hana@example.com' },
  })
  expect(added.status).toBe(201)
  await t.service.admin.startRelease({ vault: t.owner.vaultId })
  t.advance(31 * DAY_MS)
  await t.service.tick()
  const mail = (await t.service.admin.outbox({ vault: t.owner.vaultId })).messages.find(
    (m) => m.kind === 'heir_access',
  )!
  return /(hk_[A-Za-z0-9_-]{43})/.exec(mail.body)![1]!
}

const getVault = (key: string, vaultId = t.owner.vaultId) =>
  call(t.url, 'GET', `/api/vault/${vaultId}`, { key })

describe('kept answers of GET /vault/:id', () => {
  it('a key revoked by the service stops working on the next request', async () => {
    expect((await getVault(t.owner.apiKey)).status).toBe(200)
    await t.service.admin.revokeKey({ key: t.owner.apiKey })
    expect((await getVault(t.owner.apiKey)).status).toBe(401)
  })

  it('a key revoked by another process on the same data directory stops working at once', async () => {
    expect((await getVault(t.owner.apiKey)).status).toBe(200)
    await otherProcess((admin) => admin.revokeKey({ key: t.owner.apiKey }))
    const after = await getVault(t.owner.apiKey)
    expect(after.status).toBe(401)
    expect(after.body.error.code).toBe('UNAUTHORIZED')
  })

  it('a rotated key: the new one works at once, the old one stops once revoked by another process', async () => {
    expect((await getVault(t.owner.apiKey)).status).toBe(200)
    const { apiKey: next } = await t.service.admin.createKey({ account: t.owner.accountId, kind: 'human' })
    expect((await getVault(next)).status).toBe(200)
    expect((await getVault(t.owner.apiKey)).status).toBe(200)
    await otherProcess((admin) => admin.revokeKey({ key: t.owner.apiKey }))
    expect((await getVault(t.owner.apiKey)).status).toBe(401)
    expect((await getVault(next)).status).toBe(200)
  })

  it('a key whose row another process deleted stops working at once', async () => {
    expect((await getVault(t.owner.apiKey)).status).toBe(200)
    await otherProcess(async (_admin, db) => {
      const deleted = await db.run('DELETE FROM api_keys WHERE key_hash = ?', hashSecret(t.owner.apiKey))
      expect(deleted.changes).toBe(1)
    })
    expect((await getVault(t.owner.apiKey)).status).toBe(401)
  })

  it('an heir token revoked by another process stops working at once', async () => {
    const token = await releasedToHeir()
    expect((await getVault(token)).status).toBe(200)
    expect((await getVault(token)).status).toBe(200)
    await otherProcess((admin) => admin.revokeKey({ key: token }))
    const after = await getVault(token)
    expect(after.status).toBe(401)
    expect(after.body.error.code).toBe('UNAUTHORIZED')
  })

  it('an heir token revoked by the service stops working on the next request', async () => {
    const token = await releasedToHeir()
    expect((await getVault(token)).status).toBe(200)
    await t.service.admin.revokeKey({ key: token })
    expect((await getVault(token)).status).toBe(401)
  })

  it('answers a kept vault with the same bytes as a freshly read one: the envelope serialized whole', async () => {
    const first = await fetch(`${t.url}/api/vault/${t.owner.vaultId}`, {
      headers: { 'x-api-key': t.owner.apiKey },
    })
    const kept = await fetch(`${t.url}/v1/vault/${t.owner.vaultId}`, {
      headers: { 'x-api-key': t.owner.apiKey },
    })
    for (const reply of [first, kept]) {
      expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8')
      const text = await reply.text()
      const body = JSON.parse(text)
      expect(text).toBe(JSON.stringify({ data: body.data, meta: body.meta }))
      expect(Object.keys(body.meta)).toEqual(['timestamp', 'requestId'])
      expect(body.meta.requestId).toBe(reply.headers.get('x-request-id'))
      expect(body.meta.timestamp).toBe(t.now().toISOString())
      expect(body.data).toMatchObject({ id: t.owner.vaultId, state: 'active', creditsBalance: 100 })
    }
  })

  it('a vault changed by another process is read again', async () => {
    const before = await getVault(t.owner.apiKey)
    await otherProcess((admin) => admin.addCredits({ account: t.owner.accountId, credits: 250 }))
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
    const other = await t.service.admin.createAccount({ email: 'other@example.com' })
    const reply = await getVault(other.apiKey)
    expect(reply.status).toBe(404)
    expect(reply.body.error.message).toMatch(/does not exist or belongs to another account/)
  })

  it('a new key works at once, and an unknown key is refused every time', async () => {
    expect((await getVault('sk_human_unknown')).status).toBe(401)
    const { apiKey } = await otherProcess((admin) =>
      admin.createKey({ account: t.owner.accountId, kind: 'agent' }),
    )
    expect((await getVault(apiKey)).status).toBe(200)
    expect((await getVault('sk_human_unknown')).status).toBe(401)
  })
})
