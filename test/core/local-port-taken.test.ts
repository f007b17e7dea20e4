// The local Vault Service remembers its port across restarts. When another program (maybe another user
// of this computer) holds that loopback port while the app is closed, the service cannot start, and the
// app must not send the owner's key (nor the agent key of the check-in on unlock) to whatever listens
// there: it says what happened and what to do instead.
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { NO_LOCAL_SERVICE } from '../../src/main/core/local-service'
import { createVaultApp, type VaultApp } from '../../src/main/core/vault-app'
import { UnlockCheckInWiring } from '../../src/main/core/vaults/unlock-check-in-wiring'
import { LocalServiceHost } from '../../src/main/local-service-host'
import { invokeChannels } from '../../src/shared/ipc/contract'
import { testSecretBox } from './secret-box-fixture'

let dir: string
let squatter: Server | undefined
let app: VaultApp | undefined

afterAll(async () => {
  await app?.close()
  await new Promise<void>((done) => (squatter ? squatter.close(() => done()) : done()))
  if (dir) await rm(dir, { recursive: true, force: true })
})

function open(userDataDir: string, secretBox = testSecretBox()): VaultApp {
  return createVaultApp({
    userDataDir,
    mode: 'browser',
    version: '0',
    useKeychain: false,
    // A durable store (as Electron's safeStorage or the keychain): the keys survive the restart.
    secretBox,
    localService: (d) => LocalServiceHost.open(d),
  })
}

describe('the local service port taken by another program while the app was closed', () => {
  it('sends it no key, and the owner is told why the vaults cannot be read', async () => {
    dir = await mkdtemp(join(tmpdir(), 'vault-port-taken-'))
    const userDataDir = join(dir, 'user-data')
    const secretBox = testSecretBox()
    const first = open(userDataDir, secretBox)
    await first.start()
    expect(
      (await dispatch(first.handlers, invokeChannels.startLocally.name, { email: 'me@example.com' })).ok,
    ).toBe(true)
    const status = await dispatch(first.handlers, invokeChannels.getConnectionStatus.name, undefined)
    const serviceUrl = JSON.stringify(status).match(/http:\/\/127\.0\.0\.1:\d+/)![0]
    await first.close()

    const seen: string[] = []
    squatter = createServer((request, response) => {
      seen.push(`${request.method} ${request.url} key=${request.headers['x-api-key'] ?? ''}`)
      response.writeHead(404, { 'content-type': 'application/json' })
      response.end('{"error":{"code":"NOT_FOUND","message":"x","status":404}}')
    })
    await new Promise<void>((done) => squatter!.listen(Number(new URL(serviceUrl).port), '127.0.0.1', done))

    app = open(userDataDir, secretBox)
    await app.start()
    const refreshed = await dispatch(app.handlers, invokeChannels.refreshVaults.name, undefined)
    expect(JSON.stringify(refreshed)).toContain('The vault service on this computer is not running')
    expect(JSON.stringify(refreshed)).toContain(`port ${new URL(serviceUrl).port}`)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(seen).toEqual([])
  })
})

describe('the check-in on unlock', () => {
  it("does not send the agent key to the local service's address while that service is not this app's", async () => {
    const userDataDir = await mkdtemp(join(tmpdir(), 'vault-port-taken-agent-'))
    const serviceUrl = 'http://127.0.0.1:45678'
    let running: string | null = null
    const wiring = new UnlockCheckInWiring({
      userDataDir,
      secretBox: testSecretBox(),
      keychain: false,
      now: () => Date.now(),
      localService: {
        ...NO_LOCAL_SERVICE,
        isLocal: (url) => url === serviceUrl,
        get currentUrl() {
          return running
        },
      },
      active: () => ({
        id: 'c1',
        serviceUrl,
        label: 'This computer',
        keyKind: 'human',
        keyLast4: 'abcd',
        keyStore: 'encrypted-file',
        addedAt: new Date().toISOString(),
        active: true,
      }),
      vaults: () => [],
      activity: undefined as never,
      records: undefined as never,
      observe: () => {},
      recordActivity: () => undefined,
      failed: () => {},
    })
    try {
      await (await wiring.agentKeys()).set('c1', `sk_agent_${'a'.repeat(40)}`, 'created', Date.now())
      await expect(wiring.agentClient()).rejects.toThrow(
        /not running, so Vault Desktop sends nothing to its address/,
      )
      // Once this app's own service answers there, the key goes to it.
      running = serviceUrl
      expect(await wiring.agentClient()).not.toBeNull()
    } finally {
      await rm(userDataDir, { recursive: true, force: true })
    }
  })
})
