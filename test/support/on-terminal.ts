// Runs a command on a pseudo-terminal, as a person at a terminal would (its stdout and stderr are TTYs),
// through script(1) from util-linux, which every Debian has. Returns everything it printed, whatever
// its exit status.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

export async function runOnTerminal(command: string[], timeoutMs = 60_000): Promise<string> {
  const quoted = command.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ')
  try {
    return (await run('script', ['-qec', quoted, '/dev/null'], { timeout: timeoutMs, maxBuffer: 64 << 20 }))
      .stdout
  } catch (error) {
    const failed = error as { stdout?: string; code?: unknown }
    // script itself missing or killed: nothing was run, which the caller must not read as output.
    if (failed.stdout === undefined || typeof failed.code !== 'number') throw error
    return failed.stdout
  }
}
