// TLS and reverse proxies: the service serves https from a certificate and key (a self-signed pair made here with
// openssl), refuses unusable ones in plain words, and believes X-Forwarded-* only from a proxy it was told to trust.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadTls, ServiceConfigError } from '../../src/service/service-config'
import { buildServiceCli, call, startTestService } from './harness'

const hasOpenssl = spawnSync('openssl', ['version']).status === 0
const dir = mkdtempSync(join(tmpdir(), 'vault-service-tls-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A self-signed certificate for 127.0.0.1 and its key, as PEM files. */
function selfSigned(name: string): { certFile: string; keyFile: string } {
  const certFile = join(dir, `${name}-cert.pem`)
  const keyFile = join(dir, `${name}-key.pem`)
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  )
  return { certFile, keyFile }
}

/** GET over https trusting only `ca`. */
function httpsGet(url: string, ca: Buffer, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { ca, headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe.skipIf(!hasOpenssl)('https from a certificate and key', () => {
  it('serves the API and /healthz over https with the given certificate', async () => {
    const files = selfSigned('good')
    const tls = loadTls(files)
    const t = await startTestService({ tls })
    try {
      expect(t.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
      const ca = readFileSync(files.certFile)
      expect((await httpsGet(`${t.url}/healthz`, ca)).status).toBe(200)
      const vault = await httpsGet(`${t.url}/api/vault/${t.owner.vaultId}`, ca, {
        'x-api-key': t.owner.apiKey,
      })
      expect(vault.status).toBe(200)
      expect(JSON.parse(vault.body).data.id).toBe(t.owner.vaultId)
      // Plain http to the same port gets no answer the API would give.
      await expect(fetch(`${t.url.replace('https:', 'http:')}/healthz`)).rejects.toThrow()
    } finally {
      await t.stop()
    }
  })

  it('refuses an unreadable certificate or a key of another certificate, saying what to give', () => {
    const a = selfSigned('a')
    const b = selfSigned('b')
    const refusal = (files: { certFile: string; keyFile: string }) => {
      try {
        loadTls(files)
      } catch (error) {
        expect(error).toBeInstanceOf(ServiceConfigError)
        return (error as Error).message
      }
      throw new Error('accepted')
    }
    expect(refusal({ certFile: a.certFile, keyFile: b.keyFile })).toMatch(
      /cannot be used together .*give the PEM certificate chain .* and the private key issued with it/,
    )
    expect(refusal({ certFile: join(dir, 'missing.pem'), keyFile: a.keyFile })).toMatch(
      /The TLS certificate .*missing\.pem could not be read \(ENOENT\): check the path .*tls\.certFile/,
    )
    expect(refusal({ certFile: a.keyFile, keyFile: a.keyFile })).toMatch(/cannot be used together/)
  })

  it('init --tls-cert/--tls-key writes a config that serve turns into https, and says so at start', async () => {
    const files = selfSigned('cli')
    const cli = await buildServiceCli()
    const dataDir = join(dir, 'cli-data')
    try {
      const initRun = spawnSync(
        process.execPath,
        [
          cli,
          'init',
          '--yes',
          '--public-url',
          'https://127.0.0.1',
          '--data-dir',
          dataDir,
          '--smtp',
          'smtp://127.0.0.1:2525',
          '--mail-from',
          'vault@example.org',
          '--skip-mail-test',
          '--tls-cert',
          files.certFile,
          '--tls-key',
          files.keyFile,
          '--host',
          '127.0.0.1',
          '--port',
          '0',
        ],
        { encoding: 'utf8' },
      )
      expect(initRun.status, initRun.stderr).toBe(0)
      expect(initRun.stdout).toContain('No test e-mail was sent (--skip-mail-test)')
      expect(initRun.stdout).toContain('It serves https itself')
      const child = spawn(process.execPath, [cli, 'serve', '--data-dir', dataDir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d) => {
        stdout += d
      })
      child.stderr.on('data', (d) => {
        stderr += d
      })
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
      try {
        const url = await new Promise<string>((resolve, reject) => {
          child.stdout.on('data', () => {
            const match = /^listening on (\S+)$/m.exec(stdout)
            if (match) resolve(match[1]!)
          })
          void exited.then(() => reject(new Error(stderr)))
        })
        expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
        expect(stderr).toContain(`serving https with the certificate ${files.certFile}`)
        expect((await httpsGet(`${url}/healthz`, readFileSync(files.certFile))).status).toBe(200)
      } finally {
        child.kill('SIGTERM')
        expect(await exited).toBe(0)
      }
    } finally {
      rmSync(cli, { force: true })
    }
  })
})

describe('X-Forwarded-* without a trusted proxy', () => {
  it('a forged X-Forwarded-For does not change the failed-authentication key', async () => {
    const t = await startTestService({ rateLimits: { authFailures: 3 } })
    try {
      const path = `/api/vault/${t.owner.vaultId}`
      const wrong = () => `sk_human_${'A'.repeat(43)}`
      for (const forged of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
        const r = await call(t.url, 'GET', path, { key: wrong(), headers: { 'x-forwarded-for': forged } })
        expect(r.status).toBe(401)
      }
      // Each guess claimed another address, yet all counted against this connection's own address.
      const refused = await call(t.url, 'GET', path, {
        key: wrong(),
        headers: { 'x-forwarded-for': '198.51.100.9' },
      })
      expect(refused.status).toBe(429)
    } finally {
      await t.stop()
    }
  })

  it('X-Forwarded-Host counts for the host allow-list only from a trusted proxy', async () => {
    const forged = { 'x-forwarded-host': 'evil.example' }
    const untrusted = await startTestService({ allowedHosts: ['127.0.0.1'] })
    try {
      expect((await call(untrusted.url, 'GET', '/healthz', { headers: forged })).status).toBe(200)
    } finally {
      await untrusted.stop()
    }
    const trusted = await startTestService({ allowedHosts: ['127.0.0.1'], trustProxy: ['127.0.0.1'] })
    try {
      expect((await call(trusted.url, 'GET', '/healthz', { headers: forged })).status).toBe(400)
      expect((await call(trusted.url, 'GET', '/healthz')).status).toBe(200)
    } finally {
      await trusted.stop()
    }
  })
})
