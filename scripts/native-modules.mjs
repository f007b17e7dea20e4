// keytar and better-sqlite3 are compiled for one runtime at a time: `npm install` builds them for Node
// (tests, the service CLI, browser mode); the desktop app needs them rebuilt against Electron's headers.
// Nothing is trusted about what was built last: the runtime itself is asked to load each module, they are
// rebuilt only when it cannot, and asked again afterwards. A rebuild can "succeed" and still produce the
// wrong thing (an npm `nodedir` setting makes node-gyp use Node's headers for an Electron build).
//
//   node scripts/native-modules.mjs            which runtime loads what
//   node scripts/native-modules.mjs electron   make them loadable by Electron (or node)
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { electronBinaryPath } from './electron-binary.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

// How to load each module for real: better-sqlite3 loads its addon only when a database is opened.
const LOADERS = {
  'better-sqlite3': "new (require('better-sqlite3'))(':memory:').close()",
  keytar: "require('keytar')",
}
export const NATIVE_MODULES = Object.keys(LOADERS)

// Runs inside the runtime being checked (Node, or Electron as Node) and prints one JSON line.
const PROBE = `
const result = { abi: process.versions.modules, version: process.versions.electron || process.versions.node, modules: {} }
const loaders = { ${Object.entries(LOADERS)
  .map(([name, code]) => `${JSON.stringify(name)}: () => ${code}`)
  .join(', ')} }
for (const name of Object.keys(loaders)) {
  try {
    loaders[name]()
    result.modules[name] = { loads: true }
  } catch (error) {
    result.modules[name] = { loads: false, error: String(error && error.message).replace(/\\s+/g, ' ').trim() }
  }
}
process.stdout.write(JSON.stringify(result) + '\\n')
`

const RUNTIME_NAMES = { node: 'Node', electron: 'Electron' }

// What rebuilds the modules for each runtime. The Electron rebuild runs electron-builder directly, not
// through npx, and without npm's `nodedir`: npm exports it to children as npm_config_nodedir, and
// node-gyp would then build against those (Node's) headers instead of downloading Electron's.
export const REBUILDS = {
  node: {
    command: 'npm',
    args: ['rebuild', ...NATIVE_MODULES],
    dropEnv: [],
    needs: 'a C++ toolchain (python3, make, g++) and the headers of the Node that runs it',
  },
  electron: {
    command: 'node',
    args: ['node_modules/electron-builder/cli.js', 'install-app-deps'],
    dropEnv: ['npm_config_nodedir'],
    needs: "a C++ toolchain and Electron's headers, which node-gyp downloads from electronjs.org",
  },
}

/** @param {keyof typeof REBUILDS} target */
export function rebuildCommandLine(target) {
  const { command, args } = REBUILDS[target]
  return [command, ...args].join(' ')
}

/**
 * The NODE_MODULE_VERSION the modules must be built for: the running Node's, or the one the installed
 * electron package declares (the binary is checked against it, so a stray binary is caught too).
 * @param {'node' | 'electron'} target
 */
export function expectedAbi(target) {
  if (target === 'node') return process.versions.modules
  const file = join(root, 'node_modules', 'electron', 'abi_version')
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined
}

/**
 * Asks a runtime which native modules it can load.
 * @param {'node' | 'electron'} target
 * @param {string | undefined} electronBinary
 */
export function probeNativeModules(target, electronBinary = electronBinaryPath()) {
  const executable = target === 'node' ? process.execPath : electronBinary
  if (!executable)
    return { error: 'the Electron binary is not installed (node_modules/electron/dist is missing)' }
  const env = { ...process.env }
  if (target === 'electron') env.ELECTRON_RUN_AS_NODE = '1'
  const result = spawnSync(executable, ['-e', PROBE], { cwd: root, env, encoding: 'utf8', timeout: 60_000 })
  const line = result.stdout?.trim().split('\n').pop()
  try {
    if (result.status === 0 && line) return JSON.parse(line)
  } catch {
    // Reported below with what the runtime printed.
  }
  const output = `${result.error?.message ?? ''} ${result.stderr ?? ''} ${result.stdout ?? ''}`.trim()
  return { error: `${executable} exited with ${result.status ?? result.signal}: ${output.slice(0, 500)}` }
}

/** Why a module did not load, short: the ABI mismatch Node's loader reports, "not built", or its message. */
function whyNotLoaded(error, runtimeName) {
  const abi = /NODE_MODULE_VERSION (\d+)\. This version of Node\.js requires NODE_MODULE_VERSION (\d+)/.exec(
    error ?? '',
  )
  if (abi) return `built for NODE_MODULE_VERSION ${abi[1]}, ${runtimeName} needs ${abi[2]}`
  // What a failed or interrupted rebuild leaves behind: the build folder is gone.
  if (/Could not locate the bindings file|Cannot find module '[^']*\.node'/.test(error ?? ''))
    return 'not built'
  return (error ?? 'no reason given').slice(0, 300)
}

/**
 * What to do so `target` can load every native module, from what its runtime reported. Pure.
 * @param {{ target: 'node' | 'electron', expectedAbi?: string, probe: import('./native-modules.d.mts').Probe }} input
 * @returns {import('./native-modules.d.mts').Plan}
 */
export function planNativeModules({ target, expectedAbi, probe }) {
  const name = RUNTIME_NAMES[target]
  if (probe.error) {
    return {
      action: 'fail',
      message: `${name} could not be started to check the native modules: ${probe.error}`,
    }
  }
  if (expectedAbi && probe.abi !== expectedAbi) {
    const source = target === 'electron' ? 'node_modules/electron/abi_version' : 'this Node'
    return {
      action: 'fail',
      message:
        `The ${name} binary reports NODE_MODULE_VERSION ${probe.abi} (version ${probe.version}), but ${source} ` +
        `says ${expectedAbi}: it is not the ${name} this checkout installed. ` +
        (target === 'electron'
          ? 'Unset ELECTRON_EXEC_PATH or point it at the matching binary, or reinstall with "npm install electron".'
          : 'Run npm with the same Node as the tests.'),
    }
  }
  const failing = NATIVE_MODULES.filter((module) => !probe.modules?.[module]?.loads)
  if (failing.length === 0) return { action: 'none' }
  return {
    action: 'rebuild',
    target,
    commandLine: rebuildCommandLine(target),
    reasons: failing.map((module) => `${module} (${whyNotLoaded(probe.modules?.[module]?.error, name)})`),
  }
}

/**
 * Makes every native module loadable by `target`: probe, rebuild if needed, probe again.
 * Never exits the process; the caller decides what a failure stops.
 * @param {'node' | 'electron'} target
 * @returns {{ ok: true, rebuilt: boolean } | { ok: false, message: string }}
 */
export function makeNativeModulesLoadable(target, electronBinary = electronBinaryPath()) {
  const name = RUNTIME_NAMES[target]
  const abi = expectedAbi(target)
  const plan = planNativeModules({
    target,
    expectedAbi: abi,
    probe: probeNativeModules(target, electronBinary),
  })
  if (plan.action === 'none') return { ok: true, rebuilt: false }
  if (plan.action === 'fail') return { ok: false, message: plan.message }

  console.log(`${name} cannot load ${plan.reasons.join(', ')}: rebuilding with "${plan.commandLine}"…`)
  const { command, args, dropEnv, needs } = REBUILDS[target]
  const env = { ...process.env }
  for (const key of Object.keys(env)) if (dropEnv.includes(key.toLowerCase())) delete env[key]
  const executable = command === 'node' ? process.execPath : command
  const rebuild = spawnSync(executable, args, {
    cwd: root,
    env,
    stdio: 'inherit',
    shell: process.platform === 'win32' && command === 'npm',
  })
  if (rebuild.status !== 0) {
    return {
      ok: false,
      message:
        `Rebuilding the native modules for ${name} failed ("${plan.commandLine}" ended with ` +
        `${rebuild.status ?? rebuild.signal ?? rebuild.error?.message}; its output is above). It needs ${needs}; ` +
        `fix what it reports and run "${plan.commandLine}" again.`,
    }
  }

  const after = planNativeModules({
    target,
    expectedAbi: abi,
    probe: probeNativeModules(target, electronBinary),
  })
  if (after.action === 'none') {
    console.log(`${name} (NODE_MODULE_VERSION ${abi}) now loads ${NATIVE_MODULES.join(' and ')}.`)
    return { ok: true, rebuilt: true }
  }
  if (after.action === 'fail') return { ok: false, message: after.message }
  return {
    ok: false,
    message:
      `"${plan.commandLine}" finished, but ${name} still cannot load ${after.reasons.join(', ')}. ` +
      `Run "${plan.commandLine}" yourself and check which headers node-gyp used ` +
      `(a nodedir in your npm config or environment overrides them).`,
  }
}

/**
 * For scripts that cannot go on without the modules (start, build-cli): as makeNativeModulesLoadable,
 * but a failure prints what to do and exits.
 * @param {'node' | 'electron'} target
 */
export function ensureNativeModules(target) {
  const result = makeNativeModulesLoadable(target)
  if (!result.ok) {
    console.error(result.message)
    process.exit(1)
  }
}

// Run directly: report, or make the modules loadable by the runtime named on the command line.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = process.argv[2]
  if (target === 'node' || target === 'electron') {
    ensureNativeModules(target)
    console.log(`${RUNTIME_NAMES[target]} loads ${NATIVE_MODULES.join(' and ')}.`)
  } else if (target === undefined) {
    for (const runtime of /** @type {const} */ (['node', 'electron'])) {
      const probe = probeNativeModules(runtime)
      const modules = Object.entries(probe.modules ?? {})
        .map(
          ([module, { loads, error }]) =>
            `${module} ${loads ? 'loads' : `does not load (${whyNotLoaded(error, RUNTIME_NAMES[runtime])})`}`,
        )
        .join('; ')
      console.log(
        `${RUNTIME_NAMES[runtime]}: ${probe.error ?? `NODE_MODULE_VERSION ${probe.abi} (expected ${expectedAbi(runtime)}); ${modules}`}`,
      )
    }
  } else {
    console.error('Usage: node scripts/native-modules.mjs [node | electron]')
    process.exit(2)
  }
}
