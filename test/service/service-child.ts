// The service CLI bundled and run as a `serve` child process, as in production: for tests and benchmarks
// (no vitest import here, so a benchmark run by tsx can use it).
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'

/** Bundles the service CLI once per test file (as scripts/build-cli.mjs does) so child processes start fast. */
export async function buildServiceCli(): Promise<string> {
  const { build } = await import('esbuild')
  const root = join(import.meta.dirname, '../..')
  const outfile = join(root, 'out', 'test-service-cli', `service-${process.pid}.js`)
  await build({
    entryPoints: [join(root, 'src/service/cli.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    packages: 'external',
    logLevel: 'warning',
  })
  return outfile
}

export interface ServeChild {
  child: ChildProcess
  exit: Promise<{ code: number | null; stdout: string; stderr: string }>
  /** The address it printed once listening; rejects if it exits first. */
  url: Promise<string>
}

/** `serve` from the built CLI (buildServiceCli) as a child process. */
export function serveChild(cli: string, ...args: string[]): ServeChild {
  const child = spawn(process.execPath, [cli, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stderr!.on('data', (d) => {
    stderr += d
  })
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  )
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      stdout += d
      const match = /^listening on (https?:\/\/\S+)$/m.exec(stdout)
      if (match) resolve(match[1]!)
    })
    void exit.then(({ code }) => reject(new Error(`exited with ${code}: ${stderr}`)))
  })
  url.catch(() => undefined)
  return { child, exit, url }
}
