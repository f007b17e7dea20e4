// Which page the window loads and which page may call IPC handlers; kept free of electron imports so
// it can be unit tested.

/**
 * True when `frameUrl` is the app's own page: the same scheme and host as the renderer URL
 * (app://vault, or the loopback dev server's origin). Never file://, never remote content.
 */
export function isTrustedRendererUrl(frameUrl: string, rendererUrl: string): boolean {
  const frame = URL.parse(frameUrl)
  const app = URL.parse(rendererUrl)
  if (!frame || !app || app.protocol === 'file:' || !app.host) return false
  // Compared by parts: URL.origin is "null" for schemes Node does not know, such as app:.
  return frame.protocol === app.protocol && frame.host === app.host
}

/**
 * The page to load: the built page on app://, or electron-vite's dev server (ELECTRON_RENDERER_URL) only in an
 * unpackaged development run and only on loopback. A packaged app never trusts an environment variable
 * to choose the origin its IPC check then accepts.
 */
export function chooseRendererUrl(options: {
  isPackaged: boolean
  devServerUrl: string | undefined
  builtPageUrl: string
}): string {
  const { isPackaged, devServerUrl, builtPageUrl } = options
  if (isPackaged || !devServerUrl) return builtPageUrl
  const dev = URL.parse(devServerUrl)
  const loopback = dev && ['localhost', '127.0.0.1', '[::1]'].includes(dev.hostname)
  return dev && dev.protocol === 'http:' && loopback ? dev.href : builtPageUrl
}

/** What ipcMain knows of a caller, reduced to what the check needs. */
export interface IpcCaller {
  /** The caller is the main window's web contents. */
  fromMainWindow: boolean
  /** The calling frame is the top-level frame of that page (not an iframe). */
  topFrame: boolean
  frameUrl: string
}

/** Null when the caller may use IPC, else the reason it is refused (for the log). */
export function ipcRefusal(caller: IpcCaller, rendererUrl: string): string | null {
  if (!caller.fromMainWindow) return 'not the main window'
  if (!caller.topFrame) return 'a sub-frame, not the top-level page'
  if (!isTrustedRendererUrl(caller.frameUrl, rendererUrl)) return 'a page other than the app'
  return null
}
