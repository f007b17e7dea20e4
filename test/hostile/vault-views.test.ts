// The owner's vault list and vault detail against a lying Vault Service: the app's own calls (the
// client, the vault operations and the watcher that feeds the window, the tray and the alarms). Each
// lie is refused with a message that names it, nothing reaches the watcher (no false alarm, no
// foreign vault on the owner's screen), nothing is written outside the app's data folder, and the
// owner's key goes to the configured address only.
import { afterEach, describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src/main/core/storage/secret-store'
import { VaultKeyStore } from '../../src/main/core/storage/vault-key-store'
import { CheckInDeadlines } from '../../src/main/core/vaults/checkin-deadlines'
import { DeviceRecords } from '../../src/main/core/vaults/device-records'
import { vaultOperations } from '../../src/main/core/vaults/vault-operations'
import { VaultWatcher } from '../../src/main/core/vaults/vault-watcher'
import { VaultApiClient, VaultApiError } from '../../src/service-client'
import { type FakeServiceOptions, json, newVault, startFakeService, vaultOf } from './fake-vault-service'
import {
  contained,
  expectNeverSent,
  makeWorld,
  type RecordingListener,
  startElsewhere,
  type World,
} from './hostile-world'
import { drip, endless, hugeJson, redirect } from './lies'

const cleanup: (World | RecordingListener | VaultWatcher)[] = []
afterEach(async () => {
  for (const item of cleanup.splice(0)) {
    if (item instanceof VaultWatcher) item.stop()
    else await ('remove' in item ? item.remove() : item.stop())
  }
})

/** The owner's app on a lying service: the vault operations and the watcher, with the app's data folder in a world. */
async function ownerApp(lie: FakeServiceOptions['lie']) {
  const vault = newVault()
  const world = await makeWorld()
  const elsewhere = await startElsewhere()
  const service = await startFakeService({ key: vault.ownerKey, vaultId: vault.vaultId, lie })
  const client = new VaultApiClient({
    baseUrl: service.origin,
    apiKey: vault.ownerKey,
    timeoutMs: 400,
    maxRetries: 0,
    maxResponseBytes: 1024 * 1024,
  })
  const watcher = await VaultWatcher.open({ client: async () => client, userDataDir: world.outDir })
  const seen = { vaults: [] as string[], alarms: [] as string[], failures: [] as string[] }
  watcher.on('vault', (v) => seen.vaults.push(v.id))
  watcher.on('alarm', (a) => seen.alarms.push(a.vaultId))
  watcher.on('poll-failed', (f) => seen.failures.push(f.userMessage))
  const operations = vaultOperations({
    client: async () => client,
    watcher,
    deadlines: await CheckInDeadlines.open(world.outDir),
    vaultKeys: new VaultKeyStore(new MemorySecretStore()),
    uploadIndex: () => {
      throw new Error('the vault views never reach the upload index')
    },
    records: await DeviceRecords.open(world.outDir),
    now: () => Date.now(),
    recordActivity: () => undefined,
    offers: () => false,
    forget: async () => undefined,
    knownBalance: () => undefined,
    labelOf: (id) => id,
    releaseActions: new Set(),
  })
  cleanup.push(world, elsewhere, service, watcher)
  /** The owner's key went only to the service: never to the other host, in no redirect. */
  const keyStayedHome = () => {
    expect(elsewhere.requests).toEqual([])
    expectNeverSent(vault.ownerKey, elsewhere)
    for (const request of service.requests) expect(request.headers.host).toBe(new URL(service.origin).host)
  }
  return { vault, world, elsewhere, service, operations, watcher, seen, keyStayedHome }
}

async function refusal(attempt: Promise<unknown>): Promise<VaultApiError> {
  const error = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(VaultApiError)
  return error as VaultApiError
}

const isVaultDetail = (url: URL, id: string) => url.pathname === `/api/vault/${id}`
const isVaultList = (url: URL) => url.pathname === '/api/vault'

describe('vault views against a lying service', () => {
  it('wrong vault id: the detail of vault A answered with vault B, releasing, is refused; no alarm for B', async () => {
    const other = newVault().vaultId
    const app = await ownerApp((_q, response, url) => {
      if (!isVaultDetail(url, app.vault.vaultId)) return false
      json(response, 200, { data: vaultOf({ key: '', vaultId: other, vault: { state: 'releasing' } }) })
      return true
    })
    const { result } = await contained(app.world, () => refusal(app.operations.get(app.vault.vaultId)))
    expect(result.code).toBe('BAD_RESPONSE')
    expect(result.userMessage).toContain(other)
    expect(result.userMessage).toContain(app.vault.vaultId)
    expect(app.seen.vaults).not.toContain(other)
    expect(app.seen.alarms).toEqual([])
    app.keyStayedHome()
  })

  it('duplicate ids: a vault list naming one vault twice is refused', async () => {
    const app = await ownerApp((_q, response, url) => {
      if (!isVaultList(url)) return false
      const one = vaultOf({ key: '', vaultId: app.vault.vaultId })
      json(response, 200, { data: [one, { ...one, state: 'released' }] })
      return true
    })
    const { result } = await contained(app.world, () => refusal(app.operations.list()))
    expect(result.userMessage).toMatch(new RegExp(`${app.vault.vaultId} listed twice`))
    expect(app.seen.vaults).toEqual([])
    app.keyStayedHome()
  })

  it('traversal and prototype ids: vaults "../../x" and "__proto__" are refused before they reach the watcher file', async () => {
    for (const id of ['../../x', '__proto__']) {
      const app = await ownerApp((_q, response, url) => {
        if (!isVaultList(url)) return false
        json(response, 200, { data: [vaultOf({ key: '', vaultId: id })] })
        return true
      })
      const { result } = await contained(app.world, async () => {
        const error = await refusal(app.operations.list())
        await app.watcher.pollNow()
        return error
      })
      expect(result.userMessage).toContain(`"${id}" that is not an id`)
      expect(app.seen.vaults).toEqual([])
      app.keyStayedHome()
    }
  })

  it('the owner\'s file list: a page with asset "../../x", a negative size or one id twice is refused', async () => {
    for (const lie of [{ id: '../../x' }, { sizeBytes: -1 }, { twice: true }]) {
      const app = await ownerApp((_q, response, url) => {
        if (url.pathname !== `/api/vault/${app.vault.vaultId}/asset`) return false
        const asset = {
          id: 'ast_000000000000000000000001',
          filename: 'file-1.vault',
          contentType: 'application/octet-stream',
          sizeBytes: 1000,
          category: 'document',
          storageTxId: 'local:1',
          createdAt: new Date().toISOString(),
          ...lie,
        }
        json(response, 200, { data: 'twice' in lie ? [asset, asset] : [asset], meta: { total: 2 } })
        return true
      })
      const { result } = await contained(app.world, () =>
        refusal(app.operations.listAssets(app.vault.vaultId)),
      )
      expect(result.code).toBe('BAD_RESPONSE')
      expect(result.userMessage).toMatch(/"\.\.\/\.\.\/x" that is not an id|a size of "-1"|listed twice/)
      app.keyStayedHome()
    }
  })

  it('a state that is not: a vault "released" in a state the service cannot have is refused', async () => {
    const app = await ownerApp((_q, response, url) => {
      if (!isVaultDetail(url, app.vault.vaultId)) return false
      json(response, 200, {
        data: vaultOf({ key: '', vaultId: app.vault.vaultId, vault: { state: 'RELEASED!' as never } }),
      })
      return true
    })
    const { result } = await contained(app.world, () => refusal(app.operations.get(app.vault.vaultId)))
    expect(result.userMessage).toContain('state "RELEASED!" that does not exist')
    expect(app.seen.vaults).toEqual([])
    app.keyStayedHome()
  })

  it('wrong numbers: a negative or non-numeric credit balance is refused, not shown', async () => {
    for (const creditsBalance of [-5_000_000, 'lots', 1e300]) {
      const app = await ownerApp((_q, response, url) => {
        if (!isVaultDetail(url, app.vault.vaultId)) return false
        json(response, 200, {
          data: vaultOf({
            key: '',
            vaultId: app.vault.vaultId,
            vault: { creditsBalance: creditsBalance as number },
          }),
        })
        return true
      })
      const { result: error } = await contained(app.world, () =>
        refusal(app.operations.get(app.vault.vaultId)),
      )
      expect(error.userMessage).toContain(
        `creditsBalance "${typeof creditsBalance === 'string' ? creditsBalance : JSON.stringify(creditsBalance)}"`,
      )
      app.keyStayedHome()
    }
  })

  it('redirect to another host: the list is not followed there, the key never leaves', async () => {
    const app = await ownerApp((_q, response, url) =>
      isVaultList(url) ? redirect(response, `${app.elsewhere.origin}/api/vault`) : false,
    )
    const { result } = await contained(app.world, () => refusal(app.operations.list()))
    expect(result.code).toBe('REDIRECT_REFUSED')
    expect(result.userMessage).toContain(app.elsewhere.origin)
    app.keyStayedHome()
  })

  it('redirect to file://: refused and named', async () => {
    const app = await ownerApp((_q, response, url) =>
      isVaultDetail(url, app.vault.vaultId) ? redirect(response, 'file:///etc/passwd', 302) : false,
    )
    const { result } = await contained(app.world, () => refusal(app.operations.get(app.vault.vaultId)))
    expect(result.code).toBe('REDIRECT_REFUSED')
    expect(result.userMessage).toContain('file://')
    app.keyStayedHome()
  })

  it('oversized answer: a 20 MB vault list is cut off at the client limit, named', async () => {
    const app = await ownerApp((_q, response, url) =>
      isVaultList(url) ? hugeJson(response, 20 * 1024 * 1024) : false,
    )
    const started = Date.now()
    const { result } = await contained(app.world, () => refusal(app.operations.list()))
    expect(result.code).toBe('BAD_RESPONSE')
    expect(result.userMessage).toContain(`larger than ${1024 * 1024} bytes`)
    expect(Date.now() - started).toBeLessThan(5_000)
    app.keyStayedHome()
  })

  it('endless answer: a vault detail whose body never ends stops at the limit', async () => {
    const app = await ownerApp((_q, response, url) =>
      isVaultDetail(url, app.vault.vaultId)
        ? endless(response, {
            head: Buffer.from('{"data":{"id":"'),
            piece: () => Buffer.alloc(16 * 1024, 0x61),
            contentType: 'application/json',
          })
        : false,
    )
    const { result } = await contained(app.world, () => refusal(app.operations.get(app.vault.vaultId)))
    expect(result.userMessage).toMatch(/larger than|did not answer in time/)
    app.keyStayedHome()
  })

  it('slow drip: a vault list that arrives one byte at a time fails in time, named', async () => {
    const app = await ownerApp((_q, response, url) =>
      isVaultList(url)
        ? drip(response, JSON.stringify({ data: [vaultOf({ key: '', vaultId: app.vault.vaultId })] }), 30)
        : false,
    )
    const started = Date.now()
    const { result } = await contained(app.world, () => refusal(app.operations.list()))
    expect(result.userMessage).toMatch(/still arriving after 0.4 s|did not answer in time/)
    expect(Date.now() - started).toBeLessThan(3_000)
    app.keyStayedHome()
  })

  it('200 with an error body, and a web page with 200: refused as answers the app does not understand', async () => {
    for (const body of [
      JSON.stringify({ error: { code: 'INTERNAL', message: 'boom' } }),
      '<html>Welcome to nginx</html>',
    ]) {
      const app = await ownerApp((_q, response, url) => {
        if (!isVaultList(url)) return false
        response.writeHead(200, { 'content-type': body.startsWith('<') ? 'text/html' : 'application/json' })
        response.end(body)
        return true
      })
      const { result: error } = await contained(app.world, () => refusal(app.operations.list()))
      expect(error.code).toBe('BAD_RESPONSE')
      expect(error.userMessage).toContain('does not understand')
      app.keyStayedHome()
    }
  })
})
