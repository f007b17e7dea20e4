// Which page may call IPC handlers; kept free of electron imports so it can be unit tested.

/** True when `frameUrl` is the app's own page (same file or dev-server origin), never remote content. */
export function isTrustedRendererUrl(frameUrl: string, rendererUrl: string): boolean {
  try {
    const frame = new URL(frameUrl)
    const app = new URL(rendererUrl)
    if (app.protocol === 'file:') return frame.protocol === 'file:' && frame.pathname === app.pathname
    return frame.origin === app.origin
  } catch {
    return false
  }
}
