// The OpenAPI document (src/service/openapi): served without a key at both prefixes, naming exactly the
// routes the service registers, and the answer check the harness runs on every service test refuses
// answers the document does not describe (so it can fail, and does when the two drift apart).
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildHttpServer } from '../../src/service/http-server'
import { buildVaultApiDocument } from '../../src/service/openapi/vault-api-document'
import { openServiceContext } from '../../src/service/service-context'
import { API_PREFIXES } from '../../src/shared/api'
import { call, checkedAnswerCount, startTestService, type TestService, takeAnswerProblems } from './harness'
import { answerProblems } from './openapi-response-check'

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as untyped JSON, as a client would read it
type Json = Record<string, any>
const document = buildVaultApiDocument() as Json
const METHODS = ['get', 'post', 'patch', 'delete', 'put'] as const

/** "METHOD /full/path" for every operation, parameters written {}. */
function documentedRoutes(): string[] {
  const found: string[] = []
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    const servers: { url: string }[] = item.servers ?? document.servers
    for (const server of servers) {
      for (const method of METHODS) {
        if (!item[method]) continue
        const full = `${server.url.replace(/\/$/, '')}${path}`.replace(/\{[^}]+\}/g, '{}')
        found.push(`${method.toUpperCase()} ${full}`)
      }
    }
  }
  return found.sort()
}

/** The same for the routes the service registers, read from fastify's route tree. */
async function registeredRoutes(): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vault-openapi-routes-'))
  const { ctx, db } = await openServiceContext(dataDir)
  const app = buildHttpServer(ctx)
  try {
    await app.ready()
    const found: string[] = []
    const stack: string[] = []
    for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
      const match = /^((?:│ {3}| {4})*)[├└]── (\S+) \(([^)]+)\)$/.exec(line)
      if (!match) continue
      const depth = match[1]!.length / 4
      stack.length = depth
      const full = (stack[depth - 1] ?? '') + match[2]!
      stack.push(full)
      // fastify prints a wildcard below a registered path as a bare "*" child (protection/* as protection*).
      for (const method of match[3]!.split(', ')) {
        if (method === 'HEAD' || method === 'OPTIONS') continue
        found.push(`${method} ${full.replace(/:[A-Za-z]+/g, '{}').replace(/\/?\*$/, '/{}')}`)
      }
    }
    return found.sort()
  } finally {
    await app.close()
    await db.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const meta = { timestamp: '2030-01-01T00:00:00.000Z', requestId: '6f1c2d3e-0000-4000-8000-000000000000' }
const vault = {
  id: 'vlt_1',
  name: null,
  checkInLinks: false,
  state: 'active',
  createdAt: '2030-01-01T00:00:00.000Z',
  creditsBalance: 100,
  assetCount: 0,
  guardianCount: 0,
  heirCount: 0,
  releaseTrigger: null,
  sssPreset: 'standard',
  checkInFrequency: null,
  nextCheckInDue: null,
  releaseStartedAt: null,
  contestationEndsAt: null,
  releasedAt: null,
  claims: null,
}
const listAnswer = (body: unknown, status = 200, contentType = 'application/json; charset=utf-8') =>
  answerProblems({ method: 'GET', url: '/api/vault', status, contentType, body: JSON.stringify(body) })

describe('the OpenAPI document', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService()
  })
  afterAll(() => t.stop())

  it('is served without a key at /api/openapi.json and /v1/openapi.json', async () => {
    for (const prefix of API_PREFIXES) {
      const reply = await call(t.url, 'GET', `${prefix}/openapi.json`)
      expect(reply.status).toBe(200)
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/)
      expect(reply.body).toEqual(JSON.parse(JSON.stringify(document)))
    }
    expect(document.openapi).toMatch(/^3\.1\./)
  })

  it('names exactly the routes the service registers, under both prefixes', async () => {
    expect(documentedRoutes()).toEqual(await registeredRoutes())
  })

  it('gives every operation a success answer, except the removed v1.0 endpoints, which answer 410', () => {
    for (const item of Object.values(document.paths as Record<string, Json>)) {
      for (const method of METHODS) {
        const operation = item[method]
        if (!operation) continue
        const statuses = Object.keys(operation.responses)
        if (operation.deprecated) expect(statuses, operation.operationId).toContain('410')
        else
          expect(
            statuses.some((status) => status.startsWith('2')),
            operation.operationId,
          ).toBe(true)
      }
    }
  })

  it('derives request bodies from the zod schemas the service validates with', () => {
    const person = document.components.schemas.PersonRequest
    expect(person.required).toEqual(['name', 'email'])
    expect(person.properties.name.maxLength).toBe(200)
    const operation = document.paths['/vault/{id}/guardian'].post
    expect(operation.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/PersonRequest',
    )
  })
})

describe('the answer check every service test runs', () => {
  it('accepts a correct answer and refuses one that differs from the document', () => {
    expect(listAnswer({ data: [vault], meta })).toEqual([])
    const { creditsBalance: _dropped, ...missing } = vault
    expect(listAnswer({ data: [missing], meta })).toEqual([
      "GET /api/vault answered 200: /data/0 must have required property 'creditsBalance'",
    ])
    expect(listAnswer({ data: [{ ...vault, secret: 'x' }], meta })).toEqual([
      'GET /api/vault answered 200: /data/0 has "secret", which the document does not name',
    ])
    expect(listAnswer({ data: [{ ...vault, state: 'locked' }], meta }).join()).toMatch(
      /\/data\/0\/state must be equal to one of the allowed values/,
    )
    expect(listAnswer({ data: vault, meta }).join()).toMatch(/\/data must be array/)
  })

  it('refuses an undocumented status, content type or error envelope', () => {
    expect(listAnswer({ data: [], meta }, 418).join()).toMatch(
      /a status the document does not list for listVaults/,
    )
    expect(listAnswer({ data: [], meta }, 200, 'text/html').join()).toMatch(
      /the document says application\/json/,
    )
    const wrongCode = { error: { code: 'NOT_FOUND', message: 'no', status: 401 } }
    expect(listAnswer(wrongCode, 401).join()).toMatch(/\/error\/code must be equal to constant/)
    const unnamed = (body: unknown, status = 404) =>
      answerProblems({
        method: 'GET',
        url: '/api/nothing',
        status,
        contentType: 'application/json',
        body: JSON.stringify(body),
      })
    expect(unnamed({ error: { code: 'NOT_FOUND', message: 'no route', status: 404 } })).toEqual([])
    expect(unnamed({ message: 'Not Found' }).join()).toMatch(/must have required property 'error'/)
    expect(unnamed({}, 302).join()).toMatch(/a status the error envelope has no code for/)
  })

  it('fails the test that received a wrong answer from a service: fetch is checked', async () => {
    // Something answering as the service does (x-request-id), with a vault list missing its fields.
    const impostor = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': meta.requestId })
      response.end(JSON.stringify({ data: [{ id: 'vlt_1' }], meta }))
    })
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve))
    try {
      const before = checkedAnswerCount()
      const { port } = impostor.address() as AddressInfo
      const reply = await call(`http://127.0.0.1:${port}`, 'GET', '/api/vault', { key: 'sk_human_x' })
      expect(reply.status).toBe(200)
      // Taken here, so this test's afterEach does not fail on it: the point is that it would.
      const problems = await takeAnswerProblems()
      expect(checkedAnswerCount()).toBe(before + 1)
      expect(problems).toContain("GET /api/vault answered 200: /data/0 must have required property 'state'")
    } finally {
      await new Promise((resolve) => impostor.close(resolve))
    }
  })
})
