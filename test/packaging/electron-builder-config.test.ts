// Checks electron-builder.yml against electron-builder's own schema and against the files it points
// at, so a typo in a fuse name or a missing/mis-sized icon fails here rather than in a release build.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { PNG } from 'pngjs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const root = join(import.meta.dirname, '..', '..')
const config = parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8'))

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
    })
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
