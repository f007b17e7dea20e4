// Requests at the edges: what a refused upload leaves a fetch() client, chunked uploads beyond the balance,
// refusals made below the routes (node's parser, the router) in the error envelope, absurd numbers, and
// characters that cannot be stored or shown safely.
import { execFile } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { request } from 'node:http'
import { type AddressInfo, connect, createServer, type Socket } from 'node:net'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answerClientError, DISCARD_LIMIT_BYTES } from '../../src/service/http-framing'
import { payableBytes } from '../../src/service/upload'
import { uploadCostCredits } from '../../src/shared/api'
import { call, startTestService, type TestService, uploadForm } from './harness'

let t: TestService
beforeAll(async () => {
  t = await startTestService()
})
afterAll(() => t.stop())

const MB = 1_000_000

/** A fresh account (100 trial credits) with one vault, so a test knows its balance. */
async function freshOwner(email: string) {
  const { accountId, apiKey } = await t.service.admin.createAccount({ email })
  const { vaultId } = await t.service.admin.createVault({ account: accountId, preset: 'standard' })
  return { accountId, apiKey, vaultId }
}

function expectEnvelope(
  reply: { status: number; body: any },
  status: number,
  code: string,
  fragment?: string,
) {
  expect(reply.status).toBe(status)
  expect(reply.body).toEqual({ error: { code, message: expect.any(String), status } })
  if (fragment) expect(reply.body.error.message).toContain(fragment)
}

// ---- raw HTTP over node:net, for what fetch() cannot send or shows differently ----

interface RawResponse {
  status: number
  headers: Record<string, string>
  body: any
}

/** One response at the start of `buffer` (1xx have no body; the service always sends Content-Length). */
function takeResponse(buffer: Buffer): { response: RawResponse; rest: Buffer } | null {
  const end = buffer.indexOf('\r\n\r\n')
  if (end < 0) return null
  const [statusLine, ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(statusLine!.split(' ')[1])
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const length = status < 200 ? 0 : Number(headers['content-length'] ?? 0)
  if (buffer.length < end + 4 + length) return null
  const text = buffer.subarray(end + 4, end + 4 + length).toString('utf8')
  let body: any = text
  try {
    body = JSON.parse(text)
  } catch {}
  return { response: { status, headers, body }, rest: buffer.subarray(end + 4 + length) }
}

class RawConnection {
  private buffer: Buffer = Buffer.alloc(0)
  private wake: (() => void) | null = null
  closed = false

  private constructor(private readonly socket: Socket) {
    socket.on('data', (data) => {
      this.buffer = Buffer.concat([this.buffer, data])
      this.wake?.()
    })
    socket.on('close', () => {
      this.closed = true
      this.wake?.()
    })
    // A reset after the answer was read is the server closing; the test looks at what arrived.
    socket.on('error', () => {})
  }

  static open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url)
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new RawConnection(socket)))
      socket.once('error', reject)
    })
  }

  send(data: string | Buffer): void {
    this.socket.write(data)
  }

  async nextResponse(timeoutMs = 5_000): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const taken = takeResponse(this.buffer)
      if (taken) {
        this.buffer = taken.rest
        return taken.response
      }
      if (this.closed) throw new Error(`connection closed without a complete response: ${this.buffer}`)
      if (Date.now() > deadline)
        throw new Error(`no complete response within ${timeoutMs} ms: ${this.buffer}`)
      await new Promise<void>((resolve) => {
        this.wake = resolve
        setTimeout(resolve, 50)
      })
    }
  }

  close(): void {
    this.socket.destroy()
  }
}

async function rawRequest(text: string): Promise<RawResponse> {
  const connection = await RawConnection.open(t.url)
  try {
    connection.send(text)
    return await connection.nextResponse()
  } finally {
    connection.close()
  }
}

// ---- fetch() from another process: in-process the client and the service share one event loop, which
// hides the race between the client still sending and the service closing ----

interface FetchCase {
  path: string
  size: number
  /** Fields before the file part; without them the body is `size` raw bytes. */
  form?: [string, string][]
  headers?: Record<string, string>
}
type FetchResult = { status: number; body: any } | { error: string }

const FETCH_CLIENT = `
const { url, key, cases } = JSON.parse(process.env.FETCH_CASES)
const results = []
for (const c of cases) {
  let body
  if (c.form) {
    body = new FormData()
    for (const [name, value] of c.form) body.append(name, value)
    body.append('file', new Blob([new Uint8Array(c.size)]), 'big.bin')
  } else {
    body = Buffer.alloc(c.size, 120)
  }
  try {
    const response = await fetch(url + c.path, { method: 'POST', headers: { 'x-api-key': key, ...c.headers }, body })
    const text = await response.text()
    let parsed = text
    try { parsed = JSON.parse(text) } catch {}
    results.push({ status: response.status, body: parsed })
  } catch (error) {
    results.push({ error: String(error.cause?.code ?? error.cause?.message ?? error.message) })
  }
}
process.stdout.write(JSON.stringify(results))
`

function fetchFromChild(key: string, cases: FetchCase[]): Promise<FetchResult[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', FETCH_CLIENT],
      { env: { ...process.env, FETCH_CASES: JSON.stringify({ url: t.url, key, cases }) }, timeout: 120_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`fetch client failed: ${error.message} ${stderr}`))
        resolve(JSON.parse(stdout) as FetchResult[])
      },
    )
  })
}

describe('upload contentType (finding 10)', () => {
  const upload = (contentType: string) =>
    call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/asset`, {
      key: t.owner.apiKey,
      body: uploadForm('x', { filename: 'a.txt', contentType }),
    })

  it('refuses control characters, CR/LF, non-ASCII and malformed parameters with a 400 envelope', async () => {
    for (const bad of [
      'text/plain\u0001',
      'text/plain; charset=utf-8\r\nx-injected: 1',
      'text/plain; name=\u0007',
      'text/plain;\tcharset=utf-8',
      'tëxt/plain',
      'text/plain; name="caf\u00e9"',
      'text/plain; charset',
      'text/plain; charset="unterminated',
      'text/plain; a=b c',
    ]) {
      const reply = await upload(bad)
      expectEnvelope(reply, 400, 'VALIDATION_ERROR', 'contentType')
    }
    expect(readdirSync(join(t.dataDir, 'tmp'))).toEqual([])
  })

  it('stores well-formed types with parameters, and every stored type can be downloaded', async () => {
    const given = await upload('Text/Plain; Charset="UTF-8"; format=flowed')
    expect(given.status).toBe(201)
    expect(given.body.data.contentType).toBe('text/plain; charset="UTF-8"; format=flowed')
    const download = await call(
      t.url,
      'GET',
      `/api/vault/${t.owner.vaultId}/asset/${given.body.data.id}/content`,
      { key: t.owner.apiKey },
    )
    expect(download.status).toBe(200)
    expect(download.headers.get('x-asset-content-type')).toBe('text/plain; charset="UTF-8"; format=flowed')
  })

  it('still downloads an asset stored with a control character before the check existed', async () => {
    const stored = await upload('text/plain')
    const db = new Database(join(t.dataDir, 'vault.sqlite3'))
    try {
      db.prepare('UPDATE assets SET content_type = ? WHERE id = ?').run(
        'text/plain\u0001',
        stored.body.data.id,
      )
    } finally {
      db.close()
    }
    const download = await call(
      t.url,
      'GET',
      `/api/vault/${t.owner.vaultId}/asset/${stored.body.data.id}/content`,
      { key: t.owner.apiKey },
    )
    expect(download.status).toBe(200)
    expect(download.body).toBe('x')
    expect(download.headers.get('x-asset-content-type')).toBe('application/octet-stream')
  })
})

describe('refusals a fetch() client can read (finding 11)', () => {
  it('a fetch() of a 30 MB upload over the balance gets the 402 envelope, every time', async () => {
    const owner = await freshOwner('fetch-402@example.com')
    const sizes = [30 * MB, 30 * MB, 30 * MB, 30 * MB, 30 * MB, 45 * MB, 100 * MB]
    const path = `/api/vault/${owner.vaultId}/asset`
    const results = await fetchFromChild(
      owner.apiKey,
      sizes.map((size) => ({ path, size, form: [['filename', 'big.bin']] })),
    )
    for (const result of results) {
      expect(result).toEqual({
        status: 402,
        body: { error: { code: 'INSUFFICIENT_CREDITS', message: expect.any(String), status: 402 } },
      })
    }
    expect(readdirSync(join(t.dataDir, 'tmp'))).toEqual([])
  }, 120_000)

  it('a fetch() of a large invalid upload or JSON body gets the 400 envelope', async () => {
    const owner = await freshOwner('fetch-400@example.com')
    const upload = `/api/vault/${owner.vaultId}/asset`
    const results = await fetchFromChild(owner.apiKey, [
      // Not multipart: refused by the body parser.
      { path: upload, size: 30 * MB, headers: { 'content-type': 'application/octet-stream' } },
      // Multipart with an unknown field before a file the balance could pay for: refused mid-body.
      { path: upload, size: 15 * MB, form: [['color', 'red']] },
      { path: upload, size: 15 * MB, form: [['color', 'red']] },
      // A JSON body far over the 64 KiB limit.
      {
        path: `/api/vault/${owner.vaultId}/release/config`,
        size: 30 * MB,
        headers: { 'content-type': 'application/json' },
      },
    ])
    const messages = ['Content-Type', 'unknown field "color"', 'unknown field "color"', 'larger than']
    results.forEach((result, i) => {
      expect(result).toEqual({
        status: 400,
        body: {
          error: { code: 'VALIDATION_ERROR', message: expect.stringContaining(messages[i]!), status: 400 },
        },
      })
    })
    const vault = await call(t.url, 'GET', `/api/vault/${owner.vaultId}`, { key: owner.apiKey })
    expect(vault.body.data).toMatchObject({ assetCount: 0, creditsBalance: 100 })
  }, 120_000)

  it('keeps the connection usable after a refused body was read and discarded', async () => {
    const connection = await RawConnection.open(t.url)
    try {
      const body = 'x'.repeat(200_000)
      connection.send(
        `POST /api/vault/${t.owner.vaultId}/asset HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${t.owner.apiKey}\r\n` +
          `content-type: application/octet-stream\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      )
      const refused = await connection.nextResponse()
      expect(refused.status).toBe(400)
      expect(refused.body.error.code).toBe('VALIDATION_ERROR')
      expect(refused.headers.connection).not.toBe('close')
      // The same connection carries the next request.
      connection.send(
        `GET /api/vault/${t.owner.vaultId} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${t.owner.apiKey}\r\n\r\n`,
      )
      const next = await connection.nextResponse()
      expect(next.status).toBe(200)
      expect(next.body.data.id).toBe(t.owner.vaultId)
    } finally {
      connection.close()
    }
  })

  it('a refusal to a client that asked to close says connection: close, and closes', async () => {
    for (const text of [
      // Refused before the body parser.
      'GET /api/vault HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n',
      // Refused by the body parser, which marks its refusals connection: close itself.
      `POST /api/vault/${t.owner.vaultId}/release/config HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${t.owner.apiKey}\r\n` +
        'content-type: text/csv\r\ncontent-length: 3\r\nconnection: close\r\n\r\na,b',
    ]) {
      const connection = await RawConnection.open(t.url)
      try {
        connection.send(text)
        const reply = await connection.nextResponse()
        expect(reply.status).toBeGreaterThanOrEqual(400)
        expect(reply.headers.connection).toBe('close')
        await expect(connection.nextResponse(2_000)).rejects.toThrow('closed')
      } finally {
        connection.close()
      }
    }
  })

  it('never sends 100 Continue before a refusal, and sends it before reading an accepted body', async () => {
    const owner = await freshOwner('expect-continue@example.com')
    const refused = await RawConnection.open(t.url)
    try {
      refused.send(
        `POST /api/vault/${owner.vaultId}/asset HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${owner.apiKey}\r\n` +
          `content-type: multipart/form-data; boundary=b\r\ncontent-length: ${30 * MB}\r\nexpect: 100-continue\r\n\r\n`,
      )
      const first = await refused.nextResponse()
      expect(first.status).toBe(402)
      expect(first.body.error.code).toBe('INSUFFICIENT_CREDITS')
      // The body was never invited, so the connection cannot be reused.
      expect(first.headers.connection).toBe('close')
    } finally {
      refused.close()
    }

    const accepted = await RawConnection.open(t.url)
    try {
      const boundary = 'continueboundary'
      const body =
        `--${boundary}\r\nContent-Disposition: form-data; name="filename"\r\n\r\ncontinue.txt\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c"\r\n\r\nhello\r\n--${boundary}--\r\n`
      accepted.send(
        `POST /api/vault/${owner.vaultId}/asset HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${owner.apiKey}\r\n` +
          `content-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: ${body.length}\r\n` +
          'expect: 100-continue\r\n\r\n',
      )
      expect((await accepted.nextResponse()).status).toBe(100)
      accepted.send(body)
      const stored = await accepted.nextResponse()
      expect(stored.status).toBe(201)
      expect(stored.body.data.filename).toBe('continue.txt')
    } finally {
      accepted.close()
    }
  })
})

describe('numeric query parameters (finding 12)', () => {
  const list = (query: string) =>
    call(t.url, 'GET', `/api/vault/${t.owner.vaultId}/asset?${query}`, { key: t.owner.apiKey })

  it('offset and limit outside safe whole numbers are 400 naming the parameter', async () => {
    for (const [query, name] of [
      ['offset=99999999999999999999', 'offset'],
      ['offset=9007199254740992', 'offset'],
      [`offset=${'9'.repeat(400)}`, 'offset'],
      ['offset=-1', 'offset'],
      ['offset=1e3', 'offset'],
      ['offset=0x10', 'offset'],
      ['offset=', 'offset'],
      ['offset=1&offset=2', 'offset must be given once'],
      ['limit=99999999999999999999', 'limit'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
    ] as const) {
      expectEnvelope(await list(query), 400, 'VALIDATION_ERROR', name)
    }
  })

  it('accepts the largest safe offset', async () => {
    const reply = await list(`offset=${Number.MAX_SAFE_INTEGER}&limit=100`)
    expect(reply.status).toBe(200)
    expect(reply.body.data).toEqual([])
    expect(reply.body.meta).toMatchObject({ offset: Number.MAX_SAFE_INTEGER, limit: 100 })
  })
})

describe('chunked upload over the balance (finding 13)', () => {
  it('stops reading once the file outgrows what the balance pays: 402, staged part removed, little read', async () => {
    const owner = await freshOwner('chunked-402@example.com')
    const payable = payableBytes(100)
    expect(uploadCostCredits(payable)).toBe(100)
    expect(uploadCostCredits(payable + 1)).toBe(101)
    const total = 160 * MB
    const tmp = join(t.dataDir, 'tmp')
    let largestStaged = 0
    const watch = setInterval(() => {
      for (const name of readdirSync(tmp)) {
        try {
          largestStaged = Math.max(largestStaged, statSync(join(tmp, name)).size)
        } catch {}
      }
    }, 5)

    const boundary = 'chunkedboundary'
    let sent = 0
    const reply = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      let answered = false
      const req = request(`${t.url}/api/vault/${owner.vaultId}/asset`, {
        method: 'POST',
        // No Content-Length: node sends the body chunked.
        headers: { 'x-api-key': owner.apiKey, 'content-type': `multipart/form-data; boundary=${boundary}` },
      })
      req.on('error', (error) => {
        if (!answered) reject(error)
      })
      req.on('response', (res) => {
        answered = true
        let text = ''
        res.on('data', (chunk) => {
          text += chunk
        })
        res.on('end', () => {
          req.destroy()
          resolve({ status: res.statusCode!, body: JSON.parse(text) })
        })
      })
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="filename"\r\n\r\nbig.bin\r\n`)
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`)
      const chunk = Buffer.alloc(1 << 20, 7)
      const pump = () => {
        while (!answered && sent < total) {
          sent += chunk.length
          if (!req.write(chunk)) return void req.once('drain', pump)
        }
        if (!answered) req.end(`\r\n--${boundary}--\r\n`)
      }
      pump()
    })
    clearInterval(watch)

    expect(reply.status).toBe(402)
    // The staged part never held more than the balance pays for, and is gone.
    expect(largestStaged).toBeGreaterThan(0)
    expect(largestStaged).toBeLessThanOrEqual(payable)
    expect(readdirSync(tmp)).toEqual([])
    // The client was answered long before it sent everything.
    expect(sent).toBeLessThan(payable + DISCARD_LIMIT_BYTES)
    expect(sent).toBeLessThan(total)
    expectEnvelope(reply, 402, 'INSUFFICIENT_CREDITS', `${payable} bytes`)
    const vault = await call(t.url, 'GET', `/api/vault/${owner.vaultId}`, { key: owner.apiKey })
    expect(vault.body.data).toMatchObject({ assetCount: 0, creditsBalance: 100 })
  }, 60_000)

  it('payableBytes: the most bytes a balance pays for, -1 when it pays for nothing', () => {
    expect(payableBytes(0)).toBe(-1)
    expect(payableBytes(1)).toBe(Math.floor(1e9 / 4650))
  })
})

describe('every refusal in the error envelope (finding 14)', () => {
  const key = () => t.owner.apiKey

  it('headers over the size limit: 431 from node, in the envelope', async () => {
    const reply = await rawRequest(
      `GET /api/vault HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${key()}\r\nx-padding: ${'a'.repeat(20_000)}\r\n\r\n`,
    )
    expectEnvelope(reply, 431, 'HEADERS_TOO_LARGE', 'headers')
    expect(reply.headers['content-type']).toContain('application/json')
  })

  it('a URL over the size limit: 414 from node, in the envelope', async () => {
    const reply = await rawRequest(
      `GET /api/vault?q=${'a'.repeat(20_000)} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`,
    )
    expectEnvelope(reply, 414, 'URI_TOO_LONG', 'URL')
  })

  it('a path segment over the router limit: 414 in the envelope, with a request id', async () => {
    const reply = await call(t.url, 'GET', `/api/vault/${'v'.repeat(150)}`, { key: key() })
    expectEnvelope(reply, 414, 'URI_TOO_LONG', 'path segment')
    expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('a malformed percent-encoding in the path: 400 in the envelope', async () => {
    const reply = await call(t.url, 'GET', '/api/vault/%E0%A4%A', { key: key() })
    expectEnvelope(reply, 400, 'VALIDATION_ERROR', 'percent-encoding')
  })

  it('requests node cannot parse: 400 in the envelope', async () => {
    const bad = [
      // Both framings at once (request smuggling shape).
      'POST /api/vault HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 5\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n',
      'GET /api/vault HTTP/1.1\r\nhost: 127.0.0.1\r\nnot a header\r\n\r\n',
      'GET /api/vault HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: abc\r\n\r\n',
      `POST /api/vault/${t.owner.vaultId}/release/checkin HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${key()}\r\n` +
        'content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n',
    ]
    for (const text of bad) {
      const reply = await rawRequest(text)
      expectEnvelope(reply, 400, 'VALIDATION_ERROR', 'not valid HTTP/1.1')
    }
  })

  it('a request that does not arrive in time: 408 in the envelope', async () => {
    // node raises this after headersTimeout (60 s); the handler is driven directly on a real connection.
    const server = createServer((socket) =>
      answerClientError(Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket),
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      const connection = await RawConnection.open(`http://127.0.0.1:${port}`)
      try {
        const reply = await connection.nextResponse()
        expectEnvelope(reply, 408, 'REQUEST_TIMEOUT', 'in time')
        expect(reply.headers.connection).toBe('close')
      } finally {
        connection.close()
      }
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('an Expect header other than 100-continue: 417 in the envelope', async () => {
    const reply = await rawRequest(
      `GET /api/vault HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${key()}\r\nexpect: 200-ok\r\n\r\n`,
    )
    expectEnvelope(reply, 417, 'EXPECTATION_FAILED', 'Expect')
  })

  it('unknown routes, bad JSON, unsupported and oversize bodies: in the envelope with a request id', async () => {
    const path = `/api/vault/${t.owner.vaultId}/release/config`
    const replies = [
      [await call(t.url, 'GET', '/nowhere', { key: key() }), 404, 'NOT_FOUND'],
      [await call(t.url, 'POST', path, { key: key(), json: '{"trigger":' }), 400, 'VALIDATION_ERROR'],
      [
        await call(t.url, 'POST', path, { key: key(), body: 'x', headers: { 'content-type': 'text/csv' } }),
        400,
        'VALIDATION_ERROR',
      ],
      [
        await call(t.url, 'POST', path, { key: key(), json: { pad: 'x'.repeat(70_000) } }),
        400,
        'VALIDATION_ERROR',
      ],
    ] as const
    for (const [reply, status, code] of replies) {
      expectEnvelope(reply, status, code)
      expect(reply.headers.get('x-request-id')).toBeTruthy()
    }
  })
})

describe('duplicate fields and bidirectional controls (finding 15)', () => {
  const upload = (form: FormData) =>
    call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/asset`, { key: t.owner.apiKey, body: form })
  const BIDI = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069']
  const MARKS = ['\u200e', '\u200f', '\u061c']

  it('refuses a form field sent twice', async () => {
    for (const [field, first, second] of [
      ['filename', 'a.txt', 'b.exe'],
      ['contentType', 'text/plain', 'application/x-msdownload'],
      ['metadata', '{"a":1}', '{"b":2}'],
    ] as const) {
      const form = new FormData()
      if (field !== 'filename') form.append('filename', 'a.txt')
      form.append(field, first)
      form.append(field, second)
      form.append('file', new Blob(['x']), 'x')
      expectEnvelope(await upload(form), 400, 'VALIDATION_ERROR', `"${field}" was sent more than once`)
    }
    expect(readdirSync(join(t.dataDir, 'tmp'))).toEqual([])
  })

  it('refuses file names with bidirectional controls', async () => {
    for (const c of [...BIDI, ...MARKS]) {
      const reply = await upload(uploadForm('x', { filename: `invoice${c}gpj.exe` }))
      expectEnvelope(reply, 400, 'VALIDATION_ERROR', 'bidirectional')
    }
    expectEnvelope(
      await upload(uploadForm('x', { filename: 'tab\there.txt' })),
      400,
      'VALIDATION_ERROR',
      'control',
    )
    expectEnvelope(
      await upload(uploadForm('x', { filename: 'c1\u0085.txt' })),
      400,
      'VALIDATION_ERROR',
      'control',
    )
    // Right-to-left letters themselves are fine.
    const hebrew = await upload(uploadForm('x', { filename: 'מסמך.pdf' }))
    expect(hebrew.status).toBe(201)
    expect(hebrew.body.data.filename).toBe('מסמך.pdf')
  })

  it('refuses bidirectional controls in vault, guardian and heir names', async () => {
    const vaultId = (await t.service.admin.createVault({ account: t.owner.accountId, preset: 'enhanced' }))
      .vaultId
    for (const c of [...BIDI, ...MARKS]) {
      const name = `Ann${c}ie`
      expectEnvelope(
        await call(t.url, 'PATCH', `/api/vault/${vaultId}`, { key: t.owner.apiKey, json: { name } }),
        400,
        'VALIDATION_ERROR',
        'bidirectional',
      )
      for (const kind of ['guardian', 'heir']) {
        expectEnvelope(
          await call(t.url, 'POST', `/api/vault/${vaultId}/${kind}`, {
            key: t.owner.apiKey,
            json: { name, email: 'ann@example.com' },
          }),
          400,
          'VALIDATION_ERROR',
          'bidirectional',
        )
      }
    }
    expectEnvelope(
      await call(t.url, 'POST', `/api/vault/${vaultId}/heir`, {
        key: t.owner.apiKey,
        json: { name: 'Ann\nBcc: x@example.com', email: 'ann@example.com' },
      }),
      400,
      'VALIDATION_ERROR',
      'control characters',
    )
    const ok = await call(t.url, 'POST', `/api/vault/${vaultId}/heir`, {
      key: t.owner.apiKey,
      json: { name: 'عائشة', email: 'aisha@example.com' },
    })
    expect(ok.status).toBe(201)
  })
})
