// The recovery page's remote sources, run in Node (fetch and ReadableStream as in a browser): against
// the real local Vault Service with a released vault and the heir code from its e-mail, against
// arlocal with the vault's blobs put there by the service's Arweave store, and against small
// hostile servers for what a real one does not do (a body longer than listed, a cut-off download,
// a vault that is not released, a redirect).
import { createHash, randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PageBlob } from '../../src/recovery-page/page-source'
import { PageSourceError } from '../../src/recovery-page/page-source'
import { arweaveSource, REMOTE_CONNECT_SOURCES, serviceSource } from '../../src/recovery-page/remote-sources'
import { type ArweaveBlobStore, openArweaveBlobStore } from '../../src/service/arweave-blob-store'
import { HEIR_SOURCE_TEXT } from '../../src/shared/heir-source-text'
import { collectBytes, encryptStream, generateVaultKey } from '../../src/vault-format'
import { startFakeGateway, txId, wallet } from '../hostile/fake-arweave-gateway'
import { call, DAY_MS, startTestService, type TestService, uploadForm } from '../service/harness'
import { freePort, type LocalArweave, startLocalArweave } from '../service/local-arweave'

const vaultKey = generateVaultKey()

async function blobOf(vaultId: string, path: string, plain: Uint8Array): Promise<Buffer> {
  return Buffer.from(
    await collectBytes(encryptStream([plain], { vaultKey, vaultId, identity: { path, size: plain.length } })),
  )
}

async function bytesOf(blob: PageBlob, signal?: AbortSignal): Promise<Buffer> {
  const stream = await blob.open(signal)
  const pieces: Uint8Array[] = []
  for await (const piece of stream) pieces.push(piece)
  return Buffer.concat(pieces)
}

async function refusal(promise: Promise<unknown>): Promise<PageSourceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(PageSourceError)
  return error as PageSourceError
}

describe('serviceSource against the real service', () => {
  let t: TestService
  let vaultId: string
  let token: string
  const blobs: Record<string, Buffer> = {}

  beforeAll(async () => {
    t = await startTestService()
    vaultId = t.owner.vaultId
    await t.service.admin.addCredits({ account: t.owner.accountId, credits: 1000 })
    blobs.will = await blobOf(vaultId, 'letters/will.txt', Buffer.from('the house to Ana'))
    blobs.scan = await blobOf(vaultId, 'photos/scan.jpg', randomBytes(200_000))
    for (const [name, fields] of [
      [
        'will',
        { filename: 'will.txt.vault', metadata: JSON.stringify({ relativePath: 'letters/will.txt' }) },
      ],
      ['scan', { filename: 'scan.jpg.vault' }],
    ] as const) {
      const reply = await call(t.url, 'POST', `/api/vault/${vaultId}/asset`, {
        key: t.owner.apiKey,
        body: uploadForm(blobs[name]!, fields),
      })
      expect(reply.status).toBe(201)
    }
    const heir = await call(t.url, 'POST', `/api/vault/${vaultId}/heir`, {
      key: t.owner.apiKey,
      json: { name: 'Hana Heir', email: 'hana@example.com' },
    })
    expect(heir.status).toBe(201)
    await t.service.admin.startRelease({ vault: vaultId })
    t.advance(30 * DAY_MS + 60_000)
    expect((await t.service.tick()).released.map((r) => r.vaultId)).toEqual([vaultId])
    const mail = (await t.service.admin.outbox({ vault: vaultId })).messages.find(
      (m) => m.to === 'hana@example.com' && /hk_/.test(m.body),
    )!
    token = /(hk_[A-Za-z0-9_-]{43})/.exec(mail.body)![1]!
  }, 60_000)

  afterAll(() => t?.stop())

  it('lists the released vault and streams every blob byte for byte', async () => {
    const source = serviceSource({ serviceUrl: t.url, accessToken: token, vaultId })
    expect(source.describe()).toContain(t.url)
    const listed = await source.list()
    expect(listed.map((b) => [b.label, b.size]).sort()).toEqual(
      [
        ['“letters/will.txt” on the service', blobs.will!.length],
        ['“scan.jpg.vault” on the service', blobs.scan!.length],
      ].sort(),
    )
    for (const blob of listed) {
      const expected = blob.label.includes('will') ? blobs.will! : blobs.scan!
      expect((await bytesOf(blob)).equals(expected)).toBe(true)
      // A second open (the second pass after the survey) reads it again from the start.
      expect((await bytesOf(blob)).equals(expected)).toBe(true)
      expect(blob.sourceDateMs).toBeGreaterThan(0)
    }
  })

  it('a wrong access code gets the heir’s words, in Spanish too', async () => {
    const wrong = `hk_${'A'.repeat(43)}`
    const en = await refusal(serviceSource({ serviceUrl: t.url, accessToken: wrong, vaultId }).list())
    expect(en.code).toBe('ACCESS_REFUSED')
    expect(en.message).toBe(HEIR_SOURCE_TEXT.en.accessRefused)
    const es = await refusal(
      serviceSource({ serviceUrl: t.url, accessToken: wrong, vaultId, language: 'es' }).list(),
    )
    expect(es.message).toBe(HEIR_SOURCE_TEXT.es.accessRefused)
  })

  it('another vault id with this code is refused, and nothing is listed', async () => {
    const other = await refusal(
      serviceSource({ serviceUrl: t.url, accessToken: token, vaultId: 'another-vault' }).list(),
    )
    expect(['ACCESS_REFUSED', 'NOT_FOUND']).toContain(other.code)
    expect([HEIR_SOURCE_TEXT.en.otherVault('another-vault'), HEIR_SOURCE_TEXT.en.vaultUnknown]).toContain(
      other.message,
    )
  })

  it('refuses plain http to another computer before any request, and names a service that is not there', async () => {
    const remote = await refusal(
      serviceSource({ serviceUrl: 'http://vault.example.com', accessToken: token, vaultId }).list(),
    )
    expect(remote.code).toBe('INVALID_ADDRESS')
    const port = await freePort()
    const gone = await refusal(
      serviceSource({ serviceUrl: `http://127.0.0.1:${port}`, accessToken: token, vaultId }).list(),
    )
    expect(gone.code).toBe('UNREACHABLE')
    expect(gone.message).toBe(HEIR_SOURCE_TEXT.en.unreachable(`http://127.0.0.1:${port}`, { step: 'open' }))
  })
})

/** A one-vault "service" under /v1 that can misbehave in the ways a real one does not. */
function fakeService(
  behaviour: {
    state?: string
    extra?: number
    cutAt?: number
    redirect?: boolean
    /** Answer the first download 429 (Retry-After: 1). */
    throttleOnce?: boolean
    /** Send the body in this many pieces, 60 ms apart. */
    dripPieces?: number
    /** Stop sending at this byte on the first download, holding the connection open. */
    stallAt?: number
  },
  content: Buffer,
): Promise<{ url: string; server: Server; ranges: string[] }> {
  const ranges: string[] = []
  let cut = behaviour.cutAt !== undefined
  let throttle = behaviour.throttleOnce === true
  let stall = behaviour.stallAt !== undefined
  const server = createServer((req, res) => {
    const path = req.url ?? ''
    if (behaviour.redirect) {
      res.writeHead(302, { location: 'https://elsewhere.example/' }).end()
      return
    }
    if (!path.startsWith('/v1/')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"NOT_FOUND"}}')
      return
    }
    const json = (data: unknown, meta?: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data, meta }))
    if (path === '/v1/vault/v-1') return json({ id: 'v-1', state: behaviour.state ?? 'released' })
    if (path.startsWith('/v1/vault/v-1/asset?')) {
      const offset = Number(new URL(path, 'http://x').searchParams.get('offset'))
      const assets = [
        {
          id: 'a-1',
          filename: 'x.vault',
          sizeBytes: content.length,
          createdAt: new Date().toISOString(),
          contentType: 'application/octet-stream',
        },
      ]
      return json(offset === 0 ? assets : [], { total: 1 })
    }
    if (path === '/v1/vault/v-1/asset/a-1/content') {
      const range = req.headers.range
      ranges.push(range ?? '')
      if (throttle) {
        throttle = false
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' }).end('{}')
        return
      }
      const start = range ? Number(/bytes=(\d+)-/.exec(range)![1]) : 0
      const body = Buffer.concat([content.subarray(start), Buffer.alloc(behaviour.extra ?? 0, 9)])
      res.writeHead(range ? 206 : 200, { 'content-length': String(body.length) })
      if (stall) {
        stall = false
        res.write(body.subarray(0, behaviour.stallAt!))
        return
      }
      if (behaviour.dripPieces) {
        const size = Math.ceil(body.length / behaviour.dripPieces)
        let at = 0
        const next = () => {
          res.write(body.subarray(at, at + size))
          at += size
          if (at >= body.length) res.end()
          else setTimeout(next, 60)
        }
        next()
        return
      }
      if (cut) {
        cut = false
        res.write(body.subarray(0, behaviour.cutAt!))
        // The connection drops part-way.
        setTimeout(() => res.socket?.destroy(), 20)
        return
      }
      res.end(body)
      return
    }
    res.writeHead(404).end()
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, ranges }),
    ),
  )
}

describe('serviceSource against a service that misbehaves', () => {
  const content = randomBytes(300_000)
  const close = (server: Server) => new Promise((resolve) => server.close(resolve))

  it('finds the API under /v1 and resumes a cut-off download with a byte range', async () => {
    const { url, server, ranges } = await fakeService({ cutAt: 100_000 }, content)
    try {
      const [blob] = await serviceSource({ serviceUrl: url, accessToken: 'hk_x', vaultId: 'v-1' }).list()
      expect((await bytesOf(blob!)).equals(content)).toBe(true)
      expect(ranges[0]).toBe('')
      expect(ranges[1]).toMatch(/^bytes=\d+-$/)
      expect(Number(/\d+/.exec(ranges[1]!)![0])).toBeGreaterThan(0)
    } finally {
      await close(server)
    }
  })

  it('waits out a rate limit, lets a slow download run past the timeout while bytes flow, and resumes a stalled one', async () => {
    const throttled = await fakeService({ throttleOnce: true }, content)
    const slow = await fakeService({ dripPieces: 8 }, content)
    const stalled = await fakeService({ stallAt: 50_000 }, content)
    try {
      const options = { accessToken: 'hk_x', vaultId: 'v-1', timeoutMs: 250 }
      const [first] = await serviceSource({ ...options, serviceUrl: throttled.url }).list()
      expect((await bytesOf(first!)).equals(content)).toBe(true)
      expect(throttled.ranges).toEqual(['', ''])
      // 8 pieces 60 ms apart: longer than the timeout in all, never still for as long.
      const [second] = await serviceSource({ ...options, serviceUrl: slow.url }).list()
      expect((await bytesOf(second!)).equals(content)).toBe(true)
      expect(slow.ranges).toEqual([''])
      const [third] = await serviceSource({ ...options, serviceUrl: stalled.url }).list()
      expect((await bytesOf(third!)).equals(content)).toBe(true)
      expect(stalled.ranges).toEqual(['', 'bytes=50000-'])
    } finally {
      await close(throttled.server)
      await close(slow.server)
      stalled.server.closeAllConnections()
      await close(stalled.server)
    }
  })

  it('refuses a body longer than listed', async () => {
    const { url, server } = await fakeService({ extra: 10 }, content)
    try {
      const [blob] = await serviceSource({ serviceUrl: url, accessToken: 'hk_x', vaultId: 'v-1' }).list()
      const error = await refusal(bytesOf(blob!))
      expect(error.code).toBe('BAD_ANSWER')
      expect(error.message).toBe(HEIR_SOURCE_TEXT.en.tooLong(url, content.length))
    } finally {
      await close(server)
    }
  })

  it('refuses a vault that is not released, and a redirect', async () => {
    const active = await fakeService({ state: 'active' }, content)
    const moved = await fakeService({ redirect: true }, content)
    try {
      const notReleased = await refusal(
        serviceSource({ serviceUrl: active.url, accessToken: 'hk_x', vaultId: 'v-1', language: 'es' }).list(),
      )
      expect(notReleased.code).toBe('NOT_RELEASED')
      expect(notReleased.message).toBe(HEIR_SOURCE_TEXT.es.notReleased('v-1', 'active'))
      const redirected = await refusal(
        serviceSource({ serviceUrl: moved.url, accessToken: 'hk_x', vaultId: 'v-1' }).list(),
      )
      expect(redirected.code).toBe('INVALID_ADDRESS')
    } finally {
      await close(active.server)
      await close(moved.server)
    }
  })
})

describe('arweaveSource against arlocal', () => {
  const vaultId = '7a1b2c3d-0000-4000-8000-000000000001'
  let network: LocalArweave
  let store: ArweaveBlobStore
  const blobs: Record<string, Buffer> = {}
  const txIds: Record<string, string> = {}
  let strangerAddress: string

  async function putBlob(name: string, blob: Buffer, forVault = vaultId): Promise<void> {
    const tempPath = store.newTempPath()
    writeFileSync(tempPath, blob)
    blobs[name] = blob
    txIds[name] = await store.put(tempPath, {
      sha256Hex: createHash('sha256').update(blob).digest('hex'),
      size: blob.length,
      labels: { vaultId: forVault, assetId: name },
    })
  }

  beforeAll(async () => {
    network = await startLocalArweave('page-arweave-')
    store = await openArweaveBlobStore({
      gateway: network.gateway,
      walletFile: network.walletFile,
      cacheDir: join(network.dir, 'cache'),
    })
    await putBlob('will', await blobOf(vaultId, 'letters/will.txt', Buffer.from('the house to Ana')))
    await putBlob('scan', await blobOf(vaultId, 'photos/scan.jpg', randomBytes(150_000)))
    await putBlob('theirs', await blobOf('other-vault', 'theirs.txt', Buffer.from('no')), 'other-vault')
    // A stranger posts a blob-length transaction with this vault's tags and a Content-SHA256 that is
    // not its bytes' (the network lets anyone tag anything).
    const { arweave } = network
    const stranger = await arweave.wallets.generate()
    strangerAddress = await arweave.wallets.jwkToAddress(stranger)
    await fetch(`${network.gateway}/mint/${strangerAddress}/1000000000000000`)
    const fake = await arweave.createTransaction({ data: blobs.will!.subarray() }, stranger)
    fake.addTag('App-Name', 'Vault-Desktop')
    const { arweaveVaultRef } = await import('../../src/vault-format')
    fake.addTag('Vault-Ref', arweaveVaultRef(vaultId))
    fake.addTag('Content-SHA256', 'ab'.repeat(32))
    await arweave.transactions.sign(fake, stranger)
    expect((await arweave.transactions.post(fake)).status).toBe(200)
    txIds.fake = fake.id
    expect((await fetch(`${network.gateway}/mine`)).status).toBe(200)
  }, 60_000)

  afterAll(() => network?.stop())

  it("finds the vault's blobs by its tags (not another vault's) and streams them byte for byte", async () => {
    const source = arweaveSource({ gatewayUrl: `${network.gateway}/`, vaultId })
    const listed = await source.list()
    const labels = listed.map((b) => b.label).sort()
    expect(labels).toEqual([`arweave:${txIds.will}`, `arweave:${txIds.scan}`, `arweave:${txIds.fake}`].sort())
    for (const name of ['will', 'scan']) {
      const blob = listed.find((b) => b.label === `arweave:${txIds[name]}`)!
      expect(blob.size).toBe(blobs[name]!.length)
      expect(blob.sourceDateMs).toBeGreaterThan(0)
      expect((await bytesOf(blob)).equals(blobs[name]!)).toBe(true)
    }
    // The stranger's copy is not what its Content-SHA256 says: its stream fails at the end.
    const fake = listed.find((b) => b.label === `arweave:${txIds.fake}`)!
    const mismatch = await refusal(bytesOf(fake))
    expect(mismatch.code).toBe('BAD_ANSWER')
    expect(mismatch.message).toBe(HEIR_SOURCE_TEXT.en.gatewayMismatch(txIds.fake!))
  })

  it("with the operator's address, only its transactions", async () => {
    const mine = await arweaveSource({ gatewayUrl: network.gateway, vaultId, owner: network.address }).list()
    expect(mine.map((b) => b.label).sort()).toEqual([`arweave:${txIds.will}`, `arweave:${txIds.scan}`].sort())
    const theirs = await arweaveSource({
      gatewayUrl: network.gateway,
      vaultId,
      owner: strangerAddress,
    }).list()
    expect(theirs.map((b) => b.label)).toEqual([`arweave:${txIds.fake}`])
  })

  it('names a bad gateway, a bad owner and a gateway that is not there', async () => {
    expect((await refusal(arweaveSource({ gatewayUrl: 'ftp://x', vaultId }).list())).code).toBe(
      'INVALID_ADDRESS',
    )
    const owner = await refusal(arweaveSource({ gatewayUrl: network.gateway, vaultId, owner: 'nope' }).list())
    expect(owner.code).toBe('INVALID_ADDRESS')
    expect(owner.message).toBe(HEIR_SOURCE_TEXT.en.ownerAddress('nope'))
    const port = await freePort()
    const gone = await refusal(
      arweaveSource({ gatewayUrl: `http://127.0.0.1:${port}`, vaultId, language: 'es' }).list(),
    )
    expect(gone.code).toBe('UNREACHABLE')
    expect(gone.message).toMatch(/^No se pudo contactar con la pasarela de Arweave/)
  })
})

describe('what the page must be allowed to connect to', () => {
  it('https anywhere, plain http on this computer only', () => {
    expect(REMOTE_CONNECT_SOURCES).toEqual(['https:', 'http://127.0.0.1:*', 'http://localhost:*'])
  })
})

describe('arweaveSource dating (FORMAT.md 9.3)', () => {
  it('dates a blob posted again by the first block that carried it; one posted without its tag gets no date', async () => {
    const vaultId = '7a1b2c3d-0000-4000-8000-000000000009'
    const draft = await blobOf(vaultId, 'will.txt', new TextEncoder().encode('a draft will'))
    const final = await blobOf(vaultId, 'will.txt', new TextEncoder().encode('the final will'))
    const ids = { draft: txId(), final: txId(), again: txId(), untagged: txId() }
    const gateway = await startFakeGateway({
      vaultId,
      txs: [
        { id: ids.draft, owner: wallet(), data: draft, blockSeconds: 1_600_000_000 },
        { id: ids.final, owner: wallet(), data: final, blockSeconds: 1_700_000_000 },
        // The draft's public bytes, posted again by anyone, years later: with its tag, and without.
        { id: ids.again, owner: wallet(), data: draft, blockSeconds: 1_900_000_000 },
        { id: ids.untagged, owner: wallet(), data: draft, blockSeconds: 1_950_000_000, sha256Hex: null },
      ],
    })
    try {
      const listed = await arweaveSource({ gatewayUrl: gateway.origin, vaultId }).list()
      const dateOf = (id: string) => listed.find((b) => b.label === `arweave:${id}`)?.sourceDateMs
      expect(dateOf(ids.draft)).toBe(1_600_000_000_000)
      expect(dateOf(ids.final)).toBe(1_700_000_000_000)
      expect(dateOf(ids.again)).toBe(1_600_000_000_000)
      expect(dateOf(ids.untagged)).toBeUndefined()
      expect(listed).toHaveLength(4)
    } finally {
      await gateway.stop()
    }
  })
})
