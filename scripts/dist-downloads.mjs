// What `npm run dist` downloads, and what to say when a download fails. Pure functions, no I/O:
// scripts/dist.mjs gathers the facts, test/packaging/dist-downloads.test.ts checks these against the
// output electron-builder and node-gyp really print when the network is closed.
//
// Release names and files are electron-builder 26.17's (app-builder-lib: toolsets/linux.js, 7zip.js,
// windows.js, icons.js; dmg-builder: dmgUtil.js). The test finds each in the installed sources, so an
// upgrade that changes them fails there instead of sending people after the wrong file.

import { stripVTControlCharacters } from 'node:util'

export const ELECTRON_RELEASES = 'https://github.com/electron/electron/releases/download/'
export const BUILDER_BINARIES =
  'https://github.com/electron-userland/electron-builder-binaries/releases/download/'
// @electron/rebuild's default headerURL: node-gyp fetches v<version>/node-v<version>-headers.tar.gz there.
export const ELECTRON_HEADERS = 'https://www.electronjs.org/headers/'
export const OFFLINE_GUIDE = 'https://www.electron.build/docs/tutorials/offline-air-gapped-builds'

const PLATFORM_FLAGS = {
  '--linux': 'linux',
  '-l': 'linux',
  '--win': 'win32',
  '--windows': 'win32',
  '-w': 'win32',
  '--mac': 'darwin',
  '--macos': 'darwin',
  '-m': 'darwin',
  '-o': 'darwin',
}
const ARCH_FLAGS = ['x64', 'ia32', 'armv7l', 'arm64', 'universal']
const CONFIG_KEYS = { linux: 'linux', win32: 'win', darwin: 'mac' }
const PLATFORM_NAMES = { linux: 'Linux', win32: 'Windows', darwin: 'macOS' }

/**
 * Which platforms, architectures and targets an electron-builder command line builds, the way its CLI
 * reads them: `--linux deb`, `--win`, `--arm64`; none given means the host platform and architecture,
 * and a platform without targets means the targets electron-builder.yml lists for it.
 * @param {{ args: string[], config: Record<string, any>, hostPlatform: string, hostArch: string }} input
 * @returns {{ platform: string, arch: string, targets: string[] }[]}
 */
export function plannedBuilds({ args, config, hostPlatform, hostArch }) {
  const platforms = new Map()
  const archs = []
  let current
  for (const arg of args) {
    if (arg in PLATFORM_FLAGS) {
      current = PLATFORM_FLAGS[arg]
      if (!platforms.has(current)) platforms.set(current, [])
    } else if (arg.startsWith('--') && ARCH_FLAGS.includes(arg.slice(2))) {
      archs.push(arg.slice(2))
    } else if (arg.startsWith('-')) {
      current = undefined
    } else if (current) {
      platforms.get(current).push(...arg.split(','))
    }
  }
  if (platforms.size === 0) platforms.set(hostPlatform, [])
  const builds = []
  for (const [platform, named] of platforms) {
    const targets = named.length > 0 ? named : configuredTargets(config, platform)
    for (const arch of archs.length > 0 ? archs : [hostArch]) builds.push({ platform, arch, targets })
  }
  return builds
}

function configuredTargets(config, platform) {
  const target = config[CONFIG_KEYS[platform]]?.target
  if (target == null) return []
  return (Array.isArray(target) ? target : [target]).map((entry) =>
    typeof entry === 'string' ? entry : entry.target,
  )
}

// electron-builder picks its own tools by the machine it runs on (host), not by what it builds.
function sevenZipFile(hostPlatform, hostArch) {
  if (hostPlatform === 'darwin')
    return hostArch === 'arm64' ? '7zip-darwin-arm64.tar.gz' : '7zip-darwin-x86_64.tar.gz'
  const os = hostPlatform === 'win32' ? 'win' : 'linux'
  return `7zip-${os}-${hostArch === 'arm64' || hostArch === 'ia32' ? hostArch : 'x64'}.tar.gz`
}

function fpmFile(hostPlatform, hostArch) {
  if (hostPlatform === 'darwin') {
    return hostArch === 'arm64'
      ? 'fpm-1.17.0-ruby-3.4.3-darwin-arm64.7z'
      : 'fpm-1.17.0-ruby-3.4.3-darwin-x86_64.7z'
  }
  const arch = hostArch === 'x64' ? 'amd64' : hostArch === 'arm64' ? 'arm64v8' : 'i386'
  return `fpm-1.17.0-ruby-3.4.3-linux-${arch}.7z`
}

// `override` is the variable that points electron-builder at an installed copy instead; setting one of
// `envVars` makes it skip the download.
function tool(id, what, release, file, override, envVars = []) {
  return {
    id,
    kind: 'tool',
    what,
    release,
    file,
    url: `${BUILDER_BINARIES}${release}/${file}`,
    override,
    envVars,
  }
}

/**
 * The electron-builder tools a target fetches on this host, in the order it fetches them.
 * @returns {Download[] | undefined} undefined for a target this table does not know
 */
function toolsFor(target, hostPlatform, hostArch) {
  const sevenZip = tool(
    '7zip',
    '7-Zip, which unpacks the .7z tools',
    '7zip@1.0.0',
    sevenZipFile(hostPlatform, hostArch),
    'ELECTRON_BUILDER_7ZIP_PATH=<a 7za binary>',
    ['ELECTRON_BUILDER_7ZIP_PATH'],
  )
  const icons = tool(
    'icons',
    'the icon converter (PNG to .ico/.icns)',
    'icons@1.2.3',
    'icons-bundle.tar.gz',
    'ELECTRON_BUILDER_ICONS_TOOLSET_DIR=<its folder>',
    ['ELECTRON_BUILDER_ICONS_TOOLSET_DIR'],
  )
  switch (target.toLowerCase()) {
    case 'appimage':
      return [
        tool(
          'appimage',
          'the AppImage tools (mksquashfs, runtime)',
          'appimage-12.0.1',
          'appimage-12.0.1.7z',
          'APPIMAGE_TOOLS_PATH=<its folder>',
          ['APPIMAGE_TOOLS_PATH'],
        ),
        sevenZip,
      ]
    case 'deb':
      // On Windows electron-builder runs the fpm on PATH instead of downloading one.
      if (hostPlatform === 'win32') return []
      return [
        tool(
          'fpm',
          'fpm, which builds the .deb',
          'fpm@2.1.4',
          fpmFile(hostPlatform, hostArch),
          'CUSTOM_FPM_PATH=<an fpm binary> or USE_SYSTEM_FPM=true',
          ['CUSTOM_FPM_PATH', 'USE_SYSTEM_FPM'],
        ),
        sevenZip,
      ]
    case 'nsis':
      return [
        icons,
        tool(
          'wincodesign',
          'winCodeSign (rcedit, which stamps the icon and version into the .exe)',
          'winCodeSign-2.6.0',
          'winCodeSign-2.6.0.7z',
          'ELECTRON_BUILDER_RCEDIT_PATH=<its folder>',
          ['ELECTRON_BUILDER_RCEDIT_PATH'],
        ),
        tool('nsis', 'NSIS, which builds the installer', 'nsis-3.0.4.1', 'nsis-3.0.4.1.7z'),
        tool('nsis-resources', 'NSIS plugins', 'nsis-resources-3.4.1', 'nsis-resources-3.4.1.7z'),
        sevenZip,
      ]
    case 'dmg':
      return [
        icons,
        tool(
          'dmgbuild',
          'dmgbuild, which lays out the disk image',
          'dmg-builder@1.2.5',
          `dmgbuild-bundle-${hostArch === 'arm64' ? 'arm64' : 'x86_64'}-75c8a6c.tar.gz`,
          'CUSTOM_DMGBUILD_PATH=<a dmgbuild binary>',
          ['CUSTOM_DMGBUILD_PATH'],
        ),
      ]
    default:
      return undefined
  }
}

/**
 * @typedef {{ id: string, kind: 'headers' | 'electron' | 'tool', what: string, file: string, url: string,
 *   release?: string, override?: string, envVars?: string[] }} Download
 */

/**
 * Everything these builds download, in the order electron-builder fetches it: Electron's headers (for the
 * native-module rebuild, host platform only), then per platform the Electron zip and each target's tools.
 * Left out: the zip when electronDist is given, a tool whose override variable is set in `env`.
 * @param {{ electronVersion: string, builds: { platform: string, arch: string, targets: string[] }[],
 *   hostPlatform: string, hostArch: string, nativeRebuild: boolean, electronDist?: boolean,
 *   env?: Record<string, string | undefined> }} input
 * @returns {{ downloads: Download[], unknownTargets: string[] }}
 */
export function plannedDownloads({
  electronVersion,
  builds,
  hostPlatform,
  hostArch,
  nativeRebuild,
  electronDist = false,
  env = {},
}) {
  const downloads = []
  const unknownTargets = []
  const add = (download) => {
    if (download.kind === 'electron' && electronDist) return
    if (download.envVars?.some((name) => env[name])) return
    if (!downloads.some((known) => known.url === download.url)) downloads.push(download)
  }
  if (nativeRebuild && builds.some((build) => build.platform === hostPlatform)) {
    add(electronHeaders(electronVersion))
  }
  for (const { platform, arch, targets } of builds) {
    const file = `electron-v${electronVersion}-${platform}-${arch}.zip`
    add({
      id: `electron-${platform}-${arch}`,
      kind: 'electron',
      what: `Electron ${electronVersion} for ${PLATFORM_NAMES[platform] ?? platform} ${arch}`,
      file,
      url: `${ELECTRON_RELEASES}v${electronVersion}/${file}`,
    })
    for (const target of targets) {
      const tools = toolsFor(target, hostPlatform, hostArch)
      if (tools) for (const download of tools) add(download)
      else if (!unknownTargets.includes(target)) unknownTargets.push(target)
    }
  }
  return { downloads, unknownTargets }
}

/** @returns {Download} */
export function electronHeaders(electronVersion) {
  const file = `node-v${electronVersion}-headers.tar.gz`
  return {
    id: 'headers',
    kind: 'headers',
    what: `Electron ${electronVersion}'s headers, to compile keytar and better-sqlite3 for Electron`,
    file,
    url: `${ELECTRON_HEADERS}v${electronVersion}/${file}`,
  }
}

// electron-builder colours its log on a terminal; the patterns below match the plain text.
const strip = (text) => stripVTControlCharacters(text)

/**
 * The network error in electron-builder's or node-gyp's output, if the failure was one.
 * @param {string} output
 * @returns {{ summary: string, host?: string, url?: string } | undefined}
 */
export function findNetworkError(output) {
  const text = strip(output)
  const http =
    /Response code (\d{3}) \(([^)]*)\) for (\S+)/.exec(text) ??
    /(\d{3}) response downloading (\S+)/.exec(text)
  if (http) {
    const url = http[3] ?? http[2]
    return { summary: `HTTP ${http[1]} for ${url}`, url, host: hostOf(url) }
  }
  const dns = /getaddrinfo (ENOTFOUND|EAI_AGAIN) (\S+)/.exec(text)
  if (dns) return { summary: `${dns[1]}: the name ${dns[2]} does not resolve here`, host: dns[2] }
  const connect = /connect (ECONNREFUSED|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH) (\S+)/.exec(text)
  if (connect) return { summary: `${connect[1]} connecting to ${connect[2]}`, host: connect[2] }
  const code = /\b(ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ECONNREFUSED|EAI_AGAIN|ENOTFOUND)\b/.exec(
    text,
  )
  if (code) return { summary: code[1] }
  if (/socket hang up|Timeout awaiting/.test(text)) return { summary: 'the connection was dropped' }
  // node-gyp hides the cause behind this sentence; the URL it was fetching is on its "http GET" line.
  if (/network\s+connectivity/.test(text.replace(/gyp ERR! stack/g, ''))) {
    const url = /gyp http GET (\S+)/.exec(text)?.[1]
    return { summary: `no connection${url ? ` to ${hostOf(url)}` : ''}`, url, host: url && hostOf(url) }
  }
  return undefined
}

function hostOf(url) {
  try {
    return new URL(url).host
  } catch {
    return undefined
  }
}

/**
 * Which of the planned downloads electron-builder was fetching when it stopped, read from its log:
 * the URL when it prints one (HTTP errors), otherwise the step it had reached ("packaging" fetches the
 * Electron zip, "building target=X" that target's tools, "failed to build X" names the target).
 * @param {string} output
 * @param {Download[]} downloads
 * @param {{ summary: string, url?: string }} error
 * @returns {Download[]}
 */
export function failedDownloads(output, downloads, error) {
  if (error.url) {
    const byUrl = downloads.filter((download) => error.url.endsWith(`/${download.file}`))
    if (byUrl.length > 0) return byUrl
  }
  const text = strip(output)
  const failedTarget = /failed to build (\S+)/.exec(text)?.[1]
  const steps = [...text.matchAll(/• (packaging|building|executing @electron\/rebuild)\b([^\n]*)/g)]
  const last = steps.at(-1)
  if (!last || last[1] === 'executing @electron/rebuild') {
    return downloads.filter((download) => download.kind === 'headers')
  }
  if (last[1] === 'packaging') {
    const platform = /platform=(\S+)/.exec(last[2])?.[1]
    const arch = /arch=(\S+)/.exec(last[2])?.[1]
    return downloads.filter((download) => download.id === `electron-${platform}-${arch}`)
  }
  // Targets of one platform build side by side; without a "failed to build" line any of them may be it.
  const building = steps
    .slice(steps.findLastIndex((step) => step[1] === 'packaging') + 1)
    .map((step) => /target=(\S+)/.exec(step[2])?.[1])
    .filter((target) => target !== undefined)
  const candidates = failedTarget ? [failedTarget] : building
  const releases = new Set(
    candidates.flatMap((target) => (toolsFor(target, '', '') ?? []).map((tool) => tool.release)),
  )
  return downloads.filter((download) => download.kind === 'tool' && releases.has(download.release))
}

/**
 * The message for a packaging run that stopped because a download failed: what failed, every file the
 * run needs from the network (so one round of fetching is enough), and how to supply each offline.
 * @param {{ error: { summary: string }, failed: Download[], downloads: Download[], unknownTargets: string[],
 *   electronVersion: string, builderCache: string, builds: { platform: string, arch: string, targets: string[] }[] }} input
 * @returns {string}
 */
export function describeDownloadFailure({
  error,
  failed,
  downloads,
  unknownTargets,
  electronVersion,
  builderCache,
  builds,
}) {
  const failedIds = new Set(failed.map((download) => download.id))
  const what = builds
    .map(
      (build) =>
        `${PLATFORM_NAMES[build.platform] ?? build.platform} ${build.arch} (${build.targets.join(', ')})`,
    )
    .join(' and ')
  // Without a URL in the log the step tells only which target failed, and a target may fetch two files.
  const marked =
    failed.length === 0
      ? '(the log does not say which of these it was fetching)'
      : failed.length === 1
        ? '(* = the one that failed)'
        : '(* = it was fetching one of these)'
  const lines = [
    `No installers were built: a download failed (${error.summary}), and packaging cannot go on without it.`,
    `Packaging for ${what} needs these files from the network ${marked}:`,
    ...downloads.map(
      (download) => `  ${failedIds.has(download.id) ? '*' : '-'} ${download.what}: ${download.url}`,
    ),
  ]
  if (unknownTargets.length > 0) {
    lines.push(`  and whatever electron-builder fetches for ${unknownTargets.join(', ')} (see its log).`)
  }
  lines.push('To package without reaching those hosts, fetch the files on a connected machine, then:')
  const kinds = new Set(downloads.map((download) => download.kind))
  if (kinds.has('headers')) {
    lines.push(
      `  - headers: there, run "npx node-gyp install --target=${electronVersion} --dist-url=${ELECTRON_HEADERS.replace(/\/$/, '')}"` +
        ` and copy ~/.electron-gyp/${electronVersion} to the same place here (or unpack the headers and set` +
        ' npm_config_nodedir to that folder);',
    )
  }
  if (kinds.has('electron')) {
    lines.push(
      '  - Electron: npm run dist -- -c.electronDist=<the zip, a folder holding it, or an unpacked Electron>' +
        ` (or set ELECTRON_MIRROR to a mirror laid out like ${ELECTRON_RELEASES});`,
    )
  }
  const tools = downloads.filter((download) => download.kind === 'tool')
  if (tools.length > 0) {
    const overrides = [...new Set(tools.map((download) => download.override).filter(Boolean))]
    lines.push(
      `  - electron-builder's tools: put each file at ${builderCache}/<release>/<file>, e.g.` +
        ` ${builderCache}/${tools[0].release}/${tools[0].file} (ELECTRON_BUILDER_CACHE moves that folder),` +
        ` or set ELECTRON_BUILDER_BINARIES_MIRROR to a mirror laid out like ${BUILDER_BINARIES}` +
        (overrides.length > 0 ? `, or point at installed copies: ${overrides.join('; ')}` : '') +
        '.',
    )
  }
  lines.push(`More: ${OFFLINE_GUIDE}`)
  return lines.join('\n')
}

/**
 * The lowest Node version every packaging package accepts, from their package.json "engines".
 * Understands ">= a.b.c", "^a.b.c", "~a.b.c" and "||" between them; anything else is ignored.
 * @param {{ name: string, version: string, engines?: { node?: string } }[]} packages
 * @returns {{ minimum: string, declaredBy: string[] } | undefined}
 */
export function requiredNode(packages) {
  let best
  for (const pkg of packages) {
    const range = pkg.engines?.node
    if (!range) continue
    const lows = range
      .split('||')
      .map((part) => /(?:>=|\^|~)\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(part))
      .filter((match) => match !== null)
      .map((match) => [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)])
    if (lows.length === 0) continue
    const low = lows.reduce((a, b) => (compareVersions(a, b) <= 0 ? a : b))
    const label = `${pkg.name} ${pkg.version}`
    if (!best || compareVersions(low, best.low) > 0) best = { low, declaredBy: [label] }
    else if (compareVersions(low, best.low) === 0) best.declaredBy.push(label)
  }
  return best && { minimum: best.low.join('.'), declaredBy: best.declaredBy }
}

/** @param {string} version e.g. "v20.20.2" @param {string} minimum e.g. "22.12.0" */
export function nodeSatisfies(version, minimum) {
  const parse = (text) => text.replace(/^v/, '').split('.').map(Number)
  return compareVersions(parse(version), parse(minimum)) >= 0
}

function compareVersions(a, b) {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0)
  return 0
}

/**
 * Whether electron-builder may see npm's nodedir. npm exports it to scripts as npm_config_nodedir, and
 * node-gyp then compiles against those headers whatever Electron version it is told: with Node's headers
 * the rebuild "succeeds" and the installer ships modules Electron refuses to load. Kept only when its
 * config.gypi shows Electron's NODE_MODULE_VERSION.
 * @param {{ nodedir?: string, headersAbi?: string, electronAbi?: string }} input
 * @returns {{ keep: boolean, note?: string }}
 */
export function nodedirForElectron({ nodedir, headersAbi, electronAbi }) {
  if (!nodedir) return { keep: true }
  if (headersAbi && electronAbi && headersAbi === electronAbi) return { keep: true }
  return {
    keep: false,
    note:
      `npm's nodedir (${nodedir}) holds headers for NODE_MODULE_VERSION ${headersAbi ?? 'unknown'}, not ` +
      `Electron's ${electronAbi ?? '(unknown)'}: packaging ignores it and compiles the native modules against ` +
      "Electron's own headers.",
  }
}
