// The renderer is served from app://vault/, not file://: the page gets one origin of its own that holds
// only the renderer folder, so file:// needs no extra privileges (the GrantFileProtocolExtraPrivileges
// fuse is off) and CSP 'self' no longer means the whole disk.
import { protocol } from 'electron'
import { APP_SCHEME, appProtocolResponse } from '../renderer-files'

/** Must run before the app is ready (Electron allows it once). */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    // standard: relative URLs and a real origin; secure: treated like https (no mixed-content downgrade).
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ])
}

/** After ready: answers app:// requests of the default session from the built renderer folder. */
export function serveAppProtocol(rendererDir: string): void {
  protocol.handle(APP_SCHEME, (request) => appProtocolResponse(request, rendererDir))
}
