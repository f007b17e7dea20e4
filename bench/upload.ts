// Upload benchmark: a 1 GB file (5 GB with --big) through the app's real path (upload queue: stat,
// checks, content-type sniffing, Cobblestone encryption, hand-built multipart, got stream) against
// the same file uploaded plain (same reader, same multipart, got), both to the local service running
// as a child process with rate limits off. Both sides read the file the same way, with the same ring of
// reused buffers: on the client's main thread (node-cipher/file-seal-here.ts) where the native AES-GCM
// seals, else on the reader thread of node-cipher/file-read-worker.ts (the encrypted side encrypts on
// that thread). The client runs bundled in its own Node process so its peak RSS and CPU are its own.
// After one untimed upload of each, plain and encrypted alternate over `--rounds=N` rounds (default
// 5), each run into a vault of its own deleted after it and from a settled machine (see measure() in
// upload-client.ts); each side's median counts. Then the client waits until V8 has shrunk its young
// generation, as it does in an app idle in the tray, and uploads the file encrypted once more ("afterWait").
// Last line: {"ratio", "encryptedMBps", "plainMBps", "cpuSecondsPerGB": {encrypted, plain, extra},
// "peakRssMB", "peakRssUploadingMB", "startRssMB", "idleRssMB" (once a reader thread is let go after the last upload), "load", ...}. Targets: ratio >= 0.8, encrypted CPU per GB <= plain
// + 1.0 s, client peak RSS < 100 MB (for the 5 GB file, --big). `--size=N` (bytes) is for a quick
// smoke run. `--small` runs the small-files benchmark instead (bench/upload-small.ts).
import { type ChildProcess, execFile } from 'node:child_process'
import { createReadStream } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { bundleBenchClient, log, makeFile, median, startService, stopService } from './bench-processes'
import type { Run } from './upload-client'

if (process.argv.includes('--small')) {
  await import('./upload-small')
} else {
  await largeFile()
}

async function largeFile(): Promise<void> {
  const { encryptedFileLength } = await import('../src/vault-format')
  const { largestUploadableFile } = await import('../src/main/core/uploads/upload-queue')
  const big = process.argv.includes('--big')
  const sizeArg = process.argv.find((a) => a.startsWith('--size='))
  // --big: the largest file whose blob (its name sealed inside) fits the service's 5 GB limit (~4.995 GB).
  const NAME = 'upload-bench.bin'
  const SIZE = sizeArg
    ? Number(sizeArg.slice(7))
    : big
      ? largestUploadableFile((size) => encryptedFileLength({ path: NAME, size }))
      : 1_000_000_000
  const roundsArg = process.argv.find((a) => a.startsWith('--rounds='))
  const ROUNDS = roundsArg ? Math.max(1, Number(roundsArg.slice(9))) : 5
  const GB = 1e9
  const load0 = loadavg()

  const work = await mkdtemp(join(tmpdir(), 'vault-bench-upload-'))
  let service: ChildProcess | undefined
  try {
    // As electron-vite builds the app: a module imported on demand (kit printing) is a chunk of its own,
    // loaded when used, so the client's memory is what the app's upload path costs.
    const clientBundle = await bundleBenchClient('upload-client', 'bench/upload-client.ts', {
      splitting: true,
    })
    const file = join(work, NAME)
    log(`writing a ${(SIZE / GB).toFixed(3)} GB test file...`)
    await makeFile(file, SIZE)
    await warmCache(file)
    await mkdir(join(work, 'service'))
    const svc = await startService(join(work, 'service'))
    service = svc.child
    log(
      `uploading plain and encrypted: one untimed of each (and plain again), then ${ROUNDS} rounds in alternating order...`,
    )
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [clientBundle, svc.url, file, join(work, 'user-data'), String(SIZE), String(ROUNDS)],
      // The key goes through the environment: command lines show up in process lists and error reports.
      {
        maxBuffer: 1 << 20,
        env: {
          ...process.env,
          VAULT_BENCH_API_KEY: svc.apiKey,
          VAULT_BENCH_SERVICE_PID: String(svc.child.pid),
        },
      },
    )
    const measured = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      runs: Run[]
      afterWait: { waitedSeconds: number; youngGenerationMB: { before: number; after: number }; run: Run }
      creditsConsumed: number
      plainSideHashes: boolean
      startRssMB: number
      idleRssMB: number
      peakRssMB: number | null
    }
    const { afterWait } = measured
    for (const run of [...measured.runs, afterWait.run]) {
      log(
        (run === afterWait.run
          ? `after waiting ${afterWait.waitedSeconds.toFixed(0)} s (young generation ${afterWait.youngGenerationMB.before.toFixed(1)} -> ${afterWait.youngGenerationMB.after.toFixed(1)} MB):\n`
          : '') +
          `${run.mode.padEnd(9)} ${run.seconds.toFixed(2)} s  ${(SIZE / 1e6 / run.seconds).toFixed(1)} MB/s  ` +
          `client CPU ${((run.cpuSeconds * GB) / SIZE).toFixed(2)} s/GB` +
          (run.afterCpuSeconds === null
            ? ''
            : ` (+${run.afterCpuSeconds.toFixed(2)} s hashing for the index after)`) +
          (run.serviceCpuSeconds === null ? '' : `, service CPU ${run.serviceCpuSeconds.toFixed(2)} s`) +
          `; client RSS ${run.runStartRssMB.toFixed(0)} MB at its start, peak ${run.peakRssMB.toFixed(0)} MB`,
      )
    }
    const of = (mode: Run['mode'], figure: (r: Run) => number) =>
      median(measured.runs.filter((r) => r.mode === mode).map(figure))
    const plainMBps = of('plain', (r) => SIZE / 1e6 / r.seconds)
    const encryptedMBps = of('encrypted', (r) => SIZE / 1e6 / r.seconds)
    const cpuPlain = of('plain', (r) => (r.cpuSeconds * GB) / SIZE)
    const cpuEncrypted = of('encrypted', (r) => (r.cpuSeconds * GB) / SIZE)
    const maxOf = (values: (number | null)[]) => Math.max(...values.map((v) => v ?? 0))
    const uploadPeak = (mode: Run['mode']) =>
      maxOf(measured.runs.filter((r) => r.mode === mode).map((r) => r.peakRssMB))
    const hashingPeak = maxOf(measured.runs.map((r) => r.afterPeakRssMB))
    // Where the kernel's peak can be reset, it is per run: the largest of them; elsewhere the process's.
    const peakRssMB =
      measured.peakRssMB ?? Math.max(uploadPeak('plain'), uploadPeak('encrypted'), hashingPeak)
    log(
      `${measured.creditsConsumed} credits per encrypted upload; client RSS at start ${measured.startRssMB.toFixed(0)} MB, ` +
        `peak while uploading plain ${uploadPeak('plain').toFixed(0)} MB, encrypted ${uploadPeak('encrypted').toFixed(0)} MB, ` +
        `while hashing for the index afterwards ${hashingPeak.toFixed(0)} MB; ${measured.idleRssMB.toFixed(0)} MB once idle`,
    )
    log(
      `encrypted upload into a client that had waited: peak RSS ${afterWait.run.peakRssMB.toFixed(0)} MB ` +
        `(${afterWait.run.runStartRssMB.toFixed(0)} MB at its start)`,
    )
    const round2 = (x: number) => Number(x.toFixed(2))
    console.log(
      JSON.stringify({
        ratio: Number((encryptedMBps / plainMBps).toFixed(3)),
        encryptedMBps: Number(encryptedMBps.toFixed(1)),
        plainMBps: Number(plainMBps.toFixed(1)),
        cpuSecondsPerGB: {
          encrypted: round2(cpuEncrypted),
          plain: round2(cpuPlain),
          extra: round2(cpuEncrypted - cpuPlain),
          indexHashingAfter: round2(of('encrypted', (r) => ((r.afterCpuSeconds ?? 0) * GB) / SIZE)),
        },
        peakRssMB: Number(peakRssMB.toFixed(1)),
        peakRssUploadingMB: {
          encrypted: Number(uploadPeak('encrypted').toFixed(1)),
          plain: Number(uploadPeak('plain').toFixed(1)),
          indexHashingAfter: Number(hashingPeak.toFixed(1)),
        },
        // The same encrypted upload once the client has waited (as the app does in the tray) and V8 has
        // shrunk its young generation: what an owner's drop costs in an app that has been open a while.
        afterWait: {
          peakRssMB: Number(afterWait.run.peakRssMB.toFixed(1)),
          startRssMB: Number(afterWait.run.runStartRssMB.toFixed(1)),
          waitedSeconds: Math.round(afterWait.waitedSeconds),
          youngGenerationMB: {
            before: Number(afterWait.youngGenerationMB.before.toFixed(1)),
            after: Number(afterWait.youngGenerationMB.after.toFixed(1)),
          },
        },
        startRssMB: Number(measured.startRssMB.toFixed(1)),
        // Once the reader thread is let go after the last upload: what the client keeps while it waits.
        idleRssMB: Number(measured.idleRssMB.toFixed(1)),
        // The queue hashes each file for its index as it reads it, and the plain side does too.
        hashedWhileReading: measured.plainSideHashes,
        sizeBytes: SIZE,
        rounds: ROUNDS,
        cores: availableParallelism(),
        load: { start: load0.map(round2), end: loadavg().map(round2) },
        targets: { ratio: 0.8, extraCpuSecondsPerGB: 1.0, peakRssMB: 100 },
      }),
    )
  } finally {
    await stopService(service)
    await rm(work, { recursive: true, force: true })
  }
}

async function warmCache(path: string): Promise<void> {
  for await (const _ of createReadStream(path, { highWaterMark: 1 << 20 })) {
    // read only: both uploads start with the file in the page cache
  }
}
