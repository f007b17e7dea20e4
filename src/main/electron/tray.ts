// The tray icon: shows the worst state across vaults and gives quick actions without the window.
import { join } from 'node:path'
import { Menu, type MenuItemConstructorOptions, nativeImage, Tray } from 'electron'
import { desktopText } from '../core/desktop-text'

export const TRAY_STATES = ['ok', 'due-soon', 'overdue', 'releasing'] as const
export type TrayState = (typeof TRAY_STATES)[number]

export interface TrayActions {
  open(): void
  quit(): void
}

export class AppTray {
  readonly #tray: Tray
  readonly #iconDir: string
  readonly #actions: TrayActions
  #extraItems: MenuItemConstructorOptions[] = []

  constructor(iconDir: string, actions: TrayActions) {
    this.#iconDir = iconDir
    this.#actions = actions
    this.#tray = new Tray(this.#icon('ok'))
    this.#tray.setToolTip(desktopText().tray.appName)
    this.#tray.on('click', () => actions.open())
    this.#render()
  }

  setState(state: TrayState, tooltip: string, extraItems: MenuItemConstructorOptions[] = []): void {
    this.#tray.setImage(this.#icon(state))
    this.#tray.setToolTip(tooltip)
    this.#extraItems = extraItems
    this.#render()
  }

  destroy(): void {
    this.#tray.destroy()
  }

  #icon(state: TrayState) {
    const image = nativeImage.createFromPath(join(this.#iconDir, `${state}-32.png`))
    return image.resize({ width: 16, height: 16, quality: 'best' })
  }

  #render(): void {
    const items: MenuItemConstructorOptions[] = [
      { label: desktopText().tray.openApp, click: () => this.#actions.open() },
      ...(this.#extraItems.length ? [{ type: 'separator' as const }, ...this.#extraItems] : []),
      { type: 'separator' },
      { label: desktopText().tray.quit, click: () => this.#actions.quit() },
    ]
    this.#tray.setContextMenu(Menu.buildFromTemplate(items))
  }
}
