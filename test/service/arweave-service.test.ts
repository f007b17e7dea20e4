// The service with its blobs on Arweave (arlocal here): an upload through the API becomes a real, tagged
// Arweave transaction whose id is the asset's storageTxId, downloads come back whole, and a network that
// cannot be reached refuses the upload with 503 without storing anything or taking credits.
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { vaultRefOf } from '../../src/service/arweave-blob-store'
import { call, startTestService, type TestService, uploadForm } from './harness'
import { freePort, type LocalArweave, startLocalArweave } from './local-arweave'

let network: LocalArweave
let gateway: string
let walletFile: string

beforeAll(async () => {
  network = await startLocalArweave('arweave-service-')
  ;({ gateway, walletFile } = network)
})

afterAll(async () => {
  await network?.stop()
})

describe('the service storing blobs on Arweave', () => {
  let t: TestService
  afterAll(async () => {
    await t?.stop()
  })

  it('records the real transaction id, tagged for the vault, and serves the file back', async () => {
    t = await startTestService({ blobs: { kind: 'arweave', gateway, walletFile } })
    const content = new Uint8Array(600_000).map((_, i) => (i * 7) % 256)
    const up = await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/asset`, {
      key: t.owner.apiKey,
      body: uploadForm(content, { filename: 'letter.bin' }),
    })
    expect(up.status).toBe(201)
    const txId: string = up.body.data.storageTxId
    // An Arweave transaction id, not the folder store's digest of the content.
    expect(txId).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(txId).not.toBe(Buffer.from(createHash('sha256').update(content).digest()).toString('base64url'))

    const tx = (await (await fetch(`${gateway}/tx/${txId}`)).json()) as {
      id: string
      data_size: string
      tags: { name: string; value: string }[]
    }
    expect(tx.id).toBe(txId)
    expect(Number(tx.data_size)).toBe(content.length)
    const tags = Object.fromEntries(
      tx.tags.map((tag) => [
        Buffer.from(tag.name, 'base64url').toString(),
        Buffer.from(tag.value, 'base64url').toString(),
      ]),
    )
    expect(tags['App-Name']).toBe('Vault-Desktop')
    expect(tags['Vault-Ref']).toBe(vaultRefOf(t.owner.vaultId))
    expect(tags['Content-SHA256']).toBe(createHash('sha256').update(content).digest('hex'))

    const listed = await call(t.url, 'GET', `/api/vault/${t.owner.vaultId}/asset`, { key: t.owner.apiKey })
    expect(listed.body.data[0].storageTxId).toBe(txId)
    const download = await fetch(`${t.url}/api/vault/${t.owner.vaultId}/asset/${up.body.data.id}/content`, {
      headers: { 'x-api-key': t.owner.apiKey },
    })
    expect(download.status).toBe(200)
    expect(download.headers.get('x-storage-tx-id')).toBe(txId)
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(content)

    // The service says its store is permanent, and deleting the file removes only its record.
    const info = await call(t.url, 'GET', '/api/service', { key: t.owner.apiKey })
    expect(info.body.data.storage).toEqual({ kind: 'arweave', permanent: true })
    const deleted = await call(t.url, 'DELETE', `/api/vault/${t.owner.vaultId}/asset/${up.body.data.id}`, {
      key: t.owner.apiKey,
    })
    expect(deleted.body.data).toEqual({ deleted: up.body.data.id, contentRemoved: false })
    // The network still holds the transaction: anyone with its id (and the old key) reads it.
    const still = (await (await fetch(`${gateway}/tx/${txId}`)).json()) as { id: string; data_size: string }
    expect(still).toMatchObject({ id: txId, data_size: String(content.length) })
  })

  it('refuses an upload with 503 when the network cannot be reached: nothing stored, no credits used', async () => {
    const down = await startTestService({
      blobs: { kind: 'arweave', gateway: `http://127.0.0.1:${await freePort()}`, walletFile },
    })
    try {
      const up = await call(down.url, 'POST', `/api/vault/${down.owner.vaultId}/asset`, {
        key: down.owner.apiKey,
        body: uploadForm(new Uint8Array(1000), { filename: 'note.bin' }),
      })
      expect(up.status).toBe(503)
      expect(up.body.error.code).toBe('SERVICE_UNAVAILABLE')
      expect(up.body.error.message).toMatch(/nothing was changed and no credits were used: retry/)
      // The operator's details (wallet, gateway) stay in the log.
      expect(up.body.error.message).not.toContain('127.0.0.1')
      const vault = await call(down.url, 'GET', `/api/vault/${down.owner.vaultId}`, {
        key: down.owner.apiKey,
      })
      expect(vault.body.data).toMatchObject({ creditsBalance: 100, assetCount: 0 })
    } finally {
      await down.stop()
    }
  })
})
