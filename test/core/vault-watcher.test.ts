import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { DAY_MS } from '../../src/main/core/vaults/checkin-schedule'
import {
  type ReleaseAlarm,
  type VaultStateChange,
  VaultWatcher,
} from '../../src/main/core/vaults/vault-watcher'
import { VaultApiClient, type VaultDetails } from '../../src/service-client'
import { type ServiceFixture, startServiceFixture, tempDir } from './service-fixture'

let svc: ServiceFixture

class CountingClient extends VaultApiClient {
  gets = 0
  lists = 0
  override getVault(id: string, signal?: AbortSignal): Promise<VaultDetails> {
    this.gets++
    return super.getVault(id, signal)
  }
  override listVaults(signal?: AbortSignal): Promise<VaultDetails[]> {
    this.lists++
    return super.listVaults(signal)
  }
}

beforeAll(async () => {
  svc = await startServiceFixture()
})
afterAll(async () => {
  await svc?.close()
})

describe('vault watcher against the local service', () => {
  it('emits state changes and a release alarm, repeated at the next app start', async () => {
    const dir = await tempDir('vault-watch-')
    try {
      const client = new CountingClient({ baseUrl: svc.url, apiKey: svc.humanKey })
      const vault = await client.createVault()
      await client.configureRelease(vault.id, {
        trigger: 'dead_man_switch',
        config: { checkInFrequency: 'weekly' },
      })

      const watcher = await VaultWatcher.open({
        client: async () => client,
        userDataDir: dir.path,
        now: svc.now,
      })
      const changes: VaultStateChange[] = []
      const alarms: ReleaseAlarm[] = []
      watcher.on('state-change', (c) => changes.push(c))
      watcher.on('alarm', (a) => alarms.push(a))
      await watcher.pollNow()
      expect(changes.map((c) => [c.from, c.to])).toEqual([[null, 'active']])
      expect(watcher.snapshot()[0]!.nextCheckInDue).toBeTruthy()

      // Nothing is due yet: a pass spends no request.
      const before = client.gets + client.lists
      await watcher.pollDue()
      expect(client.gets + client.lists).toBe(before)

      // The owner misses the check-in; the service's scheduler starts the release.
      svc.advance(8 * DAY_MS)
      await svc.service.tick()
      svc.advance(2 * DAY_MS)
      await watcher.pollNow()
      expect(changes.at(-1)).toMatchObject({ from: 'active', to: 'releasing' })
      expect(alarms).toHaveLength(1)
      expect(alarms[0]).toMatchObject({ vaultId: vault.id, repeated: false, daysLeftToCancel: 28 })
      expect(alarms[0]!.body).toMatch(/28 days left to cancel/)
      // Polled again: no second alarm in the same session.
      await watcher.pollNow()
      expect(alarms).toHaveLength(1)
      // A releasing vault is read by the list, every 5 minutes, like any other: no GET of its own
      // in between (each read's garbage stays in an idle app's heap).
      const getsBefore = client.gets
      const listsBefore = client.lists
      svc.advance(2 * 60_000)
      await watcher.pollDue()
      expect([client.gets, client.lists]).toEqual([getsBefore, listsBefore])
      svc.advance(3 * 60_000)
      await watcher.pollDue()
      expect([client.gets, client.lists]).toEqual([getsBefore, listsBefore + 1])
      await watcher.flush()

      // The app restarts: the alarm comes again, marked as repeated.
      const restarted = await VaultWatcher.open({
        client: async () => client,
        userDataDir: dir.path,
        now: svc.now,
      })
      expect(restarted.lastSeenState(vault.id)).toBe('releasing')
      const again: ReleaseAlarm[] = []
      const againChanges: VaultStateChange[] = []
      restarted.on('alarm', (a) => again.push(a))
      restarted.on('state-change', (c) => againChanges.push(c))
      await restarted.pollNow()
      expect(again).toHaveLength(1)
      expect(again[0]).toMatchObject({ repeated: true, daysLeftToCancel: 28 })
      expect(againChanges).toEqual([])

      await client.cancelRelease(vault.id)
      await restarted.pollNow()
      expect(againChanges.map((c) => [c.from, c.to])).toEqual([['releasing', 'active']])
    } finally {
      await dir.remove()
    }
  })

  it('alarms at start for a release that began while the app was closed', async () => {
    const dir = await tempDir('vault-watch-')
    try {
      const client = new VaultApiClient({ baseUrl: svc.url, apiKey: svc.humanKey })
      const vault = await client.createVault()
      const first = await VaultWatcher.open({
        client: async () => client,
        userDataDir: dir.path,
        now: svc.now,
      })
      await first.pollNow()
      await first.flush()
      // App closed; the release starts.
      await client.configureRelease(vault.id, { trigger: 'manual' })
      await client.startRelease(vault.id)
      const second = await VaultWatcher.open({
        client: async () => client,
        userDataDir: dir.path,
        now: svc.now,
      })
      const alarms: ReleaseAlarm[] = []
      const changes: VaultStateChange[] = []
      second.on('alarm', (a) => alarms.push(a))
      second.on('state-change', (c) => changes.push(c))
      await second.pollNow()
      expect(changes.filter((c) => c.vaultId === vault.id).map((c) => [c.from, c.to])).toEqual([
        ['active', 'releasing'],
      ])
      expect(alarms.filter((a) => a.vaultId === vault.id)).toMatchObject([
        { repeated: false, daysLeftToCancel: 30 },
      ])
      await client.cancelRelease(vault.id)
    } finally {
      await dir.remove()
    }
  })

  it('stretches intervals to stay within its request budget', async () => {
    const client = new VaultApiClient({ baseUrl: svc.url, apiKey: svc.humanKey })
    const watcher = await VaultWatcher.open({ client: async () => client, budgetPerMinute: 30 })
    for (let i = 0; i < 100; i++) watcher.watch(`v${i}`)
    // 100 vaults within 29 GETs a minute (one is kept for the list): at least 207 s apart.
    expect(watcher.pollInterval()).toBeGreaterThanOrEqual(Math.ceil((100 * 60_000) / 29))
  })

  it('reports a rejected key as a poll failure with advice', async () => {
    const client = new VaultApiClient({ baseUrl: svc.url, apiKey: 'sk_human_revoked-key-000000' })
    const watcher = await VaultWatcher.open({ client: async () => client })
    const failures: Array<{ code: string; userMessage: string }> = []
    watcher.on('poll-failed', (f) => failures.push(f))
    await watcher.pollNow()
    expect(failures[0]).toMatchObject({ code: 'UNAUTHORIZED' })
    expect(failures[0]!.userMessage).toMatch(/Reconnect/)
  })

  it('sleeps until a request is due, and writes its file only when a state changed', async () => {
    // In the tray for days: a wake-up a second and a file rewritten at each were most of what the app
    // cost while idle (bench:idle).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
    const dir = await tempDir('vault-watch-idle-')
    let watcher: VaultWatcher | undefined
    try {
      const vault = { id: 'vault-idle', state: 'active' } as VaultDetails
      let requests = 0
      const client = {
        listVaults: async () => {
          requests++
          return [vault]
        },
        getVault: async () => {
          requests++
          return vault
        },
      } as unknown as VaultApiClient
      watcher = await VaultWatcher.open({ client: async () => client, userDataDir: dir.path })
      watcher.start()
      await vi.advanceTimersByTimeAsync(0)
      await watcher.flush()
      expect(requests).toBe(1)
      const file = join(dir.path, 'vault-watch.json')
      const written = (await stat(file)).ino
      const passes = vi.spyOn(watcher, 'pollDue')
      // A quiet vault is read every 5 minutes (by the list, which carries every field), no sooner.
      await vi.advanceTimersByTimeAsync(299_000)
      expect(passes).not.toHaveBeenCalled()
      await vi.advanceTimersByTimeAsync(1_000)
      await watcher.flush()
      expect(requests).toBe(2)
      expect(passes).toHaveBeenCalledTimes(1)
      // Seen again in the same state: the file stays as it was.
      expect((await stat(file)).ino).toBe(written)
    } finally {
      watcher?.stop()
      await watcher?.flush()
      vi.useRealTimers()
      await dir.remove()
    }
  })

  it('keeps a state seen outside a pass at once, not at the next pass minutes later', async () => {
    // A vault the owner creates or checks in is seen through observe(); its state was written only at
    // the next pass, which then wrote while nothing changed (bench:idle saw it), or never if the app
    // closed first.
    const dir = await tempDir('vault-watch-observe-')
    try {
      const client = new VaultApiClient({ baseUrl: svc.url, apiKey: svc.humanKey })
      const watcher = await VaultWatcher.open({ client: async () => client, userDataDir: dir.path })
      const vault = await client.createVault()
      watcher.observe(await client.getVault(vault.id))
      await watcher.flush()
      const file = JSON.parse(await readFile(join(dir.path, 'vault-watch.json'), 'utf8'))
      expect(file.vaults[vault.id]).toMatchObject({ state: 'active' })
      const restarted = await VaultWatcher.open({ client: async () => client, userDataDir: dir.path })
      expect(restarted.lastSeenState(vault.id)).toBe('active')
    } finally {
      await dir.remove()
    }
  })
})
