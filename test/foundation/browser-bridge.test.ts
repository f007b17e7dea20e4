import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createAppBackend } from '../../src/main/core/app-backend'
import { type BrowserBridge, startBrowserBridge } from '../../src/main/core/browser-bridge-server'

let bridge: BrowserBridge
let token: string
let origin: string

beforeAll(async () => {
  const rendererDir = await mkdtemp(join(tmpdir(), 'vault-renderer-'))
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>t</title>')
  const userDataDir = await mkdtemp(join(tmpdir(), 'vault-bridge-'))
  const backend = createAppBackend({
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
})
