// The check-in on unlock: the decision as a function of the time (at most once per period, only past
// half of it, never a vault that is releasing or has no dead man's switch), the agent key's check, and
// the run against the real local service with a movable clock: the check-in goes through the sk_agent_
// key, costs credits only when due, leaves its note in the service's audit pulse and its entry in the
// activity history, and a revoked key is told, not hidden.
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { MemorySecretStore } from '../../src/main/core/storage/secret-store'
import { createVaultApp, type VaultApp } from '../../src/main/core/vault-app'
import { ActivityLog } from '../../src/main/core/vaults/activity-log'
import {
  AgentKeys,
  agentKeyAccount,
  checkAgentKey,
  decideUnlockCheckIn,
  UNLOCK_NOTE,
  UnlockCheckIn,
  type UnlockVaultFacts,
} from '../../src/main/core/vaults/unlock-check-in'
import { LocalServiceHost } from '../../src/main/local-service-host'
import { VaultApiClient } from '../../src/service-client'
import { invokeChannels } from '../../src/shared/ipc/contract'
import type { IpcResponse } from '../../src/shared/ipc/contract-kit'
import type { ActivityPage, UnlockCheckInStatus } from '../../src/shared/ipc/vault-types'
import { type ServiceFixture, startServiceFixture, tempDir } from './service-fixture'

const DAY = 86_400_000
const T0 = Date.parse('2026-04-01T08:00:00.000Z')
const monthly = (due: number, extra: Partial<UnlockVaultFacts> = {}): UnlockVaultFacts => ({
  state: 'active',
  releaseTrigger: 'dead_man_switch',
  checkInFrequency: 'monthly',
  nextCheckInDue: new Date(due).toISOString(),
  ...extra,
})

describe('decideUnlockCheckIn', () => {
  // Last check-in at T0, monthly: due at T0 + 30 days; half the period is 15 days.
  const due = T0 + 30 * DAY

  it('waits until more than half of the period has passed since the last check-in', () => {
    expect(decideUnlockCheckIn(monthly(due), T0 + DAY)).toEqual({
      checkIn: false,
      reason: 'recently-checked-in',
    })
    expect(decideUnlockCheckIn(monthly(due), T0 + 15 * DAY)).toEqual({
      checkIn: false,
      reason: 'recently-checked-in',
    })
    expect(decideUnlockCheckIn(monthly(due), T0 + 15 * DAY + 1)).toEqual({ checkIn: true })
    expect(decideUnlockCheckIn(monthly(due), T0 + 29 * DAY)).toEqual({ checkIn: true })
  })

  it('follows the frequency: a weekly switch checks in past 3.5 days', () => {
    const weekly = monthly(T0 + 7 * DAY, { checkInFrequency: 'weekly' })
    expect(decideUnlockCheckIn(weekly, T0 + 3 * DAY).checkIn).toBe(false)
    expect(decideUnlockCheckIn(weekly, T0 + 4 * DAY).checkIn).toBe(true)
  })

  it('checks in once per period: not again while the deadline read is older than the one it set', () => {
    // The unlock check-in at T0 + 20 days set the deadline to T0 + 50 days; a read from before it
    // still says T0 + 30 days.
    const last = { at: T0 + 20 * DAY, due: T0 + 50 * DAY }
    expect(decideUnlockCheckIn(monthly(due), T0 + 21 * DAY, last)).toEqual({
      checkIn: false,
      reason: 'already-this-period',
    })
    // The period that check-in began follows the half-period rule like any other.
    expect(decideUnlockCheckIn(monthly(last.due), T0 + 21 * DAY, last).checkIn).toBe(false)
    expect(decideUnlockCheckIn(monthly(last.due), T0 + 36 * DAY, last).checkIn).toBe(true)
  })

  it("waits half a period by this computer's clock too, whatever the service's clock says", () => {
    // The service's clock runs 16 days behind: by its deadline the period is 16 days old at once.
    const last = { at: T0 + 20 * DAY, due: T0 + 34 * DAY }
    expect(decideUnlockCheckIn(monthly(last.due), T0 + 21 * DAY, last)).toEqual({
      checkIn: false,
      reason: 'recently-checked-in',
    })
    expect(decideUnlockCheckIn(monthly(last.due), T0 + 36 * DAY, last).checkIn).toBe(true)
  })

  it('never checks in a vault that is releasing or released, or has no dead man switch or deadline', () => {
    const late = T0 + 20 * DAY
    expect(decideUnlockCheckIn(monthly(due, { state: 'releasing' }), late)).toEqual({
      checkIn: false,
      reason: 'not-active',
    })
    expect(decideUnlockCheckIn(monthly(due, { state: 'released' }), late).checkIn).toBe(false)
    expect(decideUnlockCheckIn(monthly(due, { releaseTrigger: 'manual' }), late)).toEqual({
      checkIn: false,
      reason: 'no-dead-mans-switch',
    })
    expect(decideUnlockCheckIn(monthly(due, { checkInFrequency: null }), late).checkIn).toBe(false)
    expect(decideUnlockCheckIn(monthly(due, { nextCheckInDue: null }), late)).toEqual({
      checkIn: false,
      reason: 'no-deadline',
    })
  })

  it('checks in a vault past its deadline that the service has not released yet', () => {
    expect(decideUnlockCheckIn(monthly(due), due + DAY)).toEqual({ checkIn: true })
  })
})

describe('checkAgentKey', () => {
  it('refuses the full-access key and says why and what to paste', () => {
    expect(() => checkAgentKey('sk_human_0123456789abcdef')).toThrow(/full-access key.*sk_agent_/s)
  })
  it('refuses what is not a key', () => {
    expect(() => checkAgentKey('hello')).toThrow(/should start with sk_agent_/)
    expect(() => checkAgentKey('sk_agent_ 0123456789')).toThrow(/should start with sk_agent_/)
  })
  it('takes an agent key, trimmed', () => {
    expect(checkAgentKey('  sk_agent_0123456789abcdef\n')).toBe('sk_agent_0123456789abcdef')
  })
})

describe('AgentKeys', () => {
  it('keeps the key in the secret store and only its summary in the file', async () => {
    const dir = await tempDir('vault-agent-keys-')
    try {
      const store = new MemorySecretStore()
      const keys = await AgentKeys.open(dir.path, store)
      await keys.set('c1', 'sk_agent_secretsecret1234', 'pasted', T0)
      expect(await store.get(agentKeyAccount('c1'))).toBe('sk_agent_secretsecret1234')
      await keys.flush()
      const reopened = await AgentKeys.open(dir.path, store)
      expect(reopened.info('c1')).toEqual({
        last4: '1234',
        origin: 'pasted',
        addedAt: new Date(T0).toISOString(),
      })
      const { readFile } = await import('node:fs/promises')
      expect(await readFile(join(dir.path, 'agent-keys.json'), 'utf8')).not.toContain('secretsecret')
      await reopened.remove('c1')
      expect(await store.get(agentKeyAccount('c1'))).toBeNull()
      expect(reopened.info('c1')).toBeUndefined()
    } finally {
      await dir.remove()
    }
  })
})

describe('unlock check-in against the local service', () => {
  let svc: ServiceFixture
  let owner: VaultApiClient
  let log: ActivityLog
  let dir: { path: string; remove: () => Promise<void> }
  let vaultId: string
  let agentKey: string
  let failures: string[]

  const balance = async () => (await owner.getVault(vaultId)).creditsBalance
  const runner = () =>
    new UnlockCheckIn({
      now: () => svc.now(),
      agentClient: async () => new VaultApiClient({ baseUrl: svc.url, apiKey: agentKey, maxRetries: 0 }),
      // As the session gives them: what this device last read (here nothing known: always asked).
      candidates: () => [{ vaultId }],
      lastUnlock: (id) => {
        const last = log.latest(id, 'check-in', 'unlock')
        const due = last?.detail.nextCheckInDue
        return last && due ? { at: Date.parse(last.at), due: Date.parse(due) } : undefined
      },
      checkedIn: (vault, result) =>
        log.append({
          vaultId: vault.id,
          kind: 'check-in',
          source: 'unlock',
          at: new Date(svc.now()).toISOString(),
          detail: { nextCheckInDue: result.nextCheckInDue },
        }),
      failed: (id, message) => {
        failures.push(message)
        return log.append({
          vaultId: id,
          kind: 'check-in-failed',
          source: 'unlock',
          detail: { error: message },
        })
      },
    })
  const pulses = () => {
    const db = new Database(join(svc.dataDir, 'vault.sqlite3'), { readonly: true })
    try {
      return db
        .prepare('SELECT note, created_at FROM audit_pulses WHERE vault_id = ? ORDER BY id')
        .all(vaultId) as Array<{
        note: string | null
        created_at: string
      }>
    } finally {
      db.close()
    }
  }

  beforeEach(async () => {
    svc = await startServiceFixture()
    dir = await tempDir('vault-unlock-')
    log = await ActivityLog.open(dir.path, () => svc.now())
    owner = new VaultApiClient({ baseUrl: svc.url, apiKey: svc.humanKey })
    agentKey = svc.agentKey
    failures = []
    vaultId = (await owner.createVault({ preset: 'standard' })).id
    await owner.configureRelease(vaultId, {
      trigger: 'dead_man_switch',
      config: { checkInFrequency: 'monthly' },
    })
  })
  afterEach(async () => {
    log.close()
    await svc.close()
    await dir.remove()
  })

  it('checks in once past half the period, with the agent key, and records it', async () => {
    const start = await balance()
    const unlock = runner()

    // Just configured: the period has only begun, so no credits are spent.
    expect(await unlock.run()).toEqual([{ vaultId, checkedIn: false, reason: 'recently-checked-in' }])
    expect(await balance()).toBe(start)

    svc.advance(16 * DAY)
    const [done] = await unlock.run()
    expect(done).toMatchObject({ vaultId, checkedIn: true, daysRemaining: 30 })
    expect(await balance()).toBe(start - 2)
    const pulse = pulses().at(-1)
    expect(pulse?.note).toBe(UNLOCK_NOTE)
    const due = (await owner.getVault(vaultId)).nextCheckInDue
    expect(log.list(vaultId, { limit: 10, offset: 0 }).items).toMatchObject([
      { kind: 'check-in', source: 'unlock', detail: { nextCheckInDue: due } },
    ])

    // Unlocking again the same day, or a week later, spends nothing.
    expect((await unlock.run())[0]).toMatchObject({ checkedIn: false, reason: 'recently-checked-in' })
    svc.advance(7 * DAY)
    expect((await unlock.run())[0]).toMatchObject({ checkedIn: false, reason: 'recently-checked-in' })
    expect(await balance()).toBe(start - 2)

    // Past half of the new period: the next one.
    svc.advance(9 * DAY)
    expect((await unlock.run())[0]).toMatchObject({ checkedIn: true })
    expect(await balance()).toBe(start - 4)
    expect(log.list(vaultId, { kinds: ['check-in'], limit: 10, offset: 0 }).total).toBe(2)
  })

  it('two unlocks at once make one check-in', async () => {
    const start = await balance()
    svc.advance(20 * DAY)
    const unlock = runner()
    const [a, b] = await Promise.all([unlock.run(), unlock.run()])
    expect(a).toBe(b)
    expect(await balance()).toBe(start - 2)
    expect(pulses()).toHaveLength(1)
  })

  it('never checks in a releasing vault', async () => {
    const start = await balance()
    await svc.service.admin.startRelease({ vault: vaultId })
    svc.advance(20 * DAY)
    expect(await runner().run()).toEqual([{ vaultId, checkedIn: false, reason: 'not-active' }])
    expect(await balance()).toBe(start)
    expect(pulses()).toHaveLength(0)
  })

  it('skips a vault without a dead man switch without a request when this device knows it', async () => {
    let asked = 0
    const unlock = new UnlockCheckIn({
      now: () => svc.now(),
      agentClient: async () => {
        asked++
        return new VaultApiClient({ baseUrl: svc.url, apiKey: agentKey })
      },
      candidates: () => [
        {
          vaultId,
          known: { state: 'active', releaseTrigger: 'manual', checkInFrequency: null, nextCheckInDue: null },
        },
      ],
      lastUnlock: () => undefined,
      checkedIn: () => undefined,
      failed: () => undefined,
    })
    expect(await unlock.run()).toEqual([{ vaultId, checkedIn: false, reason: 'no-dead-mans-switch' }])
    expect(asked).toBe(0)
  })

  it('a revoked agent key is recorded and told, and nothing is spent', async () => {
    const start = await balance()
    await svc.service.admin.revokeKey({ key: agentKey })
    svc.advance(20 * DAY)
    const [outcome] = await runner().run()
    expect(outcome).toMatchObject({ checkedIn: false, reason: 'failed' })
    expect(failures[0]).toMatch(/did not accept the read-and-check-in key.*Settings/s)
    expect(log.latest(vaultId, 'check-in-failed')?.detail.error).toBe(failures[0])
    expect(await balance()).toBe(start)
  })

  it('the agent key cannot change the vault, only read it and check in', async () => {
    const agent = new VaultApiClient({ baseUrl: svc.url, apiKey: agentKey, maxRetries: 0 })
    await expect(agent.getVault(vaultId)).resolves.toMatchObject({ id: vaultId })
    await expect(agent.configureRelease(vaultId, { trigger: 'manual' })).rejects.toMatchObject({
      status: 403,
    })
  })
})

describe('unlock check-in through the app backend and its own local service', () => {
  let dir: { path: string; remove: () => Promise<void> }
  let backend: VaultApp
  let offset = 0

  async function ok<T = unknown>(key: keyof typeof invokeChannels, args?: unknown): Promise<T> {
    const response = (await dispatch(backend.handlers, invokeChannels[key].name, args)) as IpcResponse<T>
    if (!response.ok) throw new Error(`${key} failed: ${response.error.code} ${response.error.message}`)
    return response.value
  }

  beforeEach(async () => {
    dir = await tempDir('vault-unlock-backend-')
    offset = 0
    backend = createVaultApp({
      userDataDir: dir.path,
      mode: 'browser',
      version: '0',
      useKeychain: false,
      localService: (userDataDir) => LocalServiceHost.open(userDataDir),
      now: () => Date.now() + offset,
    })
  })
  afterEach(async () => {
    await backend.close()
    await dir.remove()
  })

  it('turned on, the app makes an agent key and checks in on unlock once past half the period', async () => {
    const { vault } = await ok<{ vault: { id: string } }>('startLocally', { email: 'me@example.com' })
    const vaultId = vault.id
    await ok('configureRelease', { vaultId, trigger: 'dead_man_switch', checkInFrequency: 'monthly' })
    await backend.start()

    // Off by default: unlocking does nothing.
    offset = 20 * DAY
    expect(await backend.onUnlock()).toEqual([])
    offset = 0

    const status = await ok<UnlockCheckInStatus>('enableUnlockCheckIn', {})
    expect(status).toMatchObject({
      enabled: true,
      local: true,
      agentKey: { origin: 'created', storedIn: 'memory' },
    })
    const connection = (await ok<{ active: { keyLast4: string; keyKind: string } }>('getConnectionStatus'))
      .active
    expect(connection.keyKind).toBe('human')
    expect(status.agentKey?.last4).not.toBe(connection.keyLast4)

    const balance = async () =>
      (await ok<{ vaults: Array<{ id: string; creditsBalance: number }> }>('refreshVaults')).vaults.find(
        (v) => v.id === vaultId,
      )!.creditsBalance
    const before = await balance()
    expect(await backend.onUnlock()).toEqual([{ vaultId, checkedIn: false, reason: 'recently-checked-in' }])

    offset = 16 * DAY
    const [outcome] = await backend.onUnlock()
    expect(outcome).toMatchObject({ vaultId, checkedIn: true })
    expect(await balance()).toBe(before - 2)
    // Not again on the next unlock: the deadline the check-in set is read back.
    expect((await backend.onUnlock())[0]).toMatchObject({ checkedIn: false })
    expect(await balance()).toBe(before - 2)

    const page = await ok<ActivityPage>('listActivity', {
      vaultId,
      kinds: ['check-in'],
      limit: 10,
      offset: 0,
    })
    expect(page.items).toHaveLength(1)
    expect(page.items[0]).toMatchObject({ kind: 'check-in', source: 'unlock' })

    // A check-in from the tray is recorded as such.
    await ok('checkIn', { vaultId, source: 'tray' })
    const latest = await ok<ActivityPage>('listActivity', { vaultId, limit: 1, offset: 0 })
    expect(latest.items[0]).toMatchObject({ kind: 'check-in', source: 'tray' })

    // Turned off, the key is gone and unlocking does nothing, however late.
    expect(await ok<UnlockCheckInStatus>('disableUnlockCheckIn')).toMatchObject({
      enabled: false,
      agentKey: null,
    })
    offset = 40 * DAY
    expect(await backend.onUnlock()).toEqual([])
  })

  it('turned off on the service on this computer: the agent key is revoked there, and the status says so', async () => {
    await ok('startLocally', { email: 'me@example.com' })
    const on = await ok<UnlockCheckInStatus>('enableUnlockCheckIn', {})
    const last4 = on.agentKey!.last4
    const agentKeys = () => {
      const db = new Database(join(dir.path, 'local-service', 'vault.sqlite3'), { readonly: true })
      try {
        return db.prepare("SELECT revoked_at FROM api_keys WHERE kind = 'agent'").all() as Array<{
          revoked_at: string | null
        }>
      } finally {
        db.close()
      }
    }
    expect(agentKeys().filter((k) => k.revoked_at === null)).toHaveLength(1)
    const off = await ok<UnlockCheckInStatus>('disableUnlockCheckIn')
    expect(off).toMatchObject({
      enabled: false,
      agentKey: null,
      removedKey: { last4, revokedOnService: true },
    })
    expect(agentKeys().filter((k) => k.revoked_at === null)).toEqual([])
  })

  it('turned off for another service offering key-revoke: the key revokes itself there (DELETE /key), and the status says so', async () => {
    const svc = await startServiceFixture()
    try {
      await ok('connectService', { serviceUrl: svc.url, apiKey: svc.humanKey })
      await ok('enableUnlockCheckIn', { agentKey: svc.agentKey })
      const off = await ok<UnlockCheckInStatus>('disableUnlockCheckIn')
      expect(off).toMatchObject({
        enabled: false,
        agentKey: null,
        removedKey: { last4: svc.agentKey.slice(-4), revokedOnService: true },
      })
      const revoked = new VaultApiClient({ baseUrl: svc.url, apiKey: svc.agentKey })
      await expect(revoked.listVaults()).rejects.toMatchObject({ status: 401 })
      // The owner's own key is untouched.
      const owner = new VaultApiClient({ baseUrl: svc.url, apiKey: svc.humanKey })
      await expect(owner.listVaults()).resolves.toEqual(expect.any(Array))
    } finally {
      await svc.close()
    }
  })

  it('turned off for a service without key-revoke: the key leaves this computer, still works there, and the status says so', async () => {
    const svc = await startServiceFixture()
    // A service that does not offer the extension (the spec has no revocation over the API).
    const info = VaultApiClient.prototype.getServiceInfo
    const withoutRevoke = vi
      .spyOn(VaultApiClient.prototype, 'getServiceInfo')
      .mockImplementation(async function (this: VaultApiClient) {
        const real = await info.call(this)
        return { ...real, extensions: real.extensions.filter((e) => e !== 'key-revoke') }
      })
    try {
      await ok('connectService', { serviceUrl: svc.url, apiKey: svc.humanKey })
      await ok('enableUnlockCheckIn', { agentKey: svc.agentKey })
      const off = await ok<UnlockCheckInStatus>('disableUnlockCheckIn')
      expect(off).toMatchObject({
        enabled: false,
        agentKey: null,
        removedKey: { last4: svc.agentKey.slice(-4), revokedOnService: false },
      })
      const still = new VaultApiClient({ baseUrl: svc.url, apiKey: svc.agentKey })
      await expect(still.listVaults()).resolves.toEqual(expect.any(Array))
    } finally {
      withoutRevoke.mockRestore()
      await svc.close()
    }
  })

  it('one-step check-in links: off by default, turned on and off through the app, on the service', async () => {
    const { vault } = await ok<{ vault: { id: string; checkInLinks: boolean | null } }>('startLocally', {
      email: 'me@example.com',
    })
    expect(vault.checkInLinks).toBe(false)
    const on = await ok<{ checkInLinks: boolean | null }>('setCheckInLinks', { vaultId: vault.id, on: true })
    expect(on.checkInLinks).toBe(true)
    const listed = await ok<{ vaults: Array<{ id: string; checkInLinks: boolean | null }> }>('refreshVaults')
    expect(listed.vaults.find((v) => v.id === vault.id)?.checkInLinks).toBe(true)
    const off = await ok<{ checkInLinks: boolean | null }>('setCheckInLinks', {
      vaultId: vault.id,
      on: false,
    })
    expect(off.checkInLinks).toBe(false)
  })

  it('a human key is refused as the agent key of another service', async () => {
    const svc = await startServiceFixture()
    try {
      await ok('connectService', { serviceUrl: svc.url, apiKey: svc.humanKey })
      await expect(ok('enableUnlockCheckIn', {})).rejects.toThrow(/AGENT_KEY_NEEDED.*sk_agent_/)
      await expect(ok('enableUnlockCheckIn', { agentKey: svc.humanKey })).rejects.toThrow(
        /AGENT_KEY_REFUSED.*full-access key/,
      )
      await expect(ok('enableUnlockCheckIn', { agentKey: 'sk_agent_wrongwrongwrong' })).rejects.toThrow(
        /KEY_REJECTED/,
      )
      expect((await ok<UnlockCheckInStatus>('getUnlockCheckIn')).enabled).toBe(false)
      const status = await ok<UnlockCheckInStatus>('enableUnlockCheckIn', { agentKey: svc.agentKey })
      expect(status).toMatchObject({
        enabled: true,
        local: false,
        agentKey: { origin: 'pasted', last4: svc.agentKey.slice(-4) },
      })
    } finally {
      await svc.close()
    }
  })
})
