// Launching the real desktop app (the built out/main) through Playwright's Electron driver, and a
// second copy of it for the single-instance check. Everything here needs node_modules/electron/dist.
import { spawn } from 'node:child_process'
import { _electron, type ElectronApplication } from '@playwright/test'
import { electronBinaryPath } from '../../../scripts/electron-binary.mjs'

export const electronBinary = electronBinaryPath()

// One plain line per run (this module loads once per process), then every Electron test reports skipped.
export const SKIP_REASON =
  'skipped: Electron binary not installed (node_modules/electron/dist is missing; see scripts/electron-binary.mjs)'
if (!electronBinary) {
  console.log('skipped: Electron binary not installed (the desktop suite needs node_modules/electron/dist)')
}

/** The environment a user's launch would have: not "run as Node", no dev-server renderer. */
function appEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== 'ELECTRON_RUN_AS_NODE' && key !== 'ELECTRON_RENDERER_URL') {
      env[key] = value
    }
  }
  return env
}

/**
 * Starts the app from this checkout with its own user-data folder. Electron honours --user-data-dir
 * for app.getPath('userData'), which holds the app's data and its single-instance lock.
 */
export function launchDesktopApp(userDataDir: string): Promise<ElectronApplication> {
  if (!electronBinary) throw new Error(SKIP_REASON)
  return _electron.launch({
    executablePath: electronBinary,
    args: ['.', `--user-data-dir=${userDataDir}`],
    env: appEnv(),
  })
}

export interface SecondLaunch {
  code: number | null
  signal: NodeJS.Signals | null
  output: string
}

/**
 * Launches the app again, as a user double-clicking it would, with the same user-data folder.
 * Resolves when that process exits; rejects if it is still running after `timeoutMs` (and stops it).
 */
export function launchSecondInstance(userDataDir: string, timeoutMs = 30_000): Promise<SecondLaunch> {
  if (!electronBinary) throw new Error(SKIP_REASON)
  // Playwright passes --no-sandbox on Linux for the first instance; the same here, so only the lock differs.
  const sandbox = process.platform === 'linux' ? ['--no-sandbox'] : []
  const child = spawn(electronBinary, ['.', `--user-data-dir=${userDataDir}`, ...sandbox], {
    env: appEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(
        new Error(
          `The second launch was still running after ${timeoutMs} ms: it did not find the first instance's lock.\n${output}`,
        ),
      )
    }, timeoutMs)
    child.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, output })
    })
  })
}
