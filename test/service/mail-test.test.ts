// POST /service/mail-test and GET /service with SMTP: a real SMTP server on loopback receives the test
// message; a port that refuses connections is recorded as a failed test.

import { type AddressInfo, createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_PREFIXES, SERVICE_EXTENSIONS } from '../../src/shared/api'
import { call, startTestService, type TestService } from './harness'
import { type SmtpSink, startSmtpSink } from './smtp-sink'

let smtp: SmtpSink
beforeAll(async () => {
  smtp = await startSmtpSink()
})
afterAll(() => smtp.close())

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('mail test with a working SMTP server', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({
      smtp: `smtp://127.0.0.1:${smtp.port}`,
      from: 'Vault Service <vault@example.org>',
      publicUrl: 'https://vault.example.org/',
    })
  })
  afterAll(() => t.stop())

  it('GET /service reports SMTP configured and the public URL e-mails use', async () => {
    for (const prefix of API_PREFIXES) {
      const r = await call(t.url, 'GET', `${prefix}/service`, { key: t.owner.apiKey })
      expect(r.status).toBe(200)
      expect(r.body.data).toEqual({
        service: 'vault-desktop-local',
        extensions: [...SERVICE_EXTENSIONS],
        publicUrl: 'https://vault.example.org',
        mail: { configured: true, lastTest: null },
        storage: { kind: 'folder', permanent: false },
        operator: { creditsUrl: null },
      })
    }
  })

  it('sends a test message to the account address, waits for the answer and records it per account', async () => {
    const at = t.now().toISOString()
    const r = await call(t.url, 'POST', '/v1/service/mail-test', { key: t.owner.apiKey })
    expect(r.status).toBe(200)
    // A server on loopback: no network in between, so TLS is not required (smtp-tls.test.ts: elsewhere it is).
    expect(r.body.data).toEqual({
      to: 'owner@example.com',
      at,
      delivered: true,
      error: null,
      security: 'loopback',
    })
    // The SMTP server had accepted it before the answer came.
    const mail = smtp.received.find((m) => m.to.includes('owner@example.com'))!
    expect(mail).toBeTruthy()
    expect(mail.from).toBe('vault@example.org')
    expect(mail.raw).toMatch(/^Subject: Test message from your Vault Service \(nothing to do\)/m)
    expect(mail.raw).toContain('Nothing needs doing')
    expect(mail.raw).toContain('https://vault.example.org')
    // Not an outbox message: nothing is queued or resent.
    expect((await t.service.admin.outbox()).messages.filter((m) => m.to === 'owner@example.com')).toEqual([])

    const agent = (await t.service.admin.createKey({ account: t.owner.accountId, kind: 'agent' })).apiKey
    const info = await call(t.url, 'GET', '/api/service', { key: agent })
    expect(info.body.data.mail.lastTest).toEqual(r.body.data)
    const other = (await t.service.admin.createAccount({ email: 'someone@example.com' })).apiKey
    const otherInfo = await call(t.url, 'GET', '/api/service', { key: other })
    expect(otherInfo.body.data.mail.lastTest).toBeNull()
  })
})

describe('mail test when the SMTP port refuses', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({ smtp: `smtp://127.0.0.1:${await closedPort()}` })
  })
  afterAll(() => t.stop())

  it('answers 200 with delivered false and the reason, and records it', async () => {
    const r = await call(t.url, 'POST', '/api/service/mail-test', { key: t.owner.apiKey })
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ to: 'owner@example.com', delivered: false })
    expect(r.body.data.error).toMatch(/ECONNREFUSED|refused/i)
    const info = await call(t.url, 'GET', '/api/service', { key: t.owner.apiKey })
    expect(info.body.data.mail).toEqual({ configured: true, lastTest: r.body.data })
  })
})
