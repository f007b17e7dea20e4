import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VaultSession } from '../../src/main/core/vault-session'
import { DAY_MS } from '../../src/main/core/vaults/checkin-schedule'
import { testSecretBox } from './secret-box-fixture'
import { type ServiceFixture, startServiceFixture, tempDir } from './service-fixture'

let svc: ServiceFixture
beforeAll(async () => {
  svc = await startServiceFixture()
})
afterAll(async () => {
  await svc?.close()
})

describe('app core composition', () => {
  it('connects, creates a vault, uploads, reminds, alarms and derives the tray', async () => {
    const dir = await tempDir('vault-core-')
    try {
      const core = await VaultSession.open({
        userDataDir: dir.path,
        secretBox: testSecretBox(),
        useKeychain: false,
        now: svc.now,
      })
      const events: Array<[string, unknown]> = []
      for (const name of [
        'upload-item',
        'vault',
        'vault-state',
        'reminder',
        'alarm',
        'tray',
        'connections',
        'retrying',
      ] as const) {
        core.events.on(name, (payload: unknown) => events.push([name, payload]))
      }
      expect(core.secretStore.kind).toBe('encrypted-file')

      const connection = await core.connections.add({
        serviceUrl: svc.url,
        apiKey: svc.humanKey,
        label: 'Local',
      })
      expect(connection).toMatchObject({ keyStore: 'encrypted-file', keyKind: 'human', active: true })

      const vault = await core.vaults.create()
      expect((await core.vaultKeys.info(vault.id)).present).toBe(true)
      await core.vaults.configureRelease(vault.id, {
        trigger: 'dead_man_switch',
        config: { checkInFrequency: 'weekly' },
      })
      expect(core.reminders.upcoming().map((u) => u.vaultId)).toEqual([vault.id])
      expect(core.tray().level).toBe('ok')

      const file = join(dir.path, 'will.txt')
      await writeFile(file, 'my last will')
      await core.uploads.enqueue({ vaultId: vault.id, paths: [file] })
      await core.uploads.idle()
      expect(core.uploads.list()[0]!.state).toBe('done')

      // Five days later: the 3-day reminder, tray "due soon".
      svc.advance(5 * DAY_MS)
      await core.onResume()
      const reminder = events.find(([n]) => n === 'reminder')![1] as { kind: string; vaultId: string }
      expect(reminder).toMatchObject({ kind: 'before', vaultId: vault.id })
      expect(core.tray().level).toBe('due-soon')

      const checkin = await core.vaults.checkIn(vault.id, 'fine')
      expect(checkin.daysRemaining).toBe(7)
      expect(core.tray().level).toBe('ok')

      // Missed check-in: the service starts the release; the core raises the alarm.
      svc.advance(8 * DAY_MS)
      await svc.service.tick()
      await core.onResume()
      expect(events.some(([n, p]) => n === 'alarm' && (p as { vaultId: string }).vaultId === vault.id)).toBe(
        true,
      )
      expect(core.tray()).toMatchObject({ level: 'releasing' })
      expect(core.tray().text).toMatch(/releasing: \d+ days left to cancel/)

      await core.vaults.cancelRelease(vault.id)
      expect(core.tray().level).not.toBe('releasing')
      const trayEvents = events.filter(([n]) => n === 'tray').map(([, p]) => (p as { level: string }).level)
      expect(trayEvents).toContain('releasing')

      const kit = await core.vaultKeys.exportOwnerKit(vault.id)
      expect(kit.words.length).toBeGreaterThan(0)

      // Nothing the renderer receives contains the API key.
      const wire = JSON.stringify(events)
      expect(wire).not.toContain(svc.humanKey)
      expect(wire).not.toContain(svc.humanKey.slice(9, -4))
      await core.close()

      // A second start reads the same connection and key from the encrypted file.
      const again = await VaultSession.open({
        userDataDir: dir.path,
        secretBox: testSecretBox(),
        useKeychain: false,
        now: svc.now,
      })
      expect(again.connections.active()?.id).toBe(connection.id)
      expect((await again.vaults.list()).map((v) => v.id)).toContain(vault.id)
      await again.close()
    } finally {
      await dir.remove()
    }
  })
})
