// Arweave re-sends cost money: the service on arlocal, with the gateway's answers about one transaction
// replaced where a case needs it. A busy or failing gateway (429, 503, a 404 from a gateway whose /info
// fails) pays for nothing; a definite drop is sent again once, not at every pass nor again after a
// restart within the grace period; after MAX_RESENDS re-sends the asset is flagged instead of paid again.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { DEFAULT_RESEND_AFTER_MS } from '../../src/service/arweave-blob-store'
import { MAX_RESENDS } from '../../src/service/storage-confirmation'
import { call, startTestService, type TestService, uploadForm } from './harness'
import { type LocalArweave, startLocalArweave } from './local-arweave'

let network: LocalArweave
let t: TestService

/** What the "gateway" answers instead of arlocal, by transaction id, for GET /tx/<id>/status. */
const statusAnswers = new Map<string, number>()
/** When set, GET /info answers this status (a gateway that is not healthy). */
let infoAnswer: number | null = null
/** Transactions posted (each one paid for by the operator's wallet). */
let paidPosts = 0
let original: typeof fetch

beforeAll(async () => {
  network = await startLocalArweave('arweave-resends-')
  original = globalThis.fetch
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    if (url.origin === new URL(network.gateway).origin) {
      const status = /^\/tx\/([A-Za-z0-9_-]{43})\/status$/.exec(url.pathname)
      const answer = status && statusAnswers.get(status[1]!)
      if (answer) return new Response(answer === 404 ? 'Not Found.' : 'Too busy', { status: answer })
      if (url.pathname === '/info' && infoAnswer) return new Response('Bad Gateway', { status: infoAnswer })
      if (url.pathname === '/tx' && (init?.method ?? 'GET') === 'POST') paidPosts++
    }
    return original(input, init)
  }) as typeof fetch
  t = await startTestService({
    blobs: { kind: 'arweave', gateway: network.gateway, walletFile: network.walletFile },
  })
})

afterEach(() => {
  statusAnswers.clear()
  infoAnswer = null
})

afterAll(async () => {
  globalThis.fetch = original
  await t?.stop()
  await network?.stop()
})

async function upload(content: Uint8Array, filename: string) {
  const up = await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/asset`, {
    key: t.owner.apiKey,
    body: uploadForm(content, { filename }),
  })
  expect(up.status).toBe(201)
  return { id: up.body.data.id as string, txId: up.body.data.storageTxId as string }
}

async function asset(id: string) {
  const [row] = await t.rows<{
    storage_tx_id: string
    storage_resends: number | string
    storage_resend_capped_at: string | null
  }>('SELECT storage_tx_id, storage_resends, storage_resend_capped_at FROM assets WHERE id = ?', id)
  return { ...row!, storage_resends: Number(row!.storage_resends) }
}

async function balance(): Promise<bigint> {
  return BigInt(await network.arweave.wallets.getBalance(network.address))
}

async function storageHealth() {
  return (await call(t.url, 'GET', '/healthz')).body.storage
}

/** One scheduler pass an hour and more after the last, with the service's log captured. */
async function passLater(): Promise<string[]> {
  t.advance(DEFAULT_RESEND_AFTER_MS + 60_000)
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
  try {
    await t.service.tick()
    return errors.mock.calls.map((args) => args.map(String).join(' '))
  } finally {
    errors.mockRestore()
  }
}

describe('Arweave re-sends', () => {
  it('a gateway answering 429, then 503, then a 404 with its /info failing pays for nothing', async () => {
    const { id, txId } = await upload(new Uint8Array(3_000).fill(5), 'busy.bin')
    const before = await balance()
    paidPosts = 0

    statusAnswers.set(txId, 429)
    const first = await passLater()
    expect(paidPosts).toBe(0)
    expect(first.join('\n')).toMatch(/answered HTTP 429 .*busy or failing.*Nothing is sent again or paid/)
    statusAnswers.set(txId, 503)
    const second = await passLater()
    expect(paidPosts).toBe(0)
    expect(second.join('\n')).toMatch(/answered HTTP 503/)
    // A "not found" from a gateway that cannot answer /info is not trusted either.
    statusAnswers.set(txId, 404)
    infoAnswer = 502
    const third = await passLater()
    expect(third.join('\n')).toMatch(/not answering healthily.*\/info answered HTTP 502/)

    expect(paidPosts).toBe(0)
    expect(await balance()).toBe(before)
    expect(await asset(id)).toMatchObject({ storage_tx_id: txId, storage_resends: 0 })
    expect(await storageHealth()).toMatchObject({ resends: 0, atResendCap: 0 })
  })

  it('a definite drop is sent again once, not at every pass nor after a restart; past the cap it is flagged, not paid', async () => {
    const { id, txId } = await upload(new Uint8Array(4_000).fill(9), 'dropped.bin')
    paidPosts = 0

    // A healthy gateway that does not know the transaction: one re-send, logged with its reason.
    statusAnswers.set(txId, 404)
    const log = await passLater()
    expect(paidPosts).toBe(1)
    const resent = await asset(id)
    expect(resent.storage_tx_id).not.toBe(txId)
    expect(resent.storage_resends).toBe(1)
    expect(log.join('\n')).toMatch(
      new RegExp(
        `asset ${id}: sending blob ${txId} again \\(re-send 1 of at most ${MAX_RESENDS}\\): .*answers 404 and its /info answers healthily`,
      ),
    )
    expect(await storageHealth()).toMatchObject({ resends: 1, atResendCap: 0 })

    // The re-sent transaction is not shown yet either; within its grace period nothing more is paid,
    // at this pass or after a restart (the grace is kept in the database, not in memory).
    statusAnswers.set(resent.storage_tx_id, 404)
    await t.service.tick()
    await t.restart()
    await t.service.tick()
    expect(paidPosts).toBe(1)
    expect((await asset(id)).storage_resends).toBe(1)

    // Dropped again after each grace period: re-sent up to the cap, then flagged instead of paid.
    for (let n = 2; n <= MAX_RESENDS; n++) {
      await passLater()
      const now = await asset(id)
      expect(now.storage_resends).toBe(n)
      expect(paidPosts).toBe(n)
      statusAnswers.set(now.storage_tx_id, 404)
    }
    const capped = await passLater()
    expect(paidPosts).toBe(MAX_RESENDS)
    expect(await asset(id)).toMatchObject({
      storage_resends: MAX_RESENDS,
      storage_resend_capped_at: expect.any(String),
    })
    expect(capped.filter((line) => line.includes('BLOB AT RE-SEND CAP'))).toHaveLength(1)
    expect(await storageHealth()).toMatchObject({ resends: MAX_RESENDS, atResendCap: 1 })
    // Later passes neither pay nor repeat the flag.
    const later = await passLater()
    expect(paidPosts).toBe(MAX_RESENDS)
    expect(later.filter((line) => line.includes('BLOB AT RE-SEND CAP'))).toHaveLength(0)
  })
})
