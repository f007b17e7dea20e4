// GET /healthz: answers monitors without a key, says nothing secret, and turns 503 when the database cannot be read.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import packageJson from '../../package.json'
import { buildHttpServer } from '../../src/service/http-server'
import { openServiceContext } from '../../src/service/index'
import { call, startTestService } from './harness'

describe('GET /healthz', () => {
  it('answers 200 without a key, with the version, the database and the mail state, and no secrets', async () => {
    const t = await startTestService()
    try {
      const reply = await call(t.url, 'GET', '/healthz')
      expect(reply.status).toBe(200)
      expect(reply.headers.get('cache-control')).toBe('no-store')
      expect(reply.body).toEqual({
        status: 'ok',
        version: packageJson.version,
        database: 'ok',
        mail: { state: 'not_configured', pending: 0, gaveUp: 0, lastDeliveredAt: null },
      })
      // A guardian invitation waits in the outbox (no SMTP): counted, never shown.
      const { vaultId, apiKey } = t.owner
      await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, {
        key: apiKey,
        json: { name: 'Ana', email: 'ana@example.com' },
      })
      const after = await call(t.url, 'GET', '/healthz')
      expect(after.body.mail.pending).toBe(1)
      const text = JSON.stringify(after.body)
      expect(text).not.toContain('example.com')
      expect(text).not.toMatch(/gt_|sk_human_|hk_/)
    } finally {
      await t.stop()
    }
  })

  it('answers 503 when the database cannot be read', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vault-service-health-'))
    const { ctx, db } = await openServiceContext(dataDir)
    const app = buildHttpServer(ctx)
    try {
      await db.close()
      const reply = await app.inject({ method: 'GET', url: '/healthz' })
      expect(reply.statusCode).toBe(503)
      expect(reply.json()).toMatchObject({ status: 'failing', database: 'unreadable' })
    } finally {
      await app.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
