// scripts/dist-downloads.mjs tells `npm run dist` users which downloads packaging needs when one fails.
// The logs in dist-logs/ are what electron-builder 26.17 and node-gyp really printed on a machine that
// reaches only the npm and Debian registries (see dist-logs/README.md for how each was made).
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import {
  BUILDER_BINARIES,
  type Build,
  describeDownloadFailure,
  ELECTRON_HEADERS,
  ELECTRON_RELEASES,
  failedDownloads,
  findNetworkError,
  nodedirForElectron,
  nodeSatisfies,
  plannedBuilds,
  plannedDownloads,
  requiredNode,
} from '../../scripts/dist-downloads.mjs'

const root = join(import.meta.dirname, '..', '..')
const config = parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8'))
const log = (name: string) => readFileSync(join(import.meta.dirname, 'dist-logs', `${name}.log`), 'utf8')
const VERSION = '45.4.1'

// What `npm run dist` plans on this kind of machine: Linux x64, AppImage and deb, native modules rebuilt.
const linuxBuilds = plannedBuilds({ args: [], config, hostPlatform: 'linux', hostArch: 'x64' })
const linux = plannedDownloads({
  electronVersion: VERSION,
  builds: linuxBuilds,
  hostPlatform: 'linux',
  hostArch: 'x64',
  nativeRebuild: true,
})

function diagnose(name: string) {
  const output = log(name)
  const error = findNetworkError(output)
  if (!error) return undefined
  return { error, failed: failedDownloads(output, linux.downloads, error).map((download) => download.id) }
}

describe('plannedBuilds', () => {
  it('builds the host platform with the targets electron-builder.yml lists when given no arguments', () => {
    expect(linuxBuilds).toEqual([{ platform: 'linux', arch: 'x64', targets: ['AppImage', 'deb'] }])
    expect(plannedBuilds({ args: [], config, hostPlatform: 'darwin', hostArch: 'arm64' })).toEqual([
      { platform: 'darwin', arch: 'arm64', targets: ['dmg'] },
    ])
  })

  it('reads platforms, targets and architectures from the command line as electron-builder does', () => {
    const args = ['--linux', 'deb', '--win', '--arm64', '-c.npmRebuild=false', '--publish', 'never']
    expect(plannedBuilds({ args, config, hostPlatform: 'linux', hostArch: 'x64' })).toEqual([
      { platform: 'linux', arch: 'arm64', targets: ['deb'] },
      { platform: 'win32', arch: 'arm64', targets: ['nsis'] },
    ])
  })
})

describe('plannedDownloads', () => {
  it('lists headers, the Electron zip and each Linux target’s tools, in the order they are fetched', () => {
    expect(linux.unknownTargets).toEqual([])
    expect(linux.downloads.map((download) => download.url)).toEqual([
      `${ELECTRON_HEADERS}v45.4.1/node-v45.4.1-headers.tar.gz`,
      `${ELECTRON_RELEASES}v45.4.1/electron-v45.4.1-linux-x64.zip`,
      `${BUILDER_BINARIES}appimage-12.0.1/appimage-12.0.1.7z`,
      `${BUILDER_BINARIES}7zip@1.0.0/7zip-linux-x64.tar.gz`,
      `${BUILDER_BINARIES}fpm@2.1.4/fpm-1.17.0-ruby-3.4.3-linux-amd64.7z`,
    ])
  })

  it('leaves out what is supplied: electronDist, a tool’s own path, headers when nothing is rebuilt', () => {
    const supplied = plannedDownloads({
      electronVersion: VERSION,
      builds: linuxBuilds,
      hostPlatform: 'linux',
      hostArch: 'x64',
      nativeRebuild: false,
      electronDist: true,
      env: { USE_SYSTEM_FPM: 'true', APPIMAGE_TOOLS_PATH: '/opt/appimage' },
    })
    expect(supplied.downloads.map((download) => download.id)).toEqual(['7zip'])
  })

  it('needs no headers for another platform (nothing is compiled for it) and names targets it does not know', () => {
    const windows = plannedDownloads({
      electronVersion: VERSION,
      builds: [{ platform: 'win32', arch: 'x64', targets: ['nsis', 'portable'] }],
      hostPlatform: 'linux',
      hostArch: 'x64',
      nativeRebuild: true,
    })
    expect(windows.downloads.map((download) => download.id)).toEqual([
      'electron-win32-x64',
      'icons',
      'wincodesign',
      'nsis',
      'nsis-resources',
      '7zip',
    ])
    expect(windows.unknownTargets).toEqual(['portable'])
  })
})

describe('the failed download, from the real logs', () => {
  it('npm run dist before this script: the Electron zip, after the native rebuild', () => {
    expect(diagnose('packaging-enotfound')).toEqual({
      error: { summary: 'ENOTFOUND: the name github.com does not resolve here', host: 'github.com' },
      failed: ['electron-linux-x64'],
    })
  })

  it('the AppImage tools (electron-builder names the target, not the file)', () => {
    expect(diagnose('appimage-enotfound')?.failed).toEqual(['appimage', '7zip'])
  })

  it('fpm for the deb, read from the step electron-builder had reached', () => {
    expect(diagnose('deb-enotfound')?.failed).toEqual(['7zip', 'fpm'])
  })

  it('the exact file when electron-builder prints its URL (a mirror answering 404)', () => {
    expect(diagnose('deb-mirror-404')).toEqual({
      error: {
        summary: 'HTTP 404 for http://127.0.0.1:8799/ebb/fpm@2.1.4/fpm-1.17.0-ruby-3.4.3-linux-amd64.7z',
        url: 'http://127.0.0.1:8799/ebb/fpm@2.1.4/fpm-1.17.0-ruby-3.4.3-linux-amd64.7z',
        host: '127.0.0.1:8799',
      },
      failed: ['fpm'],
    })
    expect(diagnose('electron-mirror-404')?.failed).toEqual(['electron-linux-x64'])
  })

  it('Electron’s headers, from node-gyp’s log, which hides the network error', () => {
    expect(diagnose('headers-enotfound')).toEqual({
      error: {
        summary: 'no connection to www.electronjs.org',
        url: 'https://www.electronjs.org/headers/v45.4.1/node-v45.4.1-headers.tar.gz',
        host: 'www.electronjs.org',
      },
      failed: ['headers'],
    })
  })

  it('is not a download failure when the deb lacks its metadata', () => {
    expect(findNetworkError(log('deb-metadata-missing'))).toBeUndefined()
  })
})

describe('describeDownloadFailure', () => {
  const message = (name: string, builderCache = '/root/.cache/electron-builder') => {
    const output = log(name)
    const error = findNetworkError(output)!
    return describeDownloadFailure({
      error,
      failed: failedDownloads(output, linux.downloads, error),
      downloads: linux.downloads,
      unknownTargets: linux.unknownTargets,
      electronVersion: VERSION,
      builderCache,
      builds: linuxBuilds,
    })
  }

  it('says what failed, every file with its address, and how to supply each offline', () => {
    const lines = message('packaging-enotfound').split('\n')
    expect(lines[0]).toBe(
      'No installers were built: a download failed (ENOTFOUND: the name github.com does not resolve here), ' +
        'and packaging cannot go on without it.',
    )
    expect(lines[1]).toBe(
      'Packaging for Linux x64 (AppImage, deb) needs these files from the network (* = the one that failed):',
    )
    expect(lines).toContain(
      `  * Electron 45.4.1 for Linux x64: ${ELECTRON_RELEASES}v45.4.1/electron-v45.4.1-linux-x64.zip`,
    )
    expect(lines).toContain(
      `  - fpm, which builds the .deb: ${BUILDER_BINARIES}fpm@2.1.4/fpm-1.17.0-ruby-3.4.3-linux-amd64.7z`,
    )
    const text = lines.join('\n')
    expect(text).toContain(
      'npx node-gyp install --target=45.4.1 --dist-url=https://www.electronjs.org/headers"',
    )
    expect(text).toContain('npm run dist -- -c.electronDist=')
    expect(text).toContain('ELECTRON_MIRROR')
    expect(text).toContain('/root/.cache/electron-builder/appimage-12.0.1/appimage-12.0.1.7z')
    expect(text).toContain('ELECTRON_BUILDER_CACHE')
    expect(text).toContain('ELECTRON_BUILDER_BINARIES_MIRROR')
    expect(text).toContain('CUSTOM_FPM_PATH')
    expect(text).toContain('https://www.electron.build/docs/tutorials/offline-air-gapped-builds')
    // Only the Electron zip failed; the tools were not reached yet.
    expect(lines.filter((line) => line.startsWith('  * '))).toHaveLength(1)
  })

  it('marks both candidates when the log names only the target', () => {
    expect(message('appimage-enotfound')).toContain('(* = it was fetching one of these)')
  })
})

describe('the tables match electron-builder 26 as installed', () => {
  const requireFromRoot = createRequire(join(root, 'package.json'))
  const builderLib = dirname(requireFromRoot.resolve('app-builder-lib/package.json'))
  const dmgBuilder = dirname(requireFromRoot.resolve('dmg-builder/package.json'))
  const sources = [
    'out/toolsets/linux.js',
    'out/toolsets/7zip.js',
    'out/toolsets/windows.js',
    'out/toolsets/icons.js',
    'out/util/electronGet.js',
  ]
    .map((file) => readFileSync(join(builderLib, file), 'utf8'))
    .concat(readFileSync(join(dmgBuilder, 'out/dmgUtil.js'), 'utf8'))
    .join('\n')

  it('names every release and file electron-builder’s sources name', () => {
    const hosts = [
      ['linux', 'x64'],
      ['linux', 'arm64'],
      ['darwin', 'arm64'],
      ['darwin', 'x64'],
      ['win32', 'x64'],
    ]
    for (const [hostPlatform, hostArch] of hosts) {
      const { downloads } = plannedDownloads({
        electronVersion: VERSION,
        builds: [
          { platform: 'linux', arch: 'x64', targets: ['AppImage', 'deb'] },
          { platform: 'darwin', arch: 'arm64', targets: ['dmg'] },
          { platform: 'win32', arch: 'x64', targets: ['nsis'] },
        ] satisfies Build[],
        hostPlatform: hostPlatform!,
        hostArch: hostArch!,
        nativeRebuild: false,
      })
      for (const tool of downloads.filter((download) => download.kind === 'tool')) {
        expect(sources, `${tool.release} (${hostPlatform} ${hostArch})`).toContain(tool.release)
        expect(sources, `${tool.file} (${hostPlatform} ${hostArch})`).toContain(tool.file)
        for (const name of tool.envVars ?? []) expect(sources).toContain(name)
      }
    }
    // The mirror and cache variables the message recommends.
    for (const name of [
      'ELECTRON_BUILDER_BINARIES_MIRROR',
      'ELECTRON_BUILDER_CACHE',
      BUILDER_BINARIES.split('/')[3]!,
    ]) {
      expect(sources).toContain(name)
    }
  })

  it('points at the same hosts as @electron/get and @electron/rebuild', () => {
    const get = dirname(createRequire(join(builderLib, 'package.json')).resolve('@electron/get/package.json'))
    expect(readFileSync(join(get, 'dist/cjs/artifact-utils.js'), 'utf8')).toContain(ELECTRON_RELEASES)
    expect(readFileSync(join(get, 'dist/cjs/artifact-utils.js'), 'utf8')).toContain('`ELECTRON_${')
    const rebuild = join(root, 'node_modules/@electron/rebuild/lib/rebuild.js')
    expect(existsSync(rebuild)).toBe(true)
    expect(readFileSync(rebuild, 'utf8')).toContain(`'${ELECTRON_HEADERS.replace(/\/$/, '')}'`)
  })
})

describe('the Node the packaging tools need', () => {
  it('is the highest minimum any of them declares', () => {
    expect(
      requiredNode([
        { name: 'electron-builder', version: '26.17.0', engines: { node: '>=14.0.0' } },
        { name: '@electron/rebuild', version: '4.2.1', engines: { node: '>=22.12.0' } },
        { name: 'electron', version: '45.4.1', engines: { node: '>= 22.12.0' } },
        { name: 'no-engines', version: '1.0.0' },
      ]),
    ).toEqual({ minimum: '22.12.0', declaredBy: ['@electron/rebuild 4.2.1', 'electron 45.4.1'] })
    expect(
      requiredNode([{ name: 'either', version: '1.0.0', engines: { node: '^20.19.0 || >=22.12.0' } }]),
    ).toEqual({
      minimum: '20.19.0',
      declaredBy: ['either 1.0.0'],
    })
  })

  it('is 22.12 for the electron package installed here, which Node 20 does not meet', () => {
    const electron = JSON.parse(readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8'))
    expect(requiredNode([electron])?.minimum).toBe('22.12.0')
    expect(nodeSatisfies('v20.20.2', '22.12.0')).toBe(false)
    expect(nodeSatisfies('v22.12.0', '22.12.0')).toBe(true)
    expect(nodeSatisfies('v24.1.0', '22.12.0')).toBe(true)
  })
})

describe('npm’s nodedir during packaging', () => {
  it('is dropped when it holds Node’s headers, which would make node-gyp build for the wrong runtime', () => {
    expect(nodedirForElectron({ nodedir: '/usr', headersAbi: '115', electronAbi: '150' })).toEqual({
      keep: false,
      note: expect.stringContaining("npm's nodedir (/usr) holds headers for NODE_MODULE_VERSION 115"),
    })
    expect(nodedirForElectron({ nodedir: '/opt/x', electronAbi: '150' }).keep).toBe(false)
  })

  it('is kept when it holds Electron’s headers, or absent', () => {
    expect(
      nodedirForElectron({ nodedir: '/opt/electron-headers', headersAbi: '150', electronAbi: '150' }),
    ).toEqual({
      keep: true,
    })
    expect(nodedirForElectron({ electronAbi: '150' })).toEqual({ keep: true })
  })
})
