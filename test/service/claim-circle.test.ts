// Claims and releases told to the whole circle (issue 29, point 3): who gets which e-mail when a guardian
// claims, when a release starts and when the owner cancels; where a claim stands on each guardian's claim
// page; and the owner's vault view's `claims`. Runs on PostgreSQL too (VAULT_TEST_STORE=postgres).
import { afterEach, describe, expect, it } from 'vitest'
import type { OutboxMessage } from '../../src/service/index'
import { call, DAY_MS, startTestService, type TestService } from './harness'

let t: TestService
afterEach(() => t?.stop())

const es = { 'accept-language': 'es-ES,es;q=0.9' }
/** FSI/PDI round a name in e-mails and pages (isolateName): strip them to read the sentence. */
const plain = (text: string) => text.replace(/[\u2068\u2069]/g, '')

function linkFrom(message: OutboxMessage, action: string): string {
  const match = new RegExp(`(http://\\S+/guardian/\\S+/${action})`).exec(message.body)
  if (!match) throw new Error(`no ${action} link in ${message.body}`)
  return match[1]!
}

async function page(url: string, init: RequestInit = {}): Promise<{ status: number; html: string }> {
  const response = await fetch(url, init)
  return { status: response.status, html: plain(await response.text()) }
}

/** Nothing in a circle e-mail opens anything: no token of any kind, no personal link, no API path. */
function expectNoSecrets(message: OutboxMessage) {
  expect(message.body).not.toMatch(/\b(gt|hk|ck|kc|sk_human|sk_agent)_[A-Za-z0-9]/)
  expect(message.body).not.toContain('/guardian/')
  expect(message.body).not.toContain('/kit-check/')
  expect(message.subject).not.toMatch(/\b(gt|hk|ck|kc)_/)
}

/** A 2-of-3 guardian_claim vault whose three guardians answered: Gina and Gus accepted, Gail `gail`. */
async function circle(gail: 'accept' | 'decline' = 'accept') {
  const { apiKey, vaultId } = t.owner
  await call(t.url, 'POST', `/api/vault/${vaultId}/release/config`, {
    key: apiKey,
    json: { trigger: 'guardian_claim' },
  })
  for (const [name, email] of [
    ['Gina Guardian', 'gina@example.com'],
    ['Gus Guardian', 'gus@example.com'],
    ['Gail Guardian', 'gail@example.com'],
  ]) {
    await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, { key: apiKey, json: { name, email } })
  }
  const invitations = (await t.service.admin.outbox({ vault: vaultId })).messages.filter(
    (m) => m.kind === 'guardian_invitation',
  )
  const [gina, gus, gailMail] = invitations as [OutboxMessage, OutboxMessage, OutboxMessage]
  await fetch(linkFrom(gina, 'accept'), { method: 'POST' })
  await fetch(linkFrom(gus, 'accept'), { method: 'POST' })
  await fetch(linkFrom(gailMail, gail), { method: 'POST' })
  const outbox = async () => (await t.service.admin.outbox({ vault: vaultId })).messages
  const vault = async () => (await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data
  return { apiKey, vaultId, gina, gus, gail: gailMail, outbox, vault }
}

const ofKind = (messages: OutboxMessage[], kind: string) => messages.filter((m) => m.kind === kind)

describe('a claim short of the threshold', () => {
  it('reaches the owner and every other guardian, in English and Spanish, with no secret; counts once', async () => {
    t = await startTestService()
    const { gina, outbox, vault } = await circle()
    expect((await vault()).claims).toBeNull()

    t.advance(60_000)
    const claim = await page(linkFrom(gina, 'claim'), { method: 'POST' })
    expect(claim.html).toContain('1 of 2 guardians have claimed: Gina Guardian on')

    const owner = ofKind(await outbox(), 'guardian_claim_owner')
    expect(owner.map((m) => m.to)).toEqual(['owner@example.com'])
    const ownerMail = plain(owner[0]!.body)
    expect(plain(owner[0]!.subject)).toContain('Gina Guardian claimed a release of your vault (1 of 2')
    expect(ownerMail).toContain('1 of the 2 guardian claims needed')
    expect(ownerMail).toContain('you have 30 days to cancel it in the Vault Desktop app')
    expect(ownerMail).toContain('Gina Guardian, el ') // the Spanish half, with the claim's date
    expect(ownerMail).toContain('Si estás bien, ahora no se abre nada')
    expect(ownerMail).toContain(t.now().toISOString())

    const others = ofKind(await outbox(), 'guardian_claim_guardian')
    // Every other guardian, not the claimer.
    expect(others.map((m) => m.to)).toEqual(['gus@example.com', 'gail@example.com'])
    const gusMail = plain(others[0]!.body)
    expect(gusMail).toMatch(/^Hello Gus Guardian,/)
    expect(gusMail).toContain(
      'Gina Guardian, a guardian, claimed a release of the vault of owner@example.com',
    )
    expect(gusMail).toContain('A release starts when 2 guardians have claimed')
    expect(gusMail).toContain('claim link of your')
    expect(gusMail).toContain('Hola, Gus Guardian:')
    expect(gusMail).toContain('reclamó una liberación de la bóveda de owner@example.com')
    for (const message of [...owner, ...others]) expectNoSecrets(message)

    expect((await vault()).claims).toEqual({
      count: 1,
      needed: 2,
      lastAt: t.now().toISOString(),
      lastBy: 'Gina Guardian',
    })

    // Pressing again changes nothing and tells nobody again.
    t.advance(60_000)
    await fetch(linkFrom(gina, 'claim'), { method: 'POST' })
    expect(ofKind(await outbox(), 'guardian_claim_owner')).toHaveLength(1)
    expect(ofKind(await outbox(), 'guardian_claim_guardian')).toHaveLength(2)
    expect((await vault()).claims.count).toBe(1)
  })

  it('a guardian who declined is not told and sees no names; the page names the circle only to guardians', async () => {
    t = await startTestService()
    const { gina, gus, gail, outbox } = await circle('decline')
    await fetch(linkFrom(gina, 'claim'), { method: 'POST' })
    expect(ofKind(await outbox(), 'guardian_claim_guardian').map((m) => m.to)).toEqual(['gus@example.com'])

    const gusPage = await page(linkFrom(gus, 'claim'))
    expect(gusPage.html).toContain('1 of 2 guardians have claimed: Gina Guardian on')
    expect(gusPage.html).toContain('Guardians&#39; names are shown only to the guardians of this vault')
    expect(gusPage.html).toContain('<form method="post">')
    const gusSpanish = await page(linkFrom(gus, 'claim'), { headers: es })
    expect(gusSpanish.html).toContain('Cómo va: han reclamado 1 de 2 guardianes: Gina Guardian el')
    expect(gusSpanish.html).toContain('solo se muestran a los guardianes de esta bóveda')

    const gailPage = await page(linkFrom(gail, 'claim'))
    expect(gailPage.html).not.toContain('Gina')
    expect(gailPage.html).not.toContain('Where it stands')
  })
})

describe('the release the claims start, and its cancel', () => {
  it('every guardian learns of the start and the end date, the owner who claimed; a cancel reaches them all', async () => {
    t = await startTestService()
    const { apiKey, vaultId, gina, gus, gail, outbox, vault } = await circle()
    expect((await page(linkFrom(gus, 'claim'))).html).toContain('Where it stands: no guardian has claimed')

    await fetch(linkFrom(gina, 'claim'), { method: 'POST' })
    t.advance(DAY_MS)
    const second = await page(linkFrom(gus, 'claim'), { method: 'POST' })
    expect(second.html).toContain('release has started')
    expect(second.html).toContain('Where it stands: a release is under way. The heirs get access on')
    expect(second.html).toContain('It started with the claims of Gina Guardian on')
    expect(second.html).toMatch(/Gus Guardian on [A-Z][a-z]{2} \d+, \d{4}, \d+:\d\d [AP]M UTC\./)
    const releasing = await vault()
    expect(releasing.state).toBe('releasing')
    expect(releasing.claims).toMatchObject({ count: 2, needed: 2, lastBy: 'Gus Guardian' })

    // The claim that reached the threshold is told by the release's messages, not as a claim.
    expect(ofKind(await outbox(), 'guardian_claim_owner')).toHaveLength(1)
    const started = ofKind(await outbox(), 'release_started_guardian')
    expect(started.map((m) => m.to)).toEqual(['gina@example.com', 'gus@example.com', 'gail@example.com'])
    const ginaMail = plain(started[0]!.body)
    expect(ginaMail).toContain(`until ${new Date(releasing.contestationEndsAt).toUTCString().slice(0, 16)}`)
    expect(ginaMail).toContain(releasing.contestationEndsAt)
    expect(ginaMail).toContain('It started because enough guardians claimed it:')
    expect(ginaMail).toContain('  - Gus Guardian, on ')
    expect(ginaMail).toContain('periodo de impugnación de 30 días')
    for (const message of started) expectNoSecrets(message)
    const day0 = plain(ofKind(await outbox(), 'contestation_alert_day_0')[0]!.body)
    expect(day0).toContain('These guardians claimed it')
    expect(day0).toContain('  - Gina Guardian, on ')

    // A page opened now has no claim button.
    const during = await page(linkFrom(gail, 'claim'))
    expect(during.html).toContain('a release is under way')
    expect(during.html).not.toContain('<form')

    t.advance(DAY_MS)
    expect((await call(t.url, 'POST', `/api/vault/${vaultId}/release/cancel`, { key: apiKey })).status).toBe(
      200,
    )
    const cancelled = ofKind(await outbox(), 'release_cancelled_guardian')
    expect(cancelled.map((m) => m.to)).toEqual(['gina@example.com', 'gus@example.com', 'gail@example.com'])
    expect(plain(cancelled[0]!.body)).toContain('owner@example.com cancelled the release of their')
    expect(plain(cancelled[0]!.body)).toContain('canceló la liberación')
    for (const message of cancelled) expectNoSecrets(message)
    expect((await vault()).claims).toBeNull()
    const after = await page(linkFrom(gina, 'claim'))
    expect(after.html).toContain('Where it stands: owner@example.com cancelled the release on')
    expect(after.html).toContain('<form method="post">')
    const afterEs = await page(linkFrom(gina, 'claim'), { headers: es })
    expect(afterEs.html).toContain('canceló la liberación el')
  })

  it('a release without claims (the operator started it) reaches every guardian too, then shows as released', async () => {
    t = await startTestService()
    const { vaultId, gina, outbox } = await circle('decline')
    await t.service.admin.startRelease({ vault: vaultId })
    const started = ofKind(await outbox(), 'release_started_guardian')
    // Gail declined: not part of the circle any more.
    expect(started.map((m) => m.to)).toEqual(['gina@example.com', 'gus@example.com'])
    expect(plain(started[0]!.body)).toContain('It started without a guardian claim')
    expect(plain(started[0]!.body)).toContain('Empezó sin reclamación de guardianes')
    t.advance(30 * DAY_MS)
    await t.service.tick()
    const released = await page(linkFrom(gina, 'claim'))
    expect(released.html).toContain('Where it stands: the vault was released on')
    expect(released.html).not.toContain('<form')
  })
})

describe('who sees the claims field', () => {
  it("the owner does; an heir's access code does not (names are for the circle)", async () => {
    t = await startTestService()
    const { apiKey, vaultId, gina, gus, vault } = await circle()
    await call(t.url, 'POST', `/api/vault/${vaultId}/heir`, {
      key: apiKey,
      json: { name: 'Hana Heir', email: 'hana@example.com' },
    })
    await fetch(linkFrom(gina, 'claim'), { method: 'POST' })
    await fetch(linkFrom(gus, 'claim'), { method: 'POST' })
    t.advance(30 * DAY_MS)
    await t.service.tick()
    expect((await vault()).claims).toMatchObject({ count: 2, needed: 2 })
    const [access] = ofKind((await t.service.admin.outbox({ vault: vaultId })).messages, 'heir_access')
    const token = /(hk_[A-Za-z0-9_-]{43})/.exec(access!.body)![1]!
    const seen = await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: token })
    expect(seen.status).toBe(200)
    expect(seen.body.data.state).toBe('released')
    expect(seen.body.data.claims).toBeNull()
    // And the owner's answer, read again after the heir's, still has them (the read cache is shared).
    expect((await vault()).claims).toMatchObject({ count: 2, lastBy: 'Gus Guardian' })
  })
})

describe('names on the claim page are escaped', () => {
  it('a claimer named like markup shows as text', async () => {
    t = await startTestService()
    const { apiKey, vaultId } = t.owner
    await call(t.url, 'POST', `/api/vault/${vaultId}/release/config`, {
      key: apiKey,
      json: { trigger: 'guardian_claim' },
    })
    for (const [name, email] of [
      ['<img src=x onerror=alert(1)>', 'x@example.com'],
      ['Gus', 'gus@example.com'],
    ]) {
      await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, { key: apiKey, json: { name, email } })
    }
    const [bad, gus] = (await t.service.admin.outbox({ vault: vaultId })).messages as [
      OutboxMessage,
      OutboxMessage,
    ]
    await fetch(linkFrom(bad, 'accept'), { method: 'POST' })
    await fetch(linkFrom(gus, 'accept'), { method: 'POST' })
    await fetch(linkFrom(bad, 'claim'), { method: 'POST' })
    const html = (await page(linkFrom(gus, 'claim'))).html
    expect(html).not.toContain('<img')
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; on')
  })
})
