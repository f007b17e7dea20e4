// Guardians, heirs and kits own their writes: called on the session (no IPC handler in between), a
// guardian added or removed remakes the kits and leaves its history line with who it was, a kit handed
// over and an heir added or removed are recorded by the operation that did it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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

describe('people operations own their writes', () => {
  it('guardians, kits and heirs changed on the session are in the history, with who', async () => {
    const dir = await tempDir('people-own-writes-')
    const core = await VaultSession.open({
      userDataDir: dir.path,
      secretBox: testSecretBox(),
      useKeychain: false,
      now: svc.now,
    })
    try {
      await core.connections.add({ serviceUrl: svc.url, apiKey: svc.humanKey, label: 'Local' })
      const vault = await core.vaults.create({ name: 'Papers' })
      const ana = await core.people.addGuardian(vault.id, { name: 'Ana', email: 'ana@example.com' })
      const ben = await core.people.addGuardian(vault.id, { name: 'Ben', email: 'ben@example.com' })
      expect(ben.kitProblem).toBeNull()
      expect(ben.kits.map((k) => k.guardianName)).toEqual(['Ana', 'Ben'])
      await core.people.setKitHandedOver(vault.id, ana.guardian!.id, true)
      const removed = await core.people.removeGuardian(vault.id, ben.guardian!.id)
      expect(removed.kits.map((k) => k.guardianName)).toEqual(['Ana'])
      const heir = await core.people.addHeir(vault.id, { name: 'Hana', email: 'hana@example.com' })
      await core.people.removeHeir(vault.id, heir.id)

      const kinds = [
        'guardian-added',
        'guardian-removed',
        'kit-handed-over',
        'heir-added',
        'heir-removed',
      ] as const
      const history = core.activity.list(vault.id, { kinds: [...kinds], limit: 20, offset: 0 }).items
      expect(history.map((e) => [e.kind, e.source, e.detail?.person]).sort()).toEqual(
        [
          ['guardian-added', 'window', 'Ana'],
          ['guardian-added', 'window', 'Ben'],
          ['guardian-removed', 'window', 'Ben'],
          ['heir-added', 'window', 'Hana'],
          ['heir-removed', 'window', 'Hana'],
          ['kit-handed-over', 'window', 'Ana'],
        ].sort(),
      )
    } finally {
      await core.close()
      await dir.remove()
    }
  })
})
