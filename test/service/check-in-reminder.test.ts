// Check-in reminders with a one-step check-in link: sent once per deadline a few days before it, never for a
// vault that is releasing; GET only shows the button, POST checks in exactly as the API does; a used,
// outdated or unknown link gets a clear page. The pages speak Spanish to a browser that prefers it.
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CHECK_IN_REMINDER_DAYS } from '../../src/service/check-in-links'
import type { OutboxMessage } from '../../src/service/index'
import { pageLocale } from '../../src/service/page-text'
import { REDACTED_SECRET, redactSecrets } from '../../src/service/secrets'
import { localeFormat } from '../../src/shared/locale-format'
import { call, DAY_MS, startTestService, type TestService } from './harness'

let t: TestService
afterEach(() => t?.stop())

const reminders = async () =>
  (await t.service.admin.outbox({ vault: t.owner.vaultId })).messages.filter(
    (m) => m.kind === 'check_in_reminder',
  )

function linkIn(message: OutboxMessage): string {
  const match = /(http:\/\/\S+\/check-in\/ck_[A-Za-z0-9_-]{43})/.exec(message.body)
  if (!match) throw new Error(`no check-in link in ${message.body}`)
  return match[1]!
}

async function vault() {
  return (await call(t.url, 'GET', `/api/vault/${t.owner.vaultId}`, { key: t.owner.apiKey })).body.data
}

/** What a check-in left behind: the account's ledger and the vault's Audit Pulses (read from the database). */
async function records() {
  return {
    ledger: await t.rows(
      'SELECT delta, reason, reference FROM credit_ledger WHERE account_id = ? AND reason = ? ORDER BY id',
      t.owner.accountId,
      'check_in',
    ),
    pulses: await t.rows<{ note: string | null; credits_consumed: number; next_check_in_due: string }>(
      'SELECT note, credits_consumed, next_check_in_due FROM audit_pulses WHERE vault_id = ? ORDER BY id',
      t.owner.vaultId,
    ),
    links: await t.rows<{ token_hash: Buffer; used_at: string | null }>(
      'SELECT token_hash, used_at FROM check_in_links',
    ),
  }
}

/** The owner's choice of one-step links in reminders (PATCH /vault/:id, extension 'check-in-links'). */
async function checkInLinks(on: boolean) {
  const patched = await call(t.url, 'PATCH', `/api/vault/${t.owner.vaultId}`, {
    key: t.owner.apiKey,
    json: { checkInLinks: on },
  })
  expect(patched.status).toBe(200)
  expect(patched.body.data.checkInLinks).toBe(on)
}

/** A weekly dead man's switch; with links (the default here) the owner has opted in to one-step links. */
async function weeklySwitch(links = true): Promise<string> {
  if (links) await checkInLinks(true)
  const configured = await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/release/config`, {
    key: t.owner.apiKey,
    json: { trigger: 'dead_man_switch', config: { checkInFrequency: 'weekly' } },
  })
  expect(configured.status).toBe(200)
  return configured.body.data.nextCheckInDue
}

const page = async (url: string, init: RequestInit = {}) => {
  const response = await fetch(url, { redirect: 'manual', ...init })
  return { status: response.status, headers: response.headers, html: await response.text() }
}

describe('check-in reminder e-mails', () => {
  it(`are sent once per deadline, ${CHECK_IN_REMINDER_DAYS} days before it, to the owner with a one-step link`, async () => {
    t = await startTestService()
    const due = await weeklySwitch()
    expect((await t.service.tick()).remindersSent).toEqual([])
    // One minute before the window opens: nothing yet.
    t.advance(Date.parse(due) - CHECK_IN_REMINDER_DAYS * DAY_MS - 60_000 - t.now().getTime())
    expect((await t.service.tick()).remindersSent).toEqual([])
    t.advance(60_000)
    expect((await t.service.tick()).remindersSent).toEqual([{ vaultId: t.owner.vaultId, dueAt: due }])
    t.advance(DAY_MS)
    expect((await t.service.tick()).remindersSent).toEqual([])
    const [mail, ...more] = await reminders()
    expect(more).toEqual([])
    expect(mail).toMatchObject({ to: 'owner@example.com', kind: 'check_in_reminder' })
    expect(mail!.subject).toContain('Check in by')
    // The deadline in words, never as a raw timestamp (issue 30, point 18).
    expect(mail!.body).toContain(new Date(due).toUTCString().replace(/:\d\d GMT$/, ' UTC'))
    expect(mail!.body).not.toContain(due)
    expect(linkIn(mail!)).toMatch(new RegExp(`^${t.url}/check-in/ck_`))
    // Only the token's hash is stored, and a delivered copy loses the token.
    const token = linkIn(mail!).split('/').pop()!
    expect((await records()).links.map((l) => l.token_hash.toString('hex'))).not.toContain(token)
    expect(redactSecrets(mail!.body)).toContain(`/check-in/${REDACTED_SECRET}`)
  })

  it('GET shows one button and changes nothing; POST checks in like the API, once', async () => {
    t = await startTestService()
    const due = await weeklySwitch()
    t.advance(Date.parse(due) - 2 * DAY_MS - t.now().getTime())
    await t.service.tick()
    const link = linkIn((await reminders())[0]!)

    const shown = await page(link)
    expect(shown.status).toBe(200)
    expect(shown.html).toContain('<html lang="en">')
    expect(shown.html).toContain('<form method="post"><button type="submit">Check in now</button></form>')
    expect(shown.html).toContain(localeFormat('en').date(due))
    expect(shown.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(shown.headers.get('x-frame-options')).toBe('DENY')
    // A scanner fetching the link twice changes nothing.
    await page(link)
    expect(await vault()).toMatchObject({ nextCheckInDue: due, creditsBalance: 100 })

    // A form posted from another site is refused.
    const forged = await page(link, { method: 'POST', headers: { origin: 'https://attacker.example' } })
    expect(forged.status).toBe(403)
    expect(await vault()).toMatchObject({ nextCheckInDue: due, creditsBalance: 100 })

    const done = await page(link, { method: 'POST', headers: { origin: t.url } })
    expect(done.status).toBe(200)
    const after = await vault()
    const nextDue = new Date(t.now().getTime() + 7 * DAY_MS).toISOString()
    expect(after).toMatchObject({ nextCheckInDue: nextDue, creditsBalance: 98 })
    expect(done.html).toContain('You are checked in')
    expect(done.html).toContain(localeFormat('en').date(nextDue))

    // The same charge and Audit Pulse as a check-in through the API.
    const api = await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/release/checkin`, {
      key: t.owner.apiKey,
      json: { note: 'from the app' },
    })
    expect(api.status).toBe(200)
    const { ledger, pulses, links } = await records()
    expect(ledger).toEqual([
      { delta: -2, reason: 'check_in', reference: t.owner.vaultId },
      { delta: -2, reason: 'check_in', reference: t.owner.vaultId },
    ])
    expect(pulses).toEqual([
      { note: 'checked in from the reminder e-mail', credits_consumed: 2, next_check_in_due: nextDue },
      { note: 'from the app', credits_consumed: 2, next_check_in_due: api.body.data.nextCheckInDue },
    ])
    expect(links.map((l) => l.used_at)).toEqual([t.now().toISOString()])

    // Used: a second press does not check in again.
    const again = await page(link, { method: 'POST' })
    expect(again.status).toBe(410)
    expect(again.html).toContain('Link already used')
    expect((await page(link)).status).toBe(410)
    expect(await vault()).toMatchObject({ creditsBalance: 96 })
  })

  it('an outdated link (checked in otherwise since) and an unknown one get clear pages, nothing charged', async () => {
    t = await startTestService()
    const due = await weeklySwitch()
    t.advance(Date.parse(due) - DAY_MS - t.now().getTime())
    await t.service.tick()
    const link = linkIn((await reminders())[0]!)
    const api = await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/release/checkin`, {
      key: t.owner.apiKey,
      json: {},
    })
    const outdated = await page(link, { method: 'POST' })
    expect(outdated.status).toBe(410)
    expect(outdated.html).toContain('Link expired')
    expect(outdated.html).toContain(localeFormat('en').date(api.body.data.nextCheckInDue))
    expect(await vault()).toMatchObject({ creditsBalance: 98 })

    // The new deadline gets its own reminder and link.
    t.advance(7 * DAY_MS - DAY_MS)
    expect((await t.service.tick()).remindersSent).toHaveLength(1)
    expect(linkIn((await reminders())[1]!)).not.toBe(link)

    const unknown = await page(`${t.url}/check-in/ck_${'A'.repeat(43)}`)
    expect(unknown.status).toBe(404)
    expect(unknown.html).toContain('This check-in link is not valid')
  })

  it('short of credits: nothing is done, the page says so, and the link still works afterwards', async () => {
    t = await startTestService()
    const due = await weeklySwitch()
    t.advance(Date.parse(due) - DAY_MS - t.now().getTime())
    await t.service.tick()
    const link = linkIn((await reminders())[0]!)
    await t.rows('UPDATE accounts SET credits_balance = 1 WHERE id = ?', t.owner.accountId)
    const short = await page(link, { method: 'POST' })
    expect(short.status).toBe(402)
    expect(short.html).toContain('A check-in costs 2 credits and your balance is 1 credit')
    expect(await vault()).toMatchObject({ nextCheckInDue: due, creditsBalance: 1 })
    await t.service.admin.addCredits({ account: t.owner.accountId, credits: 10 })
    expect((await page(link, { method: 'POST' })).status).toBe(200)
    expect(await vault()).toMatchObject({ creditsBalance: 9 })
  })

  it('never for a releasing vault, and a link of a vault that started releasing checks nothing in', async () => {
    t = await startTestService()
    const due = await weeklySwitch()
    t.advance(Date.parse(due) - DAY_MS - t.now().getTime())
    await t.service.tick()
    const link = linkIn((await reminders())[0]!)
    await t.service.admin.startRelease({ vault: t.owner.vaultId })
    const shown = await page(link)
    expect(shown.status).toBe(409)
    expect(shown.html).toContain('A release is under way')
    expect((await page(link, { method: 'POST' })).status).toBe(409)
    expect(await vault()).toMatchObject({ state: 'releasing', creditsBalance: 100 })

    // Another owner's switch whose window opens while their vault is releasing gets no reminder.
    const other = await t.service.admin.createAccount({ email: 'other@example.com' })
    const { vaultId } = await t.service.admin.createVault({ account: other.accountId, preset: 'standard' })
    const config = await call(t.url, 'POST', `/api/vault/${vaultId}/release/config`, {
      key: other.apiKey,
      json: { trigger: 'dead_man_switch', config: { checkInFrequency: 'weekly' } },
    })
    await t.service.admin.startRelease({ vault: vaultId })
    t.advance(Date.parse(config.body.data.nextCheckInDue) - DAY_MS - t.now().getTime())
    expect((await t.service.tick()).remindersSent).toEqual([])
  })
})

describe('pages in the browser language', () => {
  it('picks Spanish when the browser prefers it to English, else English', () => {
    expect(pageLocale('es-ES')).toEqual({ lang: 'es', locale: 'es-ES' })
    expect(pageLocale('fr-FR, es-MX;q=0.8, en;q=0.5')).toEqual({ lang: 'es', locale: 'es-MX' })
    expect(pageLocale('en;q=0.4, es;q=0.9')).toEqual({ lang: 'es', locale: 'es' })
    expect(pageLocale('en-US, es;q=0.9')).toMatchObject({ lang: 'en' })
    expect(pageLocale('es;q=0, en')).toMatchObject({ lang: 'en' })
    expect(pageLocale('de-DE')).toMatchObject({ lang: 'en' })
    expect(pageLocale(undefined)).toMatchObject({ lang: 'en' })
  })

  it('the check-in page and its result in Spanish for Accept-Language: es-ES', async () => {
    t = await startTestService()
    const due = await weeklySwitch()
    t.advance(Date.parse(due) - DAY_MS - t.now().getTime())
    await t.service.tick()
    const link = linkIn((await reminders())[0]!)
    const es = { 'accept-language': 'es-ES,es;q=0.9,en;q=0.8' }
    const shown = await page(link, { headers: es })
    expect(shown.html).toContain('<html lang="es">')
    expect(shown.headers.get('content-language')).toBe('es')
    expect(shown.html).toContain('<button type="submit">Confirmar ahora</button>')
    expect(shown.html).toContain(localeFormat('es-ES').date(due))
    expect(shown.html).not.toContain('Check in')
    const done = await page(link, { method: 'POST', headers: es })
    expect(done.status).toBe(200)
    expect(done.html).toContain('Confirmación registrada')
    expect(done.html).toContain(localeFormat('es-ES').date((await vault()).nextCheckInDue))
    const used = await page(link, { headers: es })
    expect(used.html).toContain('Enlace ya utilizado')
    // English for anyone else.
    const english = await page(link, { headers: { 'accept-language': 'de-DE,en;q=0.5' } })
    expect(english.html).toContain('<html lang="en">')
    expect(english.html).toContain('Link already used')
  })

  it('guardian pages in Spanish for es-ES, English otherwise, every answer included', async () => {
    t = await startTestService()
    const { apiKey, vaultId } = t.owner
    await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, {
      key: apiKey,
      json: { name: 'Gina', email: 'gina@example.com' },
    })
    const invitation = (await t.service.admin.outbox({ vault: vaultId })).messages.find((m) =>
      m.kind.includes('guardian'),
    )!
    const accept = new RegExp(`${t.url}/guardian/gt_[A-Za-z0-9_-]{43}/accept`).exec(invitation.body)![0]
    const es = { 'accept-language': 'es-ES' }

    const shown = await page(accept, { headers: es })
    expect(shown.status).toBe(200)
    expect(shown.html).toContain('<html lang="es">')
    expect(shown.html).toContain('<title>Ser guardián</title>')
    expect(shown.html).toContain('Tu invitación ahora: pendiente.')
    expect(shown.html).toContain('<button type="submit">Aceptar</button>')
    const english = await page(accept)
    expect(english.html).toContain('<html lang="en">')
    expect(english.html).toContain('<title>Become a guardian</title>')

    const accepted = await page(accept, { method: 'POST', headers: es })
    expect(accepted.html).toContain('Eres guardián')
    const declined = await page(accept.replace(/accept$/, 'decline'), { method: 'POST', headers: es })
    expect(declined.status).toBe(409)
    expect(declined.html).toContain('Ya aceptaste esta invitación.')
    const claim = await page(accept.replace(/accept$/, 'claim'), { method: 'POST', headers: es })
    expect(claim.status).toBe(409)
    expect(claim.html).toContain('Esta bóveda no se libera por reclamación de los guardianes')
    const unknown = await page(`${t.url}/guardian/gt_${'B'.repeat(43)}/accept`, { headers: es })
    expect(unknown.status).toBe(404)
    expect(unknown.html).toContain('Este enlace de guardián ya no es válido')
  })
})

describe("one-step links are the owner's choice per vault, off by default", () => {
  it('a new vault says checkInLinks false, and its reminders carry no link: only the app checks in', async () => {
    t = await startTestService()
    expect((await vault()).checkInLinks).toBe(false)
    const due = await weeklySwitch(false)
    t.advance(Date.parse(due) - 2 * DAY_MS - t.now().getTime())
    expect((await t.service.tick()).remindersSent).toEqual([{ vaultId: t.owner.vaultId, dueAt: due }])
    const [mail] = await reminders()
    expect(mail!.subject).toContain('Check in by')
    expect(mail!.body).not.toMatch(/\/check-in\/|ck_/)
    expect(mail!.body).toContain('Check in in the Vault Desktop app')
    expect(mail!.body).toContain('reading your e-mail is not enough to check in for you')
    // One reminder per deadline all the same.
    expect((await t.service.tick()).remindersSent).toEqual([])
  })

  it('turned off after a link was sent: that link stops working at once and charges nothing', async () => {
    t = await startTestService()
    const due = await weeklySwitch(true)
    t.advance(Date.parse(due) - 2 * DAY_MS - t.now().getTime())
    await t.service.tick()
    const link = linkIn((await reminders())[0]!)
    expect((await page(link)).status).toBe(200)
    await checkInLinks(false)
    const shown = await page(link)
    expect(shown.status).toBe(410)
    expect(shown.html).toContain(
      'One-step check-in links were turned off for this vault after this link was sent',
    )
    const posted = await page(link, { method: 'POST', headers: { origin: t.url } })
    expect(posted.status).toBe(410)
    expect(await vault()).toMatchObject({ nextCheckInDue: due, creditsBalance: 100 })
    expect((await records()).pulses).toEqual([])
  })

  it('turned off and then on again: the link sent before stays refused, and later reminders get new links', async () => {
    t = await startTestService()
    const due = await weeklySwitch(true)
    t.advance(Date.parse(due) - 2 * DAY_MS - t.now().getTime())
    await t.service.tick()
    const link = linkIn((await reminders())[0]!)
    // The owner distrusts their mailbox, turns links off, and later on again for future reminders.
    await checkInLinks(false)
    await checkInLinks(true)
    const shown = await page(link)
    expect(shown.status).toBe(410)
    expect(shown.html).toContain('even if they are turned on again')
    const posted = await page(link, { method: 'POST', headers: { origin: t.url } })
    expect(posted.status).toBe(410)
    expect(await vault()).toMatchObject({ nextCheckInDue: due, creditsBalance: 100 })
    expect((await records()).pulses).toEqual([])
    // The owner checks in in the app; the next deadline's reminder carries a fresh link that works.
    const checkedIn = await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/release/checkin`, {
      key: t.owner.apiKey,
      json: {},
    })
    expect(checkedIn.status).toBe(200)
    const next: string = checkedIn.body.data.nextCheckInDue
    t.advance(Date.parse(next) - 2 * DAY_MS - t.now().getTime())
    await t.service.tick()
    const fresh = linkIn((await reminders()).at(-1)!)
    expect(fresh).not.toBe(link)
    expect((await page(fresh, { method: 'POST', headers: { origin: t.url } })).status).toBe(200)
  })

  it('PATCH takes checkInLinks beside or without name, refuses anything but a boolean, and agent keys', async () => {
    t = await startTestService()
    const patch = (json: unknown, key = t.owner.apiKey) =>
      call(t.url, 'PATCH', `/api/vault/${t.owner.vaultId}`, { key, json })
    const both = await patch({ name: 'Papers', checkInLinks: true })
    expect(both.body.data).toMatchObject({ name: 'Papers', checkInLinks: true })
    // A name change alone keeps the links as they are, and the other way round.
    expect((await patch({ name: 'Family' })).body.data).toMatchObject({ name: 'Family', checkInLinks: true })
    expect((await patch({ checkInLinks: false })).body.data).toMatchObject({
      name: 'Family',
      checkInLinks: false,
    })
    for (const bad of [{ checkInLinks: 'yes' }, { checkInLinks: 1 }, {}]) {
      const refused = await patch(bad)
      expect(refused.status).toBe(400)
      expect(refused.body.error.message).toMatch(/checkInLinks/)
    }
    expect((await vault()).checkInLinks).toBe(false)
    const agent = (await t.service.admin.createKey({ account: t.owner.accountId, kind: 'agent' })).apiKey
    expect((await patch({ checkInLinks: true }, agent)).status).toBe(403)
    expect((await vault()).checkInLinks).toBe(false)
  })
})
