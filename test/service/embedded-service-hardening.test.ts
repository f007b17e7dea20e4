// The embedded service (the app's "Start locally", in the main process or the browser-mode backend) answers
// only its own loopback names, and other local programs' wrong keys never lock the owner's key out.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { LocalServiceHost } from '../../src/main/local-service-host'

interface RawReply {
  status: number
  json: { error: { code: string; message: string; status: number } } | null
  text: string
}

/** A GET with the Host header exactly as given (fetch() would not let a test forge it). */
function rawGet(url: string, path: string, headers: Record<string, string>): Promise<RawReply> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port, path, headers: { connection: 'close', ...headers } },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => {
          text += chunk
        })
        res.on('end', () => {
          let json: RawReply['json'] = null
          try {
            json = JSON.parse(text)
          } catch {}
          resolve({ status: res.statusCode ?? 0, json, text })
        })
      },
    )
    req.on('error', reject)
    req.end()
  })
}

let userData: string
let host: LocalServiceHost
let serviceUrl: string
let apiKey: string

beforeEach(async () => {
  userData = mkdtempSync(join(tmpdir(), 'vault-embedded-'))
  host = await LocalServiceHost.open(userData)
  ;({ apiKey, serviceUrl } = await host.createAccount('owner@example.com'))
})

afterEach(async () => {
  await host.close()
  rmSync(userData, { recursive: true, force: true })
})

describe('the embedded service', () => {
  it('answers a foreign Host (DNS rebinding) with 400 in the error envelope; its loopback names pass', async () => {
    const { port } = new URL(serviceUrl)
    const key = { 'x-api-key': apiKey }
    for (const foreign of [
      `attacker.example:${port}`,
      'rebind.attacker.example',
      `127.0.0.1.nip.io:${port}`,
    ]) {
      const refused = await rawGet(serviceUrl, '/api/vault', { ...key, host: foreign })
      expect(refused.status, refused.text).toBe(400)
      expect(refused.json).toEqual({
        error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('host name'), status: 400 },
      })
    }
    // Refused before anything else: no key needed to be told, and the openapi document is not served either.
    expect((await rawGet(serviceUrl, '/api/openapi.json', { host: 'attacker.example' })).status).toBe(400)
    for (const own of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
      const answered = await rawGet(serviceUrl, '/api/vault', { ...key, host: own })
      expect(answered.status, `${own}: ${answered.text}`).toBe(200)
    }
  })

  it("keeps answering the owner's key after 60 wrong keys from other local programs; wrong keys stay limited", async () => {
    const wrongKey = () => `sk_human_${randomBytes(32).toString('base64url')}`
    // Another program on this computer: the same loopback address as the app.
    for (let i = 0; i < 60; i++) {
      expect((await rawGet(serviceUrl, '/api/vault', { 'x-api-key': wrongKey() })).status).toBe(401)
    }
    // Brute force is still limited: further wrong keys are refused with 429 until the minute is over.
    const refused = await rawGet(serviceUrl, '/api/vault', { 'x-api-key': wrongKey() })
    expect(refused.status).toBe(429)
    expect(refused.json?.error).toMatchObject({ code: 'RATE_LIMITED', status: 429 })
    expect(refused.json?.error.message).toMatch(/too many failed authentications/)

    // The owner's app: reads and its check-in work all the same.
    const list = await rawGet(serviceUrl, '/api/vault', { 'x-api-key': apiKey })
    expect(list.status, list.text).toBe(200)
    const created = await fetch(`${serviceUrl}/api/vault`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey },
    })
    expect(created.status).toBe(201)
    const vaultId = ((await created.json()) as { data: { id: string } }).data.id
    const configured = await fetch(`${serviceUrl}/api/vault/${vaultId}/release/config`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ trigger: 'dead_man_switch', config: { checkInFrequency: 'monthly' } }),
    })
    expect(configured.status).toBe(200)
    const checkIn = await fetch(`${serviceUrl}/api/vault/${vaultId}/release/checkin`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey },
    })
    expect(checkIn.status, await checkIn.clone().text()).toBe(200)
    // And a wrong key after the owner's successes is still refused.
    expect((await rawGet(serviceUrl, '/api/vault', { 'x-api-key': wrongKey() })).status).toBe(429)
  })
})
