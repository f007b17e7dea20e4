// Faults: a client cut mid-upload, the service killed mid-upload, restarts, clean shutdown.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminOperations } from '../../src/service/admin'
import { openServiceContext, startService } from '../../src/service/index'
import { LIMITS } from '../../src/shared/api'
import { buildServiceCli, call, startTestService, type TestService, uploadForm } from './harness'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function waitFor(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}

/** Starts a multipart upload declaring `declared` file bytes, sends `sent` of them, and returns the open request. */
function partialUpload(url: string, key: string, vaultId: string, declared: number, sent: number) {
  const boundary = 'faultboundary'
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="filename"\r\n\r\nbig.bin\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  )
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  const req = request(`${url}/api/vault/${vaultId}/asset`, {
    method: 'POST',
    headers: {
      'x-api-key': key,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + declared + tail.length),
    },
  })
  req.on('error', () => {})
  req.write(head)
  const chunk = Buffer.alloc(1 << 16, 7)
  for (let n = 0; n < sent; n += chunk.length) req.write(chunk)
  return req
}

describe('client disconnects mid-upload', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService()
  })
  afterAll(() => t.stop())

  it('leaves no asset, no debit and no temp file', async () => {
    const { apiKey, vaultId } = t.owner
    const tmp = join(t.dataDir, 'tmp')
    const req = partialUpload(t.url, apiKey, vaultId, 10_000_000, 3_000_000)
    await waitFor('the upload to be staged', () => readdirSync(tmp).length === 1)
    req.destroy()
    await waitFor('the staged file to be removed', () => readdirSync(tmp).length === 0)
    const vault = (await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data
    expect(vault).toMatchObject({ assetCount: 0, creditsBalance: LIMITS.trialCredits })
    expect(readdirSync(join(t.dataDir, 'blobs'))).toEqual([])
    // The service still works afterwards.
    expect(
      (await call(t.url, 'POST', `/api/vault/${vaultId}/asset`, { key: apiKey, body: uploadForm('after') }))
        .status,
    ).toBe(201)
  })
})

function spawnService(cli: string, dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    child.stdout!.on('data', (d) => {
      out += d
      const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)
      if (m) resolve({ child, url: m[1]! })
    })
    child.stderr!.on('data', (d) => {
      err += d
    })
    child.on('exit', (code) => reject(new Error(`service exited with ${code} before listening: ${err}`)))
  })
}

describe('service process killed mid-upload', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'vault-service-kill-'))
  let cli = ''
  beforeAll(async () => {
    cli = await buildServiceCli()
  })
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(cli, { force: true })
  })

  it('restarts with no asset, no debit and an empty temp directory', async () => {
    const { ctx, db } = await openServiceContext(dataDir)
    const admin = adminOperations(ctx)
    const { accountId, apiKey } = await admin.createAccount({ email: 'killed@example.com' })
    const { vaultId } = await admin.createVault({ account: accountId, preset: 'standard' })
    await db.close()

    const first = await spawnService(cli, dataDir)
    const tmp = join(dataDir, 'tmp')
    const req = partialUpload(first.url, apiKey, vaultId, 10_000_000, 2_000_000)
    await waitFor('the upload to be staged', () => readdirSync(tmp).length === 1)
    const exited = new Promise((resolve) => first.child.once('exit', resolve))
    first.child.kill('SIGKILL')
    await exited
    req.destroy()
    // The killed process left its staged file behind; the next start removes it.
    expect(readdirSync(tmp)).toHaveLength(1)

    const second = await spawnService(cli, dataDir)
    try {
      expect(readdirSync(tmp)).toEqual([])
      const vault = (await call(second.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data
      expect(vault).toMatchObject({ assetCount: 0, creditsBalance: LIMITS.trialCredits })
    } finally {
      const exited2 = new Promise<number | null>((resolve) => second.child.once('exit', resolve))
      second.child.kill('SIGTERM')
      // SIGTERM is a clean shutdown: exit code 0.
      expect(await exited2).toBe(0)
    }
    // And so is SIGINT (Ctrl-C); the lock is released either way.
    const third = await spawnService(cli, dataDir)
    const exited3 = new Promise<number | null>((resolve) => third.child.once('exit', resolve))
    third.child.kill('SIGINT')
    expect(await exited3).toBe(0)
    expect(existsSync(join(dataDir, 'service.lock'))).toBe(false)
  })
})

describe('restart', () => {
  it('keeps accounts, vaults, people, assets, release settings and the outbox', async () => {
    const t = await startTestService()
    try {
      const { apiKey, vaultId } = t.owner
      await call(t.url, 'POST', `/api/vault/${vaultId}/release/config`, {
        key: apiKey,
        json: { trigger: 'dead_man_switch', config: { checkInFrequency: 'quarterly' } },
      })
      await call(t.url, 'POST', `/api/vault/${vaultId}/guardian`, {
        key: apiKey,
        json: { name: 'G', email: 'g@example.com' },
      })
      await call(t.url, 'POST', `/api/vault/${vaultId}/heir`, {
        key: apiKey,
        json: { name: 'H', email: 'h@example.com' },
      })
      const up = await call(t.url, 'POST', `/api/vault/${vaultId}/asset`, {
        key: apiKey,
        body: uploadForm('persisted bytes', { filename: 'p.txt', metadata: '{"k":1}' }),
      })
      await call(t.url, 'POST', `/api/vault/${vaultId}/release/checkin`, { key: apiKey })
      const snapshot = async () => ({
        vault: (await call(t.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data,
        guardians: (await call(t.url, 'GET', `/api/vault/${vaultId}/guardian`, { key: apiKey })).body.data,
        heirs: (await call(t.url, 'GET', `/api/vault/${vaultId}/heir`, { key: apiKey })).body.data,
        assets: (await call(t.url, 'GET', `/api/vault/${vaultId}/asset`, { key: apiKey })).body.data,
        outbox: (await t.service.admin.outbox()).messages.length,
      })
      const before = await snapshot()
      await t.restart()
      const after = await snapshot()
      expect(after).toEqual(before)
      expect(after.vault).toMatchObject({
        assetCount: 1,
        guardianCount: 1,
        heirCount: 1,
        checkInFrequency: 'quarterly',
      })
      const content = await fetch(`${t.url}/api/vault/${vaultId}/asset/${up.body.data.id}/content`, {
        headers: { 'x-api-key': apiKey },
      })
      expect(await content.text()).toBe('persisted bytes')
    } finally {
      await t.stop()
    }
  })

  it('refuses a second service on the same data directory', async () => {
    const t = await startTestService()
    try {
      await expect(startService({ dataDir: t.dataDir })).rejects.toThrow(/in use by another Vault Service/)
      // The first one is unaffected.
      expect((await call(t.url, 'GET', '/api/vault', { key: t.owner.apiKey })).status).toBe(200)
    } finally {
      await t.stop()
    }
  })

  it('close() while an upload streams aborts it without partial state', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vault-service-close-'))
    try {
      const service = await startService({ dataDir, rateLimits: false, shutdownGraceMs: 300 })
      const { accountId, apiKey } = await service.admin.createAccount({ email: 'close@example.com' })
      const { vaultId } = await service.admin.createVault({ account: accountId, preset: 'standard' })
      const req = partialUpload(service.url, apiKey, vaultId, 10_000_000, 1_000_000)
      await waitFor('the upload to be staged', () => readdirSync(join(dataDir, 'tmp')).length === 1)
      const started = Date.now()
      await service.close()
      expect(Date.now() - started).toBeLessThan(3_000)
      req.destroy()
      expect(readdirSync(join(dataDir, 'tmp'))).toEqual([])
      const again = await startService({ dataDir, rateLimits: false })
      const vault = (await call(again.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data
      expect(vault).toMatchObject({ assetCount: 0, creditsBalance: LIMITS.trialCredits })
      await again.close()
    } finally {
      if (existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
