// Rehearsals (practice releases) against a real service with a movable clock: the practice material is
// made by the app's own code (a practice key split like the vault, a practice file under it), the
// guardians get practice kits by e-mail, the heir a practice access to the practice file only. And the
// promise itself: after a passed practice, nothing the heir's side holds equals or derives the vault key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makePracticeMaterial } from '../../src/main/core/vaults/practice-material'
import { API_PREFIXES, EXTENSION_LIMITS, type Guardian, type RehearsalRequest } from '../../src/shared/api'
import {
  collectBytes,
  combinePracticeWords,
  decodeKitWords,
  encodeShareWords,
  generateVaultKey,
  openEncryptedFile,
  rehearsalProof,
  splitVaultKey,
} from '../../src/vault-format'
import { call, DAY_MS, startTestService, type TestService, uploadForm } from './harness'

let t: TestService
beforeAll(async () => {
  t = await startTestService()
})
afterAll(() => t.stop())

const human = () => t.owner.apiKey
const agentKey = async () =>
  (await t.service.admin.createKey({ account: t.owner.accountId, kind: 'agent' })).apiKey

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

interface Setup {
  vaultId: string
  heirId: string
  otherHeirId: string
  guardians: Guardian[]
  assetId: string
}

/** A standard vault (2 of 3) with three guardians (one declined), two heirs and one real file. */
async function setUpVault(): Promise<Setup> {
  const vaultId = (await t.service.admin.createVault({ account: t.owner.accountId, preset: 'standard' }))
    .vaultId
  const key = human()
  for (const [name, email] of [
    ['Gina Guardian', 'gina@example.com'],
    ['Dora Declined', 'dora@example.com'],
    ['Gus Guardian', 'gus@example.com'],
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
  const asset = await call(t.url, 'POST', `/api/vault/${vaultId}/asset`, {
    key,
    body: uploadForm('the real will, not for practice', { filename: 'will.pdf.vault' }),
  })
  expect(asset.status).toBe(201)
  const guardians = (await call(t.url, 'GET', `/api/vault/${vaultId}/guardian`, { key })).body.data
  return {
    vaultId,
    heirId: heir.body.data.id,
    otherHeirId: other.body.data.id,
    guardians,
    assetId: asset.body.data.id,
  }
}

async function material(s: Setup, heirId = s.heirId) {
  return makePracticeMaterial({
    vaultId: s.vaultId,
    vaultLabel: 'Family papers',
    preset: 'standard',
    guardians: s.guardians,
    heirId,
    sample: { kind: 'letter' },
    now: t.now(),
  })
}

async function start(s: Setup, request: RehearsalRequest, prefix = '/api') {
  return call(t.url, 'POST', `${prefix}/vault/${s.vaultId}/rehearsal`, { key: human(), json: request })
}

async function practiceMails(vaultId: string) {
  return (await t.service.admin.outbox({ vault: vaultId })).messages.filter((m) =>
    m.kind.startsWith('rehearsal_'),
  )
}

const tokenIn = (body: string) => /(hk_[A-Za-z0-9_-]{43})/.exec(body)![1]!

/** The practice kit's words in a guardian's practice e-mail (the one line of lowercase words). */
function kitWordsIn(body: string): string {
  return body
    .split('\n')
    .find((line) => /^[a-z]+( [a-z]+){20,}$/.test(line.trim()))!
    .trim()
}

const balance = async () =>
  (await call(t.url, 'GET', `/api/vault/${t.owner.vaultId}`, { key: human() })).body.data
    .creditsBalance as number

describe('rehearsal with practice material', () => {
  it('mails one practice kit to each guardian, opens only the practice file, costs nothing', async () => {
    const s = await setUpVault()
    const before = await balance()
    const { request, practiceKey } = await material(s)
    const reply = await start(s, request)
    expect(reply.status).toBe(201)
    const rehearsal = reply.body.data
    expect(rehearsal).toMatchObject({
      vaultId: s.vaultId,
      state: 'running',
      heir: { id: s.heirId, name: 'Hana Heir' },
      sample: { filename: request.sample.filename, ownerFile: false },
      guardiansNotified: 2,
      expiresAt: new Date(t.now().getTime() + EXTENSION_LIMITS.rehearsalDays * DAY_MS).toISOString(),
    })
    expect(request.sample.filename).toMatch(/^Practice file - \d{4}-\d{2}-\d{2}\.txt$/)

    // Each guardian who did not decline gets their own practice kit; the heir gets none.
    const mails = await practiceMails(s.vaultId)
    expect(mails.map((m) => m.to).sort()).toEqual(['gina@example.com', 'gus@example.com', 'hana@example.com'])
    const kits = request.practiceKits.map((k) => k.words)
    for (const mail of mails) {
      expect(mail.subject).toMatch(/^\[PRACTICE\] /)
      if (mail.kind === 'rehearsal_heir') {
        for (const words of kits) expect(mail.body).not.toContain(words)
        expect(mail.body).toContain('PRACTICE KITS, not the real guardian kits')
        expect(mail.body).toMatch(/do not ask for, and do not\s+accept, anyone's real guardian kit/i)
        continue
      }
      const words = kitWordsIn(mail.body)
      expect(decodeKitWords(words)).toMatchObject({ kind: 'practice-share', vaultId: s.vaultId })
      expect(mail.body).toContain('Do NOT give anyone your real guardian kit')
      expect(mail.body).not.toMatch(/the way you would on the real day/)
    }
    const gina = s.guardians.find((g) => g.name === 'Gina Guardian')!
    expect(kitWordsIn(mails.find((m) => m.to === 'gina@example.com')!.body)).toBe(
      request.practiceKits.find((k) => k.guardianId === gina.id)!.words,
    )

    // The practice token opens the practice file, and no file of the vault.
    const token = tokenIn(mails.find((m) => m.to === 'hana@example.com')!.body)
    for (const prefix of API_PREFIXES) {
      expectError(
        await call(t.url, 'GET', `${prefix}/vault/${s.vaultId}/asset`, { key: token }),
        403,
        'FORBIDDEN',
        /opens none of the vault's files/,
      )
      expectError(
        await call(t.url, 'GET', `${prefix}/vault/${s.vaultId}/asset/${s.assetId}/content`, { key: token }),
        403,
        'FORBIDDEN',
      )
    }
    const ticket = await call(t.url, 'GET', '/api/rehearsal', { key: token })
    expect(ticket.status).toBe(200)
    expect(ticket.body.data).toMatchObject({ rehearsalId: rehearsal.id, vaultId: s.vaultId })
    expect(ticket.body.data.sample.content).toBe(request.sample.content)

    // The practice file is not a vault asset.
    const vault = (await call(t.url, 'GET', `/api/vault/${s.vaultId}`, { key: human() })).body.data
    expect(vault).toMatchObject({ state: 'active', assetCount: 1, releaseStartedAt: null })

    // A wrong proof counts a failure; the practice key's proof passes.
    expectError(
      await call(t.url, 'POST', '/api/rehearsal/report', { key: token, json: { proof: 'ab'.repeat(32) } }),
      400,
      'VALIDATION_ERROR',
      /practice kits from the e-mails of this practice/,
    )
    const proof = rehearsalProof(practiceKey, ticket.body.data.challenge)
    expect((await call(t.url, 'POST', '/api/rehearsal/report', { key: token, json: { proof } })).status).toBe(
      200,
    )
    const state = (await call(t.url, 'GET', `/api/vault/${s.vaultId}/rehearsal`, { key: human() })).body.data
    expect(state).toMatchObject({ state: 'passed', failedReports: 1 })
    expect(state.downloadedAt).not.toBeNull()
    expect(await balance()).toBe(before)
  })

  it('expires by itself: the token gets 401 and the service forgets the practice file', async () => {
    const s = await setUpVault()
    const reply = await start(s, (await material(s)).request, '/v1')
    const token = tokenIn((await practiceMails(s.vaultId)).find((m) => m.to === 'hana@example.com')!.body)
    const held = async () =>
      (
        await t.rows<{ held: number }>(
          'SELECT sample IS NOT NULL AS held FROM rehearsals WHERE id = ?',
          reply.body.data.id,
        )
      )[0]
    expect(Number((await held())!.held)).toBe(1)
    t.advance(EXTENSION_LIMITS.rehearsalDays * DAY_MS + 1)
    expectError(
      await call(t.url, 'GET', '/api/rehearsal', { key: token }),
      401,
      'UNAUTHORIZED',
      /practice access has ended.*expired/,
    )
    // Forgotten as soon as anyone asks for it after the end.
    expect(Number((await held())!.held)).toBe(0)
    const latest = await call(t.url, 'GET', `/api/vault/${s.vaultId}/rehearsal`, { key: human() })
    expect(latest.body.data).toMatchObject({ state: 'expired' })
    expect(Number((await held())!.held)).toBe(0)
  })

  it('cancelling ends the token and forgets the file; a second start replaces the first', async () => {
    const s = await setUpVault()
    const first = await start(s, (await material(s)).request)
    const firstToken = tokenIn(
      (await practiceMails(s.vaultId)).find((m) => m.to === 'hana@example.com')!.body,
    )
    t.advance(1000)
    const second = await start(s, (await material(s, s.otherHeirId)).request)
    expect(second.body.data).toMatchObject({ state: 'running', heir: { name: 'Hugo Heir' } })
    expect((await call(t.url, 'GET', '/api/rehearsal', { key: firstToken })).status).toBe(401)
    const cancelled = await call(t.url, 'DELETE', `/api/vault/${s.vaultId}/rehearsal`, { key: human() })
    expect(cancelled.body.data).toMatchObject({ id: second.body.data.id, state: 'cancelled' })
    expect(
      await t.rows(
        'SELECT COUNT(*) AS n FROM rehearsals WHERE vault_id = ? AND sample IS NOT NULL',
        s.vaultId,
      ),
    ).toEqual([{ n: 0 }])
    expect(first.body.data.id).not.toBe(second.body.data.id)
  })

  it('validates the practice kits and the practice file, and sends nothing when refused', async () => {
    const s = await setUpVault()
    const o = await setUpVault()
    const { request } = await material(s)
    const declined = s.guardians.find((g) => g.status === 'declined')!
    const kit = request.practiceKits[0]!
    const cases: [unknown, number, RegExp][] = [
      [{ ...request, practiceKits: [kit] }, 400, /needs 2 to 3/],
      [{ ...request, practiceKits: [kit, { ...kit }] }, 400, /named by two practice kits/],
      [{ ...request, practiceKits: [kit, { guardianId: declined.id, words: 'abc def' }] }, 409, /declined/],
      [
        { ...request, practiceKits: [kit, { guardianId: o.guardians[0]!.id, words: 'abc' }] },
        404,
        /guardian/,
      ],
      [
        { ...request, practiceKits: [kit, { ...request.practiceKits[1]!, words: 'Not Words!' }] },
        400,
        /lowercase words/,
      ],
      [{ ...request, sample: { ...request.sample, content: 'not base64!' } }, 400, /base64/],
      [{ ...request, sample: { ...request.sample, filename: 'a\u202Egpj.exe' } }, 400, /bidirectional/],
      [
        {
          ...request,
          sample: {
            ...request.sample,
            content: Buffer.alloc(EXTENSION_LIMITS.rehearsalSampleMaxBytes + 1).toString('base64'),
          },
        },
        400,
        /smaller practice file/,
      ],
      [{ ...request, assetId: s.assetId }, 400, /unknown field/],
      [{ ...request, heirId: o.heirId }, 404, /heir/],
    ]
    for (const [json, status, message] of cases) {
      const reply = await call(t.url, 'POST', `/api/vault/${s.vaultId}/rehearsal`, { key: human(), json })
      expectError(
        reply,
        status,
        status === 400 ? 'VALIDATION_ERROR' : status === 404 ? 'NOT_FOUND' : 'CONFLICT',
        message,
      )
    }
    expectError(
      await call(t.url, 'POST', `/api/vault/${s.vaultId}/rehearsal`, {
        key: await agentKey(),
        json: request,
      }),
      403,
      'FORBIDDEN',
    )
    expect(await practiceMails(s.vaultId)).toHaveLength(0)
  })
})

describe('a passed practice leaves the heir nothing of the vault key', () => {
  it('practice kits, e-mails, the practice file, what the service serves and the proof', async () => {
    const s = await setUpVault()
    // The vault key and its real kits, as the owner's app holds them.
    const vaultKey = generateVaultKey()
    const realKits = (await splitVaultKey(vaultKey, s.vaultId, { threshold: 2, shares: 3 })).map(
      encodeShareWords,
    )
    const { request } = await material(s)
    expect((await start(s, request)).status).toBe(201)

    // Everything the heir's side can get: every e-mail of the vault, and what the practice code opens.
    const mails = (await t.service.admin.outbox({ vault: s.vaultId })).messages
    const token = tokenIn(mails.find((m) => m.kind === 'rehearsal_heir')!.body)
    const served = [
      await call(t.url, 'GET', `/api/vault/${s.vaultId}`, { key: token }),
      await call(t.url, 'GET', '/api/rehearsal', { key: token }),
    ]
    const ticket = served[1]!.body.data
    // The heir collects the practice kits from the guardians' e-mails and passes the practice.
    const collected = mails.filter((m) => m.kind === 'rehearsal_guardian').map((m) => kitWordsIn(m.body))
    expect(collected).toHaveLength(2)
    const rebuilt = await combinePracticeWords(collected, { now: t.now() })
    const proof = rehearsalProof(rebuilt.practiceKey, ticket.challenge)
    expect((await call(t.url, 'POST', '/api/rehearsal/report', { key: token, json: { proof } })).status).toBe(
      200,
    )
    expect(
      (await call(t.url, 'GET', `/api/vault/${s.vaultId}/rehearsal`, { key: human() })).body.data.state,
    ).toBe('passed')

    // Combining every practice kit gives the practice key, which is not the vault key.
    expect(Buffer.from(rebuilt.practiceKey).equals(Buffer.from(vaultKey))).toBe(false)
    // No e-mail and nothing served holds a real kit or the key; every kit in them is a practice kit.
    const heard = [
      ...mails.map((m) => `${m.subject}\n${m.body}`),
      ...served.map((r) => JSON.stringify(r.body)),
    ]
    const keyForms = [Buffer.from(vaultKey).toString('hex'), Buffer.from(vaultKey).toString('base64')]
    for (const text of heard) {
      for (const form of keyForms) expect(text).not.toContain(form)
      for (const kit of realKits) expect(text).not.toContain(kit)
      for (const line of text.split('\n').filter((l) => /^[a-z]+( [a-z]+){11,}$/.test(l.trim()))) {
        expect(decodeKitWords(line.trim()).kind).toBe('practice-share')
      }
    }
    // The practice file opens under the practice key and not under the vault key.
    const blob = Buffer.from(ticket.sample.content, 'base64')
    const opened = await openEncryptedFile([blob], { vaultKey: rebuilt.practiceKey, vaultId: s.vaultId })
    expect(opened.kind).toBe('file')
    const letter = new TextDecoder().decode(
      await collectBytes((opened as { body: AsyncIterable<Uint8Array> }).body),
    )
    expect(letter).toContain('Practice file for Family papers')
    await expect(openEncryptedFile([blob], { vaultKey, vaultId: s.vaultId })).rejects.toThrow()
    // The proof is of the practice key: the vault key's proof over the same challenge differs.
    expect(rehearsalProof(vaultKey, ticket.challenge)).not.toBe(proof)
    // Real kits handed over by mistake are refused by the practice combiner, never combined.
    await expect(combinePracticeWords([...realKits.slice(0, 2)], { now: t.now() })).rejects.toThrow(
      /real guardian kit/,
    )
  })
})
