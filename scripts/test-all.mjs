// `npm test`: every check, in order, with a summary. Exits non-zero if any step failed.
import { spawnSync } from 'node:child_process'
import { electronBinaryPath } from './electron-binary.mjs'

const node = process.execPath
const steps = [
  [
    'typecheck (node: main, preload, service, tests)',
    node,
    ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.node.json'],
  ],
  ['typecheck (web: renderer)', node, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.web.json']],
  ['lint and format', 'npx', ['biome', 'check', '.']],
  ['build (electron-vite)', node, ['node_modules/electron-vite/bin/electron-vite.js', 'build']],
  ['build (command-line tools)', node, ['scripts/build-cli.mjs']],
  // Unit, service and integration tests; keytar tests talk to a real Secret Service in a private D-Bus session.
  ['unit and integration tests (vitest)', 'sh', ['scripts/with-keyring.sh', 'npx', 'vitest', 'run']],
  // Inside a private keyring session too: journeys that need durable key storage run with the keychain.
  [
    'end-to-end in Chromium (browser mode)',
    'sh',
    ['scripts/with-keyring.sh', 'npx', 'playwright', 'test', '--project', 'browser-mode'],
  ],
]
if (electronBinaryPath()) {
  steps.push(['end-to-end in Electron', 'npx', ['playwright', 'test', '--project', 'electron']])
}

const results = []
for (const [name, command, args] of steps) {
  console.log(`\n=== ${name}`)
  const started = Date.now()
  const { status } = spawnSync(command, args, { stdio: 'inherit' })
  results.push({ name, ok: status === 0, seconds: ((Date.now() - started) / 1000).toFixed(1) })
}

console.log('\n=== summary')
for (const { name, ok, seconds } of results) console.log(`${ok ? 'pass' : 'FAIL'}  ${name} (${seconds} s)`)
if (!electronBinaryPath()) {
  console.log(
    'skipped: Electron binary not installed (end-to-end in Electron runs where node_modules/electron/dist exists)',
  )
}
process.exit(results.every((result) => result.ok) ? 0 : 1)
