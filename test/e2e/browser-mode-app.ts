// Starts the real app backend in browser mode (built by `npm test` beforehand) for one test file.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface BrowserModeApp {
  url: string
  userDataDir: string
  stop(): Promise<void>
}

export async function startBrowserModeApp(extraArgs: string[] = []): Promise<BrowserModeApp> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'vault-e2e-'))
  const child: ChildProcess = spawn(
    process.execPath,
    ['out/cli/browser-mode.js', '--user-data', userDataDir, '--secret-store', 'memory', ...extraArgs],
    { stdio: ['ignore', 'pipe', 'inherit'] },
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
  return {
    url,
    userDataDir,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
      await rm(userDataDir, { recursive: true, force: true })
    },
  }
}
