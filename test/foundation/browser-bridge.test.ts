import { mkdtemp, stat, writeFile } from 'node:fs/promises'
import { get } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { type BrowserBridge, startBrowserBridge } from '../../src/main/browser/bridge-server'
import { createVaultApp } from '../../src/main/core/vault-app'

let bridge: BrowserBridge
let token: string
let origin: string

beforeAll(async () => {
  const rendererDir = await mkdtemp(join(tmpdir(), 'vault-renderer-'))
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>t</title>')
  const userDataDir = await mkdtemp(join(tmpdir(), 'vault-bridge-'))
  const backend = createVaultApp({
    userDataDir,
    mode: 'browser',
    version: '1.0.0',
    secretStore: () => 'memory',
  })
  bridge = await startBrowserBridge({ rendererDir, handlers: backend.handlers, events: backend.events })
  const url = new URL(bridge.url)
  token = url.searchParams.get('token')!
  origin = url.origin
})
afterAll(() => bridge.close())

function connect(path: string, headers: Record<string, string>): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${bridge.port}${path}`, { headers })
    socket.once('open', () => resolve(socket))
    socket.once('unexpected-response', (_request, response) =>
      reject(new Error(`HTTP ${response.statusCode}`)),
    )
    socket.once('error', reject)
  })
}

function call(socket: WebSocket, channel: string, args?: unknown): Promise<unknown> {
  return new Promise((resolve) => {
    socket.once('message', (data) => resolve(JSON.parse(data.toString())))
    socket.send(JSON.stringify({ type: 'invoke', id: 7, channel, args }))
  })
}

describe('browser-mode bridge', () => {
  it('uses a long random token and binds to loopback', () => {
    expect(token.length).toBeGreaterThanOrEqual(32)
    expect(new URL(bridge.url).hostname).toBe('127.0.0.1')
  })

  it('serves the handler table to the right origin with the token', async () => {
    const socket = await connect(`/bridge?token=${token}`, { origin })
    expect(await call(socket, 'app:get-info')).toMatchObject({
      type: 'result',
      id: 7,
      response: { ok: true, value: { mode: 'browser' } },
    })
    socket.close()
  })

  it('refuses a wrong or missing token, a foreign origin and a rebinding host', async () => {
    await expect(connect('/bridge?token=nope', { origin })).rejects.toThrow('403')
    await expect(connect('/bridge', { origin })).rejects.toThrow('403')
    await expect(connect(`/bridge?token=${token}`, { origin: 'https://evil.example' })).rejects.toThrow('403')
    await expect(connect(`/bridge?token=${token}`, {})).rejects.toThrow('403')
    await expect(
      connect(`/bridge?token=${token}`, {
        origin: 'http://evil.example',
        host: `evil.example:${bridge.port}`,
      }),
    ).rejects.toThrow('403')
  })

  it('closes the socket on a message outside the contract', async () => {
    const socket = await connect(`/bridge?token=${token}`, { origin })
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)))
    socket.send(JSON.stringify({ type: 'invoke', id: 1, channel: 'shell:exec', args: 'rm -rf /' }))
    expect(await closed).toBe(1008)
  })

  it('serves static files with a CSP and refuses path traversal and foreign hosts', async () => {
    const page = await fetch(`${origin}/`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'")
    expect((await fetch(`${origin}/..%2f..%2fetc%2fpasswd`)).status).toBe(404)
    const rebinding = await new Promise<number>((resolve) => {
      import('node:http').then(({ get }) =>
        get({ host: '127.0.0.1', port: bridge.port, path: '/', headers: { host: 'evil.example' } }, (res) =>
          resolve(res.statusCode ?? 0),
        ),
      )
    })
    expect(rebinding).toBe(421)
  })

  it('answers malformed addresses and keeps serving (GET /%E0 used to stop the process)', async () => {
    for (const path of ['/%E0', '/%', '/%C0%AF', '/a%00b', '/%2e%2e/%2e%2e/etc/passwd']) {
      const response = await fetch(`${origin}${path}`, { signal: AbortSignal.timeout(5000) })
      expect([400, 404]).toContain(response.status)
    }
    expect((await fetch(`${origin}/%E0`)).status).toBe(400)
    const raw = await rawRequest('GET //[bad HTTP/1.1\r\nHost: 127.0.0.1:' + bridge.port + '\r\n\r\n')
    expect(raw).toMatch(/^HTTP\/1\.1 (400|404)/)
    const upgrade = await rawRequest(
      `GET /bridge%E0?token=${token} HTTP/1.1\r\nHost: 127.0.0.1:${bridge.port}\r\nOrigin: ${origin}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    )
    expect(upgrade).toMatch(/^HTTP\/1\.1 403/)
    expect((await fetch(`${origin}/`)).status).toBe(200)
  })
})

function rawRequest(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    import('node:net').then(({ connect: open }) => {
      const socket = open(bridge.port, '127.0.0.1', () => socket.end(text))
      let received = ''
      socket.setEncoding('utf8')
      socket.on('data', (piece) => {
        received += piece
      })
      socket.on('end', () => resolve(received))
      socket.on('close', () => resolve(received))
      socket.on('error', reject)
      socket.setTimeout(5000, () => {
        socket.destroy()
        resolve(received)
      })
    })
  })
}

describe('decrypted files offered to the page', () => {
  it('serves an offered file once, as an attachment, then removes its folder; never to another host', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'vault-opened-'))
    const file = join(folder, 'Letter to Anna.txt')
    await writeFile(file, 'Dear Anna\n')
    const address = bridge.offerDownload(file, 'Letter to Anna.txt')
    expect(address).toMatch(/^\/download\/[A-Za-z0-9_-]{32}$/)

    // A page of another site reaching the port by DNS rebinding names its own host: refused, and the
    // offer stays for the app's page.
    const rebinding = await new Promise<number>((resolve, reject) =>
      get({ host: '127.0.0.1', port: bridge.port, path: address, headers: { host: 'evil.example' } }, (r) => {
        r.resume()
        resolve(r.statusCode ?? 0)
      }).on('error', reject),
    )
    expect(rebinding).toBe(421)

    const first = await fetch(`http://127.0.0.1:${bridge.port}${address}`)
    expect(first.status).toBe(200)
    expect(first.headers.get('content-disposition')).toBe(
      "attachment; filename*=UTF-8''Letter%20to%20Anna.txt",
    )
    expect(await first.text()).toBe('Dear Anna\n')
    // Removed right after the last byte went out.
    await expect
      .poll(() =>
        stat(folder).then(
          () => 'there',
          () => 'gone',
        ),
      )
      .toBe('gone')

    const second = await fetch(`http://127.0.0.1:${bridge.port}${address}`)
    expect(second.status).toBe(404)
    expect(await second.text()).toMatch(/already fetched or has expired/)
    expect((await fetch(`http://127.0.0.1:${bridge.port}/download/guessed`)).status).toBe(404)
  })
})
