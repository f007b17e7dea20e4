// The Arweave blob store against arlocal, a local Arweave network: blobs go up as real signed data
// transactions (chunked, several chunks), come back whole and by byte range (from the local copy and from
// the gateway), carry the documented tags, and can be found by those tags through GraphQL.
import { createHash, randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import Arweave from 'arweave'
import { generateTransactionChunks } from 'arweave/node/lib/merkle.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type ArweaveBlobStore,
  ArweaveStoreError,
  chunksOf,
  openArweaveBlobStore,
  vaultRefOf,
} from '../../src/service/arweave-blob-store'
import { freePort, type LocalArweave, startLocalArweave } from './local-arweave'

let temp: string
let gateway: string
let walletFile: string
let store: ArweaveBlobStore
let address: string

const vaultId = '0f8e2c1a-7b3d-4e5f-9a6b-1c2d3e4f5a6b'

async function get(path: string): Promise<Response> {
  return fetch(`${gateway}/${path}`)
}

async function graphql<T>(query: string, variables: object): Promise<T> {
  const response = await fetch(`${gateway}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  })
  const body = (await response.json()) as { data: T; errors?: unknown }
  expect(body.errors).toBeUndefined()
  return body.data
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const pieces: Buffer[] = []
  for await (const piece of stream) pieces.push(piece as Buffer)
  return Buffer.concat(pieces)
}

/** Stages `bytes` the way an upload does and puts it; returns what the asset would record. */
async function putBytes(target: ArweaveBlobStore, bytes: Buffer, assetId: string, forVault = vaultId) {
  const tempPath = target.newTempPath()
  writeFileSync(tempPath, bytes)
  const sha256Hex = createHash('sha256').update(bytes).digest('hex')
  const storageTxId = await target.put(tempPath, {
    sha256Hex,
    size: bytes.length,
    labels: { vaultId: forVault, assetId },
  })
  return { sha256Hex, storageTxId }
}

let network: LocalArweave

beforeAll(async () => {
  network = await startLocalArweave('arweave-store-')
  ;({ gateway, walletFile, address } = network)
  temp = network.dir
  store = await openArweaveBlobStore({ gateway, walletFile, cacheDir: join(temp, 'cache') })
})

afterAll(async () => {
  await network?.stop()
})

describe('chunking', () => {
  it('computes the same data_root as arweave-js from one pass over the file', async () => {
    // Sizes around the chunking rules: one chunk, exact multiples, a rest under 32 KiB shared by two.
    for (const size of [72, 256 * 1024, 256 * 1024 + 1, 512 * 1024, 3 * 256 * 1024 + 1000, 700_000]) {
      const bytes = randomBytes(size)
      const file = join(temp, `chunking-${size}`)
      writeFileSync(file, bytes)
      const sha256Hex = createHash('sha256').update(bytes).digest('hex')
      const ours = await chunksOf(file, { sha256Hex, size })
      const theirs = await generateTransactionChunks(new Uint8Array(bytes))
      expect(Buffer.from(ours.dataRoot).toString('hex'), `size ${size}`).toBe(
        Buffer.from(theirs.data_root).toString('hex'),
      )
      expect(ours.chunks).toEqual(theirs.chunks)
      expect(ours.proofs).toEqual(theirs.proofs)
    }
  })

  it('refuses a staged file that is not the blob announced', async () => {
    const file = join(temp, 'wrong')
    writeFileSync(file, randomBytes(1000))
    await expect(chunksOf(file, { sha256Hex: '00'.repeat(32), size: 1000 })).rejects.toThrow(
      /is not the 1000-byte blob/,
    )
  })
})

describe('ArweaveBlobStore on arlocal', () => {
  const small = randomBytes(300 * 1024 + 17) // two chunks
  const large = randomBytes(5 * 1024 * 1024 + 12345) // 21 chunks
  let smallBlob: { sha256Hex: string; storageTxId: string }
  let largeBlob: { sha256Hex: string; storageTxId: string }

  beforeAll(async () => {
    smallBlob = await putBytes(store, small, 'asset-small')
    largeBlob = await putBytes(store, large, 'asset-large')
    expect((await get('mine')).status).toBe(200)
  })

  it('returns real transaction ids that arlocal knows, signed by the wallet, with the documented tags', async () => {
    for (const [blob, bytes] of [
      [smallBlob, small],
      [largeBlob, large],
    ] as const) {
      expect(blob.storageTxId).toMatch(/^[A-Za-z0-9_-]{43}$/)
      const response = await get(`tx/${blob.storageTxId}`)
      expect(response.status).toBe(200)
      const tx = (await response.json()) as {
        id: string
        data_size: string
        tags: { name: string; value: string }[]
      }
      expect(tx.id).toBe(blob.storageTxId)
      expect(tx.data_size).toBe(String(bytes.length))
      const tags = Object.fromEntries(
        tx.tags.map((t) => [
          Buffer.from(t.name, 'base64url').toString(),
          Buffer.from(t.value, 'base64url').toString(),
        ]),
      )
      expect(tags).toEqual({
        'App-Name': 'Vault-Desktop',
        'Vault-Tags-Version': '1',
        'Vault-Ref': vaultRefOf(vaultId),
        'Content-SHA256': blob.sha256Hex,
        'Content-Type': 'application/octet-stream',
      })
      // Nothing of the vault id, the asset or the file is published.
      expect(JSON.stringify(tags)).not.toContain(vaultId)
      expect(JSON.stringify(tags)).not.toContain('asset-')
      const arweave = Arweave.init({
        host: '127.0.0.1',
        port: Number(new URL(gateway).port),
        protocol: 'http',
      })
      expect(await arweave.transactions.verify(arweave.transactions.fromRaw(tx))).toBe(true)
      expect(await arweave.wallets.ownerToAddress((tx as unknown as { owner: string }).owner)).toBe(address)
      // The network serves exactly the bytes stored.
      const data = Buffer.from(await (await get(blob.storageTxId)).arrayBuffer())
      expect(data.equals(bytes)).toBe(true)
      expect(await store.status(blob.storageTxId)).toEqual({ state: 'confirmed', confirmations: 0 })
    }
  })

  it('reads whole blobs and byte ranges back, from the local copy', async () => {
    expect(await store.sizeOf(largeBlob)).toBe(large.length)
    expect((await bytesOf(await store.read(largeBlob))).equals(large)).toBe(true)
    const range = { start: 256 * 1024 - 10, end: 3 * 1024 * 1024 + 5 }
    expect(
      (await bytesOf(await store.read(largeBlob, range))).equals(large.subarray(range.start, range.end + 1)),
    ).toBe(true)
  })

  it('reads blobs it has no copy of from the gateway (another instance, or a lost cache)', async () => {
    const other = await openArweaveBlobStore({ gateway, walletFile, cacheDir: join(temp, 'other-cache') })
    expect(await other.sizeOf(largeBlob)).toBe(large.length)
    const range = { start: 1_000_000, end: 4_000_000 }
    expect(
      (await bytesOf(await other.read(largeBlob, range))).equals(large.subarray(range.start, range.end + 1)),
    ).toBe(true)
    // A whole read fills the local copy, checked against the blob's SHA-256.
    expect((await bytesOf(await other.read(smallBlob))).equals(small)).toBe(true)
    expect(readFileSync(other.copyPathOf(smallBlob.sha256Hex)).equals(small)).toBe(true)
    expect(await other.sizeOf({ sha256Hex: 'ab'.repeat(32), storageTxId: 'x'.repeat(43) })).toBeNull()
  })

  it('refuses bytes the gateway serves that are not the blob', async () => {
    const other = await openArweaveBlobStore({ gateway, walletFile, cacheDir: join(temp, 'mismatch-cache') })
    const wrong = { sha256Hex: 'cd'.repeat(32), storageTxId: smallBlob.storageTxId }
    await expect(other.read(wrong)).rejects.toMatchObject({ code: 'BLOB_MISMATCH' })
    expect(() => readFileSync(other.copyPathOf(wrong.sha256Hex))).toThrow()
  })

  it('finds every blob of a vault by its tags through GraphQL, and no other vault’s', async () => {
    const otherVault = await putBytes(store, randomBytes(1000), 'asset-other', 'another-vault')
    await get('mine')
    const found = await graphql<{
      transactions: { edges: { node: { id: string; data: { size: string } } }[] }
    }>(
      `query($ref: [String!]!) {
        transactions(tags: [{ name: "App-Name", values: ["Vault-Desktop"] }, { name: "Vault-Ref", values: $ref }], first: 100) {
          edges { node { id data { size } } }
        }
      }`,
      { ref: [vaultRefOf(vaultId)] },
    )
    const ids = found.transactions.edges.map((e) => e.node.id).sort()
    expect(ids).toEqual([smallBlob.storageTxId, largeBlob.storageTxId].sort())
    expect(ids).not.toContain(otherVault.storageTxId)
  })

  it('does not pay twice for the same bytes of the same vault; keeps blobs on the network when removed', async () => {
    const again = await putBytes(store, small, 'asset-small-retry')
    expect(again.storageTxId).toBe(smallBlob.storageTxId)
    await store.remove(smallBlob)
    expect((await get(smallBlob.storageTxId)).status).toBe(200)
    // The local copy went; the blob is still readable from the network.
    expect((await bytesOf(await store.read(smallBlob))).equals(small)).toBe(true)
  })

  it('finishes a paid upload whose chunks did not all go up instead of paying again', async () => {
    const arweave = Arweave.init({ host: '127.0.0.1', port: Number(new URL(gateway).port), protocol: 'http' })
    const bytes = randomBytes(4 * 256 * 1024 + 5000)
    const before = BigInt(await arweave.wallets.getBalance(address))
    const original = globalThis.fetch
    let chunkPosts = 0
    globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      if (String(input).endsWith('/chunk') && init?.method === 'POST' && ++chunkPosts === 3) {
        return new Response('{"error":"invalid_proof"}', { status: 400 })
      }
      return original(input, init)
    }) as typeof fetch
    let error: unknown
    try {
      error = await putBytes(store, bytes, 'asset-interrupted').catch((e: unknown) => e)
    } finally {
      globalThis.fetch = original
    }
    expect(error).toMatchObject({
      code: 'GATEWAY_REFUSED',
      message: expect.stringMatching(/did not take part 3 of the file .*upload the same file again later/),
    })
    const again = await putBytes(store, bytes, 'asset-interrupted-retry')
    await get('mine')
    expect(Buffer.from(await (await get(again.storageTxId)).arrayBuffer()).equals(bytes)).toBe(true)
    const paid = before - BigInt(await arweave.wallets.getBalance(address))
    expect(paid).toBe(BigInt(await arweave.transactions.getPrice(bytes.length)))
    expect(await putBytes(store, bytes, 'asset-interrupted-third')).toEqual(again)
  })

  it('garbage collection only frees local copies of unreferenced blobs, never within a day', async () => {
    expect(await store.collectGarbage(async () => false)).toBe(0)
    expect((await bytesOf(await store.read(largeBlob))).equals(large)).toBe(true)
  })
})

describe('errors an operator can meet', () => {
  it('names a missing or unreadable wallet file and what to give instead', async () => {
    const missing = openArweaveBlobStore({ gateway, walletFile: join(temp, 'nope.json'), cacheDir: temp })
    await expect(missing).rejects.toThrow(ArweaveStoreError)
    await expect(missing).rejects.toThrow(/wallet file .*nope\.json cannot be read \(ENOENT\)/)
    const notJwk = join(temp, 'not-a-wallet.json')
    writeFileSync(notJwk, '{"hello": "world"}')
    await expect(openArweaveBlobStore({ gateway, walletFile: notJwk, cacheDir: temp })).rejects.toMatchObject(
      {
        code: 'WALLET_UNREADABLE',
        message: expect.stringMatching(/not an Arweave wallet key/),
      },
    )
  })

  it('says the balance is too low, with the wallet address, and stores nothing', async () => {
    const arweave = Arweave.init({ host: '127.0.0.1', port: Number(new URL(gateway).port), protocol: 'http' })
    const poorFile = join(temp, 'poor.json')
    writeFileSync(poorFile, JSON.stringify(await arweave.wallets.generate()))
    const poor = await openArweaveBlobStore({
      gateway,
      walletFile: poorFile,
      cacheDir: join(temp, 'poor-cache'),
    })
    const error = await putBytes(poor, randomBytes(2000), 'asset-poor').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ArweaveStoreError)
    expect(error).toMatchObject({ code: 'BALANCE_TOO_LOW' })
    expect((error as Error).message).toContain(poor.address)
    expect((error as Error).message).toMatch(/Add AR to this wallet/)
    const posted = await graphql<{ transactions: { edges: unknown[] } }>(
      'query($owner: [String!]!) { transactions(owners: $owner) { edges { cursor } } }',
      { owner: [poor.address] },
    )
    expect(posted.transactions.edges).toEqual([])
  })

  it('says the gateway could not be reached, and where to look', async () => {
    const port = await freePort()
    const offline = await openArweaveBlobStore({
      gateway: `http://127.0.0.1:${port}`,
      walletFile,
      cacheDir: join(temp, 'offline-cache'),
    })
    await expect(putBytes(offline, randomBytes(2000), 'asset-offline')).rejects.toMatchObject({
      code: 'GATEWAY_UNREACHABLE',
      message: expect.stringMatching(/could not be reached .*ECONNREFUSED.*Check the gateway address/),
    })
    await expect(
      openArweaveBlobStore({ gateway: 'arweave.net', walletFile, cacheDir: temp }),
    ).rejects.toThrow(/is not a URL/)
  })
})
