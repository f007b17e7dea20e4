// The tray's extra menu items, from the core's tray view and the vault list: a pure function so the
// menu can be tested without Electron. Actions are passed in.
import type { MenuItemConstructorOptions } from 'electron'
import type { TrayView, VaultView } from '../../shared/ipc/vault-types'
import { desktopText } from '../core/desktop-text'

export interface TrayMenuActions {
  checkIn(vaultId: string, label: string): void
  openVault(vaultId: string): void
}

export function trayMenuItems(
  view: TrayView,
  vaults: Pick<VaultView, 'id' | 'label' | 'state'>[],
  actions: TrayMenuActions,
): MenuItemConstructorOptions[] {
  const t = desktopText().tray
  const next = view.nextCheckIn
  const releasing = vaults.filter((v) => v.state === 'releasing')
  const releasingIds = new Set(releasing.map((v) => v.id))
  return [
    { label: view.text, enabled: false },
    ...releasing.map((v) => ({
      label: t.releasingItem(v.label),
      click: () => actions.openVault(v.id),
    })),
    // Whether each vault would really reach its heirs: "ready" or what is left to do.
    ...view.readiness
      .filter((r) => !releasingIds.has(r.vaultId))
      .map((r) => ({
        label: t.readinessItem(r.label, r.ready ? t.ready : r.summary),
        click: () => actions.openVault(r.vaultId),
      })),
    ...(next
      ? [
          { label: t.checkInNow(next.label), click: () => actions.checkIn(next.vaultId, next.label) },
          { label: t.openVault(next.label), click: () => actions.openVault(next.vaultId) },
        ]
      : []),
  ]
}

/**
 * Remembers what the tray shows, so that an update that would show the same is skipped: every pass
 * of the vault watcher (every 5 minutes) tells the tray, and each update
 * reloads and scales the icon and rebuilds the menu (on Linux, sent whole to the panel over D-Bus).
 * The vaults' ids are part of it: the menu's actions are bound to them.
 */
export class TrayShown {
  #shown: string | undefined

  /** Whether this view differs from the one shown; if so, it counts as shown from now. */
  changes(view: TrayView, vaults: Pick<VaultView, 'id' | 'label' | 'state'>[]): boolean {
    const key = JSON.stringify([view, vaults.map((v) => [v.id, v.label, v.state])])
    if (key === this.#shown) return false
    this.#shown = key
    return true
  }
}
