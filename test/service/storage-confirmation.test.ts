// The scheduler confirms that blobs put on Arweave (arlocal here) were mined deep enough, and sends again
// from the local copy what the network dropped before mining, recording the new transaction id; a blob
// dropped without a local copy is reported, never silently forgotten. The folder store has nothing to confirm.
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ArLocalModule from 'arlocal'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { DEFAULT_MIN_CONFIRMATIONS, DEFAULT_RESEND_AFTER_MS } from '../../src/service/arweave-blob-store'
import { type BlobStore, BlobStoreError } from '../../src/service/blob-store'
import { openServiceContext } from '../../src/service/index'
import { confirmStoredBlobs, UNREACHABLE_AFTER } from '../../src/service/storage-confirmation'
import { call, startTestService, type TestService, uploadForm } from './harness'
import { type LocalArweave, startLocalArweave } from './local-arweave'

const ArLocal = ((ArLocalModule as unknown as { default?: typeof ArLocalModule }).default ??
  ArLocalModule) as typeof ArLocalModule

let network: LocalArweave
/** The fresh network started in place of the first one (same port, empty database). */
let fresh: { stop(): Promise<void> } | undefined
let t: TestService

beforeAll(async () => {
  network = await startLocalArweave('storage-confirmation-')
  t = await startTestService({
    blobs: { kind: 'arweave', gateway: network.gateway, walletFile: network.walletFile },
  })
})

afterAll(async () => {
  await t?.stop()
  await fresh?.stop()
  await network?.stop()
})

async function upload(service: TestService, content: Uint8Array, filename: string) {
  const up = await call(service.url, 'POST', `/api/vault/${service.owner.vaultId}/asset`, {
    key: service.owner.apiKey,
    body: uploadForm(content, { filename }),
  })
  expect(up.status).toBe(201)
  return { id: up.body.data.id as string, txId: up.body.data.storageTxId as string }
}

async function assetRow(id: string) {
  const [row] = await t.rows<{
    storage_tx_id: string
    storage_confirmed_at: string | null
    created_at: string
  }>('SELECT storage_tx_id, storage_confirmed_at, created_at FROM assets WHERE id = ?', id)
  return row!
}

async function mine(blocks: number) {
  expect((await fetch(`${network.gateway}/mine/${blocks}`)).status).toBe(200)
}

async function health() {
  return (await call(t.url, 'GET', '/healthz')).body
}

describe('confirming blobs stored on Arweave', () => {
  it('leaves an upload unconfirmed until it is mined deep enough, then records when it was confirmed', async () => {
    const { id, txId } = await upload(
      t,
      new Uint8Array(300_000).map((_, i) => i % 251),
      'deed.bin',
    )
    await t.service.tick()
    const stored = await assetRow(id)
    expect(stored).toMatchObject({ storage_tx_id: txId, storage_confirmed_at: null })
    expect((await health()).storage).toEqual({
      kind: 'arweave',
      unconfirmed: 1,
      oldestUnconfirmedSince: stored.created_at,
      resends: 0,
      atResendCap: 0,
    })
    // Mined, but not yet under enough blocks.
    await mine(1)
    await t.service.tick()
    expect((await assetRow(id)).storage_confirmed_at).toBeNull()

    await mine(DEFAULT_MIN_CONFIRMATIONS + 1)
    t.advance(60_000)
    await t.service.tick()
    expect((await assetRow(id)).storage_confirmed_at).toBe(t.now().toISOString())
    const report = await health()
    expect(report.status).toBe('ok')
    expect(report.storage).toEqual({
      kind: 'arweave',
      unconfirmed: 0,
      oldestUnconfirmedSince: null,
      resends: 0,
      atResendCap: 0,
    })
  })

  it('sends a transaction the network dropped again as a new one, and reports one it cannot send again', async () => {
    const content = new Uint8Array(400_000).map((_, i) => (i * 13) % 256)
    const dropped = await upload(t, content, 'will.bin')
    const orphan = await upload(t, new Uint8Array(5_000).fill(7), 'photo.bin')
    // The orphan's local copy is gone (as on an instance that did not store it).
    const sha = createHash('sha256').update(new Uint8Array(5_000).fill(7)).digest('hex')
    rmSync(join(t.dataDir, 'arweave-cache', 'copies', sha.slice(0, 2), sha), { force: true })

    // A fresh network on the same address that never saw these transactions.
    const port = Number(new URL(network.gateway).port)
    await network.stop()
    network = { ...network, stop: async () => {} }
    const dir = mkdtempSync(join(tmpdir(), 'storage-confirmation-fresh-'))
    const arlocal = new ArLocal(port, false, join(dir, 'arlocal-db'), false)
    await arlocal.start()
    fresh = {
      async stop() {
        await arlocal.stop()
        rmSync(dir, { recursive: true, force: true })
      },
    }
    expect((await fetch(`${network.gateway}/mint/${network.address}/1000000000000000`)).status).toBe(200)
    expect((await fetch(`${network.gateway}/tx/${dropped.txId}/status`)).status).toBe(404)

    // Within the grace period a transaction the gateway does not know is left alone.
    await t.service.tick()
    expect((await assetRow(dropped.id)).storage_tx_id).toBe(dropped.txId)

    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      t.advance(DEFAULT_RESEND_AFTER_MS + 60_000)
      await t.service.tick()
      const lostLines = errors.mock.calls.map((args) => String(args[0])).filter((l) => l.includes('LOST'))
      expect(lostLines).toHaveLength(1)
      expect(lostLines[0]).toContain(orphan.id)
      expect(lostLines[0]).toMatch(/upload the file again/)
    } finally {
      errors.mockRestore()
    }

    const resent = (await assetRow(dropped.id)).storage_tx_id
    expect(resent).not.toBe(dropped.txId)
    expect(resent).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const tx = await fetch(`${network.gateway}/tx/${resent}`)
    expect(tx.status).toBe(200)
    const tags = Object.fromEntries(
      ((await tx.json()) as { tags: { name: string; value: string }[] }).tags.map((tag) => [
        Buffer.from(tag.name, 'base64url').toString(),
        Buffer.from(tag.value, 'base64url').toString(),
      ]),
    )
    expect(tags['Content-SHA256']).toBe(createHash('sha256').update(content).digest('hex'))
    // The lost one keeps its id and stays unconfirmed, counted by the health check.
    expect(await assetRow(orphan.id)).toMatchObject({
      storage_tx_id: orphan.txId,
      storage_confirmed_at: null,
    })

    const listed = await call(t.url, 'GET', `/api/vault/${t.owner.vaultId}/asset`, { key: t.owner.apiKey })
    expect(listed.body.data.find((a: { id: string }) => a.id === dropped.id).storageTxId).toBe(resent)
    const download = await fetch(`${t.url}/api/vault/${t.owner.vaultId}/asset/${dropped.id}/content`, {
      headers: { 'x-api-key': t.owner.apiKey },
    })
    expect(download.status).toBe(200)
    expect(download.headers.get('x-storage-tx-id')).toBe(resent)
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(content)

    // The new transaction is mined and confirmed like any other.
    await mine(DEFAULT_MIN_CONFIRMATIONS + 1)
    await t.service.tick()
    expect((await assetRow(dropped.id)).storage_confirmed_at).toBe(t.now().toISOString())
    expect((await health()).storage).toMatchObject({ unconfirmed: 1, resends: 1, atResendCap: 0 })
  })
})

describe('the folder store', () => {
  it('has nothing to confirm: the pass changes nothing and the health check has no storage part', async () => {
    const folder = await startTestService()
    try {
      const { id } = await upload(folder, new Uint8Array(1_000).fill(1), 'note.bin')
      folder.advance(DEFAULT_RESEND_AFTER_MS * 2)
      await folder.service.tick()
      const [row] = await folder.rows<{ storage_confirmed_at: string | null }>(
        'SELECT storage_confirmed_at FROM assets WHERE id = ?',
        id,
      )
      expect(row!.storage_confirmed_at).toBeNull()
      const report = (await call(folder.url, 'GET', '/healthz')).body
      expect(report.status).toBe('ok')
      expect(report).not.toHaveProperty('storage')
    } finally {
      await folder.stop()
    }
  })
})

describe('a pass whose store fails', () => {
  // The pass runs here on a second context over the service's SQLite file.
  it.skipIf(process.env.VAULT_TEST_STORE === 'postgres')(
    'goes on past an asset the store fails, and stops once the store fails several in a row',
    async () => {
      const service = await startTestService()
      const { ctx, db } = await openServiceContext(service.dataDir, service.now)
      const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
      try {
        for (let i = 0; i < 6; i++) await upload(service, new Uint8Array(100).fill(i), `file-${i}.bin`)
        const outcomes: (() => Promise<{ state: 'confirmed' }>)[] = [
          async () => {
            throw new BlobStoreError('the gateway timed out')
          },
          async () => {
            throw new Error('the local copy is not the stored blob')
          },
        ]
        const confirm = vi.fn(async () =>
          (outcomes.shift() ?? (async () => ({ state: 'confirmed' as const })))(),
        )
        const blobs = Object.assign(Object.create(ctx.blobs) as BlobStore, { confirm })
        expect(await confirmStoredBlobs({ ...ctx, blobs }, service.now())).toEqual({
          confirmed: 4,
          replaced: 0,
          pending: 2,
          lost: 0,
        })
        const confirmedRows = await service.rows(
          'SELECT id FROM assets WHERE storage_confirmed_at IS NOT NULL',
        )
        expect(confirmedRows).toHaveLength(4)

        // Out of reach: the rest of the batch waits for the next pass instead of a timeout each.
        await service.rows('UPDATE assets SET storage_confirmed_at = NULL')
        const down = vi.fn(async () => {
          throw new BlobStoreError('the gateway cannot be reached')
        })
        const unreachable = Object.assign(Object.create(ctx.blobs) as BlobStore, { confirm: down })
        expect(await confirmStoredBlobs({ ...ctx, blobs: unreachable }, service.now())).toMatchObject({
          confirmed: 0,
          pending: 6,
        })
        expect(down).toHaveBeenCalledTimes(UNREACHABLE_AFTER)
      } finally {
        errors.mockRestore()
        await db.close()
        await service.stop()
      }
    },
  )
})
