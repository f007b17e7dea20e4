// The local extensions added for readiness: GET /service, the mail test without SMTP, vault names and
// the rate limits of the rehearsal routes, on both prefixes, against a real service with a movable clock.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_PREFIXES, EXTENSION_LIMITS, SERVICE_EXTENSIONS } from '../../src/shared/api'
import { call, startTestService, type TestService, uploadForm } from './harness'

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
        operator: { creditsUrl: null },
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
      [{}, /must set "name".*"checkInLinks"/],
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

// Rehearsals (practice releases) have their own file: rehearsal.test.ts.

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
    const deleted = await call(t.url, 'DELETE', `${prefix}/vault/${vaultId}/asset/${gone.id}`, {
      key: human(),
    })
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
    expect(
      (await call(t.url, 'POST', `${prefix}/vault/${vaultId}/release/start`, { key: human() })).status,
    ).toBe(200)
    expectError(
      await call(t.url, 'DELETE', `${prefix}/vault/${vaultId}/asset/${kept.id}`, { key: human() }),
      409,
      'CONFLICT',
    )
  })
})
