// Walks the spec's endpoint, error, state and limits tables on both prefixes against a real service.
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_PREFIXES, LIMITS, uploadCostCredits } from '../../src/shared/api'
import { call, DAY_MS, startTestService, type TestService, uploadForm } from './harness'

let t: TestService
beforeAll(async () => {
  t = await startTestService()
})
afterAll(() => t.stop())

const newVault = async (preset: 'standard' | 'enhanced' = 'standard', account = t.owner.accountId) =>
  (await t.service.admin.createVault({ account, preset })).vaultId

function expectEnvelope(reply: { headers: Headers; body: any }) {
  expect(typeof reply.body.meta.timestamp).toBe('string')
  expect(Number.isNaN(Date.parse(reply.body.meta.timestamp))).toBe(false)
  expect(reply.body.meta.requestId).toBe(reply.headers.get('x-request-id'))
}

function expectError(reply: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect(reply.status).toBe(status)
  expect(reply.body.error).toMatchObject({ code, status })
  expect(typeof reply.body.error.message).toBe('string')
  expect(reply.body.error.message.length).toBeGreaterThan(5)
  expect(reply.headers.get('x-request-id')).toBeTruthy()
}

describe.each(API_PREFIXES)('endpoints under %s', (prefix) => {
  const key = () => t.owner.apiKey

  it('GET /vault lists the account vaults without updatedAt; requestIds are unique', async () => {
    const id = await newVault()
    const a = await call(t.url, 'GET', `${prefix}/vault`, { key: key() })
    const b = await call(t.url, 'GET', `${prefix}/vault`, { key: key() })
    expect(a.status).toBe(200)
    expectEnvelope(a)
    expect(a.body.meta.requestId).not.toBe(b.body.meta.requestId)
    const vault = a.body.data.find((v: { id: string }) => v.id === id)
    expect(vault).toMatchObject({
      id,
      state: 'active',
      creditsBalance: expect.any(Number),
      assetCount: 0,
      guardianCount: 0,
      heirCount: 0,
      releaseTrigger: null,
      sssPreset: 'standard',
    })
    expect(vault.updatedAt).toBeUndefined()
  })

  it('GET /vault/:id returns one vault with updatedAt', async () => {
    const id = await newVault('enhanced')
    const r = await call(t.url, 'GET', `${prefix}/vault/${id}`, { key: key() })
    expect(r.status).toBe(200)
    expectEnvelope(r)
    expect(r.body.data).toMatchObject({ id, sssPreset: 'enhanced', state: 'active' })
    expect(typeof r.body.data.updatedAt).toBe('string')
    expect(typeof r.body.data.createdAt).toBe('string')
  })

  it('POST release/config sets each trigger; frequency required for DMS; unknown values rejected', async () => {
    const id = await newVault()
    const url = `${prefix}/vault/${id}/release/config`
    for (const [frequency, days] of [
      ['weekly', 7],
      ['biweekly', 14],
      ['monthly', 30],
      ['quarterly', 90],
    ] as const) {
      const r = await call(t.url, 'POST', url, {
        key: key(),
        json: { trigger: 'dead_man_switch', config: { checkInFrequency: frequency } },
      })
      expect(r.status).toBe(200)
      expectEnvelope(r)
      expect(r.body.data).toEqual({
        trigger: 'dead_man_switch',
        checkInFrequency: frequency,
        contestationDays: 30,
        nextCheckInDue: new Date(t.now().getTime() + days * DAY_MS).toISOString(),
      })
    }
    for (const trigger of ['manual', 'guardian_claim']) {
      const r = await call(t.url, 'POST', url, { key: key(), json: { trigger } })
      expect(r.status).toBe(200)
      expect(r.body.data.trigger).toBe(trigger)
    }
    const v = await call(t.url, 'GET', `${prefix}/vault/${id}`, { key: key() })
    expect(v.body.data.releaseTrigger).toBe('guardian_claim')

    const missing = await call(t.url, 'POST', url, { key: key(), json: { trigger: 'dead_man_switch' } })
    expectError(missing, 400, 'VALIDATION_ERROR')
    expect(missing.body.error.message).toContain('config.checkInFrequency')
    const badTrigger = await call(t.url, 'POST', url, { key: key(), json: { trigger: 'lock' } })
    expectError(badTrigger, 400, 'VALIDATION_ERROR')
    expect(badTrigger.body.error.message).toContain('trigger')
    const badFrequency = await call(t.url, 'POST', url, {
      key: key(),
      json: { trigger: 'dead_man_switch', config: { checkInFrequency: 'daily' } },
    })
    expectError(badFrequency, 400, 'VALIDATION_ERROR')
    expect(badFrequency.body.error.message).toContain('checkInFrequency')
    expectError(await call(t.url, 'POST', url, { key: key(), json: {} }), 400, 'VALIDATION_ERROR')
  })

  it('POST guardian: 201 pending; 409 duplicate e-mail (any case); 400 past the preset maximum', async () => {
    const id = await newVault('standard')
    const url = `${prefix}/vault/${id}/guardian`
    const first = await call(t.url, 'POST', url, {
      key: key(),
      json: {
        name: 'Ann',
        email: 'ann@example.com',
        walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
      },
    })
    expect(first.status).toBe(201)
    expectEnvelope(first)
    expect(first.body.data).toMatchObject({
      id: expect.any(String),
      name: 'Ann',
      email: 'ann@example.com',
      status: 'pending',
      walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
    })
    expect(first.body.data.invitedAt).toBe(t.now().toISOString())
    expect(first.body.data.acceptedAt).toBeUndefined()
    expectError(
      await call(t.url, 'POST', url, { key: key(), json: { name: 'Ann 2', email: 'ANN@Example.com' } }),
      409,
      'CONFLICT',
    )
    expect(
      (await call(t.url, 'POST', url, { key: key(), json: { name: 'B', email: 'b@example.com' } })).status,
    ).toBe(201)
    expect(
      (await call(t.url, 'POST', url, { key: key(), json: { name: 'C', email: 'c@example.com' } })).status,
    ).toBe(201)
    const fourth = await call(t.url, 'POST', url, { key: key(), json: { name: 'D', email: 'd@example.com' } })
    expectError(fourth, 400, 'VALIDATION_ERROR')
    expect(fourth.body.error.message).toContain('at most 3')

    const enhanced = await newVault('enhanced')
    for (let i = 0; i < 5; i++) {
      const r = await call(t.url, 'POST', `${prefix}/vault/${enhanced}/guardian`, {
        key: key(),
        json: { name: `G${i}`, email: `g${i}@example.com` },
      })
      expect(r.status).toBe(201)
    }
    const sixth = await call(t.url, 'POST', `${prefix}/vault/${enhanced}/guardian`, {
      key: key(),
      json: { name: 'G6', email: 'g6@example.com' },
    })
    expectError(sixth, 400, 'VALIDATION_ERROR')
    const list = await call(t.url, 'GET', `${prefix}/vault/${enhanced}/guardian`, { key: key() })
    expect(list.body.data).toHaveLength(5)
  })

  it('DELETE guardian reports remaining count and sharesRegenerated; unknown guardian is 404', async () => {
    const id = await newVault()
    const url = `${prefix}/vault/${id}/guardian`
    const a = await call(t.url, 'POST', url, { key: key(), json: { name: 'A', email: 'a@example.com' } })
    const b = await call(t.url, 'POST', url, { key: key(), json: { name: 'B', email: 'b@example.com' } })
    const r1 = await call(t.url, 'DELETE', `${url}/${a.body.data.id}`, { key: key() })
    expect(r1.status).toBe(200)
    expectEnvelope(r1)
    expect(r1.body.data).toEqual({ removed: a.body.data.id, remainingGuardians: 1, sharesRegenerated: true })
    const r2 = await call(t.url, 'DELETE', `${url}/${b.body.data.id}`, { key: key() })
    expect(r2.body.data).toEqual({ removed: b.body.data.id, remainingGuardians: 0, sharesRegenerated: false })
    expectError(await call(t.url, 'DELETE', `${url}/${b.body.data.id}`, { key: key() }), 404, 'NOT_FOUND')
  })

  it('POST heir: 201; 409 duplicate; 400 for a sixth; DELETE reports remaining', async () => {
    const id = await newVault()
    const url = `${prefix}/vault/${id}/heir`
    const ids: string[] = []
    for (let i = 0; i < LIMITS.maxHeirs; i++) {
      const r = await call(t.url, 'POST', url, {
        key: key(),
        json: { name: `H${i}`, email: `h${i}@example.com` },
      })
      expect(r.status).toBe(201)
      expect(r.body.data).toMatchObject({
        name: `H${i}`,
        email: `h${i}@example.com`,
        addedAt: t.now().toISOString(),
      })
      ids.push(r.body.data.id)
    }
    expectError(
      await call(t.url, 'POST', url, { key: key(), json: { name: 'X', email: 'H0@EXAMPLE.com' } }),
      409,
      'CONFLICT',
    )
    const sixth = await call(t.url, 'POST', url, { key: key(), json: { name: 'X', email: 'x@example.com' } })
    expectError(sixth, 400, 'VALIDATION_ERROR')
    expect(sixth.body.error.message).toContain('5 heirs')
    const del = await call(t.url, 'DELETE', `${url}/${ids[0]}`, { key: key() })
    expect(del.body.data).toEqual({ removed: ids[0], remainingHeirs: 4 })
    expectError(await call(t.url, 'DELETE', `${url}/${ids[0]}`, { key: key() }), 404, 'NOT_FOUND')
    expect((await call(t.url, 'GET', url, { key: key() })).body.data).toHaveLength(4)
  })

  it('POST asset uploads, GET asset lists with total/limit/offset and filters by category', async () => {
    const { accountId, apiKey } = await t.service.admin.createAccount({
      email: `assets${prefix.slice(1)}@example.com`,
    })
    const id = await newVault('standard', accountId)
    const uploaded = []
    for (const [filename, contentType] of [
      ['a.pdf', undefined],
      ['b.jpg', undefined],
      ['c.bin', 'video/mp4'],
    ] as const) {
      const fields: Record<string, string> = { filename }
      if (contentType) fields.contentType = contentType
      const r = await call(t.url, 'POST', `${prefix}/vault/${id}/asset`, {
        key: apiKey,
        body: uploadForm(`content of ${filename}`, fields),
      })
      expect(r.status).toBe(201)
      expectEnvelope(r)
      uploaded.push(r.body.data)
    }
    expect(uploaded.map((a) => [a.contentType, a.category])).toEqual([
      ['application/pdf', 'document'],
      ['image/jpeg', 'image'],
      ['video/mp4', 'video'],
    ])
    expect(uploaded[0]).toMatchObject({
      filename: 'a.pdf',
      sizeBytes: 'content of a.pdf'.length,
      creditsConsumed: 1,
      createdAt: t.now().toISOString(),
    })
    expect(uploaded[0].storageTxId).toMatch(/^[A-Za-z0-9_-]{43}$/)

    const all = await call(t.url, 'GET', `${prefix}/vault/${id}/asset`, { key: apiKey })
    expect(all.status).toBe(200)
    expectEnvelope(all)
    expect(all.body.meta).toMatchObject({ total: 3, limit: 50, offset: 0 })
    expect(all.body.data.map((a: { filename: string }) => a.filename)).toEqual(['a.pdf', 'b.jpg', 'c.bin'])
    expect(all.body.data[0].creditsConsumed).toBeUndefined()
    const page = await call(t.url, 'GET', `${prefix}/vault/${id}/asset?limit=1&offset=1`, { key: apiKey })
    expect(page.body.meta).toMatchObject({ total: 3, limit: 1, offset: 1 })
    expect(page.body.data.map((a: { filename: string }) => a.filename)).toEqual(['b.jpg'])
    const images = await call(t.url, 'GET', `${prefix}/vault/${id}/asset?category=image`, { key: apiKey })
    expect(images.body.meta.total).toBe(1)
    expect(images.body.data[0].filename).toBe('b.jpg')
    const max = await call(t.url, 'GET', `${prefix}/vault/${id}/asset?limit=100`, { key: apiKey })
    expect(max.status).toBe(200)
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'offset=1.5', 'category=book']) {
      const bad = await call(t.url, 'GET', `${prefix}/vault/${id}/asset?${q}`, { key: apiKey })
      expectError(bad, 400, 'VALIDATION_ERROR')
      expect(bad.body.error.message).toContain(q.split('=')[0])
    }
    const v = await call(t.url, 'GET', `${prefix}/vault/${id}`, { key: apiKey })
    expect(v.body.data).toMatchObject({ assetCount: 3, creditsBalance: LIMITS.trialCredits - 3 })

    // The content comes back byte for byte.
    const content = await fetch(`${t.url}${prefix}/vault/${id}/asset/${uploaded[1].id}/content`, {
      headers: { 'x-api-key': apiKey },
    })
    expect(content.status).toBe(200)
    expect(await content.text()).toBe('content of b.jpg')
    expect(content.headers.get('x-asset-content-type')).toBe('image/jpeg')
  })

  it('POST asset is 402 when the credits do not cover the file, and consumes nothing', async () => {
    const { accountId, apiKey } = await t.service.admin.createAccount({
      email: `poor${prefix.slice(1)}@example.com`,
    })
    const id = await newVault('standard', accountId)
    // 100 trial credits cover 100 / 4650 * 1e9 = 21.5 MB; send 22 MB.
    const big = new Uint8Array(22_000_000)
    expect(uploadCostCredits(big.length)).toBeGreaterThan(LIMITS.trialCredits)
    const r = await call(t.url, 'POST', `${prefix}/vault/${id}/asset`, {
      key: apiKey,
      body: uploadForm(big, { filename: 'big.bin' }),
    })
    expectError(r, 402, 'INSUFFICIENT_CREDITS')
    const v = await call(t.url, 'GET', `${prefix}/vault/${id}`, { key: apiKey })
    expect(v.body.data).toMatchObject({ assetCount: 0, creditsBalance: LIMITS.trialCredits })
  })

  it('POST release/checkin resets the countdown, costs 2 credits, 402 when short, 409 without a DMS', async () => {
    const { accountId, apiKey } = await t.service.admin.createAccount({
      email: `checkin${prefix.slice(1)}@example.com`,
    })
    const id = await newVault('standard', accountId)
    const url = `${prefix}/vault/${id}/release/checkin`
    const noDms = await call(t.url, 'POST', url, { key: apiKey })
    expectError(noDms, 409, 'CONFLICT')
    expect(noDms.body.error.message).toContain("dead man's switch")
    await call(t.url, 'POST', `${prefix}/vault/${id}/release/config`, {
      key: apiKey,
      json: { trigger: 'dead_man_switch', config: { checkInFrequency: 'biweekly' } },
    })
    const r = await call(t.url, 'POST', url, { key: apiKey, json: { note: 'all good' } })
    expect(r.status).toBe(200)
    expectEnvelope(r)
    expect(r.body.data).toEqual({
      success: true,
      nextCheckInDue: new Date(t.now().getTime() + 14 * DAY_MS).toISOString(),
      daysRemaining: 14,
    })
    // Without a body too.
    expect((await call(t.url, 'POST', url, { key: apiKey })).status).toBe(200)
    let balance = (await call(t.url, 'GET', `${prefix}/vault/${id}`, { key: apiKey })).body.data
      .creditsBalance
    expect(balance).toBe(LIMITS.trialCredits - 4)
    while (balance >= 2) {
      expect((await call(t.url, 'POST', url, { key: apiKey })).status).toBe(200)
      balance -= 2
    }
    expectError(await call(t.url, 'POST', url, { key: apiKey }), 402, 'INSUFFICIENT_CREDITS')
  })

  it('state table: cancel is 409 while active, 200 while releasing, 409 after the contestation period', async () => {
    const id = await newVault()
    const cancel = `${prefix}/vault/${id}/release/cancel`
    const active = await call(t.url, 'POST', cancel, { key: key() })
    expectError(active, 409, 'CONFLICT')
    await call(t.url, 'POST', `${prefix}/vault/${id}/release/config`, {
      key: key(),
      json: { trigger: 'manual' },
    })
    const start = await call(t.url, 'POST', `${prefix}/vault/${id}/release/start`, { key: key() })
    expect(start.status).toBe(200)
    expect(start.body.data.state).toBe('releasing')
    const ok = await call(t.url, 'POST', cancel, { key: key() })
    expect(ok.status).toBe(200)
    expect(ok.body.data).toEqual({
      cancelled: true,
      vaultState: 'active',
      cancelledAt: t.now().toISOString(),
    })
    expect((await call(t.url, 'GET', `${prefix}/vault/${id}`, { key: key() })).body.data.state).toBe('active')

    // Elapsed period: the clock passes 30 days before the scheduler has run.
    const other = await newVault()
    await call(t.url, 'POST', `${prefix}/vault/${other}/release/config`, {
      key: key(),
      json: { trigger: 'manual' },
    })
    await call(t.url, 'POST', `${prefix}/vault/${other}/release/start`, { key: key() })
    t.advance(30 * DAY_MS)
    const late = await call(t.url, 'POST', `${prefix}/vault/${other}/release/cancel`, { key: key() })
    expectError(late, 409, 'CONFLICT')
    expect(late.body.error.message).toContain('contestation period')
  })
})

describe('authentication and permissions', () => {
  it('401 for a missing, unknown, mislabelled or revoked key', async () => {
    const id = t.owner.vaultId
    expectError(await call(t.url, 'GET', `/api/vault/${id}`), 401, 'UNAUTHORIZED')
    expectError(await call(t.url, 'GET', `/api/vault/${id}`, { key: 'sk_human_nope' }), 401, 'UNAUTHORIZED')
    const { apiKey } = await t.service.admin.createKey({ account: t.owner.accountId, kind: 'agent' })
    const relabelled = apiKey.replace('sk_agent_', 'sk_human_')
    expectError(await call(t.url, 'GET', `/api/vault/${id}`, { key: relabelled }), 401, 'UNAUTHORIZED')
    const { apiKey: human } = await t.service.admin.createKey({ account: t.owner.accountId, kind: 'human' })
    expect((await call(t.url, 'GET', `/api/vault/${id}`, { key: human })).status).toBe(200)
    expect(await t.service.admin.revokeKey({ key: human })).toEqual({ revoked: true })
    expectError(await call(t.url, 'GET', `/api/vault/${id}`, { key: human }), 401, 'UNAUTHORIZED')
  })

  it('sk_agent_ keys read and check in; everything else is 403 with advice to use sk_human_', async () => {
    const id = await newVault()
    await call(t.url, 'POST', `/api/vault/${id}/release/config`, {
      key: t.owner.apiKey,
      json: { trigger: 'dead_man_switch', config: { checkInFrequency: 'monthly' } },
    })
    const { apiKey: agent } = await t.service.admin.createKey({ account: t.owner.accountId, kind: 'agent' })
    expect((await call(t.url, 'GET', '/api/vault', { key: agent })).status).toBe(200)
    expect((await call(t.url, 'GET', `/v1/vault/${id}`, { key: agent })).status).toBe(200)
    expect((await call(t.url, 'GET', `/api/vault/${id}/asset`, { key: agent })).status).toBe(200)
    expect((await call(t.url, 'GET', `/api/vault/${id}/guardian`, { key: agent })).status).toBe(200)
    expect(
      (await call(t.url, 'POST', `/api/vault/${id}/release/checkin`, { key: agent, json: { note: 'bot' } }))
        .status,
    ).toBe(200)
    const denied: [string, string, unknown?][] = [
      ['POST', `/api/vault/${id}/guardian`, { name: 'A', email: 'a@example.com' }],
      ['POST', `/api/vault/${id}/heir`, { name: 'A', email: 'a@example.com' }],
      ['POST', `/api/vault/${id}/release/config`, { trigger: 'manual' }],
      ['POST', `/api/vault/${id}/release/cancel`],
      ['POST', `/v1/vault/${id}/release/start`],
      ['DELETE', `/api/vault/${id}/guardian/grd_x`],
      ['DELETE', `/api/vault/${id}/heir/hir_x`],
      ['POST', '/api/vault', { preset: 'standard' }],
      ['DELETE', `/api/vault/${id}`],
    ]
    for (const [method, path, json] of denied) {
      const r = await call(t.url, method, path, { key: agent, json })
      expectError(r, 403, 'FORBIDDEN')
      expect(r.body.error.message).toContain('sk_human_')
    }
    const upload = await call(t.url, 'POST', `/api/vault/${id}/asset`, { key: agent, body: uploadForm('x') })
    expectError(upload, 403, 'FORBIDDEN')
  })

  it("another account's vault is 404, and so is an unknown vault or route", async () => {
    const other = await t.service.admin.createAccount({ email: 'other@example.com' })
    const theirs = await newVault('standard', other.accountId)
    for (const prefix of API_PREFIXES) {
      expectError(
        await call(t.url, 'GET', `${prefix}/vault/${theirs}`, { key: t.owner.apiKey }),
        404,
        'NOT_FOUND',
      )
      expectError(
        await call(t.url, 'GET', `${prefix}/vault/${theirs}/asset`, { key: t.owner.apiKey }),
        404,
        'NOT_FOUND',
      )
      expectError(
        await call(t.url, 'POST', `${prefix}/vault/${theirs}/guardian`, {
          key: t.owner.apiKey,
          json: { name: 'A', email: 'a@example.com' },
        }),
        404,
        'NOT_FOUND',
      )
      expectError(
        await call(t.url, 'GET', `${prefix}/vault/vlt_missing`, { key: t.owner.apiKey }),
        404,
        'NOT_FOUND',
      )
      expectError(
        await call(t.url, 'GET', `${prefix}/nothing-here`, { key: t.owner.apiKey }),
        404,
        'NOT_FOUND',
      )
    }
    const list = await call(t.url, 'GET', '/api/vault', { key: other.apiKey })
    expect(list.body.data.map((v: { id: string }) => v.id)).toEqual([theirs])
  })

  it('removed v1.0 endpoints are 410 Gone (each one is tested in removed-endpoints.test.ts)', async () => {
    const id = t.owner.vaultId
    for (const path of [
      `/api/vault/${id}/lock`,
      `/api/vault/${id}/unlock`,
      `/api/vault/${id}/release/contest`,
    ]) {
      expectError(await call(t.url, 'POST', path, { key: t.owner.apiKey }), 410, 'GONE')
    }
    expectError(await call(t.url, 'GET', '/api/verify/abc', { key: t.owner.apiKey }), 410, 'GONE')
  })
})

describe('extensions', () => {
  it('creates and deletes vaults; deletion removes their blobs', async () => {
    const created = await call(t.url, 'POST', '/api/vault', {
      key: t.owner.apiKey,
      json: { preset: 'enhanced' },
    })
    expect(created.status).toBe(201)
    expect(created.body.data).toMatchObject({ state: 'active', sssPreset: 'enhanced' })
    const plain = await call(t.url, 'POST', '/v1/vault', { key: t.owner.apiKey })
    expect(plain.body.data.sssPreset).toBe('standard')
    expectError(
      await call(t.url, 'POST', '/api/vault', { key: t.owner.apiKey, json: { preset: 'huge' } }),
      400,
      'VALIDATION_ERROR',
    )
    const id = created.body.data.id
    const up = await call(t.url, 'POST', `/api/vault/${id}/asset`, {
      key: t.owner.apiKey,
      body: uploadForm('unique blob for deletion'),
    })
    expect(up.status).toBe(201)
    const del = await call(t.url, 'DELETE', `/api/vault/${id}`, { key: t.owner.apiKey })
    expect(del.status).toBe(200)
    expect(del.body.data).toEqual({ deleted: id })
    expectError(await call(t.url, 'GET', `/api/vault/${id}`, { key: t.owner.apiKey }), 404, 'NOT_FOUND')
  })

  it('downloads asset content whole or by one byte range (to resume)', async () => {
    const id = await newVault()
    const up = await call(t.url, 'POST', `/api/vault/${id}/asset`, {
      key: t.owner.apiKey,
      body: uploadForm('0123456789', { filename: 'digits.txt' }),
    })
    const url = `${t.url}/api/vault/${id}/asset/${up.body.data.id}/content`
    const get = (range?: string) =>
      fetch(url, { headers: { 'x-api-key': t.owner.apiKey, ...(range ? { range } : {}) } })
    const whole = await get()
    expect(whole.status).toBe(200)
    expect(whole.headers.get('content-length')).toBe('10')
    expect(whole.headers.get('content-disposition')).toContain("filename*=UTF-8''digits.txt")
    expect(await whole.text()).toBe('0123456789')
    const middle = await get('bytes=2-5')
    expect(middle.status).toBe(206)
    expect(middle.headers.get('content-range')).toBe('bytes 2-5/10')
    expect(await middle.text()).toBe('2345')
    expect(await (await get('bytes=7-')).text()).toBe('789')
    expect(await (await get('bytes=-3')).text()).toBe('789')
    const unsatisfiable = await get('bytes=20-30')
    expect(unsatisfiable.status).toBe(200)
    expect(await unsatisfiable.text()).toBe('0123456789')
    const missing = await call(t.url, 'GET', `/api/vault/${id}/asset/ast_nope/content`, {
      key: t.owner.apiKey,
    })
    expectError(missing, 404, 'NOT_FOUND')
  })

  it('stores a multi-megabyte file byte for byte; storageTxId is the base64url SHA-256', async () => {
    const { createHash, randomBytes } = await import('node:crypto')
    const { accountId, apiKey } = await t.service.admin.createAccount({ email: 'bytes@example.com' })
    const id = await newVault('standard', accountId)
    const content = randomBytes(3_500_001)
    const up = await call(t.url, 'POST', `/api/vault/${id}/asset`, {
      key: apiKey,
      body: uploadForm(content, { filename: 'r.bin' }),
    })
    expect(up.status).toBe(201)
    const sha = createHash('sha256').update(content).digest()
    expect(up.body.data.storageTxId).toBe(sha.toString('base64url'))
    expect(up.body.data.sizeBytes).toBe(content.length)
    expect(up.body.data.creditsConsumed).toBe(uploadCostCredits(content.length))
    const download = await fetch(`${t.url}/api/vault/${id}/asset/${up.body.data.id}/content`, {
      headers: { 'x-api-key': apiKey },
    })
    const back = Buffer.from(await download.arrayBuffer())
    expect(back.equals(content)).toBe(true)
  })

  it('owners cannot start a release by hand unless the trigger is manual', async () => {
    const id = await newVault()
    const r = await call(t.url, 'POST', `/api/vault/${id}/release/start`, { key: t.owner.apiKey })
    expectError(r, 409, 'CONFLICT')
    expect(r.body.error.message).toContain('manual')
  })

  it('a 500 carries the envelope and no stack trace', async () => {
    const { accountId, apiKey } = await t.service.admin.createAccount({ email: 'broken@example.com' })
    const id = await newVault('standard', accountId)
    const up = await call(t.url, 'POST', `/api/vault/${id}/asset`, {
      key: apiKey,
      body: uploadForm('soon missing'),
    })
    // Simulate disk damage: the blob disappears behind the service's back.
    const { createHash } = await import('node:crypto')
    const sha = createHash('sha256').update('soon missing').digest('hex')
    rmSync(`${t.dataDir}/blobs/${sha.slice(0, 2)}/${sha}`)
    const r = await call(t.url, 'GET', `/api/vault/${id}/asset/${up.body.data.id}/content`, { key: apiKey })
    expectError(r, 500, 'INTERNAL_ERROR')
    expect(JSON.stringify(r.body)).not.toMatch(/at .*\.ts|blob-store|node:internal/)
  })
})

describe('rate limits', () => {
  it('429 RATE_LIMITED with Retry-After, per key and per pattern, shared by both prefixes', async () => {
    const limited = await startTestService({ rateLimits: { getVault: 3, postRelease: 2 } })
    try {
      const { apiKey, vaultId } = limited.owner
      for (let i = 0; i < 3; i++) {
        const r = await call(limited.url, 'GET', i % 2 ? `/v1/vault/${vaultId}` : `/api/vault/${vaultId}`, {
          key: apiKey,
        })
        expect(r.status).toBe(200)
      }
      const over = await call(limited.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })
      expectError(over, 429, 'RATE_LIMITED')
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(60)
      // Another pattern and another key still pass.
      expect(
        (
          await call(limited.url, 'POST', `/api/vault/${vaultId}/release/config`, {
            key: apiKey,
            json: { trigger: 'manual' },
          })
        ).status,
      ).toBe(200)
      const { apiKey: second } = await limited.service.admin.createKey({
        account: limited.owner.accountId,
        kind: 'human',
      })
      expect((await call(limited.url, 'GET', `/api/vault/${vaultId}`, { key: second })).status).toBe(200)
      expect(
        (
          await call(limited.url, 'POST', `/api/vault/${vaultId}/release/config`, {
            key: apiKey,
            json: { trigger: 'manual' },
          })
        ).status,
      ).toBe(200)
      expectError(
        await call(limited.url, 'POST', `/v1/vault/${vaultId}/release/checkin`, { key: apiKey }),
        429,
        'RATE_LIMITED',
      )
      // A new window opens after a minute.
      limited.advance(61_000)
      expect((await call(limited.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).status).toBe(200)
    } finally {
      await limited.stop()
    }
  })

  it('uses the spec table by default', async () => {
    const limited = await startTestService({ rateLimits: undefined })
    try {
      const { apiKey, vaultId } = limited.owner
      const r = await call(limited.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })
      expect(r.headers.get('x-ratelimit-limit')).toBe('120')
      const g = await call(limited.url, 'POST', `/api/vault/${vaultId}/guardian`, {
        key: apiKey,
        json: { name: 'A', email: 'a@example.com' },
      })
      expect(g.headers.get('x-ratelimit-limit')).toBe('30')
      const c = await call(limited.url, 'POST', `/api/vault/${vaultId}/release/config`, {
        key: apiKey,
        json: { trigger: 'manual' },
      })
      expect(c.headers.get('x-ratelimit-limit')).toBe('10')
      const u = await call(limited.url, 'POST', `/api/vault/${vaultId}/asset`, {
        key: apiKey,
        body: uploadForm('x'),
      })
      expect(u.headers.get('x-ratelimit-limit')).toBe('60')
    } finally {
      await limited.stop()
    }
  })
})
