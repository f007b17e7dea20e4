// Registering a split's kit check codes: the request carries per guardian only the hash of their kit's
// check code (never the words, never the code), a service without the kit-check extension is told
// nothing, and a split the service took is not sent again (a failed one is, on the next try).
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { GuardianKits } from '../../src/main/core/vaults/guardian-kits'
import { registerKitChecks } from '../../src/main/core/vaults/kit-check-registration'
import { checkKitByLink, VaultApiClient } from '../../src/service-client'
import { decodeShareWords, generateVaultKey, openKitWords } from '../../src/vault-format'
import { kitCheckCode, kitCheckCodeHash } from '../../src/vault-format/kit-check'

const VAULT = 'vlt_kitcheck_1'
let dir: string
let server: Server
let url: string
const bodies: { method: string; path: string; body: string; apiKey: unknown }[] = []
let failNext = false
/** The next answer's data, whatever was asked (a service that lies). */
let nextAnswer: unknown

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vault-kit-check-reg-'))
  server = createServer(async (request: IncomingMessage, response) => {
    let body = ''
    for await (const chunk of request) body += chunk
    bodies.push({ method: request.method!, path: request.url!, body, apiKey: request.headers['x-api-key'] })
    if (nextAnswer) {
      const answer = nextAnswer
      nextAnswer = undefined
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ data: answer }))
      return
    }
    if (failNext) {
      failNext = false
      response.writeHead(400, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ error: { code: 'VALIDATION_ERROR', message: 'no' } }))
      return
    }
    const sent = JSON.parse(body) as { split: string }
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ data: { split: sent.split, registeredAt: '2026-11-26T10:00:00.000Z' } }))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server?.close()
  await rm(dir, { recursive: true, force: true })
})

it('sends each guardian kit check code hash and nothing of the words; once per split; not to a service without the extension', async () => {
  const kits = new GuardianKits(dir)
  const key = generateVaultKey()
  const made = await kits.regenerate(VAULT, key, 'standard', [
    { id: 'gd_a', name: 'Ana' },
    { id: 'gd_b', name: 'Bo' },
    { id: 'gd_c', name: 'Cy' },
  ])
  const client = new VaultApiClient({ baseUrl: url, apiKey: 'sk_human_test', prefix: '/api', maxRetries: 0 })
  let offered = false
  const deps = {
    kits,
    offersKitChecks: async () => offered,
    register: (id: string, r: Parameters<VaultApiClient['registerKitChecks']>[1]) =>
      client.registerKitChecks(id, r),
  }

  expect(await registerKitChecks(deps, VAULT, key)).toBe('not-offered')
  expect(bodies).toEqual([])

  offered = true
  failNext = true
  await expect(registerKitChecks(deps, VAULT, key)).rejects.toMatchObject({ status: 400 })
  expect(await registerKitChecks(deps, VAULT, key)).toBe('registered')
  expect(bodies).toHaveLength(2)
  const { method, path, body, apiKey } = bodies[1]!
  expect([method, path, apiKey]).toEqual(['PUT', `/api/vault/${VAULT}/kit-checks`, 'sk_human_test'])

  // The words, as the kits hold them, and each kit's code: neither appears in what was sent.
  const raw = JSON.parse(
    await import('node:fs/promises').then((fs) => fs.readFile(join(dir, `${VAULT}.json`), 'utf8')),
  )
  const words = openKitWords(key, VAULT, raw.splitId, raw.sealedShares)
  const codes = words.map((w) => {
    const share = decodeShareWords(w)
    return kitCheckCode(share.share, VAULT)
  })
  expect(JSON.parse(body)).toEqual({
    split: made[0]!.splitId,
    guardians: ['gd_a', 'gd_b', 'gd_c'].map((guardianId, i) => ({
      guardianId,
      codeHash: kitCheckCodeHash(codes[i]!, VAULT),
    })),
  })
  // The body above is all there is: a split id, guardian ids and 64-hex hashes; no code, no kit text.
  for (const code of codes) expect(body).not.toContain(code)
  for (const w of words) expect(body).not.toContain(w.split(/\s+/).slice(0, 3).join(' '))

  // Taken: not sent again. A new split (a guardian removed) is.
  expect(await registerKitChecks(deps, VAULT, key)).toBe('nothing-to-register')
  expect(bodies).toHaveLength(2)
  const remade = await kits.regenerate(VAULT, key, 'standard', [
    { id: 'gd_a', name: 'Ana' },
    { id: 'gd_c', name: 'Cy' },
  ])
  expect(await registerKitChecks(deps, VAULT, key)).toBe('registered')
  expect(JSON.parse(bodies[2]!.body)).toMatchObject({
    split: remade[0]!.splitId,
    guardians: [{ guardianId: 'gd_a' }, { guardianId: 'gd_c' }],
  })
  expect(remade[0]!.splitId).not.toBe(made[0]!.splitId)
})

it('a kit check sends only the token and the code, without an API key; answers that make no sense are refused', async () => {
  bodies.length = 0
  const token = `gt_${'A'.repeat(43)}`
  nextAnswer = { outcome: 'confirmed', confirmedAt: '2026-11-26T10:00:00.000Z' }
  const result = await checkKitByLink(`${url}/guardian/${token}/check`, '4F7K-Q2MA-8', { maxRetries: 0 })
  expect(result).toEqual({ outcome: 'confirmed', confirmedAt: '2026-11-26T10:00:00.000Z' })
  expect(bodies).toEqual([
    {
      method: 'POST',
      path: '/api/kit-check',
      body: JSON.stringify({ guardianToken: token, code: '4F7K-Q2MA-8' }),
      apiKey: undefined,
    },
  ])
  // A reminder's link, and a service under a path.
  nextAnswer = { outcome: 'not-registered' }
  await checkKitByLink(`${url}/sub/kit-check/kc_${'b'.repeat(43)}`, '4F7K-Q2MA-8', { maxRetries: 0 })
  expect(bodies[1]).toMatchObject({ path: '/sub/api/kit-check', body: expect.stringContaining('"kc_bbb') })

  for (const lie of [
    { outcome: 'yes' },
    { outcome: 'confirmed' },
    { outcome: 'older-split', newSplitAt: 'soon' },
  ]) {
    nextAnswer = lie
    await expect(
      checkKitByLink(`${url}/guardian/${token}`, '4F7K-Q2MA-8', { maxRetries: 0 }),
    ).rejects.toMatchObject({
      code: 'BAD_RESPONSE',
    })
  }
  const client = new VaultApiClient({ baseUrl: url, apiKey: 'sk_human_test', prefix: '/api', maxRetries: 0 })
  nextAnswer = { split: 'another', registeredAt: '2026-11-26T10:00:00.000Z' }
  await expect(client.registerKitChecks(VAULT, { split: 'mine', guardians: [] })).rejects.toMatchObject({
    code: 'BAD_RESPONSE',
  })

  // Links that are not a guardian's, or would send the token in clear across a network: refused, nothing sent.
  const sent = bodies.length
  for (const link of [
    'not a link',
    `${url}/recover`,
    `http://vault.example.com/guardian/${token}`,
    `${url}/guardian/gt_short`,
  ]) {
    expect(() => checkKitByLink(link, '4F7K-Q2MA-8')).toThrow(/guardian e-mail/)
  }
  expect(bodies).toHaveLength(sent)
})
