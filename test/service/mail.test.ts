// E-mail delivery to a real SMTP server on loopback: the invitation arrives and its accept link works.
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, DAY_MS, startTestService, type TestService } from './harness'

interface Received {
  to: string[]
  raw: string
}

function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)))
}

let smtp: SMTPServer
let smtpPort: number
const received: Received[] = []
let rejectNext = 0

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let raw = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk) => {
        raw += chunk
      })
      stream.on('end', () => {
        if (rejectNext > 0) {
          rejectNext--
          return callback(Object.assign(new Error('mailbox busy, try later'), { responseCode: 451 }))
        }
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: decodeQuotedPrintable(raw) })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  smtpPort = (smtp.server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())))

async function waitForMail(to: string, timeoutMs = 10_000): Promise<Received> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = received.find((m) => m.to.includes(to))
    if (found) return found
    if (Date.now() > deadline) throw new Error(`no mail to ${to} arrived`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe('SMTP delivery', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({
      smtp: `smtp://127.0.0.1:${smtpPort}`,
      from: 'Vault Service <vault@example.org>',
    })
  })
  afterAll(() => t.stop())

  it('delivers the guardian invitation; its accept link works', async () => {
    const { apiKey, vaultId } = t.owner
    const added = await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, {
      key: apiKey,
      json: { name: 'Greta', email: 'greta@example.com' },
    })
    expect(added.status).toBe(201)
    const mail = await waitForMail('greta@example.com')
    expect(mail.raw).toMatch(/^From: Vault Service <vault@example.org>/m)
    expect(mail.raw).toContain('owner@example.com asks you to be a guardian')
    const accept = new RegExp(`${t.url}/guardian/gt_[A-Za-z0-9_-]+/accept`).exec(mail.raw)?.[0]
    expect(accept).toBeTruthy()
    expect(mail.raw).toContain('/decline')
    expect(mail.raw).toContain('/claim')

    const page = await fetch(accept!, { method: 'POST' })
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('You are a guardian')
    const guardians = await call(t.url, 'GET', `/api/vault/${vaultId}/guardian`, { key: apiKey })
    expect(guardians.body.data[0]).toMatchObject({ email: 'greta@example.com', status: 'accepted' })
    // Marked sent once the server acknowledged it (which may trail the server's receipt by a moment).
    await t.service.tick()
    const sent = (await t.service.admin.outbox({ vault: vaultId })).messages[0]!
    expect(sent.sentAt).not.toBeNull()
    expect(received.filter((m) => m.to.includes('greta@example.com'))).toHaveLength(1)
  })

  it('retries a message the server refused', async () => {
    const { apiKey, vaultId } = t.owner
    rejectNext = 1
    await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, {
      key: apiKey,
      json: { name: 'Rita', email: 'rita@example.com' },
    })
    await t.service.tick()
    const failed = (await t.service.admin.outbox({ vault: vaultId })).messages.find(
      (m) => m.to === 'rita@example.com',
    )!
    expect(failed.sentAt).toBeNull()
    expect(failed.attempts).toBe(1)
    expect(failed.lastError).toContain('mailbox busy')
    t.advance(DAY_MS / 24)
    await t.service.tick()
    await waitForMail('rita@example.com')
    await t.service.tick()
    const delivered = (await t.service.admin.outbox({ vault: vaultId })).messages.find(
      (m) => m.to === 'rita@example.com',
    )!
    expect(delivered.attempts).toBe(2)
    expect(delivered.sentAt).not.toBeNull()
  })
})
