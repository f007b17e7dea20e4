// The client's HTTP policy against real loopback servers: redirects are refused (so the key never
// reaches another origin, nor plain http from https), waits are bounded phase by phase, and no
// error the client produces carries the key.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import { createServer as createTlsServer, globalAgent } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { inspect } from 'node:util'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type RetryNotice, VaultApiClient, VaultApiError } from '../../src/service-client'
import { redirectRefusal } from '../../src/service-client/transport'

const OWNER_KEY = 'sk_human_owner-s3cret+/=key-0123456789'
const HEIR_CODE = 'hk_heir-practice-c0de+/=0123456789'

type Handler = (req: IncomingMessage, res: ServerResponse) => void

interface TestServer {
  origin: string
  port: number
  /** Headers of every request the server received. */
  seen: IncomingHttpHeaders[]
  close: () => Promise<void>
}

const open: TestServer[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()))
})

async function listen(server: Server, seen: IncomingHttpHeaders[], scheme: 'http' | 'https') {
  server.on('request', (req: IncomingMessage) => seen.push(req.headers))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const handle: TestServer = {
    origin: `${scheme}://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  open.push(handle)
  return handle
}

function startHttp(handler: Handler): Promise<TestServer> {
  const seen: IncomingHttpHeaders[] = []
  return listen(createServer(handler), seen, 'http')
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

const envelope = (data: unknown) => ({ data, meta: { timestamp: new Date().toISOString(), requestId: 'r' } })

/** A service whose vault list works and whose every other route redirects to `target` + the path. */
function redirectingService(target: () => string, status = 302): Handler {
  return (req, res) => {
    if (req.method === 'GET' && req.url === '/api/vault') return json(res, 200, envelope([]))
    req.resume()
    res.writeHead(status, { location: `${target()}${req.url}` })
    res.end()
  }
}

/** The other origin: answers everything, as a service would, and records what it was sent. */
function collector(): Promise<TestServer> {
  return startHttp((req, res) => {
    req.resume()
    if (req.url?.endsWith('/content')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      res.end('stolen bytes')
      return
    }
    json(res, 200, envelope({ id: 'v1' }))
  })
}

/** What a call failed with; a call that succeeded instead comes back as a plain Error saying so. */
async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    const result = await run()
    // A download resolves with a stream; reading it is where some failures surface.
    if (result instanceof Readable) for await (const _ of result);
  } catch (error) {
    return error
  }
  return new Error('the call succeeded, but it should have failed')
}

/** Everything a log line, a crash report or the renderer could show of an error. */
function everythingOf(error: unknown): string {
  const parts: string[] = []
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 5; depth++) {
    parts.push(String(e), JSON.stringify(e) ?? '', inspect(e, { depth: 8, showHidden: true }))
    if (e instanceof Error) {
      parts.push(e.message, e.stack ?? '')
      e = e.cause
    } else e = undefined
  }
  return parts.join('\n')
}

function expectNoSecret(text: string, secret: string) {
  expect(text).not.toContain(secret)
  expect(text).not.toContain(encodeURIComponent(secret))
  // The distinctive middle of the secret, in case only part of it leaked.
  expect(text).not.toContain('s3cret')
  expect(text).not.toContain('c0de')
}

const uploadOf = (bytes: string) => ({
  vaultId: 'v1',
  body: () => Readable.from([Buffer.from(bytes)]),
  contentType: 'application/octet-stream',
  contentLength: Buffer.byteLength(bytes),
  retry: false,
})

describe('redirects are refused, so credentials stay with the address the user entered', () => {
  const cases: Array<{
    name: string
    secret: string
    status: number
    run: (client: VaultApiClient) => Promise<unknown>
  }> = [
    { name: 'a vault read', secret: OWNER_KEY, status: 302, run: (c) => c.getVault('v1') },
    { name: 'an asset download', secret: OWNER_KEY, status: 302, run: (c) => c.downloadAsset('v1', 'a1') },
    {
      name: "an heir's resumed download",
      secret: HEIR_CODE,
      status: 302,
      run: (c) => c.downloadAssetFrom('v1', 'a1', 5).then((r) => r.stream),
    },
    {
      name: "an heir's practice ticket",
      secret: HEIR_CODE,
      status: 301,
      run: (c) => c.getRehearsalTicket(),
    },
    { name: 'an upload (307)', secret: OWNER_KEY, status: 307, run: (c) => c.uploadAsset(uploadOf('hello')) },
  ]

  it.each(cases)(
    '$name redirected to another origin: the other server never sees the key and the error says why',
    async ({ secret, status, run }) => {
      const other = await collector()
      const service = await startHttp(redirectingService(() => other.origin, status))
      const client = new VaultApiClient({ baseUrl: service.origin, apiKey: secret, maxRetries: 0 })

      const error = await failureOf(() => run(client))

      expect(other.seen).toEqual([])
      expect(service.seen.length).toBeGreaterThan(0)
      expect(service.seen.every((h) => h['x-api-key'] === secret)).toBe(true)
      expect(error).toBeInstanceOf(VaultApiError)
      const refused = error as VaultApiError
      expect(refused.code).toBe('REDIRECT_REFUSED')
      expect(refused.status).toBe(status)
      expect(refused.userMessage).toBe(
        `The service at ${service.origin} redirected this request to ${other.origin}. Redirects are not followed, so the key is only ever sent to the address you entered: if the service has moved, change the service address to its new one.`,
      )
      expectNoSecret(everythingOf(error), secret)
    },
  )

  it('an http address redirected to https on the same host says to use the https address', async () => {
    const service = await startHttp(redirectingService(() => `https://127.0.0.1:${service.port}`, 301))
    const https = `https://127.0.0.1:${service.port}`
    const atRoot = new VaultApiClient({ baseUrl: service.origin, apiKey: OWNER_KEY, prefix: '/api' })
    const underPath = new VaultApiClient({ baseUrl: `${service.origin}/vault-service/`, apiKey: OWNER_KEY })

    const errors = [
      await failureOf(() => atRoot.getVault('v1')),
      await failureOf(() => underPath.listVaults()),
    ]

    expect(errors.map((e) => (e as VaultApiError).code)).toEqual(['REDIRECT_REFUSED', 'REDIRECT_REFUSED'])
    // The suggestion keeps the path of the address the user entered.
    expect((errors[0] as VaultApiError).userMessage).toBe(
      `The service at ${service.origin} only answers over https. Change the service address to ${https} and connect again. (Redirects are not followed, so the key is only ever sent to the address you entered.)`,
    )
    expect((errors[1] as VaultApiError).userMessage).toContain(
      `Change the service address to ${https}/vault-service and connect again.`,
    )
    expect(service.seen).toHaveLength(2)
  })
})

describe('an https service redirecting to plain http is refused', () => {
  let certDir: string | undefined
  let tls: { key: Buffer; cert: Buffer } | undefined
  beforeAll(() => {
    try {
      certDir = mkdtempSync(join(tmpdir(), 'vault-tls-'))
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
          '-keyout',
          join(certDir, 'key.pem'),
          '-out',
          join(certDir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      )
      tls = { key: readFileSync(join(certDir, 'key.pem')), cert: readFileSync(join(certDir, 'cert.pem')) }
      // The client uses Node's default agent: trusting the test certificate there is enough.
      globalAgent.options.ca = tls.cert
    } catch {
      tls = undefined
    }
  })
  afterAll(() => {
    globalAgent.options.ca = undefined
    if (certDir) rmSync(certDir, { recursive: true, force: true })
  })

  it('says so in words: the key was not sent to the unencrypted address', () => {
    const refusal = redirectRefusal(
      'https://vault.example.com/base',
      'http://vault.example.com/base/api/vault',
    )
    expect(refusal.message).toBe(
      'redirect from https to http://vault.example.com refused: it would send the key unencrypted',
    )
    expect(refusal.userMessage).toBe(
      'The service at https://vault.example.com tried to send this request to http://vault.example.com, an unencrypted address. This was refused and the key was not sent there. Check the service address; if the service has moved, use the https address its operator gives.',
    )
  })

  it('over a real TLS connection: the http server never sees the key, for a call or a download', async () => {
    // openssl makes the certificate; without it this test has nothing to connect to.
    expect(tls, 'openssl could not create a test certificate').toBeDefined()
    const plain = await collector()
    const seen: IncomingHttpHeaders[] = []
    const secure = await listen(
      createTlsServer(
        tls!,
        redirectingService(() => plain.origin),
      ),
      seen,
      'https',
    )
    const client = new VaultApiClient({ baseUrl: secure.origin, apiKey: OWNER_KEY, maxRetries: 0 })

    const download = await failureOf(() => client.downloadAsset('v1', 'a1'))
    const call = await failureOf(() => client.getVault('v1'))

    expect(plain.seen).toEqual([])
    expect(seen.length).toBe(3) // the vault list (prefix detection), the download, the call
    for (const error of [download, call]) {
      expect(error).toBeInstanceOf(VaultApiError)
      expect((error as VaultApiError).code).toBe('REDIRECT_REFUSED')
      expect((error as VaultApiError).userMessage).toContain(
        `tried to send this request to ${plain.origin}, an unencrypted address. This was refused and the key was not sent there.`,
      )
      expectNoSecret(everythingOf(error), OWNER_KEY)
    }
  })
})

describe('timeouts: every wait is bounded, a transfer that keeps moving is not cut', () => {
  const timeoutMs = 400

  it('a service that accepts the connection and never answers: the call fails with a timeout in time', async () => {
    const silent = await startHttp(() => {
      // Never answers.
    })
    const client = new VaultApiClient({
      baseUrl: silent.origin,
      apiKey: OWNER_KEY,
      prefix: '/api',
      timeoutMs,
      maxRetries: 0,
    })
    const started = Date.now()
    const error = await failureOf(() => client.getVault('v1'))
    const elapsed = Date.now() - started

    expect(error).toBeInstanceOf(VaultApiError)
    expect((error as VaultApiError).code).toBe('TIMEOUT')
    expect((error as VaultApiError).message).toMatch(
      /^get vault: timed out: no (complete )?answer came within 0\.4 s$/,
    )
    expect((error as VaultApiError).userMessage).toMatch(/did not answer in time while trying to get vault/)
    expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 50)
    expect(elapsed).toBeLessThan(timeoutMs + 2_000)
  })

  it('an upload the service reads but never answers fails with a timeout, not a hang', async () => {
    const silent = await startHttp((req) => req.resume())
    const client = new VaultApiClient({
      baseUrl: silent.origin,
      apiKey: OWNER_KEY,
      prefix: '/api',
      timeoutMs,
      maxRetries: 0,
    })
    const started = Date.now()
    const error = await failureOf(() => client.uploadAsset(uploadOf('hello')))
    expect(error).toBeInstanceOf(VaultApiError)
    expect((error as VaultApiError).code).toBe('TIMEOUT')
    // Uploads wait twice as long: the service may store a large file before it answers.
    expect((error as VaultApiError).message).toMatch(/timed out: no (answer came|data moved) within 0\.8 s$/)
    expect(Date.now() - started).toBeLessThan(2 * timeoutMs + 2_000)
  })

  it('a download that keeps moving outlasts the timeout, then fails with a timeout error once it stalls', async () => {
    const chunk = Buffer.alloc(1_000, 7)
    const movingMs = 3 * timeoutMs
    const service = await startHttp((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(1_000_000) })
      const started = Date.now()
      const timer = setInterval(() => {
        if (Date.now() - started > movingMs) {
          clearInterval(timer) // Then silence, with the socket still open.
          return
        }
        res.write(chunk)
      }, timeoutMs / 8)
      res.on('close', () => clearInterval(timer))
    })
    const client = new VaultApiClient({
      baseUrl: service.origin,
      apiKey: OWNER_KEY,
      prefix: '/api',
      timeoutMs,
    })

    const started = Date.now()
    const stream = await client.downloadAsset('v1', 'a1')
    let received = 0
    let lastByteAt = started
    const error = await (async () => {
      try {
        for await (const c of stream) {
          received += (c as Buffer).length
          lastByteAt = Date.now()
        }
      } catch (e) {
        return e
      }
      return undefined
    })()

    // No total limit cut the transfer while bytes moved...
    expect(lastByteAt - started).toBeGreaterThanOrEqual(movingMs - timeoutMs / 4)
    expect(received).toBeGreaterThan(0)
    // ...and the stall ends it with the client's own error.
    expect(error).toBeInstanceOf(VaultApiError)
    expect((error as VaultApiError).code).toBe('TIMEOUT')
    expect((error as VaultApiError).operation).toBe('download asset')
    expect((error as VaultApiError).message).toBe('download asset: timed out: no data moved within 0.4 s')
    expect(Date.now() - lastByteAt).toBeLessThan(timeoutMs + 2_000)
    expectNoSecret(everythingOf(error), OWNER_KEY)
  })
})

describe('no error or notice of the client carries the key or the heir code', () => {
  it('message, stack, JSON, util.inspect (hidden properties too) and causes of every kind of failure', async () => {
    // A service that echoes the credential back, raw and URL-encoded, in its error messages.
    const echo = await startHttp((req, res) => {
      const presented = String(req.headers['x-api-key'])
      const said = `bad key ${presented} (${encodeURIComponent(presented)})`
      if (req.url?.endsWith('/content')) {
        // Half a download, then the connection is cut.
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '1000' })
        res.write(Buffer.alloc(10))
        setTimeout(() => res.socket?.destroy(), 20)
        return
      }
      if (req.url?.startsWith('/api/vault/retry')) {
        return json(res, 500, { error: { code: 'INTERNAL_ERROR', message: said } }, { 'x-request-id': said })
      }
      if (req.url?.startsWith('/api/vault/moved')) {
        req.resume()
        res.writeHead(302, { location: `http://127.0.0.1:1/steal?key=${encodeURIComponent(presented)}` })
        res.end()
        return
      }
      if (req.url?.startsWith('/api/vault/silent')) return // never answers
      json(res, 401, { error: { code: 'UNAUTHORIZED', message: said }, meta: { requestId: said } })
    })
    const closed = await startHttp(() => undefined)
    await closed.close()

    for (const secret of [OWNER_KEY, HEIR_CODE]) {
      const notices: RetryNotice[] = []
      const client = new VaultApiClient({
        baseUrl: echo.origin,
        apiKey: secret,
        prefix: '/api',
        timeoutMs: 300,
        maxRetries: 1,
        backoffBaseMs: 1,
        onRetry: (n) => notices.push(n),
      })
      const offline = new VaultApiClient({
        baseUrl: closed.origin,
        apiKey: secret,
        prefix: '/api',
        maxRetries: 0,
      })
      const failures = [
        await failureOf(() => client.getVault('v1')), // 401 echoing the key
        await failureOf(() => client.getVault('retry')), // 500 twice, with a retry notice
        await failureOf(() => client.getVault('moved')), // redirect carrying the key in its query
        await failureOf(() => client.getVault('silent')), // timeout
        await failureOf(() => client.downloadAsset('v1', 'a1')), // connection cut mid-download
        await failureOf(() => client.uploadAsset(uploadOf('hi'))), // 401 on an upload
        await failureOf(() => offline.getVault('v1')), // nothing listening
      ]
      for (const failure of failures) expectNoSecret(everythingOf(failure), secret)
      const codes = failures.map((f) => (f as VaultApiError).code)
      expect(codes).toEqual([
        'UNAUTHORIZED',
        'INTERNAL_ERROR',
        'REDIRECT_REFUSED',
        'TIMEOUT',
        'NETWORK_ERROR',
        'UNAUTHORIZED',
        'NETWORK_ERROR',
      ])
      for (const failure of failures) expect(failure).toBeInstanceOf(VaultApiError)
      // The service's own words survive, with the key taken out.
      expect((failures[0] as VaultApiError).message).toContain('bad key [api key] ([api key])')
      expect(notices.length).toBeGreaterThan(0)
      expectNoSecret(JSON.stringify(notices), secret)
      expectNoSecret(inspect(client, { depth: 8, showHidden: true }) + JSON.stringify(client), secret)
    }
  })
})

describe('a service whose file storage is out of reach (503)', () => {
  it('says nothing changed and to try again later, not that the service broke', async () => {
    const service = await startHttp((req, res) => {
      req.resume()
      json(res, 503, {
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message:
            'the service cannot reach its file storage just now; nothing was changed and no credits were used',
          status: 503,
        },
      })
    })
    try {
      const client = new VaultApiClient({
        baseUrl: service.origin,
        apiKey: OWNER_KEY,
        prefix: '/api',
        maxRetries: 0,
      })
      const failure = (await failureOf(() => client.uploadAsset(uploadOf('hi')))) as VaultApiError
      expect(failure.code).toBe('SERVICE_UNAVAILABLE')
      expect(failure.userMessage).toBe(
        "The Vault Service's file storage is out of reach just now (while trying to upload asset); nothing was changed and no credits were used. Try again in a few minutes.",
      )
    } finally {
      await service.close()
    }
  })
})
