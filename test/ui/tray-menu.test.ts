import { describe, expect, it, vi } from 'vitest'
import { trayMenuItems } from '../../src/main/electron/tray-menu'

describe('tray menu', () => {
  it('leads with the state, lists releasing vaults first, then offers to check in', () => {
    const actions = { checkIn: vi.fn(), openVault: vi.fn() }
    const items = trayMenuItems(
      {
        level: 'releasing',
        text: 'Vault B is releasing: 12 days left to cancel',
        nextCheckIn: {
          vaultId: 'a',
          label: 'Vault A',
          dueAt: '2026-02-01T00:00:00Z',
          text: 'Next check-in: Vault A in 3 days',
        },
        readiness: [
          { vaultId: 'a', label: 'Vault A', summary: 'credits run short · 2 steps left', ready: false },
          { vaultId: 'b', label: 'Vault B', summary: 'Ready', ready: true },
        ],
      },
      [
        { id: 'a', label: 'Vault A', state: 'active' },
        { id: 'b', label: 'Vault B', state: 'releasing' },
      ],
      actions,
    )
    expect(items.map((i) => i.label)).toEqual([
      'Vault B is releasing: 12 days left to cancel',
      'Vault B is releasing — open to cancel',
      'Vault A: credits run short · 2 steps left',
      'Check in now (Vault A)',
      'Open Vault A',
    ])
    expect(items[0]!.enabled).toBe(false)
    items[1]!.click?.({} as never, undefined, {} as never)
    expect(actions.openVault).toHaveBeenCalledWith('b')
    items[2]!.click?.({} as never, undefined, {} as never)
    expect(actions.openVault).toHaveBeenCalledWith('a')
    items[3]!.click?.({} as never, undefined, {} as never)
    expect(actions.checkIn).toHaveBeenCalledWith('a', 'Vault A')
  })

  it('without a dead man switch there is nothing to check in', () => {
    const items = trayMenuItems(
      { level: 'ok', text: 'No check-ins scheduled', nextCheckIn: null, readiness: [] },
      [],
      { checkIn: vi.fn(), openVault: vi.fn() },
    )
    expect(items.map((i) => i.label)).toEqual(['No check-ins scheduled'])
  })
})
