// Races: the last credits, and the same guardian added twice at once.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { BlobStoreError, FolderBlobStore } from '../../src/service/blob-store'
import { uploadCostCredits } from '../../src/shared/api'
import { call, DAY_MS, startTestService, type TestService, uploadForm } from './harness'

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

  it('six uploads at once against a balance that pays one: one paid store, five 402s that never touch the store', async () => {
    const { accountId, apiKey } = await t.service.admin.createAccount({ email: 'six@example.com' })
    const vaultId = (await t.service.admin.createVault({ account: accountId, preset: 'standard' })).vaultId
    const size = 12_000_000
    const cost = uploadCostCredits(size)
    // 100 trial credits: one 12 MB file (56), not two.
    expect(cost * 2).toBeGreaterThan(100)
    // A store that takes a while, as Arweave does: every racer reaches its commit while one is storing.
    const original = FolderBlobStore.prototype.put
    const put = vi.spyOn(FolderBlobStore.prototype, 'put').mockImplementation(async function (
      this: FolderBlobStore,
      ...args
    ) {
      await new Promise((resolve) => setTimeout(resolve, 300))
      return original.apply(this, args)
    })
    try {
      const replies = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          call(t.url, 'POST', `/api/vault/${vaultId}/asset`, {
            key: apiKey,
            body: uploadForm(new Uint8Array(size).fill(i + 10), { filename: `six-${i}.bin` }),
          }),
        ),
      )
      expect(replies.map((r) => r.status).sort()).toEqual([201, 402, 402, 402, 402, 402])
      expect(put).toHaveBeenCalledTimes(1)
      for (const refused of replies.filter((r) => r.status === 402)) {
        expect(refused.body).toEqual({
          error: {
            code: 'INSUFFICIENT_CREDITS',
            status: 402,
            message: expect.stringMatching(/costs 56 credits and the balance is 44; nothing was stored/),
          },
        })
      }
    } finally {
      put.mockRestore()
    }
    const vault = (await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data
    expect(vault.creditsBalance).toBe(100 - cost)
    expect(vault.assetCount).toBe(1)
    // One debit in the ledger, nothing reserved and given back.
    const ledger = await t.rows<{ delta: number; reason: string }>(
      'SELECT delta, reason FROM credit_ledger WHERE account_id = ? ORDER BY id',
      accountId,
    )
    expect(ledger.map((e) => [Number(e.delta), e.reason])).toEqual([
      [100, 'trial'],
      [-cost, 'upload'],
    ])
    expect(await t.rows('SELECT asset_id FROM upload_reservations WHERE account_id = ?', accountId)).toEqual(
      [],
    )
    expect(readdirSync(join(t.dataDir, 'tmp'))).toEqual([])
  })

  it('an upload whose store fails gives its reserved credits back: 503, balance unchanged, debit and refund in the ledger', async () => {
    const { accountId, apiKey } = await t.service.admin.createAccount({ email: 'refund@example.com' })
    const vaultId = (await t.service.admin.createVault({ account: accountId, preset: 'standard' })).vaultId
    const put = vi
      .spyOn(FolderBlobStore.prototype, 'put')
      .mockRejectedValueOnce(new BlobStoreError('the store is out of reach'))
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    let failed: Awaited<ReturnType<typeof call>>
    try {
      failed = await call(t.url, 'POST', `/api/vault/${vaultId}/asset`, {
        key: apiKey,
        body: uploadForm(new Uint8Array(5_000).fill(3), { filename: 'lost.bin' }),
      })
    } finally {
      put.mockRestore()
      errors.mockRestore()
    }
    expect(failed.status).toBe(503)
    const vault = (await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data
    expect(vault.creditsBalance).toBe(100)
    expect(vault.assetCount).toBe(0)
    const cost = uploadCostCredits(5_000)
    const ledger = await t.rows<{ delta: number; reason: string; reference: string | null }>(
      'SELECT delta, reason, reference FROM credit_ledger WHERE account_id = ? ORDER BY id',
      accountId,
    )
    expect(ledger.map((e) => [Number(e.delta), e.reason])).toEqual([
      [100, 'trial'],
      [-cost, 'upload'],
      [cost, 'upload-refund'],
    ])
    expect(ledger[1]!.reference).toBe(ledger[2]!.reference)
    expect(await t.rows('SELECT asset_id FROM upload_reservations WHERE account_id = ?', accountId)).toEqual(
      [],
    )
    // The credits are really back: the same file goes up now.
    const again = await call(t.url, 'POST', `/api/vault/${vaultId}/asset`, {
      key: apiKey,
      body: uploadForm(new Uint8Array(5_000).fill(3), { filename: 'lost.bin' }),
    })
    expect(again.status).toBe(201)
    expect(readdirSync(join(t.dataDir, 'tmp'))).toEqual([])
  })

  it('credits reserved by an upload that crashed before recording its file are refunded at the next start', async () => {
    const { accountId, apiKey } = await t.service.admin.createAccount({ email: 'crash@example.com' })
    const vaultId = (await t.service.admin.createVault({ account: accountId, preset: 'standard' })).vaultId
    // What a crash between the reservation and the asset leaves: the debit and its reservation row.
    const reserve = async (assetId: string, at: string) => {
      await t.rows('UPDATE accounts SET credits_balance = credits_balance - 7 WHERE id = ?', accountId)
      await t.rows(
        "INSERT INTO credit_ledger (account_id, delta, reason, reference, created_at) VALUES (?, -7, 'upload', ?, ?)",
        accountId,
        assetId,
        at,
      )
      await t.rows(
        'INSERT INTO upload_reservations (asset_id, account_id, credits, created_at) VALUES (?, ?, 7, ?)',
        assetId,
        accountId,
        at,
      )
    }
    await reserve('ast_crashed_long_ago', new Date(t.now().getTime() - 2 * DAY_MS).toISOString())
    await reserve('ast_crashed_just_now', t.now().toISOString())
    const balance = async () =>
      (await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data.creditsBalance
    expect(await balance()).toBe(86)
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      await t.restart()
    } finally {
      errors.mockRestore()
    }
    // SQLite: this is the only instance, so every reservation is abandoned. PostgreSQL: another instance
    // may be uploading, so only the one over a day old is.
    const onPostgres = process.env.VAULT_TEST_STORE === 'postgres'
    expect(await balance()).toBe(onPostgres ? 93 : 100)
    const refunds = await t.rows<{ reference: string }>(
      "SELECT reference FROM credit_ledger WHERE account_id = ? AND reason = 'upload-refund' ORDER BY reference",
      accountId,
    )
    expect(refunds.map((r) => r.reference)).toEqual(
      onPostgres ? ['ast_crashed_long_ago'] : ['ast_crashed_just_now', 'ast_crashed_long_ago'],
    )
    // A second start refunds nothing twice.
    await t.restart()
    expect(await balance()).toBe(onPostgres ? 93 : 100)
    await t.rows('DELETE FROM upload_reservations WHERE account_id = ?', accountId)
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
