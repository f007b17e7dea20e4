// The built renderer's files, for both ways the UI is served: the desktop's app:// protocol and browser
// mode's loopback HTTP server. One confinement rule, one set of headers and one CSP for both.
import { readFile, stat } from 'node:fs/promises'
import { extname, join, resolve, sep } from 'node:path'

/** The desktop window's origin: a standard, secure scheme that serves only the renderer folder. */
export const APP_SCHEME = 'app'
export const APP_HOST = 'vault'
export const APP_PAGE_URL = `${APP_SCHEME}://${APP_HOST}/index.html`

// 'self' is one origin (app://vault, or browser mode's loopback port) that serves nothing but the
// renderer folder; under file:// it would have meant every file on the disk.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
}

export interface RendererFile {
  path: string
  size: number
  headers: Record<string, string>
}

/** The decoded path of a request URL, or undefined when it cannot be decoded (e.g. `/%E0`). */
export function decodedRequestPath(url: string | undefined): string | undefined {
  const parsed = URL.parse(url ?? '/', 'http://localhost')
  if (!parsed) return undefined
  try {
    return decodeURIComponent(parsed.pathname)
  } catch {
    return undefined
  }
}

/** The regular file under `rendererDir` that `pathname` names, or undefined (outside it, missing, a folder). */
export async function findRendererFile(
  rendererDir: string,
  pathname: string,
): Promise<RendererFile | undefined> {
  const root = resolve(rendererDir)
  const path = resolve(join(root, pathname === '/' ? 'index.html' : pathname))
  if (!path.startsWith(root + sep)) return undefined
  const info = await stat(path).catch(() => undefined)
  if (!info?.isFile()) return undefined
  return {
    path,
    size: info.size,
    headers: {
      'content-type': CONTENT_TYPES[extname(path)] ?? 'application/octet-stream',
      'content-length': String(info.size),
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    },
  }
}

/**
 * The answer to an app:// request (Electron's protocol.handle): a renderer file for GET or HEAD of
 * app://vault/…, else 404/405. Anything that is not the renderer folder is simply not there.
 */
export async function appProtocolResponse(
  request: { url: string; method: string },
  rendererDir: string,
): Promise<Response> {
  const notFound = () =>
    new Response('Not found.', { status: 404, headers: { 'content-type': 'text/plain' } })
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405 })
  const url = URL.parse(request.url)
  if (!url || url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return notFound()
  const pathname = decodedRequestPath(url.pathname)
  if (pathname === undefined) return notFound()
  const file = await findRendererFile(rendererDir, pathname)
  if (!file) return notFound()
  const body = request.method === 'HEAD' ? null : await readFile(file.path)
  return new Response(body, { status: 200, headers: file.headers })
}
