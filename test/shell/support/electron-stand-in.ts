// A recording stand-in for the `electron` module, for running the built main process (out/main) and
// preload (out/preload) in vitest where no Electron binary exists. It behaves like Electron where the
// glue depends on it (ready before protocol.handle, close events that can be prevented, quit that
// before-quit can hold off, one page per window loaded through the app's protocol handler) and records
// everything else for the tests to read. Each launch gets a fresh world.
import { EventEmitter } from 'node:events'
import { existsSync } from 'node:fs'

type PermissionRequestHandler = (
  contents: unknown,
  permission: string,
  callback: (granted: boolean) => void,
) => void
type PermissionCheckHandler = (contents: unknown, permission: string) => boolean
type RendererListener = (event: unknown, payload: unknown) => void

/** An event whose default Electron's code paths check after the listeners ran. */
export class PreventableEvent {
  defaultPrevented = false
  preventDefault(): void {
    this.defaultPrevented = true
  }
}

export interface MenuItem {
  label?: string
  type?: string
  enabled?: boolean
  click?: () => void
}

export interface IpcEvent {
  sender: unknown
  senderFrame: { url: string; parent: unknown } | null
}

type IpcHandler = (event: IpcEvent, args: unknown) => unknown

export interface WorldOptions {
  userDataDir: string
  /** false: another instance holds the single-instance lock. */
  lockAvailable?: boolean
}

// On globalThis: vi.resetModules() gives the mocked 'electron' a fresh copy of this module each launch.
const ACTIVE = Symbol.for('vault-desktop.electron-stand-in.world')
const registry = globalThis as { [ACTIVE]?: ElectronWorld }

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {}
  const promise = new Promise<void>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

export function activeWorld(): ElectronWorld {
  const world = registry[ACTIVE]
  if (!world) throw new Error('No Electron stand-in world: call launchMain() first.')
  return world
}

export class ElectronWorld {
  readonly userDataDir: string
  readonly lockAvailable: boolean
  /** Electron API calls in order, for assertions about sequence ("registered before ready"). */
  readonly calls: string[] = []
  readonly windows: FakeBrowserWindow[] = []
  readonly trays: FakeTray[] = []
  readonly notifications: FakeNotification[] = []
  readonly ipcHandlers = new Map<string, IpcHandler>()
  readonly protocolHandlers = new Map<string, (request: Request) => Response | Promise<Response>>()
  readonly privilegedSchemes: { scheme: string; privileges: Record<string, boolean> }[] = []
  readonly externalLinks: string[] = []
  readonly permissionHandlers: { request?: PermissionRequestHandler; check?: PermissionCheckHandler } = {}
  readonly dialogs: { kind: 'open' | 'save'; options: Record<string, unknown> }[] = []
  /** What the next dialogs answer; `undefined` = the user cancels. */
  readonly dialogAnswers: { open?: string[]; save?: string } = {}
  /** The paths webUtils.getPathForFile gives for dropped File objects. */
  readonly droppedPaths = new Map<object, string>()
  readonly exposedInMainWorld = new Map<string, unknown>()
  readonly loginItems: unknown[] = []
  readonly app: FakeApp
  readonly powerMonitor = new EventEmitter()
  ready = false
  quitted = false
  #whenQuit = deferred()
  #whenReady = deferred()

  constructor(options: WorldOptions) {
    this.userDataDir = options.userDataDir
    this.lockAvailable = options.lockAvailable ?? true
    this.app = new FakeApp(this)
  }

  activate(): void {
    registry[ACTIVE] = this
  }

  /** Electron's 'ready': whenReady() resolves. */
  makeReady(): void {
    this.ready = true
    this.calls.push('app:ready')
    this.app.emit('ready')
    this.#whenReady.resolve()
  }

  whenReady(): Promise<void> {
    return this.#whenReady.promise
  }

  whenQuit(): Promise<void> {
    return this.#whenQuit.promise
  }

  markQuit(): void {
    if (this.quitted) return
    this.quitted = true
    this.calls.push('app:quit')
    this.#whenQuit.resolve()
  }

  /** The tray's current context menu items (the latest setContextMenu). */
  trayMenu(): MenuItem[] {
    const tray = this.trays.at(-1)
    if (!tray?.menu) throw new Error('The tray has no context menu.')
    return tray.menu.items
  }

  trayItem(label: string | RegExp): MenuItem {
    const item = this.trayMenu().find((i) =>
      typeof label === 'string' ? i.label === label : label.test(i.label ?? ''),
    )
    if (!item) {
      const labels = this.trayMenu().map((i) => i.label ?? `(${i.type})`)
      throw new Error(`No tray item ${label}; the menu has: ${labels.join(' | ')}`)
    }
    return item
  }

  /** The module object `import … from 'electron'` gets in the main process. */
  mainModule(): Record<string, unknown> {
    this.#mainModule ??= this.#buildMainModule()
    return this.#mainModule
  }

  #mainModule?: Record<string, unknown>

  #buildMainModule(): Record<string, unknown> {
    const world = this
    return {
      app: this.app,
      BrowserWindow: bindBrowserWindow(world),
      Tray: class extends FakeTray {
        constructor(image: FakeImage) {
          super(world, image)
        }
      },
      Menu: { buildFromTemplate: (items: MenuItem[]) => new FakeMenu(items) },
      Notification: bindNotification(world),
      nativeImage: { createFromPath: (path: string) => new FakeImage(path) },
      ipcMain: {
        handle: (channel: string, handler: IpcHandler) => {
          if (world.ipcHandlers.has(channel))
            throw new Error(`Attempted to register a second handler for '${channel}'`)
          world.ipcHandlers.set(channel, handler)
        },
        removeHandler: (channel: string) => world.ipcHandlers.delete(channel),
      },
      powerMonitor: this.powerMonitor,
      protocol: {
        registerSchemesAsPrivileged: (schemes: ElectronWorld['privilegedSchemes']) => {
          world.calls.push('protocol:registerSchemesAsPrivileged')
          if (world.ready) throw new Error('registerSchemesAsPrivileged should be called before app is ready')
          world.privilegedSchemes.push(...schemes)
        },
        handle: (scheme: string, handler: (request: Request) => Response | Promise<Response>) => {
          world.calls.push(`protocol:handle:${scheme}`)
          if (!world.ready) throw new Error('protocol.handle can only be used after app is ready')
          world.protocolHandlers.set(scheme, handler)
        },
      },
      safeStorage: fakeSafeStorage,
      session: {
        defaultSession: {
          setPermissionRequestHandler: (handler: PermissionRequestHandler) => {
            world.permissionHandlers.request = handler
          },
          setPermissionCheckHandler: (handler: PermissionCheckHandler) => {
            world.permissionHandlers.check = handler
          },
        },
      },
      shell: {
        openExternal: async (url: string) => {
          world.externalLinks.push(url)
        },
      },
      dialog: {
        showOpenDialog: async (...args: unknown[]) => {
          world.dialogs.push({ kind: 'open', options: args.at(-1) as Record<string, unknown> })
          const paths = world.dialogAnswers.open
          return { canceled: !paths, filePaths: paths ?? [] }
        },
        showSaveDialog: async (...args: unknown[]) => {
          world.dialogs.push({ kind: 'save', options: args.at(-1) as Record<string, unknown> })
          const path = world.dialogAnswers.save
          return { canceled: !path, filePath: path ?? '' }
        },
      },
    }
  }

  /**
   * The module a sandboxed preload gets from `require('electron')`, bound to the window it runs in:
   * ipcRenderer.invoke reaches ipcMain as that window's top-level frame would.
   */
  preloadModule(window: FakeBrowserWindow): Record<string, unknown> {
    const listeners = new Map<RendererListener, (payload: unknown) => void>()
    return {
      contextBridge: {
        exposeInMainWorld: (key: string, api: unknown) => this.exposedInMainWorld.set(key, api),
      },
      ipcRenderer: {
        invoke: async (channel: string, args: unknown) => {
          const handler = this.ipcHandlers.get(channel)
          if (!handler) throw new Error(`Error invoking remote method '${channel}': No handler registered`)
          // Structured clone both ways, as Electron's IPC does.
          const event: IpcEvent = { sender: window.webContents, senderFrame: window.webContents.mainFrame }
          return structuredClone(await handler(event, structuredClone(args)))
        },
        on: (channel: string, listener: RendererListener) => {
          const wrapped = (payload: unknown) => listener({}, payload)
          listeners.set(listener, wrapped)
          window.webContents.rendererEvents.on(channel, wrapped)
        },
        removeListener: (channel: string, listener: RendererListener) => {
          const wrapped = listeners.get(listener)
          if (wrapped) window.webContents.rendererEvents.off(channel, wrapped)
        },
      },
      webUtils: {
        getPathForFile: (file: object) => this.droppedPaths.get(file) ?? '',
      },
    }
  }
}

class FakeApp extends EventEmitter {
  readonly isPackaged = false
  readonly #world: ElectronWorld
  constructor(world: ElectronWorld) {
    super()
    this.#world = world
  }
  getPath(name: string): string {
    if (name !== 'userData') throw new Error(`The stand-in knows only the userData path, not ${name}`)
    return this.#world.userDataDir
  }
  getVersion(): string {
    return '0.0.0-shell-test'
  }
  /** The system's language, as Electron reports it after ready (the tray's and notifications' words). */
  getLocale(): string {
    return 'en-US'
  }
  isReady(): boolean {
    return this.#world.ready
  }
  whenReady(): Promise<void> {
    return this.#world.whenReady()
  }
  requestSingleInstanceLock(): boolean {
    this.#world.calls.push('app:requestSingleInstanceLock')
    return this.#world.lockAvailable
  }
  setLoginItemSettings(settings: unknown): void {
    this.#world.loginItems.push(settings)
  }
  /** As Electron: before-quit (preventable), then will-quit (preventable), then the app is gone. */
  quit(): void {
    this.#world.calls.push('app:quit-requested')
    if (this.#world.quitted) return
    const beforeQuit = new PreventableEvent()
    this.emit('before-quit', beforeQuit)
    if (beforeQuit.defaultPrevented) return
    for (const window of this.#world.windows) window.close()
    const willQuit = new PreventableEvent()
    this.emit('will-quit', willQuit)
    if (willQuit.defaultPrevented) return
    this.#world.markQuit()
  }
}

export class FakeWebContents extends EventEmitter {
  static #nextId = 1
  readonly id = FakeWebContents.#nextId++
  /** What main sent to this page, in order. */
  readonly sent: { channel: string; payload: unknown }[] = []
  /** Page-side listeners of main's sends (used by the preload's ipcRenderer.on). */
  readonly rendererEvents = new EventEmitter()
  readonly printed: unknown[] = []
  windowOpenHandler?: (details: { url: string }) => { action: string }
  url = ''
  mainFrame: { url: string; parent: null } | null = null
  readonly #window: FakeBrowserWindow
  constructor(window: FakeBrowserWindow) {
    super()
    this.#window = window
  }
  getURL(): string {
    return this.url
  }
  isDestroyed(): boolean {
    return this.#window.destroyed
  }
  send(channel: string, payload: unknown): void {
    if (this.isDestroyed()) throw new Error('Object has been destroyed')
    const copy = structuredClone(payload)
    this.sent.push({ channel, payload: copy })
    this.rendererEvents.emit(channel, copy)
  }
  setWindowOpenHandler(handler: FakeWebContents['windowOpenHandler']): void {
    this.windowOpenHandler = handler
  }
  print(options: unknown, callback: (success: boolean, reason: string) => void): void {
    this.printed.push(options)
    callback(true, '')
  }
  async printToPDF(options: unknown): Promise<Buffer> {
    this.printed.push(options)
    return Buffer.from(`%PDF-1.7 stand-in of ${this.url.slice(0, 40)}`)
  }
}

export class FakeBrowserWindow extends EventEmitter {
  readonly options: Record<string, unknown> & { webPreferences?: Record<string, unknown> }
  readonly webContents: FakeWebContents
  readonly loaded: { url: string; status: number; body: string }[] = []
  visible = false
  focused = false
  minimized = false
  destroyed = false
  readonly #world: ElectronWorld

  constructor(world: ElectronWorld, options: FakeBrowserWindow['options'] = {}) {
    super()
    this.#world = world
    this.options = options
    this.webContents = new FakeWebContents(this)
    world.windows.push(this)
    world.calls.push('window:created')
    world.app.emit('web-contents-created', {}, this.webContents)
  }

  /** Loads as Electron would: app:// through the registered handler (unknown scheme otherwise). */
  async loadURL(url: string): Promise<void> {
    this.#world.calls.push(`window:loadURL:${url.slice(0, 30)}`)
    const scheme = url.slice(0, url.indexOf(':'))
    let status = 200
    let body = ''
    if (scheme === 'data') {
      body = decodeURIComponent(url.slice(url.indexOf(',') + 1))
    } else {
      const handler = this.#world.protocolHandlers.get(scheme)
      if (!handler) throw new Error(`ERR_UNKNOWN_URL_SCHEME (-302) loading '${url}'`)
      const response = await handler(new Request(url))
      status = response.status
      body = await response.text()
    }
    this.loaded.push({ url, status, body })
    this.webContents.url = url
    this.webContents.mainFrame = { url, parent: null }
    if (status !== 200) throw new Error(`ERR_HTTP_RESPONSE_CODE_FAILURE (-379) loading '${url}'`)
    setImmediate(() => this.emit('ready-to-show'))
  }

  show(): void {
    this.visible = true
    this.minimized = false
    this.emit('show')
  }
  hide(): void {
    this.visible = false
    this.focused = false
  }
  focus(): void {
    this.focused = true
  }
  minimize(): void {
    this.minimized = true
    this.focused = false
  }
  restore(): void {
    this.minimized = false
  }
  isVisible(): boolean {
    return this.visible
  }
  isMinimized(): boolean {
    return this.minimized
  }
  isDestroyed(): boolean {
    return this.destroyed
  }
  /** As the user closing it: 'close' may be prevented, else the window is gone. */
  close(): void {
    if (this.destroyed) return
    const event = new PreventableEvent()
    this.emit('close', event)
    if (!event.defaultPrevented) this.destroy()
  }
  destroy(): void {
    if (this.destroyed) return
    this.destroyed = true
    this.visible = false
    this.emit('closed')
  }
}

function bindBrowserWindow(world: ElectronWorld) {
  return class BrowserWindow extends FakeBrowserWindow {
    constructor(options?: FakeBrowserWindow['options']) {
      super(world, options)
    }
    static getAllWindows() {
      return world.windows.filter((w) => !w.destroyed)
    }
  }
}

export class FakeImage {
  readonly path: string
  readonly exists: boolean
  size?: { width: number; height: number }
  constructor(path: string) {
    this.path = path
    this.exists = existsSync(path)
  }
  resize(size: { width: number; height: number }): FakeImage {
    const resized = new FakeImage(this.path)
    resized.size = size
    return resized
  }
  isEmpty(): boolean {
    return !this.exists
  }
}

class FakeMenu {
  readonly items: MenuItem[]
  constructor(items: MenuItem[]) {
    this.items = items
  }
}

export class FakeTray extends EventEmitter {
  image: FakeImage
  tooltip = ''
  menu?: FakeMenu
  destroyed = false
  constructor(world: ElectronWorld, image: FakeImage) {
    super()
    this.image = image
    world.trays.push(this)
  }
  setImage(image: FakeImage): void {
    this.image = image
  }
  setToolTip(text: string): void {
    this.tooltip = text
  }
  setContextMenu(menu: FakeMenu): void {
    this.menu = menu
  }
  destroy(): void {
    this.destroyed = true
  }
}

export class FakeNotification extends EventEmitter {
  readonly options: { title: string; body: string; urgency?: string }
  constructor(options: FakeNotification['options']) {
    super()
    this.options = options
  }
}

function bindNotification(world: ElectronWorld) {
  return class Notification extends FakeNotification {
    static isSupported() {
      return true
    }
    show() {
      world.notifications.push(this)
    }
  }
}

// An encryptor that round-trips, reporting a real backend, so keys can be stored durably.
const fakeSafeStorage = {
  isAsyncEncryptionAvailable: async () => true,
  getSelectedStorageBackend: () => 'gnome_libsecret',
  encryptStringAsync: async (plain: string) => Buffer.from(`stand-in:${plain}`).reverse(),
  decryptStringAsync: async (encrypted: Buffer) => {
    const text = Buffer.from(encrypted).reverse().toString()
    if (!text.startsWith('stand-in:')) throw new Error('Error while decrypting the ciphertext provided')
    return { result: text.slice('stand-in:'.length), shouldReEncrypt: false }
  },
}

const MAIN_MODULE_EXPORTS = [
  'app',
  'BrowserWindow',
  'Tray',
  'Menu',
  'Notification',
  'nativeImage',
  'ipcMain',
  'powerMonitor',
  'protocol',
  'safeStorage',
  'session',
  'shell',
  'dialog',
] as const

/** The `electron` module the main bundle imports: each export reads the active world when used. */
export const electronMainModule: Record<string, unknown> = Object.defineProperties(
  {},
  Object.fromEntries(
    MAIN_MODULE_EXPORTS.map((name) => [
      name,
      { enumerable: true, get: () => activeWorld().mainModule()[name] },
    ]),
  ),
)
