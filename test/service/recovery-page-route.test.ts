// GET /recover serves the heir's recovery page with its own policy and its SHA-256; a service without a
// built page says how to build it. The heir-readable endpoints answer the CORS a copy of the page opened
// from file:// needs (Origin "null"), also when they refuse the code; the owner's endpoints answer none.
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { servedPagePolicy } from '../../src/service/recovery-page'
import { buildServiceCli, call, DAY_MS, serveChild, startTestService, type TestService } from './harness'

const PAGE = `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-abc'; style-src 'unsafe-inline'; img-src data: blob:; connect-src https: http://127.0.0.1:* http://localhost:*">
<title>Vault recovery</title><style>body{margin:0}</style></head><body><script>document.title='x'</script></body></html>`

let t: TestService
let pageFile: string

beforeAll(async () => {
  t = await startTestService()
  pageFile = join(t.dataDir, 'vault-recovery.html')
  writeFileSync(pageFile, PAGE)
  await t.restart({ recoveryPage: pageFile })
})

afterAll(() => t?.stop())

describe('GET /recover', () => {
  it('serves the page with its SHA-256, no caching without a check, and connect-src narrowed to this service', async () => {
    const response = await fetch(`${t.url}/recover`)
    expect(response.status).toBe(200)
    const body = Buffer.from(await response.arrayBuffer())
    expect(body.toString('utf8')).toBe(PAGE)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('x-content-sha256')).toBe(createHash('sha256').update(PAGE).digest('hex'))
    expect(response.headers.get('cache-control')).toBe('no-cache')
    const policy = response.headers.get('content-security-policy')!
    expect(policy).toContain("connect-src 'self'")
    expect(policy).not.toContain('https:')
    expect(policy).toContain("script-src 'sha256-abc'")
    expect(policy).toContain("frame-ancestors 'none'")
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('serves the page anew once it was rebuilt', async () => {
    const rebuilt = PAGE.replace('Vault recovery', 'Vault recovery, rebuilt')
    writeFileSync(pageFile, rebuilt)
    const response = await fetch(`${t.url}/recover`)
    expect(await response.text()).toBe(rebuilt)
    expect(response.headers.get('x-content-sha256')).toBe(createHash('sha256').update(rebuilt).digest('hex'))
    writeFileSync(pageFile, PAGE)
  })

  it('a page without a policy of its own runs only its own inline script and style', () => {
    const policy = servedPagePolicy('<style>a{}</style><script>go()</script><script src="x.js"></script>')
    const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`
    expect(policy).toContain(`script-src ${hash('go()')};`)
    expect(policy).toContain(`style-src ${hash('a{}')};`)
    expect(policy).toContain("default-src 'none'")
    expect(policy).toContain("connect-src 'self'")
  })

  it('says how to build the page when this service has none', async () => {
    await t.restart({ recoveryPage: join(t.dataDir, 'not-built.html') })
    try {
      const response = await fetch(`${t.url}/recover`)
      expect(response.status).toBe(404)
      expect(response.headers.get('x-content-sha256')).toBeNull()
      expect(await response.text()).toContain('node scripts/build-recovery-page.mjs')
    } finally {
      await t.restart({ recoveryPage: pageFile })
    }
  })
})

describe('CORS for a page opened from file://', () => {
  const fromFile = { origin: 'null' }

  it('preflight for the heir code and a byte range on the three heir reads, under /api and /v1', async () => {
    for (const path of ['/api/vault/v', '/api/vault/v/asset', '/v1/vault/v/asset/a/content']) {
      const response = await fetch(`${t.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          ...fromFile,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-api-key, range',
        },
      })
      expect(response.status, path).toBe(204)
      expect(response.headers.get('access-control-allow-origin')).toBe('*')
      expect(response.headers.get('access-control-allow-headers')).toBe('x-api-key, range')
      expect(response.headers.get('access-control-allow-methods')).toBe('GET')
      expect(response.headers.get('access-control-allow-credentials')).toBeNull()
    }
  })

  it('a refused code is readable by the page (401 with the CORS header)', async () => {
    const response = await fetch(`${t.url}/api/vault/${t.owner.vaultId}`, {
      headers: { ...fromFile, 'x-api-key': `hk_${'A'.repeat(43)}` },
    })
    expect(response.status).toBe(401)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
  })

  it("the owner's endpoints answer no CORS, preflight or not", async () => {
    const key = { ...fromFile, 'x-api-key': t.owner.apiKey }
    for (const [method, path] of [
      ['GET', '/api/vault'],
      ['GET', '/api/service'],
      ['GET', `/api/vault/${t.owner.vaultId}/guardians`],
    ] as const) {
      const response = await fetch(`${t.url}${path}`, { method, headers: key })
      expect(response.headers.get('access-control-allow-origin'), path).toBeNull()
    }
    for (const path of [
      '/api/vault',
      `/api/vault/${t.owner.vaultId}/release`,
      `/api/vault/${t.owner.vaultId}/asset/a`,
    ]) {
      const preflight = await fetch(`${t.url}${path}`, {
        method: 'OPTIONS',
        headers: { ...fromFile, 'access-control-request-method': 'POST' },
      })
      expect(preflight.headers.get('access-control-allow-origin'), path).toBeNull()
      expect(preflight.status).not.toBe(204)
    }
    // The heir-readable path takes no other method from a page: a preflight for DELETE gets GET only.
    const del = await fetch(`${t.url}/api/vault/${t.owner.vaultId}`, {
      method: 'OPTIONS',
      headers: { ...fromFile, 'access-control-request-method': 'DELETE' },
    })
    expect(del.headers.get('access-control-allow-methods')).toBe('GET')
  })
})

describe('the heir e-mail', () => {
  it('names the recovery page beside the other ways, with the SHA-256 of the page this service serves', async () => {
    const vaultId = t.owner.vaultId
    const heir = await call(t.url, 'POST', `/api/vault/${vaultId}/heir`, {
      key: t.owner.apiKey,
      json: { name: 'Hana Heir', email: 'hana@example.com' },
    })
    expect(heir.status).toBe(201)
    await t.service.admin.startRelease({ vault: vaultId })
    t.advance(30 * DAY_MS + 60_000)
    expect((await t.service.tick()).released.map((r) => r.vaultId)).toEqual([vaultId])
    const mail = (await t.service.admin.outbox({ vault: vaultId })).messages.find(
      (m) => m.to === 'hana@example.com' && /hk_/.test(m.body),
    )!
    const served = await fetch(`${t.url}/recover`)
    const sha = served.headers.get('x-content-sha256')!
    await served.arrayBuffer()
    expect(sha).toBe(createHash('sha256').update(PAGE).digest('hex'))
    expect(mail.body).toContain(`open the recovery page\n       ${t.url}/recover\n`)
    expect(mail.body).toContain(`Its SHA-256 is\n       ${sha}\n`)
    expect(mail.body).toContain('npm run recover')
  })
})

describe('serve --recovery-page', () => {
  it('serves the file given, and refuses to start with one that does not exist', async () => {
    const cli = await buildServiceCli()
    const served = serveChild(
      cli,
      '--data-dir',
      join(t.dataDir, 'cli-a'),
      '--port',
      '0',
      '--recovery-page',
      pageFile,
    )
    try {
      const response = await fetch(`${await served.url}/recover`)
      expect(await response.text()).toBe(readFileSync(pageFile, 'utf8'))
    } finally {
      served.child.kill('SIGTERM')
      await served.exit
    }
    const missing = serveChild(
      cli,
      '--data-dir',
      join(t.dataDir, 'cli-b'),
      '--port',
      '0',
      '--recovery-page',
      join(t.dataDir, 'nope.html'),
    )
    const { code, stderr } = await missing.exit
    expect(code).toBe(1)
    expect(stderr).toContain('nope.html does not exist. Build it with node scripts/build-recovery-page.mjs')
  })
})
