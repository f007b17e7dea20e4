// The owner's uploads own their rules and writes: called on the session (no IPC handler in between),
// an upload that would eat the check-in reserve queues nothing unless the owner spends the reserve, and
// clearing the list hides failures or forgets finished items and tells the window.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EventHub } from '../../src/main/core/ipc/handler-table'
import { VaultSession } from '../../src/main/core/vault-session'
import { testSecretBox } from './secret-box-fixture'
import { type ServiceFixture, startServiceFixture, tempDir } from './service-fixture'

let svc: ServiceFixture
beforeAll(async () => {
  svc = await startServiceFixture()
})
afterAll(async () => {
  await svc?.close()
})

describe('owner uploads own their writes', () => {
  it('the check-in reserve guards queueFiles; clear() hides failures or forgets what finished', async () => {
    const dir = await tempDir('upload-own-writes-')
    const window = new EventHub()
    const cleared: unknown[] = []
    window.subscribe((name, payload) => {
      if (name === 'uploads:cleared') cleared.push(payload)
    })
    const core = await VaultSession.open({
      userDataDir: dir.path,
      secretBox: testSecretBox(),
      useKeychain: false,
      now: svc.now,
      window,
    })
    try {
      await core.connections.add({ serviceUrl: svc.url, apiKey: svc.humanKey, label: 'Local' })
      const vault = await core.vaults.create({ name: 'Papers' })
      // Weekly: 53 check-ins of 2 credits a year are kept, more than the account's trial credits.
      await core.vaults.configureRelease(vault.id, {
        trigger: 'dead_man_switch',
        config: { checkInFrequency: 'weekly' },
      })
      const will = join(dir.path, 'will.txt')
      const deed = join(dir.path, 'deed.txt')
      await writeFile(will, 'my last will')
      await writeFile(deed, 'the deed')

      expect(await core.uploads.estimate(vault.id, [will])).toMatchObject({ eatsReserve: true })
      await expect(core.uploads.queueFiles({ vaultId: vault.id, paths: [will] })).rejects.toMatchObject({
        code: 'RESERVE_NEEDED',
      })
      expect(core.uploads.list()).toEqual([])

      await core.uploads.queueFiles({ vaultId: vault.id, paths: [will], spendReserve: true })
      await core.uploads.idle()
      const queued = await core.uploads.queueFiles({ vaultId: vault.id, paths: [deed], spendReserve: true })
      expect(await core.uploads.cancel(queued.items[0]!.id)).toBe(true)
      await core.uploads.idle()
      expect(
        core.uploads
          .list()
          .map((i) => i.state)
          .sort(),
      ).toEqual(['cancelled', 'done'])

      expect(await core.uploads.clear('failed')).toBe(1)
      expect(core.uploads.visible().map((i) => i.state)).toEqual(['done'])
      expect(core.uploads.list()).toHaveLength(2)
      expect(cleared.at(-1)).toEqual([expect.objectContaining({ state: 'done' })])

      expect(await core.uploads.clear('finished')).toBe(2)
      expect(core.uploads.list()).toEqual([])
      expect(cleared.at(-1)).toEqual([])
    } finally {
      await core.close()
      await dir.remove()
    }
  })
})
