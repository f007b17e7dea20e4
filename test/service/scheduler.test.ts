// The release lifecycle driven by a fake clock: DMS expiry, alerts, completion, downtime catch-up,
// guardian claims, cancellation and heir access.
import { afterEach, describe, expect, it } from 'vitest'
import type { OutboxMessage } from '../../src/service/index'
import { call, DAY_MS, startTestService, type TestService, uploadForm } from './harness'

let t: TestService
afterEach(() => t?.stop())

const alerts = (messages: OutboxMessage[]) =>
  messages
    .filter((m) => m.kind.startsWith('contestation_alert_day_'))
    .map((m) => Number(m.kind.split('_').pop()))

function linkFrom(message: OutboxMessage, action: string): string {
  const match = new RegExp(`(http://\\S+/guardian/\\S+/${action})`).exec(message.body)
  if (!match) throw new Error(`no ${action} link in ${message.body}`)
  return match[1]!
}

async function setUpVault(trigger: 'dead_man_switch' | 'guardian_claim' | 'manual') {
  const { apiKey, vaultId } = t.owner
  await call(t.url, 'POST', `/api/vault/${vaultId}/release/config`, {
    key: apiKey,
    json: trigger === 'dead_man_switch' ? { trigger, config: { checkInFrequency: 'weekly' } } : { trigger },
  })
  for (const [name, email] of [
    ['Gina Guardian', 'gina@example.com'],
    ['Gus Guardian', 'gus@example.com'],
    ['Gail Guardian', 'gail@example.com'],
  ]) {
    expect(
      (await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, { key: apiKey, json: { name, email } }))
        .status,
    ).toBe(201)
  }
  for (const [name, email] of [
    ['Hana Heir', 'hana@example.com'],
    ['Hugo Heir', 'hugo@example.com'],
  ]) {
    expect(
      (await call(t.url, 'POST', `/api/vault/${vaultId}/heir`, { key: apiKey, json: { name, email } }))
        .status,
    ).toBe(201)
  }
  const up = await call(t.url, 'POST', `/api/vault/${vaultId}/asset`, {
    key: apiKey,
    body: uploadForm('ciphertext for the heirs', { filename: 'will.pdf' }),
  })
  expect(up.status).toBe(201)
  return { apiKey, vaultId, assetId: up.body.data.id as string }
}

describe('dead man switch release', () => {
  it('fires on a missed check-in, alerts on schedule, catches up after 33 days down, then opens to heirs', async () => {
    t = await startTestService()
    const { apiKey, vaultId, assetId } = await setUpVault('dead_man_switch')
    const outbox = async () => (await t.service.admin.outbox({ vault: vaultId })).messages
    const state = async () => (await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data

    t.advance(7 * DAY_MS - 60_000)
    expect((await t.service.tick()).releasesStarted).toEqual([])
    expect((await state()).state).toBe('active')

    t.advance(120_000)
    const fired = await t.service.tick()
    expect(fired.releasesStarted.map((r) => r.vaultId)).toEqual([vaultId])
    const releasing = await state()
    expect(releasing).toMatchObject({
      state: 'releasing',
      releaseStartedAt: t.now().toISOString(),
      nextCheckInDue: null,
    })
    expect(Date.parse(releasing.contestationEndsAt) - t.now().getTime()).toBe(30 * DAY_MS)
    expect(alerts(await outbox())).toEqual([0])
    const day0 = (await outbox()).find((m) => m.kind === 'contestation_alert_day_0')!
    expect(day0.to).toBe('owner@example.com')
    // The owner is sent to the app's Cancel, with the date as people read it (issue 30, point 18): no API
    // call with a key to type, no raw timestamp.
    expect(day0.body).toContain('press\n"Cancel release"')
    expect(day0.body).not.toContain('/release/cancel')
    expect(day0.body).not.toContain('sk_human_')
    expect(day0.body).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/)
    expect(day0.body).toMatch(/started on \w{3}, \d\d \w{3} \d{4} \d\d:\d\d UTC/)

    // Changes and check-ins are refused while releasing.
    expect((await call(t.url, 'POST', `/api/vault/${vaultId}/release/checkin`, { key: apiKey })).status).toBe(
      409,
    )
    expect(
      (
        await call(t.url, 'POST', `/api/vault/${vaultId}/heir`, {
          key: apiKey,
          json: { name: 'X', email: 'x@example.com' },
        })
      ).status,
    ).toBe(409)
    expect(
      (await call(t.url, 'POST', `/api/vault/${vaultId}/asset`, { key: apiKey, body: uploadForm('late') }))
        .status,
    ).toBe(409)

    t.advance(3 * DAY_MS)
    await t.service.tick()
    await t.service.tick()
    expect(alerts(await outbox())).toEqual([0, 3])
    t.advance(4 * DAY_MS)
    await t.service.tick()
    expect(alerts(await outbox())).toEqual([0, 3, 7])
    // Heirs hear nothing while the release is contestable.
    expect((await outbox()).filter((m) => m.kind === 'heir_access')).toEqual([])

    // Down from day 7 to day 40: on start the release completes, and days 14, 21, 28 are not sent late.
    await t.service.close()
    t.advance(33 * DAY_MS)
    await t.restart()
    const released = await state()
    expect(released.state).toBe('released')
    expect(released.releasedAt).toBe(t.now().toISOString())
    expect(alerts(await outbox())).toEqual([0, 3, 7])
    expect((await t.service.tick()).alertsSent).toEqual([])

    const heirMails = (await outbox()).filter((m) => m.kind === 'heir_access')
    expect(heirMails.map((m) => m.to).sort()).toEqual(['hana@example.com', 'hugo@example.com'])
    const mail = heirMails[0]!
    expect(mail.body).toContain(t.url)
    expect(mail.body).toContain(vaultId)
    expect(mail.body).toContain('Gina Guardian')
    expect(mail.body).toContain('recover')
    const token = /(hk_[A-Za-z0-9_-]{43})/.exec(mail.body)![1]!

    // Heir access: this vault's reads only.
    const heirVault = await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: token })
    expect(heirVault.status).toBe(200)
    expect(heirVault.body.data.state).toBe('released')
    const list = await call(t.url, 'GET', `/v1/vault/${vaultId}/asset`, { key: token })
    expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([assetId])
    const content = await fetch(`${t.url}/api/vault/${vaultId}/asset/${assetId}/content`, {
      headers: { 'x-api-key': token },
    })
    expect(await content.text()).toBe('ciphertext for the heirs')
    const other = (await t.service.admin.createVault({ account: t.owner.accountId, preset: 'standard' }))
      .vaultId
    for (const [method, path] of [
      ['GET', '/api/vault'],
      ['GET', `/api/vault/${other}`],
      ['GET', `/api/vault/${other}/asset`],
      ['GET', `/api/vault/${vaultId}/guardian`],
      ['GET', `/api/vault/${vaultId}/heir`],
      ['POST', `/api/vault/${vaultId}/release/checkin`],
      ['DELETE', `/api/vault/${vaultId}`],
    ] as const) {
      const r = await call(t.url, method, path, { key: token })
      expect(r.status, `${method} ${path}`).toBe(403)
      expect(r.body.error.code).toBe('FORBIDDEN')
    }
    expect(
      (await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: `${token.slice(0, -1)}x` })).status,
    ).toBe(401)
    await t.service.admin.revokeKey({ key: token })
    expect((await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: token })).status).toBe(401)
    // The other heir's token still works.
    const second = /(hk_[A-Za-z0-9_-]{43})/.exec(heirMails[1]!.body)![1]!
    expect((await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: second })).status).toBe(200)
  })

  it('a deadline missed while the service was down starts the release on start, with the full 30 days', async () => {
    t = await startTestService()
    const { apiKey, vaultId } = await setUpVault('dead_man_switch')
    await t.service.close()
    t.advance(10 * DAY_MS)
    await t.restart()
    const vault = (await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data
    expect(vault).toMatchObject({ state: 'releasing', releaseStartedAt: t.now().toISOString() })
    expect(alerts((await t.service.admin.outbox({ vault: vaultId })).messages)).toEqual([0])
    // Two weeks of silence (ticks missed): only the latest due alert is sent.
    t.advance(16 * DAY_MS)
    const report = await t.service.tick()
    expect(report.alertsSent).toEqual([{ vaultId, day: 14 }])
    expect(report.alertsSkipped.map((a) => a.day)).toEqual([3, 7])
    expect(alerts((await t.service.admin.outbox({ vault: vaultId })).messages)).toEqual([0, 14])
  })

  it('an operator pass dated back (tick --now in the past) is refused: the owner keeps the full 30 days', async () => {
    t = await startTestService()
    const { apiKey, vaultId } = await setUpVault('dead_man_switch')
    const due = Date.parse(
      (await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data.nextCheckInDue,
    )
    // Down for 40 days; the operator, catching up, tries a pass "as of" the day after the deadline.
    t.advance(40 * DAY_MS)
    await expect(t.service.admin.tick({ now: new Date(due + DAY_MS) })).rejects.toThrow(
      /is in the past .* Run it without --now/,
    )
    expect((await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data.state).toBe(
      'active',
    )
    // The pass at the real time starts it now, and the next one does not complete it.
    expect((await t.service.tick()).releasesStarted.map((r) => r.vaultId)).toEqual([vaultId])
    expect((await t.service.tick()).released).toEqual([])
    const vault = (await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data
    expect(vault).toMatchObject({ state: 'releasing', releaseStartedAt: t.now().toISOString() })
  })

  it('a cancel inside the period restores active with a fresh countdown', async () => {
    t = await startTestService()
    const { apiKey, vaultId } = await setUpVault('dead_man_switch')
    t.advance(8 * DAY_MS)
    await t.service.tick()
    t.advance(29 * DAY_MS)
    const cancel = await call(t.url, 'POST', `/api/vault/${vaultId}/release/cancel`, { key: apiKey })
    expect(cancel.status).toBe(200)
    expect(cancel.body.data).toEqual({
      cancelled: true,
      vaultState: 'active',
      cancelledAt: t.now().toISOString(),
    })
    expect((await t.service.tick()).releasesStarted).toEqual([])
    const vault = (await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data
    expect(vault).toMatchObject({ state: 'active', releaseStartedAt: null })
    expect(Date.parse(vault.nextCheckInDue) - t.now().getTime()).toBe(7 * DAY_MS)
    expect((await t.service.admin.outbox({ vault: vaultId })).messages.map((m) => m.kind)).toContain(
      'release_cancelled',
    )
    // The agent key may not cancel.
    const { apiKey: agent } = await t.service.admin.createKey({ account: t.owner.accountId, kind: 'agent' })
    t.advance(8 * DAY_MS)
    await t.service.tick()
    expect((await call(t.url, 'POST', `/api/vault/${vaultId}/release/cancel`, { key: agent })).status).toBe(
      403,
    )
  })
})

describe('guardian answers and claims', () => {
  it('accept/decline pages change status; a threshold of accepted claims starts the release', async () => {
    t = await startTestService()
    const { apiKey, vaultId } = await setUpVault('guardian_claim')
    const invitations = (await t.service.admin.outbox({ vault: vaultId })).messages.filter(
      (m) => m.kind === 'guardian_invitation',
    )
    expect(invitations.map((m) => m.to)).toEqual(['gina@example.com', 'gus@example.com', 'gail@example.com'])
    const [gina, gus, gail] = invitations

    // GET only shows a confirmation page.
    const page = await fetch(linkFrom(gina!, 'accept'))
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<form method="post">')
    let guardians = (await call(t.url, 'GET', `/api/vault/${vaultId}/guardian`, { key: apiKey })).body.data
    expect(guardians.map((g: { status: string }) => g.status)).toEqual(['pending', 'pending', 'pending'])

    expect((await fetch(linkFrom(gina!, 'accept'), { method: 'POST' })).status).toBe(200)
    expect(
      (await fetch(linkFrom(gus!, 'accept'), { method: 'POST', body: new URLSearchParams({}) })).status,
    ).toBe(200)
    expect((await fetch(linkFrom(gail!, 'decline'), { method: 'POST' })).status).toBe(200)
    guardians = (await call(t.url, 'GET', `/api/vault/${vaultId}/guardian`, { key: apiKey })).body.data
    expect(guardians.map((g: { status: string }) => g.status)).toEqual(['accepted', 'accepted', 'declined'])
    expect(guardians[0].acceptedAt).toBe(t.now().toISOString())
    // Answers are final.
    expect((await fetch(linkFrom(gina!, 'accept'), { method: 'POST' })).status).toBe(200)
    expect((await fetch(linkFrom(gail!, 'accept'), { method: 'POST' })).status).toBe(409)
    expect((await fetch(linkFrom(gail!, 'claim'), { method: 'POST' })).status).toBe(409)
    expect((await fetch(`${t.url}/guardian/gt_forged/accept`, { method: 'POST' })).status).toBe(404)

    const first = await fetch(linkFrom(gina!, 'claim'), { method: 'POST' })
    expect(await first.text()).toContain('1 of the 2')
    // The same guardian claiming twice still counts once.
    await fetch(linkFrom(gina!, 'claim'), { method: 'POST' })
    expect((await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data.state).toBe(
      'active',
    )
    const second = await fetch(linkFrom(gus!, 'claim'), { method: 'POST' })
    expect(await second.text()).toContain('release has started')
    expect((await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data.state).toBe(
      'releasing',
    )
    expect(alerts((await t.service.admin.outbox({ vault: vaultId })).messages)).toEqual([0])

    // A removed guardian's links stop working.
    await call(t.url, 'POST', `/api/vault/${vaultId}/release/cancel`, { key: apiKey })
    await call(t.url, 'DELETE', `/api/vault/${vaultId}/guardian/${guardians[2].id}`, { key: apiKey })
    expect((await fetch(linkFrom(gail!, 'decline'))).status).toBe(404)
  })

  it('guardian pages escape what the owner typed', async () => {
    t = await startTestService()
    const { apiKey, vaultId } = t.owner
    await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, {
      key: apiKey,
      json: { name: '<script>alert(1)</script>', email: 'x@example.com' },
    })
    const [invitation] = (await t.service.admin.outbox({ vault: vaultId })).messages
    const page = await fetch(linkFrom(invitation!, 'accept'))
    const html = await page.text()
    expect(html).not.toContain('<script>')
    expect(html).toContain('&lt;script&gt;')
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
  })

  it('claims do not count when the trigger is not guardian_claim', async () => {
    t = await startTestService()
    const { apiKey, vaultId } = await setUpVault('manual')
    const [gina] = (await t.service.admin.outbox({ vault: vaultId })).messages.filter(
      (m) => m.kind === 'guardian_invitation',
    )
    await fetch(linkFrom(gina!, 'accept'), { method: 'POST' })
    const claim = await fetch(linkFrom(gina!, 'claim'), { method: 'POST' })
    expect(claim.status).toBe(409)
    expect(await claim.text()).toContain('does not release on guardian claims')
    expect((await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data.state).toBe(
      'active',
    )
  })
})

describe('manual release by the operator', () => {
  it('admin start-release then 30 days to released', async () => {
    t = await startTestService()
    const { apiKey, vaultId } = await setUpVault('manual')
    expect((await t.service.admin.startRelease({ vault: vaultId })).state).toBe('releasing')
    await expect(t.service.admin.startRelease({ vault: vaultId })).rejects.toThrow(/releasing/)
    t.advance(30 * DAY_MS)
    const report = await t.service.tick()
    expect(report.released).toEqual([{ vaultId, heirsNotified: 2 }])
    expect((await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data.state).toBe(
      'released',
    )
    expect((await call(t.url, 'POST', `/api/vault/${vaultId}/release/cancel`, { key: apiKey })).status).toBe(
      409,
    )
  })
})
