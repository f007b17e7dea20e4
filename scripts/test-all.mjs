// `npm test`: every check, in order, with a summary. Exits non-zero if any step failed.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { electronBinaryPath } from './electron-binary.mjs'
import { makeNativeModulesLoadable } from './native-modules.mjs'

const node = process.execPath

// Ctrl-C reaches the running step's processes too. This script only notices once the step returns
// (spawnSync blocks its event loop), from how the step ended; then it stops, but still runs the
// `always` steps.
let interrupted = false
process.on('SIGINT', () => {
  interrupted = true
})

/** A step that runs a command; it passes when the command exits 0. */
const command = (name, file, args, env = {}) => ({
  name,
  run: () => {
    const result = spawnSync(file, args, { stdio: 'inherit', env: { ...process.env, ...env } })
    // 130 = 128 + SIGINT: how shells and npx report a child stopped by Ctrl-C.
    if (result.signal === 'SIGINT' || result.status === 130) interrupted = true
    return result.status === 0
  },
})

/** A step that makes keytar and better-sqlite3 loadable by one runtime, rebuilding them only if needed. */
const nativeModulesFor = (runtime, name, options = {}) => ({
  name,
  ...options,
  run: () => {
    const result = makeNativeModulesLoadable(runtime)
    if (!result.ok) console.error(result.message)
    return result.ok
  },
})

/** Debian's PostgreSQL (what test/service/postgres-server.ts starts), or a server named by the environment. */
const postgresInstalled =
  Boolean(process.env.VAULT_TEST_POSTGRES_URL) ||
  (existsSync('/usr/lib/postgresql') &&
    readdirSync('/usr/lib/postgresql').some((version) =>
      existsSync(`/usr/lib/postgresql/${version}/bin/initdb`),
    ))
/** The service suites that speak only HTTP and the store (not SQLite files, backups or the CLI's data folder). */
const SERVICE_SUITES_ON_POSTGRES = [
  'conformance',
  'extensions',
  'rehearsal',
  'scheduler',
  'check-in-reminder',
  'concurrency',
  'validation',
  'mail',
  'mail-test',
  'faults',
  'health',
].map((name) => `test/service/${name}.test.ts`)

const steps = [
  command('typecheck (node: main, preload, service, unit tests)', node, [
    'node_modules/typescript/bin/tsc',
    '-p',
    'tsconfig.node.json',
  ]),
  command('typecheck (web: renderer)', node, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.web.json']),
  // The vault format alone, without Node's types: it must run in a browser too.
  command('typecheck (vault format, no Node)', node, [
    'node_modules/typescript/bin/tsc',
    '-p',
    'tsconfig.vault-format.json',
  ]),
  // The heir's recovery page: browser typings only.
  command('typecheck (recovery page, no Node)', node, [
    'node_modules/typescript/bin/tsc',
    '-p',
    'tsconfig.recovery-page.json',
  ]),
  command('typecheck (browser journeys: Node and page code)', node, [
    'node_modules/typescript/bin/tsc',
    '-p',
    'tsconfig.e2e.json',
  ]),
  command('lint and format', 'npx', ['biome', 'check', '.']),
  // The service's interface description, as it serves it at /api/openapi.json (rules: redocly.yaml).
  command('OpenAPI document lint (Redocly)', node, ['scripts/lint-openapi.mjs']),
  command('build (electron-vite)', node, ['node_modules/electron-vite/bin/electron-vite.js', 'build']),
  command('build (command-line tools)', node, ['scripts/build-cli.mjs']),
  // The heir's recovery page (one HTML file and its SHA-256), for its journeys, the kits and pack:recovery.
  command('build (recovery page)', node, ['scripts/build-recovery-page.mjs']),
  // The native AES-GCM (its tests say skipped without it); under CI it must build: .ci/run installs libssl-dev.
  command('build (native AES-GCM)', node, [
    'scripts/build-native-cipher.mjs',
    ...(process.env.CI ? ['--required'] : []),
  ]),
  // `npm start` may have left them built for Electron.
  nativeModulesFor('node', 'native modules loadable by Node'),
  // Unit, service and integration tests; keytar tests talk to a real Secret Service in a private D-Bus session.
  command('unit and integration tests (vitest)', 'sh', ['scripts/with-keyring.sh', 'npx', 'vitest', 'run']),
  // The same API suites against the service keeping its state in PostgreSQL (a throwaway cluster per file).
  ...(postgresInstalled
    ? [
        command(
          'service API suites on PostgreSQL (vitest)',
          'npx',
          ['vitest', 'run', ...SERVICE_SUITES_ON_POSTGRES],
          { VAULT_TEST_STORE: 'postgres' },
        ),
      ]
    : []),
  // Inside a private keyring session too: journeys that need durable key storage run with the keychain.
  command('end-to-end in Chromium (browser mode)', 'sh', [
    'scripts/with-keyring.sh',
    'npx',
    'playwright',
    'test',
    '--project',
    'browser-mode',
  ]),
]
/**
 * Electron opens real windows: on a Linux machine without a display (CI, a server) the suite runs
 * under xvfb-run; without it, Electron says "Missing X server or $DISPLAY" and the step fails.
 */
function virtualDisplay() {
  if (process.platform !== 'linux' || process.env.DISPLAY || process.env.WAYLAND_DISPLAY) return []
  if (spawnSync('sh', ['-c', 'command -v xvfb-run']).status === 0) return ['xvfb-run', '--auto-servernum']
  console.error(
    'No display for Electron and no xvfb-run: set DISPLAY or install Xvfb (apt-get install xvfb).',
  )
  return []
}

const electron = electronBinaryPath()
if (electron) {
  steps.push(
    // The desktop app loads the modules into Electron: Node-built ones would fail there.
    nativeModulesFor('electron', 'native modules rebuilt for Electron', { blocks: 'end-to-end in Electron' }),
    // In a keyring session like the browser journeys; the tray and notifications use that D-Bus session too.
    command('end-to-end in Electron', 'sh', [
      'scripts/with-keyring.sh',
      ...virtualDisplay(),
      'npx',
      'playwright',
      'test',
      '--project',
      'electron',
    ]),
    // Always, even after a failure or Ctrl-C: the next `npm test` or `npx vitest` runs in Node.
    nativeModulesFor('node', 'native modules back for Node', { always: true }),
  )
}

const results = []
const blocked = new Set()
for (const step of steps) {
  if ((interrupted && !step.always) || blocked.has(step.name)) {
    results.push({ name: step.name, status: 'not run' })
    continue
  }
  console.log(`\n=== ${step.name}`)
  const started = Date.now()
  const ok = step.run()
  if (!ok && step.blocks) blocked.add(step.blocks)
  results.push({
    name: step.name,
    status: ok ? 'pass' : 'FAIL',
    seconds: ((Date.now() - started) / 1000).toFixed(1),
  })
}

console.log('\n=== summary')
for (const { name, status, seconds } of results) {
  console.log(`${status.padEnd(7)} ${name}${seconds ? ` (${seconds} s)` : ''}`)
}
if (!electron) {
  console.log(
    'skipped: Electron binary not installed (end-to-end in Electron runs where node_modules/electron/dist exists)',
  )
}
if (!postgresInstalled) {
  console.log(
    'skipped: PostgreSQL not installed (apt-get install postgresql, as .ci/run does; or set VAULT_TEST_POSTGRES_URL): the service suites ran on SQLite only, and the PostgreSQL tests said skipped',
  )
}
if (interrupted) console.log('interrupted: the steps marked "not run" did not run')
process.exit(results.every((result) => result.status === 'pass') ? 0 : 1)
