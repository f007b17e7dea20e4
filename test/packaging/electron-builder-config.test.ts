// Checks electron-builder.yml against electron-builder's own schema and against the files it points
// at, so a typo in a fuse name or a missing/mis-sized icon fails here rather than in a release build.
import { createHash } from 'node:crypto'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { PNG } from 'pngjs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const root = join(import.meta.dirname, '..', '..')
const config = parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8'))
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const requireFromHere = createRequire(import.meta.url)

const APP_ICON_SIZES = [16, 32, 48, 64, 128, 256, 512, 1024]
const TRAY_STATES = ['ok', 'due-soon', 'overdue', 'releasing']
const TRAY_SIZES = [16, 32]

interface PngHeader {
  width: number
  height: number
  colorType: number
}

// Reads the IHDR chunk directly: 8-byte signature, 4-byte length, "IHDR", then width and height.
function readPngHeader(path: string): PngHeader {
  const bytes = readFileSync(path)
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  expect(bytes.subarray(0, 8).equals(signature), `${path} is not a PNG`).toBe(true)
  expect(bytes.toString('latin1', 12, 16)).toBe('IHDR')
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20), colorType: bytes.readUInt8(25) }
}

function expectSquarePng(path: string, size: number): void {
  expect(existsSync(path), `${path} is missing; run node scripts/render-icons.mjs`).toBe(true)
  const header = readPngHeader(path)
  expect({ path, width: header.width, height: header.height }).toEqual({ path, width: size, height: size })
  // Colour type 6 = RGBA: icons must carry transparency for rounded corners and tray panels.
  expect(header.colorType, `${path} has no alpha channel`).toBe(6)
}

function alphaAt(path: string, x: number, y: number): number {
  const png = PNG.sync.read(readFileSync(path))
  return png.data.readUInt8((y * png.width + x) * 4 + 3)
}

describe('electron-builder.yml', () => {
  it('is accepted by electron-builder’s configuration schema', async () => {
    const require = createRequire(import.meta.url)
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config')
    await expect(validateConfiguration(config, { isEnabled: false, add() {} })).resolves.toBeUndefined()
    // The schema rejects unknown keys, so a misspelt fuse cannot slip through silently.
    const misspelt = { ...config, electronFuses: { ...config.electronFuses, runAsnode: false } }
    await expect(validateConfiguration(misspelt, { isEnabled: false, add() {} })).rejects.toThrow(
      /configuration/,
    )
  })

  it('identifies the app', () => {
    expect(config.appId).toBe('org.vaultdesktop.app')
    expect(config.productName).toBe('Vault Desktop')
    expect(config.directories).toEqual({ output: 'dist', buildResources: 'resources' })
  })

  it('sets the security fuses', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      // The renderer comes from app://, so file:// pages get no more than a browser would give them.
      grantFileProtocolExtraPrivileges: false,
      loadBrowserProcessSpecificV8Snapshot: false,
    })
  })

  it('publishes nothing and ships no auto-update file (the app has no updater)', () => {
    expect(config).toHaveProperty('publish', null)
  })

  it('names the Linux app id after the app, so windows match their launcher entry', () => {
    expect(config.extraMetadata.desktopName).toBe(`${config.appId}.desktop`)
    expect(config.linux.syncDesktopName).toBe(true)
  })

  it('packs the built app, unpacks and rebuilds native modules', () => {
    expect(config.files).toEqual(expect.arrayContaining(['out/**', 'package.json', '!resources/**/*.svg']))
    expect(config.asarUnpack).toBe('**/*.node')
    expect(config.npmRebuild).toBe(true)
  })

  it('builds AppImage + deb, dmg and an nsis installer that lets the user pick the folder', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb'])
    expect(config.linux.category).toBe('Utility')
    expect(config.mac.target).toBe('dmg')
    expect(config.win.target).toBe('nsis')
    expect(config.nsis).toMatchObject({ oneClick: false, allowToChangeInstallationDirectory: true })
  })

  it('makes the deb depend on libsecret for the keychain, keeping the Electron runtime libraries', () => {
    expect(config.deb.depends).toEqual(expect.arrayContaining(['libsecret-1-0', 'libgtk-3-0', 'libnss3']))
  })

  it('signs macOS builds with the hardened runtime and a real entitlements plist', () => {
    expect(config.mac).toMatchObject({ hardenedRuntime: true, gatekeeperAssess: false })
    for (const key of ['entitlements', 'entitlementsInherit']) {
      const plist = readFileSync(join(root, config.mac[key]), 'utf8')
      expect(plist).toMatch(/^<\?xml.*<plist version="1.0">.*<\/plist>\s*$/s)
      expect(plist).toContain('<key>com.apple.security.cs.allow-jit</key>')
    }
  })
})

// What electron-builder 26 needs for each target, read from package.json and electron-builder.yml
// together the way it does. Each rule names where app-builder-lib enforces it; the mutation tests below
// show every rule fails when its field is missing.
// biome-ignore lint/suspicious/noExplicitAny: parsed YAML and JSON, checked field by field below
type Json = Record<string, any>

function targetsOf(platform: Json | undefined): string[] {
  const target = platform?.target
  if (target == null) return []
  return (Array.isArray(target) ? target : [target]).map((entry: string | { target: string }) =>
    typeof entry === 'string' ? entry : entry.target,
  )
}

function pngSize(path: string): number {
  if (!existsSync(path)) return 0
  const header = readPngHeader(path)
  return Math.min(header.width, header.height)
}

function isHttpsUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false
  try {
    return new URL(value).protocol === 'https:'
  } catch {
    return false
  }
}

function installerProblems(pkg: Json, builder: Json): string[] {
  const problems: string[] = []
  // electron-builder reads package.json through this, which turns an "author": "Name <e-mail>" string
  // into { name, email }; using it here means both spellings are judged as it judges them.
  const { normalizePackageData } = requireFromHere('app-builder-lib/out/util/normalizePackageData')
  const metadata = structuredClone(pkg)
  normalizePackageData(metadata)

  const linux = targetsOf(builder.linux)
  if (linux.includes('deb')) {
    const deb = { ...builder.linux, ...builder.deb }
    // FpmTarget.computeFpmMetaInfoOptions: the maintainer is deb/linux.maintainer or the author's e-mail…
    if (!deb.maintainer && !metadata.author?.email) {
      problems.push('deb: package.json "author" needs an e-mail (or set linux.maintainer)')
    }
    // …and the package's homepage (electron-builder would also take a GitHub "repository"; the Debian
    // control file shows it to users, so it must be a real https page).
    if (!isHttpsUrl(pkg.homepage)) problems.push('deb: package.json "homepage" must be an https:// URL')
    // FpmTarget: --description is "<synopsis>\n <description>" (LinuxTargetHelper.getDescription).
    if (!String(deb.description ?? pkg.description ?? '').trim()) problems.push('deb: needs a description')
    if (!String(deb.synopsis ?? '').trim()) problems.push('deb: needs linux.synopsis (the one-line summary)')
  }
  if (linux.length > 0) {
    // The .desktop entry's Categories; without one, menus file the app under "Other".
    if (!builder.linux.category) problems.push('linux: needs linux.category')
    // LinuxTargetHelper.icons: the icon set comes from PNGs named by size in linux.icon.
    const iconDir = join(root, builder.linux.icon ?? '')
    const sizes = existsSync(iconDir)
      ? readdirSync(iconDir)
          .flatMap((name) => /^(\d+)x\1\.png$/.exec(name)?.[1] ?? [])
          .map(Number)
      : []
    if (!sizes.some((size) => size >= 256))
      problems.push('linux: linux.icon needs PNGs up to at least 256x256')
  }
  // iconConverter: an .ico is made from a PNG of at least 256 px (ERR_ICON_TOO_SMALL otherwise).
  if (targetsOf(builder.win).includes('nsis') && pngSize(join(root, builder.win.icon ?? '')) < 256) {
    problems.push('nsis: win.icon must be a PNG of at least 256x256')
  }
  // iconConverter asks for 512 px for an .icns; 1024 px is what Retina docks and Finder show.
  if (targetsOf(builder.mac).includes('dmg') && pngSize(join(root, builder.mac.icon ?? '')) < 1024) {
    problems.push('dmg: mac.icon must be a 1024x1024 PNG')
  }
  // Every fuse electron-builder knows is decided here, so a new one is a choice, not a default.
  const { definitions } = requireFromHere('app-builder-lib/scheme.json')
  for (const fuse of Object.keys(definitions.FuseOptionsV1.properties)) {
    // Only re-signs ad hoc on macOS; electron-builder signs right after flipping fuses anyway.
    if (fuse === 'resetAdHocDarwinSignature') continue
    if (typeof builder.electronFuses?.[fuse] !== 'boolean')
      problems.push(`fuses: electronFuses.${fuse} is not set`)
  }
  return problems
}

describe('what each installer target needs', () => {
  it('has everything for AppImage, deb, nsis and dmg, and every fuse set', () => {
    expect(installerProblems(packageJson, config)).toEqual([])
  })

  it('gives the deb its maintainer and homepage from package.json', () => {
    expect(packageJson.author).toEqual({
      name: 'Vault Desktop contributors',
      email: 'maintainers@vaultdesktop.org',
    })
    expect(packageJson.homepage).toBe('https://github.com/vault-desktop/vault-desktop')
  })

  it('fails without the homepage, the author e-mail, a synopsis or a category', () => {
    const without = (edit: (pkg: Json, builder: Json) => void) => {
      const pkg = structuredClone(packageJson)
      const builder = structuredClone(config)
      edit(pkg, builder)
      return installerProblems(pkg, builder)
    }
    expect(without((pkg) => delete pkg.homepage)).toEqual([
      'deb: package.json "homepage" must be an https:// URL',
    ])
    expect(without((pkg) => (pkg.homepage = 'http://vaultdesktop.org'))).toHaveLength(1)
    expect(without((pkg) => delete pkg.author.email)).toEqual([
      'deb: package.json "author" needs an e-mail (or set linux.maintainer)',
    ])
    expect(without((pkg) => delete pkg.author)).toHaveLength(1)
    expect(without((_, builder) => delete builder.linux.synopsis)).toEqual([
      'deb: needs linux.synopsis (the one-line summary)',
    ])
    expect(without((_, builder) => delete builder.linux.category)).toEqual(['linux: needs linux.category'])
  })

  it('accepts the author as one string, or a linux.maintainer instead, as electron-builder does', () => {
    const pkg = { ...packageJson, author: 'Vault Desktop contributors <maintainers@vaultdesktop.org>' }
    expect(installerProblems(pkg, config)).toEqual([])
    const { author: _author, ...anonymous } = packageJson
    const builder = { ...config, linux: { ...config.linux, maintainer: 'Someone <someone@example.org>' } }
    expect(installerProblems(anonymous, builder)).toEqual([])
  })

  it('fails on a Windows icon under 256 px, a macOS icon under 1024 px, or a fuse left out', () => {
    const small = { ...config, win: { ...config.win, icon: 'resources/icons/128x128.png' } }
    expect(installerProblems(packageJson, small)).toEqual([
      'nsis: win.icon must be a PNG of at least 256x256',
    ])
    const retina = { ...config, mac: { ...config.mac, icon: 'resources/icons/512x512.png' } }
    expect(installerProblems(packageJson, retina)).toEqual(['dmg: mac.icon must be a 1024x1024 PNG'])
    const { grantFileProtocolExtraPrivileges: _fuse, ...fuses } = config.electronFuses
    expect(installerProblems(packageJson, { ...config, electronFuses: fuses })).toEqual([
      'fuses: electronFuses.grantFileProtocolExtraPrivileges is not set',
    ])
  })
})

describe('icons referenced by the packaging config', () => {
  it('has the Linux icon set, one PNG per size, named by its size', () => {
    const dir = join(root, config.linux.icon)
    expect(statSync(dir).isDirectory()).toBe(true)
    const names = readdirSync(dir).filter((name) => name.endsWith('.png'))
    expect(names.sort()).toEqual(APP_ICON_SIZES.map((s) => `${s}x${s}.png`).sort())
    for (const size of APP_ICON_SIZES) expectSquarePng(join(dir, `${size}x${size}.png`), size)
  })

  it('has the default, macOS and Windows app icons at the sizes electron-builder needs', () => {
    expectSquarePng(join(root, 'resources/icon.png'), 512)
    expectSquarePng(join(root, config.mac.icon), 1024)
    expectSquarePng(join(root, config.win.icon), 256)
  })

  it('has transparent corners outside the rounded-square app icon', () => {
    for (const size of [16, 256]) {
      expect(alphaAt(join(root, 'resources/icons', `${size}x${size}.png`), 0, 0)).toBe(0)
    }
    expect(alphaAt(join(root, 'resources/icons/256x256.png'), 128, 128)).toBe(255)
  })

  it('ships a 16 and 32 px tray icon with an SVG source for every tray state', () => {
    const trayResource = config.extraResources.find((entry: { to: string }) => entry.to === 'tray')
    expect(trayResource).toMatchObject({ from: 'resources/tray', filter: ['*.png'] })
    const trayDir = join(root, trayResource.from)
    for (const state of TRAY_STATES) {
      expect(existsSync(join(trayDir, `${state}.svg`)), `${state}.svg source missing`).toBe(true)
      for (const size of TRAY_SIZES) expectSquarePng(join(trayDir, `${state}-${size}.png`), size)
    }
  })

  it('copies the window icon beside the tray icons, where the packaged main process looks', () => {
    const iconResource = config.extraResources.find((entry: { to: string }) => entry.to === 'icon.png')
    expect(iconResource).toEqual({ from: 'resources/icon.png', to: 'icon.png' })
  })

  it('gives each tray state its own picture', () => {
    const pixels = TRAY_STATES.map((state) =>
      PNG.sync.read(readFileSync(join(root, 'resources/tray', `${state}-16.png`))).data.toString('hex'),
    )
    expect(new Set(pixels).size).toBe(TRAY_STATES.length)
  })
})

// electron-builder's extraResources, applied the way it does: a file `from` is copied to `to`; a folder's
// files that match a `filter` glob go into `to`. Run on a made-up build, so it needs no packaging.
function placeExtraResources(project: string, resources: string): void {
  for (const entry of config.extraResources as { from: string; to: string; filter?: string[] }[]) {
    const from = join(project, entry.from)
    if (!existsSync(from)) continue
    const to = join(resources, entry.to)
    if (statSync(from).isFile()) {
      mkdirSync(dirname(to), { recursive: true })
      copyFileSync(from, to)
      continue
    }
    const globs = (entry.filter ?? ['*']).map(
      (glob) => new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`),
    )
    mkdirSync(to, { recursive: true })
    for (const name of readdirSync(from))
      if (statSync(join(from, name)).isFile() && globs.some((glob) => glob.test(name)))
        copyFileSync(join(from, name), join(to, name))
  }
}

describe('what the installed app ships for the heirs', () => {
  it('puts the guide, the format, the recovery page and the packed tool where the app looks for them', async () => {
    // A build as `npm run dist` leaves it (npm run build, then pack:recovery), beside files it must not ship.
    const work = mkdtempSync(join(tmpdir(), 'vault-resources-'))
    try {
      const project = join(work, 'project')
      for (const doc of ['docs/RECOVERY.md', 'docs/FORMAT.md']) {
        mkdirSync(dirname(join(project, doc)), { recursive: true })
        copyFileSync(join(root, doc), join(project, doc))
      }
      const page = join(project, 'out/recovery-page')
      mkdirSync(page, { recursive: true })
      writeFileSync(join(page, 'vault-recovery.html'), '<!doctype html>the page')
      writeFileSync(join(page, 'vault-recovery.html.sha256'), 'recorded  vault-recovery.html\n')
      const tool = join(project, 'out/recovery-package')
      mkdirSync(join(tool, 'stage'), { recursive: true })
      writeFileSync(join(tool, 'vault-recover-0.1.0.tgz'), 'the tool')
      writeFileSync(join(tool, 'stage/package.json'), '{}')
      const resources = join(work, 'resources')
      placeExtraResources(project, resources)

      // The kits' SHA-256 and the export's materials, found from the resources alone (an app.asar keeps
      // neither: `files` leaves them out, so nothing is shipped twice).
      const { findRecoveryMaterials } = await import('../../src/main/core/vaults/encrypted-export')
      const { shippedRecoveryPageSha256 } = await import('../../src/main/core/printable/recovery-page-digest')
      const pageSha256 = createHash('sha256').update('<!doctype html>the page').digest('hex')
      expect(await shippedRecoveryPageSha256([resources])).toBe(pageSha256)
      expect(await findRecoveryMaterials([resources])).toEqual({
        recoveryGuide: join(resources, 'docs/RECOVERY.md'),
        formatSpec: join(resources, 'docs/FORMAT.md'),
        recoveryTool: join(resources, 'recovery-package/vault-recover-0.1.0.tgz'),
        recoveryPage: { path: join(resources, 'recovery-page/vault-recovery.html'), sha256: pageSha256 },
      })
      expect(existsSync(join(resources, 'recovery-package/stage'))).toBe(false)
      expect(config.files).toEqual(
        expect.arrayContaining(['!out/recovery-page/**', '!out/recovery-package/**']),
      )
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  })

  it('is built by npm run dist before packaging: the app, then the page and the tool', () => {
    // scripts/dist.mjs runs these npm scripts in order before electron-builder; without pack:recovery an
    // installer would carry no page (kits without its SHA-256) and exports no tool.
    const dist = readFileSync(join(root, 'scripts/dist.mjs'), 'utf8')
    expect(dist).toMatch(/for \(const script of \['build', 'pack:recovery'\]\)/)
    expect(packageJson.scripts['pack:recovery']).toBe('node scripts/pack-recovery.mjs')
  })
})

describe('the native AES-GCM in the installed app', () => {
  it('is built by npm run build into out/, shipped by `files` and unpacked from the asar', () => {
    expect(packageJson.scripts.build).toMatch(/node scripts\/build-native-cipher\.mjs/)
    expect(config.files).toContain('out/**')
    expect(config.files.filter((f: string) => f.startsWith('!') && f.includes('native-cipher'))).toEqual([])
    // asarUnpack '**/*.node' takes any .node file, at any depth.
    expect(config.asarUnpack).toBe('**/*.node')
    // aead-native.ts looks two folders up from its bundle (out/main/index.js), and so finds out/native-cipher.
    const source = readFileSync(join(root, 'src/node-cipher/aead-native.ts'), 'utf8')
    expect(source).toContain("new URL('../../out/native-cipher/aes_gcm.node', import.meta.url)")
    expect(
      new URL('../../out/native-cipher/aes_gcm.node', 'file:///app.asar/out/main/index.js').pathname,
    ).toBe('/app.asar/out/native-cipher/aes_gcm.node')
  })
})
