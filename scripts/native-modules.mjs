// keytar and better-sqlite3 are compiled for one runtime at a time: `npm install` builds them for Node
// (tests, the service CLI, browser mode); the desktop app needs them rebuilt against Electron's headers.
// A marker in node_modules records the current target so switching back and forth rebuilds only when needed.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'

const MARKER = 'node_modules/.vault-native-runtime'
const NATIVE_MODULES = ['better-sqlite3', 'keytar']

function currentTarget() {
  return existsSync(MARKER) ? readFileSync(MARKER, 'utf8').trim() : 'node'
}

/** @param {'node' | 'electron'} target */
export function ensureNativeModules(target) {
  if (currentTarget() === target) return
  console.log(`Rebuilding native modules (${NATIVE_MODULES.join(', ')}) for ${target}…`)
  const command =
    target === 'electron'
      ? ['npx', ['electron-builder', 'install-app-deps']]
      : ['npm', ['rebuild', ...NATIVE_MODULES]]
  const result = spawnSync(command[0], command[1], { stdio: 'inherit' })
  if (result.status !== 0) {
    console.error(
      `Could not rebuild native modules for ${target}; run "${command[0]} ${command[1].join(' ')}" to see why.`,
    )
    process.exit(1)
  }
  writeFileSync(MARKER, `${target}\n`)
}
