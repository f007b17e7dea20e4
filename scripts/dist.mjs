// `npm run dist`: build, then package installers with electron-builder for this platform (arguments after
// `--` go to electron-builder: `npm run dist -- --linux deb`). Packaging downloads Electron and tools from
// GitHub; when one cannot be fetched this says which files, from where, and how to supply them offline.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import {
  describeDownloadFailure,
  ELECTRON_HEADERS,
  electronHeaders,
  failedDownloads,
  findNetworkError,
  nodedirForElectron,
  nodeSatisfies,
  plannedBuilds,
  plannedDownloads,
  requiredNode,
} from './dist-downloads.mjs'
import { expectedAbi } from './native-modules.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'))

// Finds an installed package the way Node would from `fromDir`, without require.resolve: some packages
// (@electron/rebuild) do not export their package.json.
function packageDir(name, fromDir = root) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name)
    if (existsSync(join(candidate, 'package.json'))) return candidate
    if (dirname(dir) === dir) return undefined
  }
}

function run(command, commandArgs, options = {}) {
  return spawnSync(command, commandArgs, { cwd: root, shell: process.platform === 'win32', ...options })
}

// 1. The app itself, and what it ships for the heirs (electron-builder.yml extraResources): the recovery
// page, whose SHA-256 the guardians' kits print, and the packed recovery tool an export carries.
// pack:recovery builds the page too.
for (const script of ['build', 'pack:recovery']) {
  if (run('npm', ['run', script], { stdio: 'inherit' }).status !== 0) {
    console.error(
      `\nnpm run ${script} failed (its output is above), so nothing was packaged. Fix that, then run npm run dist again.`,
    )
    process.exit(1)
  }
}

const config = parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8'))
const electronDir = packageDir('electron')
const builderLibDir = packageDir('app-builder-lib')
if (!electronDir || !builderLibDir) {
  console.error(
    'electron or electron-builder is not installed in node_modules; run npm install, then npm run dist.',
  )
  process.exit(1)
}
const electronVersion = config.electronVersion ?? readJson(join(electronDir, 'package.json')).version
const electronAbi = expectedAbi('electron')

// 2. The Node the packaging tools declare. Not a hard stop: electron-builder 26 also runs on older Node,
// but when it fails oddly this is the first thing to change.
const packaging = [
  packageDir('electron-builder'),
  builderLibDir,
  packageDir('@electron/rebuild', builderLibDir),
  packageDir('@electron/get', builderLibDir),
  electronDir,
]
  .filter((dir) => dir !== undefined)
  .map((dir) => readJson(join(dir, 'package.json')))
const needed = requiredNode(packaging)
if (needed && !nodeSatisfies(process.version, needed.minimum)) {
  console.warn(
    `\nNote: this is Node ${process.version}, but the packaging tools declare Node >= ${needed.minimum} ` +
      `(${needed.declaredBy.join(', ')}). Packaging may still work; if it fails in an unexpected way, ` +
      `run npm run dist with Node ${needed.minimum} or newer (the app, tests and service need only Node 20.19).\n`,
  )
}

// 3. What this run builds and downloads.
const hasOption = (name) => args.some((arg) => new RegExp(`^(-c|--config)\\.${name}=`).test(arg))
const builds = plannedBuilds({ args, config, hostPlatform: process.platform, hostArch: process.arch })
const nativeRebuild =
  config.npmRebuild !== false && !args.some((arg) => /^(-c|--config)\.npmRebuild=false$/.test(arg))
const { downloads, unknownTargets } = plannedDownloads({
  electronVersion,
  builds,
  hostPlatform: process.platform,
  hostArch: process.arch,
  nativeRebuild,
  electronDist: config.electronDist != null || hasOption('electronDist'),
  env: process.env,
})
let builderCache = join(homedir(), '.cache', 'electron-builder')
try {
  const requireFromBuilder = createRequire(join(builderLibDir, 'package.json'))
  builderCache = requireFromBuilder('./out/util/electronGet').getCacheDirectory({ allowEnvVarOverride: true })
} catch {
  // The default above is right on Linux; on other systems the message is still clear about the layout.
}

function failForDownload(output) {
  const error = findNetworkError(output)
  if (!error) return false
  const failed = failedDownloads(output, downloads, error)
  console.error(
    `\n${describeDownloadFailure({ error, failed, downloads, unknownTargets, electronVersion, builderCache, builds })}`,
  )
  return true
}

// 4. npm's nodedir must not reach the native-module rebuild (see nodedirForElectron).
const env = { ...process.env }
const nodedirKey = Object.keys(env).find((key) => key.toLowerCase() === 'npm_config_nodedir')
const nodedir = nodedirKey ? env[nodedirKey] : undefined
const configGypi = nodedir ? join(nodedir, 'include', 'node', 'config.gypi') : undefined
const headersAbi =
  configGypi && existsSync(configGypi)
    ? /'node_module_version':\s*(\d+)/.exec(readFileSync(configGypi, 'utf8'))?.[1]
    : undefined
const nodedirChoice = nodedirForElectron({ nodedir, headersAbi, electronAbi })
if (nativeRebuild && !nodedirChoice.keep && nodedirKey) {
  delete env[nodedirKey]
  console.log(nodedirChoice.note)
}

// 5. Electron's headers first, with node-gyp's own installer: electron-builder's rebuild runs
// `node-gyp rebuild` in node_modules, which deletes the modules' Node build before it finds the headers
// missing, and would leave keytar and better-sqlite3 unloadable. Fetching them here fails without harm.
// A nodedir that holds Electron's headers already is all node-gyp needs.
const headersNeeded = downloads.some((download) => download.kind === 'headers')
const nodeGypDir = packageDir('node-gyp', packageDir('@electron/rebuild', builderLibDir) ?? builderLibDir)
if (headersNeeded && !nodeGypDir) {
  console.warn(
    'node-gyp is not in node_modules, so Electron’s headers are left to electron-builder to fetch.',
  )
}
if (headersNeeded && nodeGypDir && !(nodedir && nodedirChoice.keep)) {
  console.log(`Fetching Electron ${electronVersion}'s headers for the native modules (node-gyp install)…`)
  const headers = run(
    process.execPath,
    [
      join(nodeGypDir, 'bin', 'node-gyp.js'),
      'install',
      `--target=${electronVersion}`,
      `--dist-url=${ELECTRON_HEADERS.replace(/\/$/, '')}`,
      `--devdir=${join(homedir(), '.electron-gyp')}`,
    ],
    { env, encoding: 'utf8' },
  )
  if (headers.status !== 0) {
    const output = `${headers.stdout ?? ''}${headers.stderr ?? ''}${headers.error?.message ?? ''}`
    if (!failForDownload(output)) {
      console.error(output)
      console.error(
        `Could not install Electron ${electronVersion}'s headers from ${electronHeaders(electronVersion).url} ` +
          '(node-gyp output above), so nothing was packaged.',
      )
    }
    process.exit(1)
  }
}

// 6. electron-builder. Its output goes to the terminal as it comes and is kept for the diagnosis.
// `--publish never` unless asked: electron-builder otherwise publishes on its own on CI and for git tags.
const publish = args.some((arg) => arg === '-p' || arg.startsWith('--publish')) ? [] : ['--publish', 'never']
const builderCli = join(packageDir('electron-builder'), 'cli.js')
const child = spawn(process.execPath, [builderCli, ...args, ...publish], {
  cwd: root,
  env,
  stdio: ['inherit', 'pipe', 'pipe'],
})
let output = ''
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  output += chunk
})
child.stderr.on('data', (chunk) => {
  process.stderr.write(chunk)
  output += chunk
})
const code = await new Promise((resolve) =>
  child.on('close', (status, signal) => resolve(status ?? (signal ? 1 : 0))),
)

if (code !== 0) {
  if (!failForDownload(output)) {
    console.error(
      `\nelectron-builder stopped with exit code ${code}; its output above says why (it was not a failed download).`,
    )
  }
  process.exit(code)
}

const outputDir = join(root, config.directories?.output ?? 'dist')
const installers = existsSync(outputDir)
  ? readdirSync(outputDir).filter((name) => /\.(AppImage|deb|dmg|exe|zip|rpm|snap|tar\.gz)$/.test(name))
  : []
console.log(`\nInstallers in ${outputDir}: ${installers.join(', ') || '(none found)'}`)
if (nativeRebuild) {
  console.log(
    'keytar and better-sqlite3 in node_modules are now compiled for Electron; npm test and npm start ' +
      'rebuild them for Node when they need to.',
  )
}
