// Turning the unlock check-in on owns its writes: the key the service on this computer makes is kept
// with the session's clock as its date (not the computer's), and the setting is saved.
import { describe, expect, it } from 'vitest'
import type { VaultSession } from '../../src/main/core/vault-session'
import { unlockCheckInOperations } from '../../src/main/core/vaults/unlock-check-in-operations'
import { DEFAULT_SETTINGS, type Settings, type SettingsPatch } from '../../src/shared/ipc/settings'

describe('unlock check-in operations', () => {
  it("keeps the local service's new key stamped by the session's clock, then turns the setting on", async () => {
    const now = Date.parse('2031-03-04T05:06:07.000Z')
    const kept: { id: string; key: string; origin: string; at: number }[] = []
    const keys = {
      store: { kind: 'memory' as const },
      info: (id: string) =>
        kept
          .filter((k) => k.id === id)
          .map((k) => ({
            last4: k.key.slice(-4),
            origin: k.origin,
            addedAt: new Date(k.at).toISOString(),
          }))[0],
      get: async (id: string) => kept.find((k) => k.id === id)?.key ?? null,
      set: async (id: string, key: string, origin: string, at: number) => {
        kept.push({ id, key, origin, at })
      },
    }
    const session = {
      now: () => now,
      connections: {
        active: () => ({ id: 'c_local', label: 'This computer', serviceUrl: 'http://127.0.0.1:1' }),
      },
      localService: { isLocal: () => true, issueAgentKey: async () => 'sk_agent_local_abcd' },
      unlockCheckIn: { agentKeys: async () => keys },
    } as unknown as VaultSession
    let settings: Settings = { ...DEFAULT_SETTINGS, checkInOnUnlock: false }
    const ops = unlockCheckInOperations({
      settings: async () => settings,
      updateSettings: async (patch: SettingsPatch) => {
        settings = { ...settings, ...patch }
        return settings
      },
    })
    const status = await ops.enable(session, undefined)
    expect(kept).toEqual([{ id: 'c_local', key: 'sk_agent_local_abcd', origin: 'created', at: now }])
    expect(status).toMatchObject({
      enabled: true,
      local: true,
      agentKey: { last4: 'abcd', origin: 'created', addedAt: '2031-03-04T05:06:07.000Z', storedIn: 'memory' },
    })
  })
})
