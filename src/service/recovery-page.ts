// The heir's recovery page (one self-contained HTML file, built by scripts/build-recovery-page.mjs into
// out/recovery-page/vault-recovery.html) served at GET /recover, so an heir with nothing installed can
// open it from the address in the release e-mail; and the CORS a copy opened from file:// needs to read
// the released vault with the heir code. Served from the service, the page could be any page the
// service chooses to send: its SHA-256 travels in a header and is printed in the e-mail, RECOVERY.md
// and the kits, so the heir can check the copy in hand (docs/RECOVERY.md).
import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { API_PREFIXES } from '../shared/api'
import type { ServiceContext } from './context'

/** Where the page is served: fixed, so the e-mail, the kits and RECOVERY.md can name it. */
export const RECOVERY_PAGE_PATH = '/recover'

/** The built page's file name (A1's build writes it and `<name>.sha256` beside it). */
export const RECOVERY_PAGE_FILE = 'vault-recovery.html'

/** The heir-readable endpoints a page from another origin (file://, whose Origin is "null") may call. */
const HEIR_READ_PATHS = ['/vault/:id', '/vault/:id/asset', '/vault/:id/asset/:aid/content']

/**
 * Where this service runs from (out/cli, out/main, or src/service under the tests) and a packaged app's
 * resources: the page is looked for upward from there, in out/recovery-page/ or recovery-page/.
 */
function startFolders(): string[] {
  const resources = (process as { resourcesPath?: string }).resourcesPath
  return [dirname(fileURLToPath(import.meta.url)), ...(resources ? [resources] : [])]
}

async function isFile(path: string): Promise<boolean> {
  return stat(path)
    .then((s) => s.isFile())
    .catch(() => false)
}

/** The built page's path, or undefined when it was not built. */
export async function findRecoveryPage(
  starts: readonly string[] = startFolders(),
): Promise<string | undefined> {
  for (const start of starts) {
    let dir = start
    for (let up = 0; up < 6; up++) {
      for (const candidate of [
        join(dir, 'out/recovery-page', RECOVERY_PAGE_FILE),
        join(dir, 'recovery-page', RECOVERY_PAGE_FILE),
      ]) {
        if (await isFile(candidate)) return candidate
      }
      const parent = dirname(dir)
      if (parent === dir) break
      dir = parent
    }
  }
  return undefined
}

export interface RecoveryPage {
  path: string
  html: Buffer
  /** SHA-256 of exactly these bytes, lowercase hex. */
  sha256Hex: string
}

let cached: { path: string; mtimeMs: number; size: number; page: RecoveryPage } | undefined

/** The page this service serves (its configured file, else the built one), read fresh when it changed. */
export async function loadRecoveryPage(
  ctx: Pick<ServiceContext, 'recoveryPageFile'>,
): Promise<RecoveryPage | undefined> {
  const path = ctx.recoveryPageFile ?? (await findRecoveryPage())
  if (!path) return undefined
  const info = await stat(path).catch(() => undefined)
  if (!info?.isFile()) return undefined
  if (cached && cached.path === path && cached.mtimeMs === info.mtimeMs && cached.size === info.size)
    return cached.page
  const html = await readFile(path)
  // Computed from the bytes served, never taken from a file beside them: the header and the e-mail
  // say what this service actually sends.
  const page = { path, html, sha256Hex: createHash('sha256').update(html).digest('hex') }
  cached = { path, mtimeMs: info.mtimeMs, size: info.size, page }
  return page
}

const base64Sha256 = (text: string) =>
  `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`

/**
 * The policy the served page runs under. The page's own policy (its <meta> CSP) with connect-src
 * narrowed to 'self' (served here, it reads only this service) and framing refused; a page without
 * one gets a policy allowing exactly its inline scripts and styles by hash.
 */
export function servedPagePolicy(html: string): string {
  const meta = /<meta\s+http-equiv=["']Content-Security-Policy["']\s+content=(["'])(.*?)\1/is.exec(html)?.[2]
  const directives = new Map<string, string>()
  if (meta) {
    for (const part of meta.replaceAll('&#39;', "'").replaceAll('&quot;', '"').split(';')) {
      const [name, ...values] = part.trim().split(/\s+/)
      if (name) directives.set(name.toLowerCase(), values.join(' '))
    }
  } else {
    const inline = (tag: string) =>
      [...html.matchAll(new RegExp(`<${tag}(?![^>]*\\ssrc=)[^>]*>([\\s\\S]*?)</${tag}>`, 'gi'))].map((m) =>
        base64Sha256(m[1] ?? ''),
      )
    directives.set('default-src', "'none'")
    directives.set('script-src', inline('script').join(' ') || "'none'")
    directives.set('style-src', inline('style').join(' ') || "'none'")
    directives.set('img-src', 'data: blob:')
    directives.set('media-src', 'blob: mediastream:')
  }
  directives.set('connect-src', "'self'")
  directives.set('base-uri', "'none'")
  directives.set('form-action', "'none'")
  directives.set('object-src', "'none'")
  directives.set('frame-ancestors', "'none'")
  return [...directives].map(([name, value]) => `${name} ${value}`.trim()).join('; ')
}

/** The answer when the page was not built: what it is, and how the operator builds it. */
const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Recovery page not available</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1d2430}code{background:#eef1f6;padding:0 .25rem}</style>
</head><body>
<h1>The recovery page is not available here</h1>
<p>This Vault Service does not have the heir's recovery page. Its operator builds it from the Vault Desktop sources with <code>node scripts/build-recovery-page.mjs</code> (it is written to <code>out/recovery-page/vault-recovery.html</code>); the next visit serves it, without a restart.</p>
<p>Heirs: you can still recover with the Vault Desktop app or the command-line tool, as the e-mail explains, or with a copy of the recovery page from the owner's encrypted export or the recovery tool's package.</p>
<hr>
<p lang="es">Este servicio no tiene la página de recuperación. Su operador la genera con <code>node scripts/build-recovery-page.mjs</code>. Puede recuperar igualmente con la aplicación Vault Desktop o la herramienta de línea de órdenes, como explica el correo.</p>
</body></html>`

/** GET /recover: the built page with its own policy and its SHA-256, or a page saying how to build it. */
export function registerRecoveryPage(app: FastifyInstance, ctx: ServiceContext): void {
  app.get(RECOVERY_PAGE_PATH, async (_request, reply) => {
    reply
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      .header('x-content-type-options', 'nosniff')
      .header('cross-origin-opener-policy', 'same-origin')
    const page = await loadRecoveryPage(ctx)
    if (!page) {
      return reply
        .code(404)
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header(
          'content-security-policy',
          `default-src 'none'; style-src ${base64Sha256(/<style>([\s\S]*?)<\/style>/.exec(NOT_BUILT)![1]!)}; frame-ancestors 'none'`,
        )
        .send(NOT_BUILT)
    }
    return (
      reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('content-security-policy', servedPagePolicy(page.html.toString('utf8')))
        // Checked with the service on every visit, so a rebuilt page is never served stale from a cache.
        .header('cache-control', 'no-cache')
        .header('x-content-sha256', page.sha256Hex)
        .send(page.html)
    )
  })
}

/**
 * The CORS a recovery page opened from file:// (Origin "null") or another origin needs to read a
 * released vault with the heir code: on the three heir-readable GETs only, any origin, never with
 * credentials (the code travels in the x-api-key header, which no other page has), preflight for
 * x-api-key and Range. Every other endpoint, the owner's, answers no CORS at all.
 */
export function allowHeirReadsFromPages(app: FastifyInstance): void {
  const urls = new Set(API_PREFIXES.flatMap((prefix) => HEIR_READ_PATHS.map((path) => `${prefix}${path}`)))
  app.addHook('onRequest', (request, reply, done) => {
    // Set before authentication, so a refused code (401, 403, 429) is readable by the page too.
    if ((request.method === 'GET' || request.method === 'HEAD') && urls.has(request.routeOptions.url ?? '')) {
      reply
        .header('access-control-allow-origin', '*')
        .header('access-control-expose-headers', 'content-range, retry-after, x-request-id')
    }
    done()
  })
  for (const url of urls) {
    app.options(url, (_request, reply) =>
      reply
        .code(204)
        .header('access-control-allow-origin', '*')
        .header('access-control-allow-methods', 'GET')
        .header('access-control-allow-headers', 'x-api-key, range')
        .header('access-control-max-age', '600')
        .send(),
    )
  }
}
