// GET /service names the operator's credits page when the operator gave one (--credits-url, creditsUrl in
// the config), and null otherwise; a credits URL that is not an http(s) address stops the start.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startService } from '../../src/service'
import { configServiceOptions, serviceConfigSchema } from '../../src/service/service-config'
import { API_PREFIXES } from '../../src/shared/api'
import { call, startTestService, type TestService } from './harness'

const running: TestService[] = []
afterAll(async () => {
  for (const t of running) await t.stop()
})

describe('the operator in GET /service', () => {
  it('carries the credits page given with creditsUrl, on both prefixes, for owner and agent keys', async () => {
    const t = await startTestService({ creditsUrl: 'https://vault.example.org/credits?from=app' })
    running.push(t)
    const agent = (await t.service.admin.createKey({ account: t.owner.accountId, kind: 'agent' })).apiKey
    for (const prefix of API_PREFIXES) {
      for (const key of [t.owner.apiKey, agent]) {
        const r = await call(t.url, 'GET', `${prefix}/service`, { key })
        expect(r.status).toBe(200)
        expect(r.body.data.operator).toEqual({ creditsUrl: 'https://vault.example.org/credits?from=app' })
      }
    }
  })

  it('says null when the operator gave none (the app then says to ask the operator)', async () => {
    const t = await startTestService()
    running.push(t)
    const r = await call(t.url, 'GET', '/api/service', { key: t.owner.apiKey })
    expect(r.body.data.operator).toEqual({ creditsUrl: null })
  })

  it('refuses to start with a credits URL that is not an http(s) address, and locks nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vault-operator-'))
    try {
      for (const creditsUrl of ['javascript:alert(1)', 'vault.example.org/credits', 'file:///etc/passwd']) {
        await expect(startService({ dataDir, port: 0, creditsUrl })).rejects.toThrow(
          /--credits-url must be the full address .* https:\/\/ .* did not start/,
        )
      }
      // Nothing was left locked or half-open: the same folder starts at once with a good address.
      const service = await startService({ dataDir, port: 0, creditsUrl: 'https://example.org/buy' })
      await service.close()
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('the config file takes creditsUrl (an http(s) address) and passes it to the service', () => {
    const base = {
      version: 1,
      dataDir: '/var/lib/vault',
      listen: { host: '127.0.0.1', port: 8080 },
      publicUrl: 'https://vault.example.org',
    }
    const config = serviceConfigSchema.parse({ ...base, creditsUrl: 'https://vault.example.org/credits' })
    expect(configServiceOptions(config).creditsUrl).toBe('https://vault.example.org/credits')
    expect(serviceConfigSchema.safeParse({ ...base, creditsUrl: 'javascript:alert(1)' }).success).toBe(false)
    expect('creditsUrl' in configServiceOptions(serviceConfigSchema.parse(base))).toBe(false)
  })
})
