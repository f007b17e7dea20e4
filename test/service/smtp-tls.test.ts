// SMTP to a server beyond this computer requires TLS: a server that offers no STARTTLS (as when an attacker
// strips it) gets no password and no message, so no link; the operator's named opt-out sends in clear.

import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { smtpSecurityOf } from '../../src/service/outbox'
import { call, startTestService, type TestService } from './harness'

/** An address of this machine that is not loopback: the service must treat it as another computer. */
const external = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && address.family === 'IPv4' && !address.internal)?.address

interface Seen {
  commands: string[]
  auth: number
  messages: string[]
}

let server: SMTPServer
let port: number
const seen: Seen = { commands: [], auth: 0, messages: [] }

beforeAll(async () => {
  server = new SMTPServer({
    // What a STARTTLS-stripping attacker leaves: no STARTTLS offered, AUTH in clear accepted.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      seen.auth++
      callback(null, { user: auth.username })
    },
    onMailFrom(_address, _session, callback) {
      seen.commands.push('MAIL FROM')
      callback()
    },
    onData(stream, _session, callback) {
      let raw = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk) => {
        raw += chunk
      })
      stream.on('end', () => {
        seen.messages.push(raw.replace(/=\r?\n/g, ''))
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve))
  port = (server.server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const reset = () => {
  seen.commands.length = 0
  seen.auth = 0
  seen.messages.length = 0
}

describe.skipIf(!external)('SMTP without STARTTLS on another address', () => {
  it('treats loopback as this machine and any other address as needing TLS', () => {
    expect(smtpSecurityOf('smtp://127.0.0.1:25')).toBe('loopback')
    expect(smtpSecurityOf('smtp://[::1]:25')).toBe('loopback')
    expect(smtpSecurityOf(`smtp://${external}:25`)).toBe('tls')
    expect(smtpSecurityOf('smtps://mail.example.org')).toBe('tls')
    expect(smtpSecurityOf('smtp://mail.example.org', true)).toBe('insecure-plaintext')
  })

  describe('TLS required (the default)', () => {
    let t: TestService
    beforeAll(async () => {
      reset()
      t = await startTestService({ smtp: `smtp://mailer:hunter2@${external}:${port}` })
    })
    afterAll(() => t.stop())

    it('sends no AUTH and no invitation, and says why in the outbox', async () => {
      const added = await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/guardian`, {
        key: t.owner.apiKey,
        json: { name: 'Greta', email: 'greta@example.com' },
      })
      expect(added.status).toBe(201)
      await t.service.tick()
      const message = (await t.service.admin.outbox({ vault: t.owner.vaultId })).messages[0]!
      expect(message.sentAt).toBeNull()
      expect(message.lastError).toMatch(/did not take STARTTLS.*TLS is required: nothing was sent/)
      expect(message.lastError).toContain('insecurePlaintext')
      expect(seen.auth).toBe(0)
      expect(seen.commands).toEqual([])
      expect(seen.messages).toEqual([])
    })

    it('the mail test answers delivered false with the same reason', async () => {
      const r = await call(t.url, 'POST', '/api/service/mail-test', { key: t.owner.apiKey })
      expect(r.status).toBe(200)
      expect(r.body.data.delivered).toBe(false)
      expect(r.body.data.security).toBe('tls')
      expect(r.body.data.error).toMatch(/TLS is required: nothing was sent, no password and no message/)
      expect(seen.auth).toBe(0)
      expect(seen.messages).toEqual([])
    })
  })

  describe('with the insecure-plaintext opt-out', () => {
    let t: TestService
    beforeAll(async () => {
      reset()
      t = await startTestService({
        smtp: `smtp://mailer:hunter2@${external}:${port}`,
        smtpInsecurePlaintext: true,
      })
    })
    afterAll(() => t.stop())

    it('sends, in clear, as the operator chose', async () => {
      await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/guardian`, {
        key: t.owner.apiKey,
        json: { name: 'Greta', email: 'greta@example.com' },
      })
      await t.service.tick()
      const message = (await t.service.admin.outbox({ vault: t.owner.vaultId })).messages[0]!
      expect(message.sentAt).not.toBeNull()
      expect(seen.auth).toBe(1)
      expect(seen.messages.join('\n')).toMatch(/\/guardian\/gt_[A-Za-z0-9_-]{43}\/accept/)
    })

    it('the mail test is delivered and says it went without required TLS, also in GET /service', async () => {
      const r = await call(t.url, 'POST', '/api/service/mail-test', { key: t.owner.apiKey })
      expect(r.body.data).toMatchObject({ delivered: true, error: null, security: 'insecure-plaintext' })
      const info = await call(t.url, 'GET', '/api/service', { key: t.owner.apiKey })
      expect(info.body.data.mail.lastTest).toEqual(r.body.data)
    })
  })
})
