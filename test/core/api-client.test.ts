import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import { inspect } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildMultipartBody } from '../../src/main/core/uploads/multipart-body'
import { type RetryNotice, VaultApiClient, VaultApiError } from '../../src/service-client'
import { RequestPacer } from '../../src/service-client/request-pacer'
import { type ServiceFixture, startServiceFixture } from './service-fixture'

let svc: ServiceFixture
let client: VaultApiClient
let agent: VaultApiClient

beforeAll(async () => {
  svc = await startServiceFixture()
  client = new VaultApiClient({ baseUrl: svc.url, apiKey: svc.humanKey })
  agent = new VaultApiClient({ baseUrl: svc.url, apiKey: svc.agentKey })
})
afterAll(async () => {
  await svc?.close()
})

function plainBody(bytes: Uint8Array, filename = 'note.txt') {
  return buildMultipartBody(
    [
      ['filename', filename],
      ['contentType', 'text/plain'],
      ['metadata', JSON.stringify({ relativePath: `docs/${filename}` })],
    ],
    {
      fieldName: 'file',
      filename,
      contentType: 'application/octet-stream',
      length: bytes.length,
      content: async function* () {
        yield bytes
      },
    },
  )
}

async function expectApiError(promise: Promise<unknown>): Promise<VaultApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(VaultApiError)
  return error as VaultApiError
}

describe('VaultApiClient against the local service', () => {
  it('covers every endpoint of the spec and the local extensions', async () => {
    expect(await client.listVaults()).toEqual([])
    expect(client.prefix).toBe('/api')

    const vault = await client.createVault({ preset: 'standard' })
    expect(vault.state).toBe('active')
    expect(vault.sssPreset).toBe('standard')
    const listed = await client.listVaults()
    expect(listed.map((v) => v.id)).toEqual([vault.id])
    const got = await client.getVault(vault.id)
    expect(got.creditsBalance).toBe(100)
    expect(typeof got.updatedAt).toBe('string')

    const config = await client.configureRelease(vault.id, {
      trigger: 'dead_man_switch',
      config: { checkInFrequency: 'weekly' },
    })
    expect(config).toMatchObject({
      trigger: 'dead_man_switch',
      checkInFrequency: 'weekly',
      contestationDays: 30,
    })
    expect(Date.parse(config.nextCheckInDue)).toBeGreaterThan(svc.now())

    const guardian = await client.addGuardian(vault.id, { name: 'Ada', email: 'ada@example.com' })
    expect(guardian).toMatchObject({ name: 'Ada', email: 'ada@example.com', status: 'pending' })
    expect((await client.listGuardians(vault.id)).map((g) => g.id)).toEqual([guardian.id])
    const heir = await client.addHeir(vault.id, { name: 'Ben', email: 'ben@example.com' })
    expect(heir).toMatchObject({ name: 'Ben', email: 'ben@example.com' })
    expect((await client.listHeirs(vault.id)).map((h) => h.id)).toEqual([heir.id])

    const content = new TextEncoder().encode('hello vault')
    const body = plainBody(content)
    const asset = await client.uploadAsset({
      vaultId: vault.id,
      body: body.stream,
      contentType: body.contentType,
      contentLength: body.contentLength,
    })
    expect(asset).toMatchObject({ filename: 'note.txt', contentType: 'text/plain', category: 'document' })
    expect(asset.sizeBytes).toBe(content.length)
    expect(asset.creditsConsumed).toBe(1)
    const page = await client.listAssets(vault.id, { category: 'document', limit: 10 })
    expect(page.data.map((a) => a.id)).toEqual([asset.id])
    expect(page.meta).toMatchObject({ total: 1, limit: 10, offset: 0 })
    expect((await client.listAssets(vault.id, { category: 'image' })).data).toEqual([])
    const downloaded = await client.downloadAsset(vault.id, asset.id)
    const chunks: Buffer[] = []
    for await (const c of downloaded) chunks.push(c as Buffer)
    expect(Buffer.concat(chunks).toString()).toBe('hello vault')

    const checkin = await agent.checkIn(vault.id, 'still here')
    expect(checkin.success).toBe(true)
    expect(checkin.daysRemaining).toBe(7)
    expect((await client.getVault(vault.id)).creditsBalance).toBe(100 - 1 - 2)

    expect(await client.removeGuardian(vault.id, guardian.id)).toMatchObject({
      removed: guardian.id,
      remainingGuardians: 0,
    })
    expect(await client.removeHeir(vault.id, heir.id)).toEqual({ removed: heir.id, remainingHeirs: 0 })

    const refused = await expectApiError(client.startRelease(vault.id))
    expect(refused.status).toBe(409)
    expect(refused.userMessage).toMatch(/trigger is "manual"/)
    await client.configureRelease(vault.id, { trigger: 'manual' })
    const releasing = await client.startRelease(vault.id)
    expect(releasing.state).toBe('releasing')
    const cancelled = await client.cancelRelease(vault.id)
    expect(cancelled).toMatchObject({ cancelled: true, vaultState: 'active' })
    const again = await expectApiError(client.cancelRelease(vault.id))
    expect(again.status).toBe(409)
    expect(again.userMessage).toMatch(/not releasing/)

    const other = await client.createVault()
    expect(await client.deleteVault(other.id)).toEqual({ deleted: other.id })
    const gone = await expectApiError(client.getVault(other.id))
    expect(gone.status).toBe(404)
    expect(gone.code).toBe('NOT_FOUND')
  })

  it('answers 402 for an upload the balance cannot cover, and debits nothing', async () => {
    const vault = await client.createVault()
    const before = (await client.getVault(vault.id)).creditsBalance
    // The upload formula charges 1 credit per started 215 kB; the declared size alone decides.
    const big = new Uint8Array(Math.ceil(((before + 5) * 1e9) / 4650))
    const body = plainBody(big, 'big.bin')
    const error = await expectApiError(
      client.uploadAsset({
        vaultId: vault.id,
        body: body.stream,
        contentType: body.contentType,
        contentLength: body.contentLength,
        creditsBalance: before,
      }),
    )
    expect(error.status).toBe(402)
    expect(error.code).toBe('INSUFFICIENT_CREDITS')
    expect(error.userMessage).toMatch(/balance is \d+ credits.*Add credits/)
    const after = await client.getVault(vault.id)
    expect(after.creditsBalance).toBe(before)
    expect(after.assetCount).toBe(0)
  })

  it('explains a 402 on check-in: a check-in needs 2 credits', async () => {
    const { apiKey } = await svc.service.admin.createAccount({ email: 'poor@example.com' })
    const poor = new VaultApiClient({ baseUrl: svc.url, apiKey })
    const vault = await poor.createVault()
    await poor.configureRelease(vault.id, {
      trigger: 'dead_man_switch',
      config: { checkInFrequency: 'monthly' },
    })
    // Spend the trial credits down to 1 with an upload whose size costs exactly balance - 1.
    const balance = (await poor.getVault(vault.id)).creditsBalance
    const bytes = Math.floor(((balance - 1) * 1e9) / 4650)
    const body = buildMultipartBody([['filename', 'filler.bin']], {
      fieldName: 'file',
      filename: 'filler.bin',
      contentType: 'application/octet-stream',
      length: bytes,
      content: async function* () {
        const block = new Uint8Array(1 << 20)
        for (let left = bytes; left > 0; left -= block.length)
          yield left >= block.length ? block : block.subarray(0, left)
      },
    })
    const filler = await poor.uploadAsset({
      vaultId: vault.id,
      body: body.stream,
      contentType: body.contentType,
      contentLength: body.contentLength,
    })
    expect(filler.creditsConsumed).toBe(balance - 1)
    const error = await expectApiError(poor.checkIn(vault.id, 'hello'))
    expect(error.status).toBe(402)
    expect(error.userMessage).toBe(
      'A check-in needs 2 credits ($0.02) and the balance is too low. Add credits, then check in again.',
    )
    expect((await poor.getVault(vault.id)).creditsBalance).toBe(1)
  })

  it('answers 403 with an explanation for an agent key on a write', async () => {
    const [vault] = await client.listVaults()
    const error = await expectApiError(agent.addHeir(vault!.id, { name: 'X', email: 'x@example.com' }))
    expect(error.status).toBe(403)
    expect(error.code).toBe('FORBIDDEN')
    expect(error.userMessage).toMatch(/sk_human_/)
    // Reads work for the agent.
    expect((await agent.getVault(vault!.id)).id).toBe(vault!.id)
  })

  it('answers 409 for duplicate guardians and heirs', async () => {
    const vault = await client.createVault()
    await client.addGuardian(vault.id, { name: 'G', email: 'g@example.com' })
    const dupG = await expectApiError(client.addGuardian(vault.id, { name: 'G2', email: 'g@example.com' }))
    expect(dupG.status).toBe(409)
    expect(dupG.userMessage).toMatch(/guardian with this e-mail/)
    await client.addHeir(vault.id, { name: 'H', email: 'h@example.com' })
    const dupH = await expectApiError(client.addHeir(vault.id, { name: 'H2', email: 'h@example.com' }))
    expect(dupH.status).toBe(409)
    expect(dupH.userMessage).toMatch(/heir with this e-mail/)
  })

  it('turns a wrong API key into a clear error that never contains the key', async () => {
    const wrongKey = 'sk_human_this-key-does-not-exist-0000'
    const wrong = new VaultApiClient({ baseUrl: svc.url, apiKey: wrongKey })
    const error = await expectApiError(wrong.listVaults())
    expect(error.status).toBe(401)
    expect(error.code).toBe('UNAUTHORIZED')
    expect(error.userMessage).toMatch(/Reconnect with a valid key/)
    const everything = [
      error.message,
      error.userMessage,
      error.stack ?? '',
      JSON.stringify(error),
      inspect(error, { depth: 10 }),
      inspect(wrong, { depth: 10 }),
      JSON.stringify(wrong),
    ].join('\n')
    expect(everything).not.toContain(wrongKey)
    expect(everything).not.toContain('this-key-does-not-exist')
  })

  it('reports a service that is not there as a network error with advice', async () => {
    const server = createServer()
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as AddressInfo).port
    await new Promise<void>((r) => server.close(() => r()))
    const offline = new VaultApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: svc.humanKey,
      prefix: '/api',
      maxRetries: 1,
      backoffBaseMs: 1,
    })
    const error = await expectApiError(offline.getVault('v'))
    expect(error.code).toBe('NETWORK_ERROR')
    expect(error.userMessage).toMatch(/Could not reach the Vault Service/)
    expect(JSON.stringify(error)).not.toContain(svc.humanKey)
  })
})

describe('VaultApiClient retries and prefixes', () => {
  it('waits out 429 with Retry-After, reports it, then succeeds', async () => {
    const limited = await startServiceFixture({ rateLimits: { postHeir: 2 } })
    try {
      const notices: RetryNotice[] = []
      const waits: number[] = []
      const c = new VaultApiClient({
        baseUrl: limited.url,
        apiKey: limited.humanKey,
        onRetry: (n) => notices.push(n),
        // Waiting moves the service clock, so the rate window really passes.
        sleep: async (ms) => {
          waits.push(ms)
          limited.advance(ms)
        },
      })
      const vault = await c.createVault()
      for (let i = 0; i < 3; i++) await c.addHeir(vault.id, { name: `H${i}`, email: `h${i}@example.com` })
      expect((await c.listHeirs(vault.id)).length).toBe(3)
      expect(notices).toHaveLength(1)
      expect(notices[0]!.reason).toBe('rate_limited')
      expect(notices[0]!.waitSeconds).toBeGreaterThan(0)
      expect(notices[0]!.waitSeconds).toBeLessThanOrEqual(60)
      expect(notices[0]!.text).toMatch(/retrying in \d+ s/)
      expect(waits[0]).toBe(notices[0]!.waitSeconds * 1000)

      // Past the bound, the 429 is returned to the caller with its Retry-After.
      const impatient = new VaultApiClient({
        baseUrl: limited.url,
        apiKey: limited.humanKey,
        maxRetryAfterSeconds: 0,
      })
      await impatient.addHeir(vault.id, { name: 'H3', email: 'h3@example.com' })
      await impatient.addHeir(vault.id, { name: 'H4', email: 'h4@example.com' }).catch(() => undefined)
      const error = await expectApiError(impatient.addHeir(vault.id, { name: 'H5', email: 'h5@example.com' }))
      expect(error.status).toBe(429)
      expect(error.retryAfterSeconds).toBeGreaterThan(0)
    } finally {
      await limited.close()
    }
  })

  it('paces requests on its own so the service never answers 429', async () => {
    const limited = await startServiceFixture({ rateLimits: { postRelease: 3 } })
    try {
      const sleeps: number[] = []
      let clientNow = limited.now()
      const clock = {
        now: () => clientNow,
        sleep: async (ms: number) => {
          sleeps.push(ms)
          clientNow += ms
          limited.advance(ms)
        },
      }
      const notices: RetryNotice[] = []
      const c = new VaultApiClient({
        baseUrl: limited.url,
        apiKey: limited.humanKey,
        pacer: new RequestPacer({ limits: { postRelease: 3 }, share: 1, clock }),
        onRetry: (n) => notices.push(n),
      })
      const vault = await c.createVault()
      await c.configureRelease(vault.id, {
        trigger: 'dead_man_switch',
        config: { checkInFrequency: 'weekly' },
      })
      for (let i = 0; i < 4; i++) await c.checkIn(vault.id)
      expect(notices).toEqual([])
      expect(sleeps.length).toBeGreaterThan(0)
    } finally {
      await limited.close()
    }
  })

  it('retries idempotent calls after 5xx, not writes', async () => {
    let calls = 0
    const server = createServer((_req, res) => {
      calls++
      if (calls <= 2) {
        res.writeHead(500, { 'content-type': 'application/json', 'x-request-id': `r${calls}` })
        res.end(JSON.stringify({ error: { code: 'INTERNAL_ERROR', message: 'boom', status: 500 } }))
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ data: [], meta: { timestamp: new Date().toISOString(), requestId: 'ok' } }))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const notices: RetryNotice[] = []
      const c = new VaultApiClient({
        baseUrl: url,
        apiKey: 'sk_human_x',
        prefix: '/api',
        backoffBaseMs: 1,
        onRetry: (n) => notices.push(n),
      })
      expect(await c.listVaults()).toEqual([])
      expect(notices.map((n) => n.reason)).toEqual(['server_error', 'server_error'])
      calls = 0
      const error = await expectApiError(c.checkIn('v1'))
      expect(calls).toBe(1)
      expect(error.status).toBe(500)
      expect(error.requestId).toBe('r1')
      expect(error.userMessage).toMatch(/internal error/)
    } finally {
      await new Promise<void>((r) => server.close(() => r()))
    }
  })

  it('says when a service does not offer a local-service extension', async () => {
    const server = createServer((req, res) => {
      if (req.method === 'GET' && req.url === '/api/vault') {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ data: [], meta: { timestamp: new Date().toISOString(), requestId: 'a' } }))
        return
      }
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          error: { code: 'NOT_FOUND', message: `no route for ${req.method} ${req.url}`, status: 404 },
        }),
      )
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const c = new VaultApiClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        apiKey: 'sk_human_x',
      })
      const create = await expectApiError(c.createVault())
      expect(create.userMessage).toMatch(/does not offer "create vault"/)
      const heirs = await expectApiError(c.listHeirs('v1'))
      expect(heirs.userMessage).toMatch(/does not offer "list heirs"/)
    } finally {
      await new Promise<void>((r) => server.close(() => r()))
    }
  })

  it('falls back to /v1 when the vault list 404s under /api', async () => {
    // A gateway that only routes /v1 to the service.
    const target = new URL(svc.url)
    const gateway: Server = createServer((req, res) => {
      if (!req.url?.startsWith('/v1/')) {
        res.writeHead(404, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'no route', status: 404 } }))
        return
      }
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers)
          up.pipe(res)
        },
      )
      Readable.from(req).pipe(upstream)
    })
    await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r))
    try {
      const c = new VaultApiClient({
        baseUrl: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/`,
        apiKey: svc.humanKey,
      })
      const vaults = await c.listVaults()
      expect(c.prefix).toBe('/v1')
      expect(vaults.length).toBeGreaterThan(0)
      expect((await c.getVault(vaults[0]!.id)).id).toBe(vaults[0]!.id)
    } finally {
      await new Promise<void>((r) => gateway.close(() => r()))
    }
  })
})
