// Builds the heir's recovery page: src/recovery-page bundled by esbuild and inlined with its styles into
// one HTML file, out/recovery-page/vault-recovery.html, under a strict Content-Security-Policy in a
// <meta> (the inline script and style allowed by their SHA-256 only; connections only where the remote
// sources go; nothing else). Writes vault-recovery.html.sha256 beside it (sha256sum's format: the
// kits, the heir e-mail, RECOVERY.md and pack:recovery read it) and prints the SHA-256.
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const OUT_DIR = join(ROOT, 'out/recovery-page')
export const PAGE_FILE = 'vault-recovery.html'

const sha256Base64 = (text) => createHash('sha256').update(text, 'utf8').digest('base64')

/** The connect-src the remote sources need, as src/recovery-page/remote-sources.ts states it. */
function connectSources() {
  const text = readFileSync(join(ROOT, 'src/recovery-page/remote-sources.ts'), 'utf8')
  const found = /REMOTE_CONNECT_SOURCES\s*=\s*\[([^\]]*)\]/.exec(text)
  if (!found)
    throw new Error(
      'remote-sources.ts no longer states REMOTE_CONNECT_SOURCES: the page would get no connect-src.',
    )
  const sources = [...found[1].matchAll(/'([^']+)'/g)].map((m) => m[1])
  if (
    sources.length === 0 ||
    sources.some((s) => !/^(https:|http:\/\/(127\.0\.0\.1|localhost):\*)$/.test(s))
  ) {
    throw new Error(`Unexpected connect sources for the recovery page: ${sources.join(' ')}`)
  }
  return sources
}

export async function buildRecoveryPage() {
  const result = await build({
    entryPoints: [join(ROOT, 'src/recovery-page/main.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: ['chrome109', 'firefox115', 'safari16'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  })
  // A "</script" inside the code would end the element early.
  const script = result.outputFiles[0].text.replaceAll('</script', '<\\/script')
  const style = readFileSync(join(ROOT, 'src/recovery-page/page.css'), 'utf8')
  const csp = [
    "default-src 'none'",
    `script-src 'sha256-${sha256Base64(script)}'`,
    `style-src 'sha256-${sha256Base64(style)}'`,
    'img-src blob: data:',
    'media-src blob:',
    `connect-src ${connectSources().join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ')
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Vault recovery</title>
<style>${style}</style>
</head>
<body>
<noscript>This page needs JavaScript to decrypt the files in this browser. / Esta página necesita JavaScript para descifrar los archivos en este navegador.</noscript>
<script>${script}</script>
</body>
</html>
`
  mkdirSync(OUT_DIR, { recursive: true })
  const file = join(OUT_DIR, PAGE_FILE)
  writeFileSync(file, html)
  const hex = createHash('sha256').update(html, 'utf8').digest('hex')
  writeFileSync(`${file}.sha256`, `${hex}  ${PAGE_FILE}\n`)
  return { file, sha256: hex, bytes: Buffer.byteLength(html) }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = await buildRecoveryPage()
  console.log(`Recovery page: ${built.file} (${(built.bytes / 1024).toFixed(0)} KiB)`)
  console.log(`SHA-256: ${built.sha256}`)
}
