// The local extensions added for readiness: GET /service, the mail test without SMTP, vault names and
// rehearsals (practice releases), on both prefixes, against a real service with a movable clock.
import { createHash, randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_PREFIXES, EXTENSION_LIMITS, SERVICE_EXTENSIONS } from '../../src/shared/api'
import { call, DAY_MS, startTestService, type TestService, uploadForm } from './harness'

let t: TestService
beforeAll(async () => {
  t = await startTestService()
})
afterAll(() => t.stop())

const human = () => t.owner.apiKey
const agentKey = async () =>
  (await t.service.admin.createKey({ account: t.owner.accountId, kind: 'agent' })).apiKey
const newVault = async () =>
  (await t.service.admin.createVault({ account: t.owner.accountId, preset: 'standard' })).vaultId

function expectError(
  reply: { status: number; body: { error?: unknown } },
  status: number,
  code: string,
  message?: RegExp,
) {
  expect(reply.status).toBe(status)
  expect(reply.body.error).toMatchObject({ code, status })
  if (message) expect((reply.body.error as { message: string }).message).toMatch(message)
}

describe.each(API_PREFIXES)('GET /service and the mail test without SMTP, under %s', (prefix) => {
  it('describes the service for human and agent keys; mail is not configured', async () => {
    for (const key of [human(), await agentKey()]) {
      const r = await call(t.url, 'GET', `${prefix}/service`, { key })
      expect(r.status).toBe(200)
      expect(r.body.data).toEqual({
        service: 'vault-desktop-local',
        extensions: [...SERVICE_EXTENSIONS],
        publicUrl: t.url,
        mail: { configured: false, lastTest: null },
        storage: { kind: 'folder', permanent: false },
      })
      expect(r.body.meta.requestId).toBe(r.headers.get('x-request-id'))
    }
    expectError(await call(t.url, 'GET', `${prefix}/service`, {}), 401, 'UNAUTHORIZED')
  })

  it('POST /service/mail-test is 409 without SMTP and 403 for agent keys', async () => {
    const r = await call(t.url, 'POST', `${prefix}/service/mail-test`, { key: human() })
    expectError(r, 409, 'CONFLICT', /no SMTP server configured.*--smtp.*unsent/)
    expectError(
      await call(t.url, 'POST', `${prefix}/service/mail-test`, { key: await agentKey() }),
      403,
      'FORBIDDEN',
    )
    const info = await call(t.url, 'GET', `${prefix}/service`, { key: human() })
    expect(info.body.data.mail.lastTest).toBeNull()
  })
})

describe.each(API_PREFIXES)('vault names under %s', (prefix) => {
  it('POST /vault takes a name; PATCH sets, trims and clears it; every view carries it', async () => {
    const created = await call(t.url, 'POST', `${prefix}/vault`, {
      key: human(),
      json: { preset: 'enhanced', name: '  Family papers  ' },
    })
    expect(created.status).toBe(201)
    expect(created.body.data).toMatchObject({ name: 'Family papers', sssPreset: 'enhanced' })
    const id = created.body.data.id as string
    const unnamed = await call(t.url, 'POST', `${prefix}/vault`, { key: human() })
    expect(unnamed.body.data.name).toBeNull()

    const renamed = await call(t.url, 'PATCH', `${prefix}/vault/${id}`, {
      key: human(),
      json: { name: ' Fotos für Oma ' },
    })
    expect(renamed.status).toBe(200)
    expect(renamed.body.data).toMatchObject({ id, name: 'Fotos für Oma' })
    expect(renamed.headers.get('x-ratelimit-limit')).toBeNull() // rate limits are off in this service
    const list = await call(t.url, 'GET', `${prefix}/vault`, { key: human() })
    expect(list.body.data.find((v: { id: string }) => v.id === id).name).toBe('Fotos für Oma')
    const one = await call(t.url, 'GET', `${prefix}/vault/${id}`, { key: await agentKey() })
    expect(one.body.data.name).toBe('Fotos für Oma')

    const exact = 'x'.repeat(EXTENSION_LIMITS.vaultNameMaxChars)
    expect(
      (await call(t.url, 'PATCH', `${prefix}/vault/${id}`, { key: human(), json: { name: exact } })).body.data
        .name,
    ).toBe(exact)
    expect(
      (await call(t.url, 'PATCH', `${prefix}/vault/${id}`, { key: human(), json: { name: '   ' } })).body.data
        .name,
    ).toBeNull()
    await call(t.url, 'PATCH', `${prefix}/vault/${id}`, { key: human(), json: { name: 'again' } })
    expect(
      (await call(t.url, 'PATCH', `${prefix}/vault/${id}`, { key: human(), json: { name: null } })).body.data
        .name,
    ).toBeNull()
  })

  it('refuses long names, control and bidi characters, unknown fields, agent keys, other accounts', async () => {
    const id = await newVault()
    const url = `${prefix}/vault/${id}`
    const bad: [unknown, RegExp][] = [
      [{ name: 'x'.repeat(EXTENSION_LIMITS.vaultNameMaxChars + 1) }, /at most 80 characters/],
      [{ name: 'evil\u202Egnp.exe' }, /bidirectional/],
      [{ name: 'isolate\u2067x' }, /bidirectional/],
      [{ name: 'line\nbreak' }, /control characters/],
      [{ name: 'bell\u0007' }, /control characters/],
      [{ name: 'ok', colour: 'red' }, /unknown field.*colour/],
      [{}, /name is required/],
      [{ name: 42 }, /name must be a string/],
      [[], /JSON object/],
    ]
    for (const [json, message] of bad) {
      expectError(await call(t.url, 'PATCH', url, { key: human(), json }), 400, 'VALIDATION_ERROR', message)
    }
    expectError(
      await call(t.url, 'POST', `${prefix}/vault`, { key: human(), json: { name: 'a\u202Ab' } }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await call(t.url, 'PATCH', url, { key: await agentKey(), json: { name: 'x' } }),
      403,
      'FORBIDDEN',
    )
    const stranger = (await t.service.admin.createAccount({ email: 'stranger@example.com' })).apiKey
    expectError(await call(t.url, 'PATCH', url, { key: stranger, json: { name: 'x' } }), 404, 'NOT_FOUND')
    expect((await call(t.url, 'GET', url, { key: human() })).body.data.name).toBeNull()
  })

  it('can be renamed while releasing', async () => {
    const id = await newVault()
    await t.service.admin.startRelease({ vault: id })
    const r = await call(t.url, 'PATCH', `${prefix}/vault/${id}`, {
      key: human(),
      json: { name: 'Still mine' },
    })
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ state: 'releasing', name: 'Still mine' })
  })
})

// ---- Rehearsals ----

const proof = () => randomBytes(32).toString('hex')
const sha256hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

interface Setup {
  vaultId: string
  heirId: string
  otherHeirId: string
  sampleId: string
  otherAssetId: string
}

/** A vault with three guardians (one declined), two heirs and two files. */
async function setUpVault(): Promise<Setup> {
  const vaultId = await newVault()
  const key = human()
  for (const [name, email] of [
    ['Gina Guardian', 'gina@example.com'],
    ['Gus Guardian', 'gus@example.com'],
    ['Dora Declined', 'dora@example.com'],
  ]) {
    expect(
      (await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, { key, json: { name, email } })).status,
    ).toBe(201)
  }
  const invitation = (await t.service.admin.outbox({ vault: vaultId })).messages.find(
    (m) => m.to === 'dora@example.com',
  )!
  const decline = new RegExp(`${t.url}/guardian/gt_[A-Za-z0-9_-]+/decline`).exec(invitation.body)![0]
  expect((await fetch(decline, { method: 'POST' })).status).toBe(200)
  const heir = await call(t.url, 'POST', `/api/vault/${vaultId}/heir`, {
    key,
    json: { name: 'Hana Heir', email: 'hana@example.com' },
  })
  const other = await call(t.url, 'POST', `/api/vault/${vaultId}/heir`, {
    key,
    json: { name: 'Hugo Heir', email: 'hugo@example.com' },
  })
  const sample = await call(t.url, 'POST', `/api/vault/${vaultId}/asset`, {
    key,
    body: uploadForm('sample ciphertext', { filename: 'photo.jpg.vault' }),
  })
  const secret = await call(t.url, 'POST', `/api/vault/${vaultId}/asset`, {
    key,
    body: uploadForm('the other file, not for practice', { filename: 'will.pdf.vault' }),
  })
  expect(sample.status).toBe(201)
  expect(secret.status).toBe(201)
  return {
    vaultId,
    heirId: heir.body.data.id,
    otherHeirId: other.body.data.id,
    sampleId: sample.body.data.id,
    otherAssetId: secret.body.data.id,
  }
}

/** The account's credits, as the owner sees them. */
const balance = async () =>
  (await call(t.url, 'GET', `/api/vault/${t.owner.vaultId}`, { key: human() })).body.data
    .creditsBalance as number

async function start(s: Setup, prefix = '/api', extra: { heirId?: string; assetId?: string } = {}) {
  const expected = proof()
  const r = await call(t.url, 'POST', `${prefix}/vault/${s.vaultId}/rehearsal`, {
    key: human(),
    json: {
      heirId: extra.heirId ?? s.heirId,
      assetId: extra.assetId ?? s.sampleId,
      challenge: randomBytes(16).toString('hex'),
      proofHash: sha256hex(expected),
    },
  })
  return { reply: r, proof: expected }
}

async function practiceMails(vaultId: string) {
  return (await t.service.admin.outbox({ vault: vaultId })).messages.filter((m) =>
    m.kind.startsWith('rehearsal_'),
  )
}

function tokenIn(body: string): string {
  return /(hk_[A-Za-z0-9_-]{43})/.exec(body)![1]!
}

describe('rehearsal', () => {
  it('runs end to end: e-mails, sample-only access, ticket, wrong and right proof, no credits spent', async () => {
    const s = await setUpVault()
    const before = await balance()
    const startedAt = t.now().toISOString()
    const { reply, proof: right } = await start(s)
    expect(reply.status).toBe(201)
    const rehearsal = reply.body.data
    expect(rehearsal).toEqual({
      id: expect.stringMatching(/^rhs_/),
      vaultId: s.vaultId,
      state: 'running',
      heir: { id: s.heirId, name: 'Hana Heir', email: 'hana@example.com' },
      asset: { id: s.sampleId, filename: 'photo.jpg.vault' },
      guardiansNotified: 2,
      startedAt,
      expiresAt: new Date(t.now().getTime() + EXTENSION_LIMITS.rehearsalDays * DAY_MS).toISOString(),
      openedAt: null,
      downloadedAt: null,
      passedAt: null,
      failedReports: 0,
    })

    // E-mails: the heir and the two guardians who did not decline, each marked [PRACTICE].
    const mails = await practiceMails(s.vaultId)
    expect(mails.map((m) => m.to).sort()).toEqual(['gina@example.com', 'gus@example.com', 'hana@example.com'])
    for (const mail of mails) expect(mail.subject).toMatch(/^\[PRACTICE\] /)
    const heirMail = mails.find((m) => m.to === 'hana@example.com')!
    expect(heirMail.kind).toBe('rehearsal_heir')
    expect(heirMail.body).toMatch(/THIS IS A PRACTICE\. Nothing has happened to owner@example.com/)
    for (const text of [
      t.url,
      s.vaultId,
      'photo.jpg.vault',
      rehearsal.expiresAt,
      'Gina Guardian <gina@example.com>',
      'Gus Guardian <gus@example.com>',
      '"Recovery"',
      'npm run recover',
    ]) {
      expect(heirMail.body).toContain(text)
    }
    expect(heirMail.body).not.toContain('dora@example.com')
    const token = tokenIn(heirMail.body)
    const guardianMail = mails.find((m) => m.to === 'gina@example.com')!
    expect(guardianMail.kind).toBe('rehearsal_guardian')
    expect(guardianMail.body).toContain('Hana Heir <hana@example.com> will ask you for your guardian kit')
    expect(guardianMail.body).toMatch(/THIS IS A PRACTICE/)
    expect(guardianMail.body).not.toContain(token)

    // The owner sees it (human and agent); the practice heir reads the vault and only the sample.
    const owned = await call(t.url, 'GET', `/v1/vault/${s.vaultId}/rehearsal`, { key: await agentKey() })
    expect(owned.body.data).toMatchObject({ id: rehearsal.id, state: 'running' })
    t.advance(60_000)
    const vault = await call(t.url, 'GET', `/api/vault/${s.vaultId}`, { key: token })
    expect(vault.status).toBe(200)
    expect(vault.body.data).toMatchObject({ id: s.vaultId, state: 'active', assetCount: 2 })
    const openedAt = t.now().toISOString()
    for (const prefix of API_PREFIXES) {
      const list = await call(t.url, 'GET', `${prefix}/vault/${s.vaultId}/asset`, { key: token })
      expect(list.status).toBe(200)
      expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([s.sampleId])
      expect(list.body.meta.total).toBe(1)
    }
    const content = await fetch(`${t.url}/v1/vault/${s.vaultId}/asset/${s.sampleId}/content`, {
      headers: { 'x-api-key': token },
    })
    expect(content.status).toBe(200)
    expect(await content.text()).toBe('sample ciphertext')
    const otherContent = await call(t.url, 'GET', `/api/vault/${s.vaultId}/asset/${s.otherAssetId}/content`, {
      key: token,
    })
    expectError(otherContent, 403, 'FORBIDDEN', /practice access opens only the sample file/)

    // Everything else is closed to it: writes, other reads, other vaults, owner routes.
    const other = await newVault()
    for (const [method, path, json] of [
      ['GET', `/api/vault/${other}`],
      ['GET', '/api/vault'],
      ['GET', `/api/vault/${s.vaultId}/guardian`],
      ['GET', `/api/vault/${s.vaultId}/heir`],
      ['GET', `/api/vault/${s.vaultId}/rehearsal`],
      ['DELETE', `/api/vault/${s.vaultId}/rehearsal`],
      ['GET', '/api/service'],
      ['PATCH', `/api/vault/${s.vaultId}`, { name: 'mine now' }],
      ['DELETE', `/api/vault/${s.vaultId}`],
      ['POST', `/api/vault/${s.vaultId}/heir`, { name: 'X', email: 'x@example.com' }],
      ['POST', `/api/vault/${s.vaultId}/release/config`, { trigger: 'manual' }],
      ['POST', `/api/vault/${s.vaultId}/release/checkin`],
    ] as [string, string, unknown?][]) {
      expectError(await call(t.url, method, path, { key: token, json }), 403, 'FORBIDDEN')
    }
    const upload = await call(t.url, 'POST', `/api/vault/${s.vaultId}/asset`, {
      key: token,
      body: uploadForm('x'),
    })
    expectError(upload, 403, 'FORBIDDEN')

    // Ticket and reports (practice token only).
    const ticket = await call(t.url, 'GET', '/v1/rehearsal', { key: token })
    expect(ticket.status).toBe(200)
    expect(ticket.body.data).toEqual({
      rehearsalId: rehearsal.id,
      vaultId: s.vaultId,
      assetId: s.sampleId,
      challenge: expect.stringMatching(/^[0-9a-f]{32}$/),
      expiresAt: rehearsal.expiresAt,
    })
    for (const key of [human(), await agentKey()]) {
      expectError(
        await call(t.url, 'GET', '/api/rehearsal', { key }),
        403,
        'FORBIDDEN',
        /practice access token/,
      )
      expectError(
        await call(t.url, 'POST', '/api/rehearsal/report', { key, json: { proof: right } }),
        403,
        'FORBIDDEN',
      )
    }
    expectError(
      await call(t.url, 'POST', '/api/rehearsal/report', { key: token, json: { proof: 'abc' } }),
      400,
      'VALIDATION_ERROR',
      /proof must be exactly 64 hexadecimal characters/,
    )
    expectError(
      await call(t.url, 'POST', '/api/rehearsal/report', { key: token, json: { proof: right, extra: 1 } }),
      400,
      'VALIDATION_ERROR',
      /unknown field/,
    )
    const wrong = await call(t.url, 'POST', '/api/rehearsal/report', { key: token, json: { proof: proof() } })
    expectError(wrong, 400, 'VALIDATION_ERROR', /kits rebuilt a different key.*older split.*another vault/)
    let state = (await call(t.url, 'GET', `/api/vault/${s.vaultId}/rehearsal`, { key: human() })).body.data
    expect(state).toMatchObject({ state: 'running', failedReports: 1, passedAt: null, openedAt })
    expect(state.downloadedAt).toBe(openedAt)

    t.advance(60_000)
    const passedAt = t.now().toISOString()
    const passed = await call(t.url, 'POST', '/v1/rehearsal/report', {
      key: token,
      json: { proof: right.toUpperCase() },
    })
    expect(passed.status).toBe(200)
    expect(passed.body.data).toEqual({ passed: true })
    t.advance(60_000)
    const again = await call(t.url, 'POST', '/api/rehearsal/report', { key: token, json: { proof: right } })
    expect(again.status).toBe(200)
    state = (await call(t.url, 'GET', `/api/vault/${s.vaultId}/rehearsal`, { key: human() })).body.data
    expect(state).toMatchObject({ state: 'passed', passedAt, failedReports: 1 })

    // Nothing of a real release: the vault is active, no credits moved, the other files untouched.
    expect(await balance()).toBe(before)
    const after = (await call(t.url, 'GET', `/api/vault/${s.vaultId}`, { key: human() })).body.data
    expect(after).toMatchObject({ state: 'active', assetCount: 2, releaseStartedAt: null })
    const owner = await fetch(`${t.url}/api/vault/${s.vaultId}/asset/${s.otherAssetId}/content`, {
      headers: { 'x-api-key': human() },
    })
    expect(await owner.text()).toBe('the other file, not for practice')
  })

  it('expires after the rehearsal days: the token gets 401, the state reads expired', async () => {
    const s = await setUpVault()
    const { reply } = await start(s, '/v1')
    const token = tokenIn((await practiceMails(s.vaultId)).find((m) => m.to === 'hana@example.com')!.body)
    t.advance(EXTENSION_LIMITS.rehearsalDays * DAY_MS)
    expect((await call(t.url, 'GET', `/api/vault/${s.vaultId}`, { key: token })).status).toBe(200)
    t.advance(1)
    expectError(
      await call(t.url, 'GET', `/api/vault/${s.vaultId}`, { key: token }),
      401,
      'UNAUTHORIZED',
      /practice access has ended.*expired/,
    )
    expectError(await call(t.url, 'GET', '/api/rehearsal', { key: token }), 401, 'UNAUTHORIZED')
    const r = await call(t.url, 'GET', `/api/vault/${s.vaultId}/rehearsal`, { key: human() })
    expect(r.body.data).toMatchObject({
      id: reply.body.data.id,
      state: 'expired',
      openedAt: expect.any(String),
    })
    // Nothing is running any more, so there is nothing to cancel.
    expectError(
      await call(t.url, 'DELETE', `/api/vault/${s.vaultId}/rehearsal`, { key: human() }),
      409,
      'CONFLICT',
      /expired/,
    )
  })

  it('DELETE cancels the running practice; its token gets 401; a second DELETE is 409', async () => {
    const s = await setUpVault()
    expectError(
      await call(t.url, 'DELETE', `/api/vault/${s.vaultId}/rehearsal`, { key: human() }),
      409,
      'CONFLICT',
    )
    expect(
      (await call(t.url, 'GET', `/api/vault/${s.vaultId}/rehearsal`, { key: human() })).body.data,
    ).toBeNull()
    const { reply } = await start(s)
    const token = tokenIn((await practiceMails(s.vaultId)).find((m) => m.to === 'hana@example.com')!.body)
    expectError(
      await call(t.url, 'DELETE', `/api/vault/${s.vaultId}/rehearsal`, { key: await agentKey() }),
      403,
      'FORBIDDEN',
    )
    const cancelled = await call(t.url, 'DELETE', `/v1/vault/${s.vaultId}/rehearsal`, { key: human() })
    expect(cancelled.status).toBe(200)
    expect(cancelled.body.data).toMatchObject({ id: reply.body.data.id, state: 'cancelled' })
    expectError(
      await call(t.url, 'GET', `/api/vault/${s.vaultId}/asset`, { key: token }),
      401,
      'UNAUTHORIZED',
      /practice access has ended.*cancelled/,
    )
    expectError(
      await call(t.url, 'DELETE', `/api/vault/${s.vaultId}/rehearsal`, { key: human() }),
      409,
      'CONFLICT',
      /cancelled/,
    )
  })

  it('a second start cancels the first; the new one may use another heir and file', async () => {
    const s = await setUpVault()
    const first = await start(s)
    const firstToken = tokenIn(
      (await practiceMails(s.vaultId)).find((m) => m.to === 'hana@example.com')!.body,
    )
    t.advance(1000)
    const second = await start(s, '/v1', { heirId: s.otherHeirId, assetId: s.otherAssetId })
    expect(second.reply.status).toBe(201)
    expect(second.reply.body.data).toMatchObject({
      state: 'running',
      heir: { id: s.otherHeirId, name: 'Hugo Heir' },
      asset: { id: s.otherAssetId, filename: 'will.pdf.vault' },
    })
    expect((await call(t.url, 'GET', `/api/vault/${s.vaultId}`, { key: firstToken })).status).toBe(401)
    const secondToken = tokenIn(
      (await practiceMails(s.vaultId)).find((m) => m.to === 'hugo@example.com')!.body,
    )
    const list = await call(t.url, 'GET', `/api/vault/${s.vaultId}/asset`, { key: secondToken })
    expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([s.otherAssetId])
    const latest = await call(t.url, 'GET', `/api/vault/${s.vaultId}/rehearsal`, { key: human() })
    expect(latest.body.data.id).toBe(second.reply.body.data.id)
    expect(first.reply.body.data.id).not.toBe(second.reply.body.data.id)
  })

  it('validates the request: 404 for a foreign heir or file, 400 for malformed fields, 403 for agents', async () => {
    const s = await setUpVault()
    const o = await setUpVault()
    const url = `/api/vault/${s.vaultId}/rehearsal`
    const good = {
      heirId: s.heirId,
      assetId: s.sampleId,
      challenge: 'ab'.repeat(16),
      proofHash: 'cd'.repeat(32),
    }
    expectError(
      await call(t.url, 'POST', url, { key: human(), json: { ...good, heirId: o.heirId } }),
      404,
      'NOT_FOUND',
      /heir/,
    )
    expectError(
      await call(t.url, 'POST', url, { key: human(), json: { ...good, assetId: o.sampleId } }),
      404,
      'NOT_FOUND',
      /asset/,
    )
    for (const [json, message] of [
      [{ ...good, challenge: 'ab' }, /challenge must be exactly 32 hexadecimal/],
      [{ ...good, proofHash: 'zz'.repeat(32) }, /proofHash must be exactly 64 hexadecimal/],
      [{ ...good, heirId: undefined }, /heirId is required/],
      [{ ...good, note: 'hi' }, /unknown field/],
    ] as [unknown, RegExp][]) {
      expectError(await call(t.url, 'POST', url, { key: human(), json }), 400, 'VALIDATION_ERROR', message)
    }
    expectError(await call(t.url, 'POST', url, { key: await agentKey(), json: good }), 403, 'FORBIDDEN')
    const stranger = (await t.service.admin.createAccount({ email: 'other-owner@example.com' })).apiKey
    expectError(await call(t.url, 'POST', url, { key: stranger, json: good }), 404, 'NOT_FOUND')
    expectError(await call(t.url, 'GET', url, { key: stranger }), 404, 'NOT_FOUND')
    expect(await practiceMails(s.vaultId)).toHaveLength(0)
  })

  it('is 409 on a releasing vault; a real release ends a running practice and its token stays closed', async () => {
    const s = await setUpVault()
    const { reply } = await start(s)
    const token = tokenIn((await practiceMails(s.vaultId)).find((m) => m.to === 'hana@example.com')!.body)
    await t.service.admin.startRelease({ vault: s.vaultId })
    expectError(
      await call(t.url, 'GET', `/api/vault/${s.vaultId}`, { key: token }),
      401,
      'UNAUTHORIZED',
      /practice access has ended/,
    )
    const latest = await call(t.url, 'GET', `/api/vault/${s.vaultId}/rehearsal`, { key: human() })
    expect(latest.body.data).toMatchObject({ id: reply.body.data.id, state: 'cancelled' })
    expectError(await start(s).then((r) => r.reply), 409, 'CONFLICT', /releasing/)

    // Released: the real heir token opens the vault, the practice token still nothing.
    t.advance(31 * DAY_MS)
    await t.service.tick()
    const real = (await t.service.admin.outbox({ vault: s.vaultId })).messages.find(
      (m) => m.kind === 'heir_access' && m.to === 'hana@example.com',
    )!
    expect(
      (await call(t.url, 'GET', `/api/vault/${s.vaultId}/asset`, { key: tokenIn(real.body) })).status,
    ).toBe(200)
    expect((await call(t.url, 'GET', `/api/vault/${s.vaultId}/asset`, { key: token })).status).toBe(401)
    expectError(await start(s).then((r) => r.reply), 409, 'CONFLICT', /released/)
  })

  it('removing the heir ends their practice; deleting the vault removes its rehearsals', async () => {
    const s = await setUpVault()
    await start(s)
    const token = tokenIn((await practiceMails(s.vaultId)).find((m) => m.to === 'hana@example.com')!.body)
    await call(t.url, 'DELETE', `/api/vault/${s.vaultId}/heir/${s.heirId}`, { key: human() })
    expect((await call(t.url, 'GET', `/api/vault/${s.vaultId}`, { key: token })).status).toBe(401)
    const latest = await call(t.url, 'GET', `/api/vault/${s.vaultId}/rehearsal`, { key: human() })
    expect(latest.body.data.state).toBe('cancelled')

    const second = await start(s, '/api', { heirId: s.otherHeirId })
    expect(second.reply.status).toBe(201)
    const secondToken = tokenIn(
      (await practiceMails(s.vaultId)).find((m) => m.to === 'hugo@example.com')!.body,
    )
    expect((await call(t.url, 'DELETE', `/api/vault/${s.vaultId}`, { key: human() })).status).toBe(200)
    expectError(await call(t.url, 'GET', '/api/rehearsal', { key: secondToken }), 401, 'UNAUTHORIZED')
    expect(await t.rows('SELECT COUNT(*) AS n FROM rehearsals WHERE vault_id = ?', s.vaultId)).toEqual([
      { n: 0 },
    ])
  })

  it('a running practice, its token and the vault name survive a restart', async () => {
    const s = await setUpVault()
    await call(t.url, 'PATCH', `/api/vault/${s.vaultId}`, { key: human(), json: { name: 'Kept' } })
    const { reply, proof: right } = await start(s)
    const token = tokenIn((await practiceMails(s.vaultId)).find((m) => m.to === 'hana@example.com')!.body)
    await t.restart()
    expect((await call(t.url, 'GET', `/api/vault/${s.vaultId}`, { key: token })).body.data.name).toBe('Kept')
    expect(
      (await call(t.url, 'POST', '/api/rehearsal/report', { key: token, json: { proof: right } })).status,
    ).toBe(200)
    const latest = await call(t.url, 'GET', `/api/vault/${s.vaultId}/rehearsal`, { key: human() })
    expect(latest.body.data).toMatchObject({ id: reply.body.data.id, state: 'passed' })
  })

  it('admin revoke-key revokes a practice token', async () => {
    const s = await setUpVault()
    await start(s)
    const token = tokenIn((await practiceMails(s.vaultId)).find((m) => m.to === 'hana@example.com')!.body)
    expect(await t.service.admin.revokeKey({ key: token })).toEqual({ revoked: true })
    expect((await call(t.url, 'GET', '/api/rehearsal', { key: token })).status).toBe(401)
    await expect(t.service.admin.revokeKey({ key: token })).rejects.toThrow(/no active key/)
  })
})

describe('rate limits on the extensions', () => {
  let limited: TestService
  beforeAll(async () => {
    limited = await startTestService({ rateLimits: { otherPost: 3 } })
  })
  afterAll(() => limited.stop())

  it('GETs use the 120/min bucket, PATCH and rehearsal changes the other-POST bucket', async () => {
    const { apiKey, vaultId } = limited.owner
    const info = await call(limited.url, 'GET', '/api/service', { key: apiKey })
    expect(info.headers.get('x-ratelimit-limit')).toBe('120')
    const get = await call(limited.url, 'GET', `/v1/vault/${vaultId}/rehearsal`, { key: apiKey })
    expect(get.headers.get('x-ratelimit-limit')).toBe('120')
    for (const remaining of ['2', '1', '0']) {
      const r = await call(limited.url, 'PATCH', `/api/vault/${vaultId}`, {
        key: apiKey,
        json: { name: 'n' },
      })
      expect(r.headers.get('x-ratelimit-remaining')).toBe(remaining)
    }
    // Both prefixes share the bucket; the next change of any kind in it waits.
    const blocked = await call(limited.url, 'DELETE', `/v1/vault/${vaultId}/rehearsal`, { key: apiKey })
    expectError(blocked, 429, 'RATE_LIMITED')
    expect(blocked.headers.get('retry-after')).toBeTruthy()
  })
})

describe.each(API_PREFIXES)('DELETE /vault/:id/asset/:aid (asset-delete), under %s', (prefix) => {
  it('takes the file out and removes its blob; refuses agents, other accounts and a releasing vault', async () => {
    const vaultId = await newVault()
    const upload = async (bytes: Uint8Array) =>
      (
        await call(t.url, 'POST', `${prefix}/vault/${vaultId}/asset`, {
          key: human(),
          body: uploadForm(bytes, { filename: 'old.bin' }),
        })
      ).body.data as { id: string }
    const kept = await upload(randomBytes(1000))
    const gone = await upload(randomBytes(2000))
    expectError(
      await call(t.url, 'DELETE', `${prefix}/vault/${vaultId}/asset/${gone.id}`, { key: await agentKey() }),
      403,
      'FORBIDDEN',
    )
    const other = await t.service.admin.createAccount({ email: 'other@example.com' })
    expectError(
      await call(t.url, 'DELETE', `${prefix}/vault/${vaultId}/asset/${gone.id}`, { key: other.apiKey }),
      404,
      'NOT_FOUND',
    )
    const deleted = await call(t.url, 'DELETE', `${prefix}/vault/${vaultId}/asset/${gone.id}`, { key: human() })
    expect(deleted.status).toBe(200)
    expect(deleted.body.data).toEqual({ deleted: gone.id, contentRemoved: true })
    const listed = await call(t.url, 'GET', `${prefix}/vault/${vaultId}/asset`, { key: human() })
    expect(listed.body.data.map((a: { id: string }) => a.id)).toEqual([kept.id])
    expectError(
      await call(t.url, 'GET', `${prefix}/vault/${vaultId}/asset/${gone.id}/content`, { key: human() }),
      404,
      'NOT_FOUND',
    )
    expectError(
      await call(t.url, 'DELETE', `${prefix}/vault/${vaultId}/asset/${gone.id}`, { key: human() }),
      404,
      'NOT_FOUND',
    )
    await call(t.url, 'POST', `${prefix}/vault/${vaultId}/release/config`, {
      key: human(),
      json: { trigger: 'manual' },
    })
    expect((await call(t.url, 'POST', `${prefix}/vault/${vaultId}/release/start`, { key: human() })).status).toBe(200)
    expectError(
      await call(t.url, 'DELETE', `${prefix}/vault/${vaultId}/asset/${kept.id}`, { key: human() }),
      409,
      'CONFLICT',
    )
  })
})
