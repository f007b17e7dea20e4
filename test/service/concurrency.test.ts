// Races: the last credits, and the same guardian added twice at once.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uploadCostCredits } from '../../src/shared/api'
import { call, startTestService, type TestService, uploadForm } from './harness'

let t: TestService
beforeAll(async () => {
  t = await startTestService()
})
afterAll(() => t.stop())

describe('concurrency', () => {
  it('two uploads racing for the last credits: exactly one 201, the other 402, balance never negative', async () => {
    const { accountId, apiKey } = await t.service.admin.createAccount({ email: 'race@example.com' })
    const vaultId = (await t.service.admin.createVault({ account: accountId, preset: 'standard' })).vaultId
    const size = 12_000_000
    expect(uploadCostCredits(size)).toBe(56)
    const spend = await call(t.url, 'POST', `/api/vault/${vaultId}/asset`, {
      key: apiKey,
      body: uploadForm(new Uint8Array(8_000_000), { filename: 'first.bin' }),
    })
    expect(spend.body.data.creditsConsumed).toBe(38)
    // 100 - 38 = 62 credits left: enough for one 12 MB racer, not for two.
    const before = (await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data
      .creditsBalance
    expect(before).toBe(62)
    const race = await Promise.all(
      [0, 1].map((i) =>
        call(t.url, 'POST', `/api/vault/${vaultId}/asset`, {
          key: apiKey,
          body: uploadForm(new Uint8Array(size).fill(i + 1), { filename: `racer-${i}.bin` }),
        }),
      ),
    )
    expect(race.map((r) => r.status).sort()).toEqual([201, 402])
    const after = (await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data
    expect(after.creditsBalance).toBe(before - 56)
    expect(after.assetCount).toBe(2)
    expect(readdirSync(join(t.dataDir, 'tmp'))).toEqual([])
  })

  it('two adds of the same guardian e-mail at once: one 201, one 409', async () => {
    for (let round = 0; round < 5; round++) {
      const vaultId = (await t.service.admin.createVault({ account: t.owner.accountId, preset: 'standard' }))
        .vaultId
      const replies = await Promise.all(
        ['Sam@example.com', 'sam@EXAMPLE.com'].map((email) =>
          call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, {
            key: t.owner.apiKey,
            json: { name: 'Sam', email },
          }),
        ),
      )
      expect(replies.map((r) => r.status).sort()).toEqual([201, 409])
      const list = await call(t.url, 'GET', `/api/vault/${vaultId}/guardian`, { key: t.owner.apiKey })
      expect(list.body.data).toHaveLength(1)
      expect((await t.service.admin.outbox({ vault: vaultId })).messages).toHaveLength(1)
    }
  })

  it('parallel heir adds never exceed the maximum', async () => {
    const vaultId = (await t.service.admin.createVault({ account: t.owner.accountId, preset: 'standard' }))
      .vaultId
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(t.url, 'POST', `/api/vault/${vaultId}/heir`, {
          key: t.owner.apiKey,
          json: { name: `H${i}`, email: `h${i}@example.com` },
        }),
      ),
    )
    expect(replies.filter((r) => r.status === 201)).toHaveLength(5)
    expect(replies.filter((r) => r.status === 400)).toHaveLength(3)
  })
})
