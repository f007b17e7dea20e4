// Two service instances on one PostgreSQL database and one shared blob folder serve one set of vaults as
// one service would: a key made on one works on the other, a file uploaded to one downloads from the
// other, credits are spent once, rate limits count across both, and each due release fires once.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningService, type ServiceOptions, startService } from '../../src/service/index'
import { uploadCostCredits } from '../../src/shared/api'
import { call, DAY_MS, uploadForm } from './harness'
import { postgresUnavailableReason, startTestPostgres, type TestPostgres } from './postgres-server'

const noPostgres = postgresUnavailableReason()
if (noPostgres) console.warn(`[shared-instances.test] ${noPostgres}`)

let server: TestPostgres | undefined
const dirs: string[] = []
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(dir)
  return dir
}
beforeAll(async () => {
  if (!noPostgres) server = await startTestPostgres()
})
afterAll(async () => {
  await server?.stop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

interface Pair {
  a: RunningService
  b: RunningService
  advance(ms: number): void
  blobs: string
  close(): Promise<void>
}

async function startPair(extra: Partial<ServiceOptions> = {}): Promise<Pair> {
  const postgresUrl = await server!.newDatabase()
  const blobs = tempDir('vault-shared-blobs-')
  let now = Date.parse('2030-01-01T00:00:00.000Z')
  const options = (): ServiceOptions => ({
    dataDir: tempDir('vault-instance-'),
    postgresUrl,
    blobs: { kind: 'folder', path: blobs },
    clock: () => new Date(now),
    rateLimits: false,
    // Ticks only when the test says so.
    tickIntervalMs: 3_600_000,
    ...extra,
  })
  const [a, b] = await Promise.all([startService(options()), startService(options())])
  return {
    a,
    b,
    blobs,
    advance(ms) {
      now += ms
    },
    close: async () => void (await Promise.all([a.close(), b.close()])),
  }
}

describe.skipIf(noPostgres)('two instances on one PostgreSQL', () => {
  it('share accounts, keys, vaults and files; a key revoked on one is refused by the other at once', async () => {
    const { a, b, blobs, close } = await startPair()
    try {
      const { accountId, apiKey } = await a.admin.createAccount({ email: 'owner@example.com' })
      const { vaultId } = await b.admin.createVault({ account: accountId, preset: 'standard' })
      const viaB = await call(b.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })
      expect(viaB.status).toBe(200)
      expect(viaB.body.data.creditsBalance).toBe(100)

      const content = new Uint8Array(300_000).map((_, i) => i % 251)
      const up = await call(a.url, 'POST', `/api/vault/${vaultId}/asset`, {
        key: apiKey,
        body: uploadForm(content, { filename: 'letter.bin' }),
      })
      expect(up.status).toBe(201)
      const download = await fetch(`${b.url}/api/vault/${vaultId}/asset/${up.body.data.id}/content`, {
        headers: { 'x-api-key': apiKey },
      })
      expect(download.status).toBe(200)
      expect(new Uint8Array(await download.arrayBuffer())).toEqual(content)
      // The one blob is in the shared folder, not in either instance's data folder.
      expect(readdirSync(blobs).filter((name) => !name.startsWith('.'))).toHaveLength(1)

      await a.admin.revokeKey({ key: apiKey })
      expect((await call(b.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).status).toBe(401)
    } finally {
      await close()
    }
  })

  it('10 parallel uploads over both instances against a balance paying exactly 5: 5 stored, balance exact', async () => {
    const { a, b, close } = await startPair()
    try {
      const { accountId, apiKey } = await a.admin.createAccount({ email: 'race@example.com' })
      const { vaultId } = await a.admin.createVault({ account: accountId, preset: 'standard' })
      const size = 2_000_000
      const cost = uploadCostCredits(size)
      // The trial's 100 credits, spent down to exactly five uploads' worth by one larger upload.
      const fill = 100 - 5 * cost
      const filler = Math.floor((fill * 1e9) / 4650)
      expect(uploadCostCredits(filler)).toBe(fill)
      const first = await call(a.url, 'POST', `/api/vault/${vaultId}/asset`, {
        key: apiKey,
        body: uploadForm(new Uint8Array(filler), { filename: 'filler.bin' }),
      })
      expect(first.status).toBe(201)

      const race = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          call((i % 2 ? a : b).url, 'POST', `/api/vault/${vaultId}/asset`, {
            key: apiKey,
            body: uploadForm(new Uint8Array(size).fill(i + 1), { filename: `racer-${i}.bin` }),
          }),
        ),
      )
      expect(race.filter((r) => r.status === 201)).toHaveLength(5)
      expect(race.filter((r) => r.status === 402)).toHaveLength(5)
      const vault = (await call(b.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data
      expect(vault.creditsBalance).toBe(0)
      expect(vault.assetCount).toBe(6)
    } finally {
      await close()
    }
  })

  it('a scheduler tick run by both instances at once fires each due release once', async () => {
    const { a, b, advance, close } = await startPair()
    try {
      const vaults: { vaultId: string; apiKey: string }[] = []
      for (let i = 0; i < 6; i++) {
        const { accountId, apiKey } = await a.admin.createAccount({ email: `owner${i}@example.com` })
        const { vaultId } = await a.admin.createVault({ account: accountId, preset: 'standard' })
        const heir = await call(b.url, 'POST', `/api/vault/${vaultId}/heir`, {
          key: apiKey,
          json: { name: `Heir ${i}`, email: `heir${i}@example.com` },
        })
        expect(heir.status).toBe(201)
        await (i % 2 ? a : b).admin.startRelease({ vault: vaultId })
        vaults.push({ vaultId, apiKey })
      }
      advance(31 * DAY_MS)
      const [fromA, fromB] = await Promise.all([a.tick(), b.tick()])
      const released = [...fromA.released, ...fromB.released].map((r) => r.vaultId).sort()
      expect(released).toEqual(vaults.map((v) => v.vaultId).sort())
      const mails = (await a.admin.outbox()).messages.filter((m) => m.kind === 'heir_access')
      expect(mails).toHaveLength(6)
      expect(new Set(mails.map((m) => m.vaultId)).size).toBe(6)
      // Running again changes nothing.
      const again = await Promise.all([a.tick(), b.tick()])
      expect(again.flatMap((report) => report.released)).toEqual([])
    } finally {
      await close()
    }
  })

  it('rate limits count the requests of one key across both instances', async () => {
    const { a, b, close } = await startPair({ rateLimits: { getVault: 6 } })
    try {
      const { accountId, apiKey } = await a.admin.createAccount({ email: 'limits@example.com' })
      const { vaultId } = await a.admin.createVault({ account: accountId, preset: 'standard' })
      const statuses: number[] = []
      for (let i = 0; i < 8; i++) {
        statuses.push(
          (await call((i % 2 ? a : b).url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).status,
        )
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429])
    } finally {
      await close()
    }
  })
})
