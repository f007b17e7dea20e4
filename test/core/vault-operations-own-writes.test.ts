// The owner's vault operations own every write they make: a check-in's deadline, device record and
// history line come from one operation stamped by the session's clock (not the computer's), whichever
// door it is called through; an unknown connection is an AppError with a sentence, not an INTERNAL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { createVaultApp } from '../../src/main/core/vault-app'
import { VaultSession } from '../../src/main/core/vault-session'
import { DAY_MS } from '../../src/main/core/vaults/checkin-schedule'
import { invokeChannels } from '../../src/shared/ipc/contract'
import type { IpcResponse } from '../../src/shared/ipc/contract-kit'
import { testSecretBox } from './secret-box-fixture'
import { type ServiceFixture, startServiceFixture, tempDir } from './service-fixture'

let svc: ServiceFixture
beforeAll(async () => {
  svc = await startServiceFixture()
})
afterAll(async () => {
  await svc?.close()
})

describe('vault operations own their writes', () => {
  it('a check-in called on the session writes the deadline, the device record and the history at the fake clock', async () => {
    const dir = await tempDir('vault-own-writes-')
    // A fake clock far from the computer's: every stamp of the check-in must come from it.
    let now = Date.parse('2031-03-04T05:06:07.000Z')
    const core = await VaultSession.open({
      userDataDir: dir.path,
      secretBox: testSecretBox(),
      useKeychain: false,
      now: () => now,
    })
    try {
      await core.connections.add({ serviceUrl: svc.url, apiKey: svc.humanKey, label: 'Local' })
      const vault = await core.vaults.create()
      await core.vaults.configureRelease(vault.id, {
        trigger: 'dead_man_switch',
        config: { checkInFrequency: 'weekly' },
      })
      expect(core.records.get(vault.id)).toMatchObject({ releaseTrigger: 'dead_man_switch' })
      now += 2 * DAY_MS
      const stamp = new Date(now).toISOString()

      const result = await core.vaults.checkIn(vault.id, '  still here  ')
      expect(result.checkedInAt).toBe(stamp)
      expect(core.records.get(vault.id)).toMatchObject({
        lastCheckIn: { at: stamp, note: 'still here' },
        nextCheckInDue: result.nextCheckInDue,
      })
      const history = core.activity.list(vault.id, { kinds: ['check-in'], limit: 10, offset: 0 }).items
      expect(history).toEqual([expect.objectContaining({ kind: 'check-in', at: stamp, source: 'window' })])
    } finally {
      await core.close()
      await dir.remove()
    }
  })

  it('through the IPC handler: one check-in, stamped by the clock, recorded once', async () => {
    const dir = await tempDir('vault-own-writes-ipc-')
    const now = Date.parse('2030-07-08T09:10:11.000Z')
    const app = createVaultApp({
      userDataDir: dir.path,
      mode: 'browser',
      version: '0.0.0-test',
      useKeychain: false,
      now: () => now,
    })
    const call = async <T>(key: keyof typeof invokeChannels, args?: unknown) =>
      (await dispatch(app.handlers, invokeChannels[key].name, args)) as IpcResponse<T>
    const ok = async <T>(key: keyof typeof invokeChannels, args?: unknown): Promise<T> => {
      const response = await call<T>(key, args)
      if (!response.ok) throw new Error(`${key} failed: ${response.error.code} ${response.error.message}`)
      return response.value
    }
    try {
      await ok('connectService', { serviceUrl: svc.url, apiKey: svc.humanKey })
      const vault = await ok<{ id: string }>('createVault', { preset: 'standard' })
      await ok('configureRelease', {
        vaultId: vault.id,
        trigger: 'dead_man_switch',
        checkInFrequency: 'weekly',
      })
      const outcome = await ok<{ checkedInAt: string }>('checkIn', { vaultId: vault.id, source: 'tray' })
      expect(outcome.checkedInAt).toBe(new Date(now).toISOString())
      const page = await ok<{ items: Array<{ kind: string; at: string; source: string }> }>('listActivity', {
        vaultId: vault.id,
        kinds: ['check-in', 'release-configured'],
        limit: 10,
        offset: 0,
      })
      expect(page.items.map((e) => [e.kind, e.source, e.at])).toEqual(
        expect.arrayContaining([['check-in', 'tray', outcome.checkedInAt]]),
      )
      expect(page.items.filter((e) => e.kind === 'check-in')).toHaveLength(1)
      expect(page.items.filter((e) => e.kind === 'release-configured')).toHaveLength(1)
    } finally {
      await app.close()
      await dir.remove()
    }
  })

  it("a release started and cancelled through the operations is the owner's in the history, whoever calls", async () => {
    const dir = await tempDir('vault-own-writes-release-')
    const core = await VaultSession.open({
      userDataDir: dir.path,
      secretBox: testSecretBox(),
      useKeychain: false,
      now: svc.now,
    })
    try {
      await core.connections.add({ serviceUrl: svc.url, apiKey: svc.humanKey, label: 'Local' })
      const vault = await core.vaults.create({ name: 'Papers' })
      await core.vaults.configureRelease(vault.id, { trigger: 'manual' })
      await core.vaults.startRelease(vault.id)
      await core.vaults.cancelRelease(vault.id)
      const kinds = ['vault-created', 'release-started', 'release-cancelled'] as const
      const history = core.activity.list(vault.id, { kinds: [...kinds], limit: 10, offset: 0 }).items
      expect(history.map((e) => [e.kind, e.source]).sort()).toEqual([
        ['release-cancelled', 'window'],
        ['release-started', 'window'],
        ['vault-created', 'window'],
      ])
      expect(core.releaseActions.size).toBe(0)
    } finally {
      await core.close()
      await dir.remove()
    }
  })

  it('an unknown connection is a ConnectionError with what to do, not an internal fault', async () => {
    const dir = await tempDir('vault-own-writes-conn-')
    const core = await VaultSession.open({
      userDataDir: dir.path,
      secretBox: testSecretBox(),
      useKeychain: false,
    })
    try {
      let thrown: unknown
      try {
        core.connection('gone')
      } catch (error) {
        thrown = error
      }
      expect(thrown).toMatchObject({ name: 'ConnectionError', code: 'CONNECTION_PROBLEM' })
      expect((thrown as { userMessage: string }).userMessage).toContain('Settings → Connections')
    } finally {
      await core.close()
      await dir.remove()
    }
  })
})
