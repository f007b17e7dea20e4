// `npm start`: build, then run the desktop app; without the Electron binary, run browser mode.
import { spawn, spawnSync } from 'node:child_process'
import { buildNativeCipher } from './build-native-cipher.mjs'
import { electronBinaryPath } from './electron-binary.mjs'
import { ensureNativeModules } from './native-modules.mjs'

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit' })
  if (result.status !== 0) process.exit(result.status ?? 1)
}

run(process.execPath, ['node_modules/electron-vite/bin/electron-vite.js', 'build'])
// Never a stop: without it the app seals with node:crypto, and the message says why.
console.log(buildNativeCipher().message)
const electron = electronBinaryPath()
let child
// keytar and better-sqlite3 load into whichever runtime runs the app: rebuilt for it if they cannot.
if (electron) {
  ensureNativeModules('electron')
  child = spawn(electron, ['.', ...process.argv.slice(2)], { stdio: 'inherit' })
} else {
  run(process.execPath, ['scripts/build-cli.mjs', 'browser-mode'])
  ensureNativeModules('node')
  console.log(
    'The Electron binary is not installed, so Vault Desktop starts in browser mode: open the link below.',
  )
  child = spawn(process.execPath, ['out/cli/browser-mode.js', ...process.argv.slice(2)], { stdio: 'inherit' })
}

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code) => process.exit(code ?? 0))
