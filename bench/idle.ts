// bench:idle — what the app costs while it waits, the way it spends almost all its life (in the tray,
// no window): its core with 5 vaults on a dead man's switch, connected to the local Vault Service in a
// process of its own, idle for --minutes=N (default 10); then the same with one more vault releasing.
// Prints per scenario: CPU seconds of the app (and of the service), wake-ups per minute (voluntary
// context switches of every thread: each is a sleep something ended), the app's timer callbacks per
// minute by the line that set them, RSS at start and end, requests to the service per hour, the tray
// views sent per hour and how many of them the desktop shell would redraw, and bytes written with the
// files changed. Targets: under 1 CPU second per 10 minutes, no RSS growth, no write
// when nothing changed. Last line: one JSON object.
//   npm run bench:idle [-- --minutes=10 --only=idle|releasing]
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { SourceMap } from 'node:module'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { promisify } from 'node:util'
import { bundleBenchClient, log } from './bench-processes'

const minutesArg = process.argv.find((a) => a.startsWith('--minutes='))
const MINUTES = minutesArg ? Number(minutesArg.slice('--minutes='.length)) : 10
const onlyArg = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length)
const SCENARIOS = (['idle', 'releasing'] as const).filter((s) => !onlyArg || s === onlyArg)

interface ClientResult {
  cpuSeconds: number
  vaults: number
  wakeUpsPerMinute: { mainThread: number; allThreads: number }
  timerCallbacksPerMinute: Record<string, number>
  rssMB: { start: number; end: number }
  heapAfterGcMB: { start: number; end: number }
  rssAfterGcMB: number
  rssSettledMB: number
  heapSpacesMB: { start: Record<string, number>; end: Record<string, number> }
  requestsPerHour: Record<string, number>
  trayPerHour: { views: number; redraws: number }
  written: { bytes: number; writeCalls: number }
}

/** "setTimeout out/bench/x.mjs:120:7" -> "setTimeout src/main/core/...ts:88", through the bundle's map. */
function sourceOf(origin: string, maps: Map<string, SourceMap | null>): string {
  const match = /^(\w+) (\/[^:]+\.mjs):(\d+):(\d+)$/.exec(origin)
  if (!match) return origin
  const [, kind, file, line, column] = match as unknown as [string, string, string, string, string]
  if (!maps.has(file)) {
    try {
      maps.set(file, new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))))
    } catch {
      maps.set(file, null)
    }
  }
  const entry = maps.get(file)?.findEntry(Number(line) - 1, Number(column) - 1) as
    | { originalSource?: string; originalLine?: number }
    | undefined
  if (!entry?.originalSource) return origin
  const source = entry.originalSource.replace(/^.*?((?:src|bench|node_modules)\/)/, '$1')
  return `${kind} ${source}:${(entry.originalLine ?? 0) + 1}`
}

/** A process's resident memory in MB, from /proc (0 when it is gone). */
function rssOf(pid: number): number {
  try {
    const kB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
    return (kB * 1024) / 1e6
  } catch {
    return 0
  }
}

function startService(dataDir: string): Promise<{ child: ChildProcess; url: string; apiKey: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/idle-service-child.ts', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    let buffer = ''
    child.stdout!.on('data', (d: Buffer) => {
      buffer += d.toString()
      const line = buffer.split('\n')[0]
      if (buffer.includes('\n')) resolve({ child, ...JSON.parse(line!) })
    })
    child.once('exit', (code) => reject(new Error(`the service exited (${code})`)))
  })
}

/** CPU seconds (user + system) and bytes written of a process so far, from /proc. */
function processCost(pid: number): { cpuSeconds: number; writeBytes: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticks = Number(fields[11]) + Number(fields[12])
  const io = readFileSync(`/proc/${pid}/io`, 'utf8')
  return { cpuSeconds: ticks / 100, writeBytes: Number(/write_bytes:\s+(\d+)/.exec(io)?.[1] ?? 0) }
}

/** Every file under a folder with its modification time and size. */
function fileTimes(dir: string): Map<string, string> {
  const times = new Map<string, string>()
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    try {
      const { mtimeMs, size } = statSync(path)
      times.set(relative(dir, path), `${mtimeMs}:${size}`)
    } catch {
      // Gone between the listing and the stat: a temporary file.
    }
  }
  return times
}

/** The files written (new, changed or removed) between two listings. */
function changedFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()])
  return [...names].filter((name) => before.get(name) !== after.get(name)).sort()
}

// External maps: the census records bundle positions (cheap) and they are mapped back below.
const bundle = await bundleBenchClient('idle-client', 'bench/idle-client.ts', {
  splitting: true,
  sourcemap: 'external',
})
const results: Record<string, unknown> = {}
for (const scenario of SCENARIOS) {
  const work = await mkdtemp(join(tmpdir(), 'vault-bench-idle-'))
  let service: ChildProcess | undefined
  try {
    await mkdir(join(work, 'service'))
    await mkdir(join(work, 'app'))
    const svc = await startService(join(work, 'service'))
    service = svc.child
    log(
      `${scenario}: 5 vaults${scenario === 'releasing' ? ' and one releasing' : ''}, idle ${MINUTES} min...`,
    )
    const client = spawn(
      process.execPath,
      // --expose-gc: the client weighs its heap after a full collection at the start and the end.
      [
        '--expose-gc',
        bundle,
        svc.url,
        join(work, 'app'),
        String(MINUTES),
        scenario === 'releasing' ? 'releasing' : '',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, VAULT_BENCH_API_KEY: svc.apiKey } },
    )
    let stdout = ''
    client.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
    let serviceStart: ReturnType<typeof processCost> | undefined
    let filesBefore: Array<Map<string, string>> = []
    let serviceEnd: ReturnType<typeof processCost> | undefined
    let appFiles: string[] = []
    let serviceFiles: string[] = []
    // RSS each minute, read from here (/proc) so that sampling never wakes the app.
    const rssByMinute: number[] = []
    let sampler: ReturnType<typeof setInterval> | undefined
    // The client says when the idle time starts and ends (before it closes the app, which may write).
    client.stderr!.on('data', (d: Buffer) => {
      const text = d.toString()
      if (text.includes('measuring') && !serviceStart) {
        serviceStart = processCost(svc.child.pid!)
        filesBefore = [fileTimes(join(work, 'app')), fileTimes(join(work, 'service'))]
        rssByMinute.push(rssOf(client.pid!))
        sampler = setInterval(() => rssByMinute.push(rssOf(client.pid!)), 60_000)
      } else if (text.includes('measured') && !serviceEnd) {
        serviceEnd = processCost(svc.child.pid!)
        clearInterval(sampler)
        appFiles = changedFiles(filesBefore[0]!, fileTimes(join(work, 'app')))
        serviceFiles = changedFiles(filesBefore[1]!, fileTimes(join(work, 'service')))
      } else process.stderr.write(text)
    })
    const code = await new Promise<number | null>((resolve) => client.once('exit', resolve))
    if (code !== 0 || !serviceStart || !serviceEnd) throw new Error(`the idle client failed (exit ${code})`)
    const run = JSON.parse(stdout.trim().split('\n').at(-1)!) as ClientResult
    const maps = new Map<string, SourceMap | null>()
    const timers: Record<string, number> = {}
    for (const [origin, perMinute] of Object.entries(run.timerCallbacksPerMinute)) {
      const where = sourceOf(origin, maps)
      timers[where] = (timers[where] ?? 0) + perMinute
    }
    const per10 = (seconds: number) => (seconds * 10) / MINUTES
    const summary = {
      vaults: run.vaults,
      appCpuSecondsPer10Min: per10(run.cpuSeconds),
      serviceCpuSecondsPer10Min: per10(serviceEnd.cpuSeconds - serviceStart.cpuSeconds),
      wakeUpsPerMinute: run.wakeUpsPerMinute,
      timerCallbacksPerMinute: timers,
      appRssMB: run.rssMB,
      appRssByMinuteMB: rssByMinute.map((mb) => Math.round(mb * 10) / 10),
      appHeapAfterFullGcMB: run.heapAfterGcMB,
      appRssAfterFullGcMB: run.rssAfterGcMB,
      appRssSettledMB: run.rssSettledMB,
      appHeapSpacesMB: run.heapSpacesMB,
      requestsPerHour: run.requestsPerHour,
      trayPerHour: run.trayPerHour,
      appWritten: { ...run.written, files: appFiles },
      serviceWritten: { bytes: serviceEnd.writeBytes - serviceStart.writeBytes, files: serviceFiles },
    }
    results[scenario] = summary
    log(
      `  app CPU ${summary.appCpuSecondsPer10Min.toFixed(2)} s per 10 min (service ${summary.serviceCpuSecondsPer10Min.toFixed(2)} s); ` +
        `wake-ups/min: main thread ${run.wakeUpsPerMinute.mainThread.toFixed(1)}, all threads ${run.wakeUpsPerMinute.allThreads.toFixed(1)}; ` +
        `RSS ${run.rssMB.start.toFixed(1)} -> ${run.rssMB.end.toFixed(1)} MB; ` +
        `JS heap after a full GC ${run.heapAfterGcMB.start.toFixed(1)} -> ${run.heapAfterGcMB.end.toFixed(1)} MB ` +
        `(RSS then ${run.rssAfterGcMB.toFixed(1)} MB, 3 s later ${run.rssSettledMB.toFixed(1)} MB)`,
    )
    log(`  RSS by minute (MB): ${summary.appRssByMinuteMB.join(' ')}`)
    const grown = Object.entries(run.heapSpacesMB.end)
      .map(([space, mb]) => `${space} ${(mb - (run.heapSpacesMB.start[space] ?? 0)).toFixed(2)}`)
      .join(', ')
    log(`  V8 heap spaces, resident MB gained (before the final GC): ${grown}`)
    log(`  timer callbacks per minute: ${JSON.stringify(timers)}`)
    log(`  requests per hour: ${JSON.stringify(run.requestsPerHour)}`)
    log(
      `  tray per hour: ${run.trayPerHour.views} views sent, ${run.trayPerHour.redraws} that the desktop shell redraws (the rest show nothing new)`,
    )
    log(
      `  written: app ${run.written.bytes} bytes ${JSON.stringify(appFiles)}, service ${summary.serviceWritten.bytes} bytes ${JSON.stringify(serviceFiles)}`,
    )
  } finally {
    service?.kill('SIGTERM')
    await promisify(execFile)('sync').catch(() => undefined)
    await rm(work, { recursive: true, force: true })
  }
}
process.stdout.write(
  `${JSON.stringify({ bench: 'idle', minutes: MINUTES, targets: { appCpuSecondsPer10Min: 1, rssGrowthMB: 0, bytesWrittenWhenNothingChanged: 0 }, ...results })}\n`,
)
