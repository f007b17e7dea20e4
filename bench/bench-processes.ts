// What the process benchmarks share (bench/upload.ts, bench/owner-download.ts, bench/heir-recovery.ts):
// the local service in a child process of its own, the measured side bundled, a random test file, the
// median, and progress lines on stderr (the last stdout line is the result).
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createReadStream, createWriteStream, readFileSync } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import type { MeasuredRun } from './measured-run'

/** A pause before each run, so that one run's aftermath (writeback, GC) does not land on the next. */
const SETTLE_MS = 2000

/**
 * One run of a bundled measured client from a settled machine: dirty pages written, a pause, a fresh
 * output folder (removed afterwards, `check` sees the run before). Secrets go in `env`, never in the
 * arguments (command lines show up in process lists). Logs the run's line; returns its JSON result.
 */
/** What was spent around one client run: by this process (where the service runs) and by the machine. */
export interface AroundRun {
  /** This process's CPU (user + system) while the client ran: the service's, when it runs here. */
  parentCpuSeconds: number
  /** All cores' busy time over the client's whole life (its start included) per second: 2 = two cores full. */
  machineBusyCores: number
}

/** Busy and total time of all cores since boot (/proc/stat), in clock ticks; null where there is none. */
function coreTicks(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
    const total = fields.reduce((a, b) => a + b, 0)
    // idle and iowait are the cores waiting; everything else (user, nice, system, irq, softirq, steal) is work.
    return { busy: total - fields[3]! - fields[4]!, total }
  } catch {
    return null
  }
}

export async function runMeasuredClient<T extends MeasuredRun & { mode: string }>(options: {
  bundle: string
  /** The client's arguments for this run's output folder. */
  args: (folder: string) => string[]
  nodeArgs?: string[]
  env: Record<string, string>
  folder: string
  /** For the log line: the bytes the run moved, and whether it counts. */
  bytes: number
  timed: boolean
  check?: (run: T) => Promise<void>
}): Promise<T & AroundRun> {
  execFileSync('sync')
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  await mkdir(options.folder)
  try {
    const parentCpu = process.cpuUsage()
    const ticks0 = coreTicks()
    const { stdout } = await promisify(execFile)(
      process.execPath,
      // BENCH_CPU_PROF=<folder>: each measured client writes a V8 CPU profile there (where its time goes).
      [
        ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
        ...(options.nodeArgs ?? []),
        options.bundle,
        ...options.args(options.folder),
      ],
      { maxBuffer: 1 << 20, env: { ...process.env, ...options.env } },
    )
    const ticks1 = coreTicks()
    const parentUsed = process.cpuUsage(parentCpu)
    const cores = availableParallelism()
    const run: T & AroundRun = {
      ...(JSON.parse(stdout.trim().split('\n').at(-1)!) as T),
      parentCpuSeconds: (parentUsed.user + parentUsed.system) / 1e6,
      machineBusyCores:
        ticks0 && ticks1 ? (cores * (ticks1.busy - ticks0.busy)) / (ticks1.total - ticks0.total) : Number.NaN,
    }
    log(
      `${options.timed ? '' : '(untimed) '}${run.mode.padEnd(7)} ${run.seconds.toFixed(2)} s  ` +
        `${(options.bytes / 1e6 / run.seconds).toFixed(1)} MB/s  CPU ${((run.cpuSeconds * 1e9) / options.bytes).toFixed(2)} s/GB  ` +
        `RSS start ${run.startRssMB.toFixed(0)} MB, peak ${run.peakRssMB.toFixed(0)} MB (${run.peakFrom})  ` +
        `here ${((run.parentCpuSeconds * 1e9) / options.bytes).toFixed(2)} s/GB  cores busy ${run.machineBusyCores.toFixed(2)}`,
    )
    await options.check?.(run)
    return run
  } finally {
    await rm(options.folder, { recursive: true, force: true })
  }
}

/** A file's SHA-256 (hex), read as a stream. */
export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(path, { highWaterMark: 1 << 20 }), hash)
  return hash.digest('hex')
}

/**
 * Bundles a benchmark's measured side into out/bench/<name>.mjs, as the app's processes run bundled
 * (no tsx in its memory), with the worker threads' modules beside it; returns its path.
 */
export async function bundleBenchClient(
  name: string,
  entry: string,
  /** splitting: modules imported on demand stay chunks of their own, as electron-vite builds the app. */
  options: { splitting?: boolean; sourcemap?: 'external' } = {},
): Promise<string> {
  const { build } = await import('esbuild')
  const { NODE_CIPHER_WORKERS } = await import('../scripts/node-cipher-workers.mjs')
  const { externalExceptBundled } = await import('../scripts/bundled-dependencies.mjs')
  const outdir = join('out', 'bench')
  await build({
    entryPoints: { [name]: entry, ...NODE_CIPHER_WORKERS },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    plugins: [externalExceptBundled],
    ...options,
    logLevel: 'warning',
  })
  return join(outdir, `${name}.mjs`)
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

/** Writes `size` random bytes to `path`; returns their SHA-256 (hex), for checking a copy against. */
export async function makeFile(path: string, size: number): Promise<string> {
  // Random throughout, like ciphertext: a repeating pattern could be stored or moved more cheaply
  // by the layers underneath (page dedup, compressed disks) and flatter the plain side.
  const out = createWriteStream(path, { highWaterMark: 1 << 20 })
  const hash = createHash('sha256')
  let written = 0
  while (written < size) {
    const block = randomBytes(Math.min(16 * 1024 * 1024, size - written))
    hash.update(block)
    if (!out.write(block)) await once(out, 'drain')
    written += block.length
  }
  out.end()
  await once(out, 'finish')
  return hash.digest('hex')
}

/** The local Vault Service in a child process (bench/upload-service-child.ts), rate limits off. */
export function startService(dataDir: string): Promise<{ child: ChildProcess; url: string; apiKey: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/upload-service-child.ts', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    let buffer = ''
    child.stdout!.on('data', (d: Buffer) => {
      buffer += d.toString()
      const newline = buffer.indexOf('\n')
      if (newline < 0) return
      try {
        resolve({
          child,
          ...(JSON.parse(buffer.slice(0, newline)) as { url: string; apiKey: string }),
        })
      } catch (error) {
        reject(error)
      }
    })
    child.once('exit', (code) => reject(new Error(`the service child exited with ${code}`)))
  })
}

/** Stops the service child, if it still runs. */
export async function stopService(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return
  child.kill('SIGTERM')
  await once(child, 'exit').catch(() => undefined)
}
