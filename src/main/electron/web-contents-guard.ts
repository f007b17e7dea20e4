// Denies what the UI never needs: navigation away from the app, new windows, permission prompts.
// Only allow-listed https links, and links to the service this app runs on this computer (the local
// trial's mail), open, and they open in the user's browser.
import type { Session, WebContents } from 'electron'

const EXTERNAL_LINK_HOSTS = new Set(['github.com', 'c2sp.org'])

export function isAllowedExternalLink(url: string): boolean {
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'https:' && EXTERNAL_LINK_HOSTS.has(parsed.hostname)
  } catch {
    return false
  }
}

/**
 * A link to a page of the Vault Service this app runs on this computer (its address now, or null): the
 * links in "Mail from the local trial", which the owner follows as the guardian or heir would.
 */
export function isLocalServiceLink(url: string, localServiceUrl: string | null): boolean {
  if (!localServiceUrl) return false
  try {
    const parsed = new URL(url)
    return (
      (parsed.protocol === 'http:' || parsed.protocol === 'https:') &&
      parsed.origin === new URL(localServiceUrl).origin
    )
  } catch {
    return false
  }
}

export function guardWebContents(
  contents: Pick<WebContents, 'on' | 'setWindowOpenHandler' | 'getURL'>,
  openExternal: (url: string) => void,
  localServiceUrl: () => string | null = () => null,
): void {
  contents.on('will-navigate', (event, url) => {
    if (url !== contents.getURL()) event.preventDefault()
  })
  contents.on('will-redirect', (event) => event.preventDefault())
  contents.on('will-attach-webview', (event) => event.preventDefault())
  contents.setWindowOpenHandler(({ url }) => {
    if (isAllowedExternalLink(url) || isLocalServiceLink(url, localServiceUrl())) openExternal(url)
    return { action: 'deny' }
  })
}

/** The one permission the UI uses: writing text to the clipboard ("Copy" of a storage id). Never reading it. */
const ALLOWED_PERMISSIONS = new Set(['clipboard-sanitized-write'])

export function denyAllPermissions(
  session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>,
): void {
  session.setPermissionRequestHandler((_contents, permission, callback) =>
    callback(ALLOWED_PERMISSIONS.has(permission)),
  )
  session.setPermissionCheckHandler((_contents, permission) => ALLOWED_PERMISSIONS.has(permission))
}
