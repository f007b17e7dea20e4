import { describe, expect, it, vi } from 'vitest'
import { TrayShown, trayMenuItems } from '../../src/main/electron/tray-menu'

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

  it('an update that would show the same is skipped; any change, a vault behind a label included, is not', () => {
    const shown = new TrayShown()
    const view = {
      level: 'ok' as const,
      text: 'Next check-in: Vault A in 3 days',
      nextCheckIn: null,
      readiness: [{ vaultId: 'a', label: 'Vault A', summary: '2 steps left', ready: false }],
    }
    const vaults = [{ id: 'a', label: 'Vault A', state: 'active' as const }]
    expect(shown.changes(view, vaults)).toBe(true)
    // The watcher's next pass, nothing new.
    expect(shown.changes({ ...view, readiness: [...view.readiness] }, [...vaults])).toBe(false)
    const oneStep = { ...view, readiness: [{ ...view.readiness[0]!, summary: '1 step left' }] }
    expect(shown.changes(oneStep, vaults)).toBe(true)
    expect(shown.changes(oneStep, vaults)).toBe(false)
    // Another vault under the same name: the menu's actions must point at it.
    expect(shown.changes(oneStep, [{ id: 'b', label: 'Vault A', state: 'active' }])).toBe(true)
    expect(shown.changes({ ...oneStep, text: 'Next check-in: Vault A in 2 days' }, vaults)).toBe(true)
  })
})
