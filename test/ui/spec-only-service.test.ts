// A service that offers only what the spec lists (no guardian/heir lists, no vault creation): the
// app keeps the people added from this device and says so. Simulated by a proxy in front of the
// local service that answers 404 for the extensions.
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { createVaultApp, type VaultApp } from '../../src/main/core/vault-app'
import { type RunningService, startService } from '../../src/service'
import { invokeChannels } from '../../src/shared/ipc/contract'

let service: RunningService
let proxy: Server
let proxyUrl: string
let backend: VaultApp
let dirs: string[]
let vaultId: string
let apiKey: string

const EXTENSION = /^\/(api|v1)\/vault\/[^/]+\/(guardian|heir)$/

beforeAll(async () => {
  dirs = [await mkdtemp(join(tmpdir(), 'vault-spec-svc-')), await mkdtemp(join(tmpdir(), 'vault-spec-app-'))]
  service = await startService({ dataDir: dirs[0]!, port: 0 })
  const account = await service.admin.createAccount({ email: 'spec@example.com' })
  apiKey = account.apiKey
  vaultId = (await service.admin.createVault({ account: account.accountId, preset: 'standard' })).vaultId
  const target = new URL(service.url)
  proxy = createServer((req, res) => {
    if (req.method === 'GET' && EXTENSION.test(req.url ?? '')) {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'not found', status: 404 } }))
      return
    }
    const forward = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    req.pipe(forward)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
  backend = createVaultApp({ userDataDir: dirs[1]!, mode: 'browser', version: '0', useKeychain: false })
})

afterAll(async () => {
  await backend?.close()
  await new Promise((resolve) => proxy?.close(resolve))
  await service?.close()
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

const call = (key: keyof typeof invokeChannels, args?: unknown) =>
  dispatch(backend.handlers, invokeChannels[key].name, args)

it('lists the guardians and heirs added from this device when the service has no list endpoint', async () => {
  expect(await call('connectService', { serviceUrl: proxyUrl, apiKey })).toMatchObject({ ok: true })
  expect(await call('listHeirs', { vaultId })).toEqual({ ok: true, value: { items: [], fromService: false } })
  expect(
    await call('addHeir', { vaultId, person: { name: 'Dana', email: 'dana@example.com' } }),
  ).toMatchObject({ ok: true })
  expect(await call('listHeirs', { vaultId })).toMatchObject({
    ok: true,
    value: { fromService: false, items: [expect.objectContaining({ name: 'Dana' })] },
  })
  // A vault that does not exist is still a 404, not an empty list.
  expect(await call('listHeirs', { vaultId: 'vlt_missing' })).toMatchObject({
    ok: false,
    error: { code: 'NOT_FOUND' },
  })
})
