// Runs the built main process (out/main/index.js) against the Electron stand-in, and the built preload
// (out/preload/index.cjs) in a bare context whose only module is the stand-in's `electron`, as a
// sandboxed preload's require allows. The test file mocks 'electron' with electronMainModule.
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runInNewContext } from 'node:vm'
import { vi } from 'vitest'
import type { RawVaultBridge } from '../../../src/shared/ipc/bridge'
import { ElectronWorld, type FakeBrowserWindow } from './electron-stand-in'

const root = join(import.meta.dirname, '..', '..', '..')
export const MAIN_BUNDLE = join(root, 'out', 'main', 'index.js')
export const PRELOAD_BUNDLE = join(root, 'out', 'preload', 'index.cjs')
export const RENDERER_DIR = join(root, 'out', 'renderer')

export interface LaunchedShell {
  world: ElectronWorld
  userDataDir: string
  /** Quits through app.quit() (as the tray's Quit does) and waits until the app is gone. */
  quit(): Promise<void>
}

/** Polls until `check` returns something truthy; fails with `what` after `timeoutMs`. */
export async function until<T>(
  check: () => T | Promise<T>,
  what: string,
  timeoutMs = 10_000,
): Promise<NonNullable<T>> {
  // performance.now(): tests may fake Date.
  const deadline = performance.now() + timeoutMs
  let lastError: unknown
  for (;;) {
    try {
      const value = await check()
      if (value) return value as NonNullable<T>
    } catch (error) {
      lastError = error
    }
    if (performance.now() > deadline) {
      throw new Error(
        `Timed out waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/**
 * Imports the main bundle afresh (as a new process would run it), then fires 'ready'. With
 * `lockAvailable: false` another instance holds the lock. Resolves once 'ready' has been handled
 * as far as the caller asks: `waitFor: 'window'` (default) waits for the window to be shown.
 */
export async function launchMain(
  options: { lockAvailable?: boolean; userDataDir?: string; waitFor?: 'window' | 'nothing' } = {},
): Promise<LaunchedShell> {
  for (const bundle of [MAIN_BUNDLE, PRELOAD_BUNDLE, join(RENDERER_DIR, 'index.html')]) {
    if (!existsSync(bundle))
      throw new Error(`${bundle} is missing: run "npm run build" before the shell tests.`)
  }
  const userDataDir = options.userDataDir ?? (await mkdtemp(join(tmpdir(), 'vault-shell-')))
  const world = new ElectronWorld({ userDataDir, lockAvailable: options.lockAvailable })
  world.activate()
  vi.resetModules()
  await import(MAIN_BUNDLE)
  world.makeReady()
  if (options.waitFor !== 'nothing') {
    await until(
      () => world.windows[0]?.isVisible() && world.windows[0].loaded.length > 0,
      'the main window to load its page and be shown',
    )
  }
  return {
    world,
    userDataDir,
    quit: async () => {
      if (!world.quitted) world.app.quit()
      await until(() => world.quitted, 'the app to quit', 20_000)
      if (!options.userDataDir) await rm(userDataDir, { recursive: true, force: true })
    },
  }
}

export interface PreloadExposure {
  vault: RawVaultBridge
  vaultFiles: { pathForFile(file: object): string }
  exposedKeys: string[]
}

/** Runs the preload bundle as the given window's sandboxed preload and returns what it exposed. */
export function runPreload(world: ElectronWorld, window: FakeBrowserWindow): PreloadExposure {
  const electron = world.preloadModule(window)
  const module = { exports: {} }
  const sandboxedRequire = (name: string) => {
    if (name === 'electron') return electron
    throw new Error(`module not found: ${name} (a sandboxed preload can only require 'electron')`)
  }
  runInNewContext(
    readFileSync(PRELOAD_BUNDLE, 'utf8'),
    { require: sandboxedRequire, module, exports: module.exports, console },
    { filename: PRELOAD_BUNDLE },
  )
  return {
    vault: world.exposedInMainWorld.get('vault') as RawVaultBridge,
    vaultFiles: world.exposedInMainWorld.get('vaultFiles') as PreloadExposure['vaultFiles'],
    exposedKeys: [...world.exposedInMainWorld.keys()],
  }
}

/** Unwraps a bridge answer, failing with the service's message when it is an error. */
export async function answer<T>(response: Promise<{ ok: true; value: T } | { ok: false; error: unknown }>) {
  const result = await response
  if (!result.ok) throw new Error(`IPC call failed: ${JSON.stringify(result.error)}`)
  return result.value
}
