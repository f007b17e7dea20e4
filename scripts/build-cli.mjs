// Bundles the command-line entry points (service, recovery tool, browser mode) to out/cli for plain Node.
// esbuild takes well under a second, so the npm scripts build on every run instead of tracking staleness.
import { existsSync } from 'node:fs'
import { build } from 'esbuild'
import { externalExceptBundled } from './bundled-dependencies.mjs'
import { ensureNativeModules } from './native-modules.mjs'
import { NODE_CIPHER_WORKERS } from './node-cipher-workers.mjs'

const entryPoints = {
  service: 'src/service/cli.ts',
  recover: 'src/recovery/cli.ts',
  'browser-mode': 'src/main/browser/browser-mode.ts',
}

// `node scripts/build-cli.mjs service` builds one entry; no argument builds them all.
const wanted = process.argv.slice(2)
const unknown = wanted.filter((name) => !(name in entryPoints))
if (unknown.length > 0) {
  console.error(`Unknown entry ${unknown.join(', ')}; choose from ${Object.keys(entryPoints).join(', ')}.`)
  process.exit(2)
}
const selected = Object.fromEntries(
  Object.entries(entryPoints).filter(([name]) => wanted.length === 0 || wanted.includes(name)),
)

const missing = Object.entries(selected).filter(([, file]) => !existsSync(file))
if (missing.length > 0) {
  console.error(`Cannot build: ${missing.map(([, file]) => file).join(', ')} missing from this checkout.`)
  process.exit(1)
}

await build({
  // The worker threads' modules, beside the tools that start them (always: they take milliseconds).
  entryPoints: { ...selected, ...NODE_CIPHER_WORKERS },
  outdir: 'out/cli',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  plugins: [externalExceptBundled],
  sourcemap: true,
  logLevel: 'warning',
})

// The command-line tools run on Node, so the native modules must be built for it.
ensureNativeModules('node')
