// Starts the real app backend in browser mode (built by `npm test` beforehand) for one test file.
// The same user-data folder can be started again to test what survives a restart.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface BrowserModeApp {
  url: string
  userDataDir: string
  /** The backend's process, to read its memory (/proc/<pid>/status). */
  pid: number
  /** Stops the app (again: no effect); the user-data folder is removed unless `keepData`. */
  stop(options?: { keepData?: boolean }): Promise<void>
}

export interface BrowserModeOptions {
  /** Reuse a folder (a restart); default: a new temp folder. */
  userDataDir?: string
  /** 'auto' tries the OS keychain (npm test runs the suite inside a private keyring session). */
  secretStore?: 'memory' | 'auto'
  extraArgs?: string[]
  /** LC_ALL of the backend, e.g. 'es_ES.UTF-8' (default C.UTF-8: English). */
  systemLocale?: string
}

export async function startBrowserModeApp(
  options: BrowserModeOptions | string[] = {},
): Promise<BrowserModeApp> {
  const opts = Array.isArray(options) ? { extraArgs: options } : options
  const userDataDir = opts.userDataDir ?? (await mkdtemp(join(tmpdir(), 'vault-e2e-')))
  const child: ChildProcess = spawn(
    process.execPath,
    [
      'out/cli/browser-mode.js',
      '--user-data',
      userDataDir,
      '--secret-store',
      opts.secretStore ?? 'memory',
      ...(opts.extraArgs ?? []),
    ],
    // The core's notices follow the system language: the journeys read them in English whatever the
    // machine's, unless a test names one.
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LC_ALL: opts.systemLocale ?? 'C.UTF-8' } },
  )
  const url = await new Promise<string>((resolve, reject) => {
    let output = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(output)
      if (match?.[1]) resolve(match[1])
    })
    child.once('exit', (code) => reject(new Error(`browser mode exited early (${code}): ${output}`)))
  })
  // Stopping twice is fine (a test may stop its app to see what the page does; the fixture then stops
  // it again): the second call finds the process gone and waits for nothing.
  const exited = new Promise((resolve) => child.once('exit', resolve))
  return {
    url,
    userDataDir,
    pid: child.pid!,
    stop: async ({ keepData = false } = {}) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
      if (!keepData) await rm(userDataDir, { recursive: true, force: true })
    },
  }
}
