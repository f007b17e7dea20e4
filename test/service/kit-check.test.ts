// Kit checks (extension kit-check): the owner registers a split's code hashes; a guardian confirms on their
// page or through POST /kit-check, and a wrong code is named (another guardian's kit, an older split, a
// typo, no kit of this vault). The scheduler reminds each guardian after every new split and a year after
// their last check, and tells the owner once when one has not confirmed within 30 days of a reminder.

import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import type { OutboxMessage } from '../../src/service/index'
import { kitCheckHash, readKitCheckCode } from '../../src/service/kit-check-code'
import { redactSecrets } from '../../src/service/secrets'
import { KIT_CHECK_LIMITS } from '../../src/shared/api'
import { kitCheckCode, kitCheckCodeHash } from '../../src/vault-format/index'
import { call, DAY_MS, startTestService, type TestService } from './harness'

let t: TestService
afterEach(() => t?.stop())

interface TestGuardian {
  id: string
  name: string
  token: string
}

/** A kit's check code, made by the format from a random 33-byte share of this vault. */
const newCode = () => kitCheckCode(randomBytes(33), t.owner.vaultId)

async function addGuardian(name: string): Promise<TestGuardian> {
  const added = await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/guardian`, {
    key: t.owner.apiKey,
    json: { name, email: `${name.toLowerCase()}@example.com` },
  })
  expect(added.status).toBe(201)
  expect(added.body.data.kitCheck).toBeNull()
  const invitation = (await mails('guardian_invitation')).find(
    (m) => m.to === `${name.toLowerCase()}@example.com`,
  )!
  // The invitation carries the guardian's "Check my kit" link.
  const token = /\/guardian\/(gt_[A-Za-z0-9_-]{43})\/check/.exec(invitation.body)?.[1]
  expect(token).toBeDefined()
  return { id: added.body.data.id, name, token: token! }
}

async function mails(kind: string): Promise<OutboxMessage[]> {
  return (await t.service.admin.outbox({ vault: t.owner.vaultId })).messages.filter((m) => m.kind === kind)
}

async function register(split: string, codes: [TestGuardian, string][]) {
  return call(t.url, 'PUT', `/api/vault/${t.owner.vaultId}/kit-checks`, {
    key: t.owner.apiKey,
    json: {
      split,
      guardians: codes.map(([g, code]) => ({
        guardianId: g.id,
        codeHash: kitCheckCodeHash(code, t.owner.vaultId),
      })),
    },
  })
}

async function standing(g: TestGuardian) {
  const listed = await call(t.url, 'GET', `/api/vault/${t.owner.vaultId}/guardian`, { key: t.owner.apiKey })
  expect(listed.status).toBe(200)
  return listed.body.data.find((x: { id: string }) => x.id === g.id).kitCheck
}

const check = (token: string, code: string) =>
  call(t.url, 'POST', '/api/kit-check', { json: { guardianToken: token, code } })

async function page(path: string, init: { code?: string; lang?: string } = {}) {
  const headers: Record<string, string> = { 'accept-language': init.lang ?? 'en' }
  let body: string | undefined
  if (init.code !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = new URLSearchParams({ code: init.code }).toString()
  }
  const response = await fetch(`${t.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    body,
  })
  return { status: response.status, html: await response.text() }
}

/** A typo: one character of the code changed to another of the alphabet. */
function typoOf(code: string): string {
  const last = code.at(-1) === '0' ? '1' : '0'
  return code.slice(0, -1) + last
}

describe('registering and checking kits', () => {
  it('confirms the right code on the guardian page, in any case and spacing, and shows it to the owner', async () => {
    t = await startTestService()
    const ann = await addGuardian('Ann')
    const bob = await addGuardian('Bob')
    const [annCode, bobCode] = [newCode(), newCode()]
    const registered = await register('7F3A-91C2-0B4E#1', [
      [ann, annCode],
      [bob, bobCode],
    ])
    expect(registered.status).toBe(200)
    expect(registered.body.data).toEqual({ split: '7F3A-91C2-0B4E#1', registeredAt: t.now().toISOString() })
    expect(await standing(ann)).toEqual({
      split: '7F3A-91C2-0B4E#1',
      confirmedAt: null,
      remindedAt: null,
      overdue: false,
    })
    // Only the hash is stored, bound to the vault id.
    const stored = await t.rows<{ code_hash: string }>(
      'SELECT code_hash FROM kit_check_codes ORDER BY code_hash',
    )
    expect(stored.map((r) => r.code_hash).sort()).toEqual(
      [annCode, bobCode].map((c) => kitCheckCodeHash(c, t.owner.vaultId)).sort(),
    )
    expect(JSON.stringify(await t.rows('SELECT * FROM kit_check_codes'))).not.toContain(annCode)

    const form = await page(`/guardian/${ann.token}/check`)
    expect(form.status).toBe(200)
    expect(form.html).toContain('Type the check code printed on your kit')
    expect(form.html).toContain('<input name="code"')
    expect(await standing(ann)).toMatchObject({ confirmedAt: null })

    t.advance(DAY_MS)
    const typed = annCode.toLowerCase().replaceAll('-', ' ').replaceAll('0', 'o')
    const done = await page(`/guardian/${ann.token}/check`, { code: typed })
    expect(done.status).toBe(200)
    expect(done.html).toContain('Kit confirmed')
    expect(await standing(ann)).toEqual({
      split: '7F3A-91C2-0B4E#1',
      confirmedAt: t.now().toISOString(),
      remindedAt: null,
      overdue: false,
    })
    expect(await standing(bob)).toMatchObject({ confirmedAt: null })
  })

  it("names another guardian's kit, a typo, a code of no kit of the vault, an older split and a guardian without a code", async () => {
    t = await startTestService()
    const ann = await addGuardian('Ann')
    const bob = await addGuardian('Bob')
    const cat = await addGuardian('Cat')
    const oldAnn = newCode()
    const oldBob = newCode()
    expect(
      (
        await register('split-1', [
          [ann, oldAnn],
          [bob, oldBob],
        ])
      ).status,
    ).toBe(200)

    expect((await check(ann.token, oldBob)).body.data).toEqual({ outcome: 'other-guardian' })
    expect((await check(ann.token, typoOf(oldAnn))).body.data).toEqual({ outcome: 'typo' })
    expect((await check(ann.token, 'hello')).body.data).toEqual({ outcome: 'typo' })
    expect((await check(ann.token, newCode())).body.data).toEqual({ outcome: 'unknown' })
    expect((await check(cat.token, newCode())).body.data).toEqual({ outcome: 'not-registered' })
    expect(await standing(ann)).toMatchObject({ confirmedAt: null })

    // A new split: the old codes now name an older kit, with the day the new kits were made.
    t.advance(3 * DAY_MS)
    const newAnn = newCode()
    const resplitAt = t.now().toISOString()
    expect(
      (
        await register('split-2', [
          [ann, newAnn],
          [bob, newCode()],
          [cat, newCode()],
        ])
      ).status,
    ).toBe(200)
    expect((await check(ann.token, oldAnn)).body.data).toEqual({
      outcome: 'older-split',
      newSplitAt: resplitAt,
    })
    // Another guardian's kit of the older split is still another guardian's.
    expect((await check(ann.token, oldBob)).body.data).toEqual({ outcome: 'other-guardian' })
    const older = await page(`/guardian/${ann.token}/check`, { code: oldAnn, lang: 'es-ES,es;q=0.9' })
    expect(older.status).toBe(409)
    expect(older.html).toContain('Este código es de un kit antiguo')
    const typo = await page(`/guardian/${ann.token}/check`, { code: typoOf(newAnn) })
    expect(typo.status).toBe(422)
    expect(typo.html).toContain('check for a typo')
    // What was typed comes back to be corrected.
    expect(typo.html).toContain(`value="${typoOf(newAnn)}"`)
    const other = await page(`/guardian/${bob.token}/check`, { code: newAnn })
    expect(other.html).toContain('another guardian&#39;s kit')

    const confirmed = await check(ann.token, newAnn)
    expect(confirmed.body.data).toEqual({ outcome: 'confirmed', confirmedAt: t.now().toISOString() })
    expect(await standing(ann)).toMatchObject({ split: 'split-2', confirmedAt: t.now().toISOString() })
  })

  it('refuses what is not a split of this vault, and a split already replaced', async () => {
    t = await startTestService()
    const ann = await addGuardian('Ann')
    const code = newCode()
    const stranger = await call(t.url, 'PUT', `/api/vault/${t.owner.vaultId}/kit-checks`, {
      key: t.owner.apiKey,
      json: {
        split: 's',
        guardians: [{ guardianId: 'grd_nobody', codeHash: kitCheckCodeHash(code, t.owner.vaultId) }],
      },
    })
    expect(stranger.status).toBe(400)
    expect(stranger.body.error.message).toContain('grd_nobody is not a guardian of vault')
    const badHash = await call(t.url, 'PUT', `/api/vault/${t.owner.vaultId}/kit-checks`, {
      key: t.owner.apiKey,
      json: { split: 's', guardians: [{ guardianId: ann.id, codeHash: code }] },
    })
    expect(badHash.status).toBe(400)
    expect(badHash.body.error.message).toContain('codeHash must be exactly 64 hexadecimal characters')
    expect((await register('a'.repeat(KIT_CHECK_LIMITS.splitMaxChars + 1), [[ann, code]])).status).toBe(400)
    expect((await register('first', [[ann, code]])).status).toBe(200)
    expect((await register('second', [[ann, newCode()]])).status).toBe(200)
    const again = await register('first', [[ann, code]])
    expect(again.status).toBe(409)
    expect(again.body.error.message).toContain('was replaced by a newer split')
    expect(await standing(ann)).toMatchObject({ split: 'second' })
  })

  it('sending the current split again keeps a confirmation whose hash did not change', async () => {
    t = await startTestService()
    const ann = await addGuardian('Ann')
    const bob = await addGuardian('Bob')
    const [annCode, bobCode] = [newCode(), newCode()]
    await register('s1', [
      [ann, annCode],
      [bob, bobCode],
    ])
    await check(ann.token, annCode)
    await check(bob.token, bobCode)
    const bobNew = newCode()
    const again = await register('s1', [
      [ann, annCode],
      [bob, bobNew],
    ])
    expect(again.body.data.registeredAt).toBe(t.now().toISOString())
    expect(await standing(ann)).toMatchObject({ confirmedAt: t.now().toISOString() })
    expect(await standing(bob)).toMatchObject({ confirmedAt: null })
  })
})

describe('kit check reminders', () => {
  const reminderLink = (m: OutboxMessage) => {
    const path = /\/kit-check\/kc_[A-Za-z0-9_-]{43}/.exec(m.body)?.[0]
    if (!path) throw new Error(`no kit-check link in ${m.body}`)
    return path
  }

  it('reminds every guardian after a new split, tells the owner once about one who did not confirm in 30 days, and reminds yearly', async () => {
    t = await startTestService()
    const ann = await addGuardian('Ann')
    const bob = await addGuardian('Bob')
    const annCode = newCode()
    await register('s1', [
      [ann, annCode],
      [bob, newCode()],
    ])

    const first = await t.service.tick()
    expect(first.kitChecks.reminded).toHaveLength(2)
    const reminders = await mails('kit_check_reminder')
    expect(reminders.map((m) => m.to).sort()).toEqual(['ann@example.com', 'bob@example.com'])
    expect(reminders[0]!.body).toContain('made new guardian kits')
    expect(await standing(ann)).toMatchObject({ remindedAt: t.now().toISOString(), overdue: false })
    expect((await t.service.tick()).kitChecks).toEqual({ reminded: [], ownersTold: [] })

    // Ann confirms through the reminder's link (it can do nothing but a kit check).
    t.advance(2 * DAY_MS)
    const annLink = reminderLink(reminders.find((m) => m.to === 'ann@example.com')!)
    expect((await page(annLink)).html).toContain('Check my kit')
    expect((await page(annLink, { code: annCode })).html).toContain('Kit confirmed')
    const annConfirmedAt = t.now().toISOString()
    const kcToken = annLink.split('/').at(-1)!
    expect((await page(`/guardian/${kcToken}/claim`)).status).toBe(404)

    // Day 29 after the reminder: nobody is late yet. Day 30: Bob is, and the owner is told once.
    t.advance(28 * DAY_MS - 60_000)
    expect((await t.service.tick()).kitChecks.ownersTold).toEqual([])
    expect(await standing(bob)).toMatchObject({ overdue: false })
    t.advance(60_000)
    expect((await t.service.tick()).kitChecks.ownersTold).toEqual([
      { vaultId: t.owner.vaultId, guardianId: bob.id },
    ])
    const told = await mails('kit_check_overdue')
    expect(told).toHaveLength(1)
    expect(told[0]!.to).toBe('owner@example.com')
    expect(told[0]!.subject).toContain('Bob')
    expect(told[0]!.subject).toContain('has not confirmed their guardian kit since you made the current kits')
    expect(await standing(bob)).toMatchObject({ overdue: true })
    expect(await standing(ann)).toMatchObject({ overdue: false, confirmedAt: annConfirmedAt })
    t.advance(5 * DAY_MS)
    expect((await t.service.tick()).kitChecks).toEqual({ reminded: [], ownersTold: [] })
    expect(await mails('kit_check_overdue')).toHaveLength(1)

    // A year after Ann's confirmation she is asked again; a minute before, not yet.
    t.advance(Date.parse(annConfirmedAt) + 365 * DAY_MS - t.now().getTime() - 60_000)
    expect((await t.service.tick()).kitChecks.reminded).not.toContainEqual({
      vaultId: t.owner.vaultId,
      guardianId: ann.id,
    })
    t.advance(60_000)
    const yearly = (await t.service.tick()).kitChecks.reminded
    expect(yearly).toContainEqual({ vaultId: t.owner.vaultId, guardianId: ann.id })
    const annYearly = (await mails('kit_check_reminder')).filter((m) => m.to === 'ann@example.com')
    expect(annYearly).toHaveLength(2)
    expect(annYearly.at(-1)!.body).toContain('It is a year since you last checked')
  })

  it('reminds every guardian again after a re-split, even one who confirmed the old kit', async () => {
    t = await startTestService()
    const ann = await addGuardian('Ann')
    const code = newCode()
    await register('s1', [[ann, code]])
    await t.service.tick()
    await check(ann.token, code)
    t.advance(10 * DAY_MS)
    expect((await t.service.tick()).kitChecks.reminded).toEqual([])
    await register('s2', [[ann, newCode()]])
    expect(await standing(ann)).toEqual({ split: 's2', confirmedAt: null, remindedAt: null, overdue: false })
    expect((await t.service.tick()).kitChecks.reminded).toEqual([
      { vaultId: t.owner.vaultId, guardianId: ann.id },
    ])
    expect(await mails('kit_check_reminder')).toHaveLength(2)
  })

  it('reminds no guardian who declined', async () => {
    t = await startTestService()
    const ann = await addGuardian('Ann')
    const bob = await addGuardian('Bob')
    expect((await page(`/guardian/${bob.token}/decline`, { code: '' })).status).toBe(200)
    await register('s1', [
      [ann, newCode()],
      [bob, newCode()],
    ])
    expect((await t.service.tick()).kitChecks.reminded).toEqual([
      { vaultId: t.owner.vaultId, guardianId: ann.id },
    ])
  })

  it('reminds nobody of a vault that is releasing', async () => {
    t = await startTestService()
    const ann = await addGuardian('Ann')
    await register('s1', [[ann, newCode()]])
    const key = { key: t.owner.apiKey }
    const vault = `/api/vault/${t.owner.vaultId}`
    expect(
      (await call(t.url, 'POST', `${vault}/release/config`, { ...key, json: { trigger: 'manual' } })).status,
    ).toBe(200)
    expect((await call(t.url, 'POST', `${vault}/release/start`, key)).status).toBe(200)
    expect((await t.service.tick()).kitChecks).toEqual({ reminded: [], ownersTold: [] })
    expect(await mails('kit_check_reminder')).toEqual([])
  })
})

describe('what is kept', () => {
  it("a removed guardian's codes and links go with them; a reminder's token is redacted from the stored mail", async () => {
    t = await startTestService()
    const ann = await addGuardian('Ann')
    const bob = await addGuardian('Bob')
    await register('s1', [
      [ann, newCode()],
      [bob, newCode()],
    ])
    await t.service.tick()
    const reminder = (await mails('kit_check_reminder')).find((m) => m.to === 'bob@example.com')!
    const link = /\/kit-check\/(kc_[A-Za-z0-9_-]{43})/.exec(reminder.body)![1]!
    expect(redactSecrets(reminder.body)).not.toContain(link)
    expect((await page(`/kit-check/${link}`)).status).toBe(200)
    const removed = await call(t.url, 'DELETE', `/api/vault/${t.owner.vaultId}/guardian/${bob.id}`, {
      key: t.owner.apiKey,
    })
    expect(removed.status).toBe(200)
    expect(await t.rows('SELECT guardian_id FROM kit_check_codes')).toEqual([{ guardian_id: ann.id }])
    expect(await t.rows('SELECT guardian_id FROM kit_check_links')).toEqual([{ guardian_id: ann.id }])
    expect((await page(`/kit-check/${link}`)).status).toBe(404)
    expect((await check(bob.token, newCode())).status).toBe(404)
  })
})

describe('guessing limits', () => {
  it('counts unknown tokens as failed authentications and holds each token to 60 checks a minute', async () => {
    t = await startTestService({ rateLimits: { authFailures: 3 } })
    const ann = await addGuardian('Ann')
    await register('s1', [[ann, newCode()]])
    for (let i = 0; i < 3; i++) expect((await check(`gt_${'x'.repeat(43)}`, newCode())).status).toBe(404)
    const refused = await check(`gt_${'x'.repeat(43)}`, newCode())
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).not.toBeNull()
    // The real token still works past other clients' failures.
    for (let i = 0; i < 60; i++) expect((await check(ann.token, newCode())).status).toBe(200)
    const limited = await check(ann.token, newCode())
    expect(limited.status).toBe(429)
    expect(limited.body.error.message).toContain('too many kit checks with this guardian link')
    expect((await page(`/guardian/${ann.token}/check`, { code: newCode() })).status).toBe(429)
    t.advance(61_000)
    expect((await check(ann.token, newCode())).status).toBe(200)
  })
})

describe("the service's reading of codes", () => {
  it('reads every vector as the format does (FORMAT.md 5.5)', () => {
    const vectors = JSON.parse(
      readFileSync(new URL('../crypto/kit-check-vectors.json', import.meta.url), 'utf8'),
    )
    for (const kit of vectors.kits) {
      expect(readKitCheckCode(kit.code)).toBe(kit.code)
      expect(kitCheckHash(kit.code, kit.vaultId)).toBe(kit.hash)
    }
    for (const typed of vectors.typed) expect(readKitCheckCode(typed.typed)).toBe(typed.code ?? null)
  })
})
