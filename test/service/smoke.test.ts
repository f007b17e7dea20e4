import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, startTestService, type TestService, uploadForm } from './harness'

describe('service smoke', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService()
  })
  afterAll(() => t.stop())

  it('lists, configures, adds people, uploads and checks in', async () => {
    const key = t.owner.apiKey
    const id = t.owner.vaultId
    const list = await call(t.url, 'GET', '/api/vault', { key })
    expect(list.status).toBe(200)
    expect(list.body.data[0].id).toBe(id)
    const cfg = await call(t.url, 'POST', `/api/vault/${id}/release/config`, {
      key,
      json: { trigger: 'dead_man_switch', config: { checkInFrequency: 'weekly' } },
    })
    expect(cfg.status).toBe(200)
    const g = await call(t.url, 'POST', `/v1/vault/${id}/guardian`, {
      key,
      json: { name: 'Ann', email: 'ann@example.com' },
    })
    expect(g.status).toBe(201)
    const up = await call(t.url, 'POST', `/api/vault/${id}/asset`, { key, body: uploadForm('hello world') })
    expect(up.status).toBe(201)
    expect(up.body.data.creditsConsumed).toBe(1)
    const ci = await call(t.url, 'POST', `/api/vault/${id}/release/checkin`, { key, json: { note: 'ok' } })
    expect(ci.status).toBe(200)
    expect(ci.body.data.daysRemaining).toBe(7)
    const v = await call(t.url, 'GET', `/api/vault/${id}`, { key })
    expect(v.body.data).toMatchObject({ creditsBalance: 97, assetCount: 1, guardianCount: 1 })
  })
})
