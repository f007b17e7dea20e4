// Upload benchmark: a 1 GB file (5 GB with --big) through the app's real path (upload queue: stat,
// checks, content-type sniffing, Cobblestone encryption, hand-built multipart, got stream) against
// the same file uploaded plain (multipart with got), both to the local service running as a child
// process with rate limits off. The client runs bundled in its own Node process so its peak RSS is
// measured alone. After one untimed upload of each, plain and encrypted alternate over several rounds
// (3, or 2 with --big; `--rounds=N`), each run into a vault of its own deleted after it and from a
// settled machine (see measure() in upload-client.ts); each side's median speed counts.
// Last line: {"ratio", "encryptedMBps", "plainMBps", "peakRssMB"}.
// Targets: ratio >= 0.8, client peak RSS < 150 MB. `--size=N` (bytes) is for a quick smoke run.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { encryptedLength } from '../src/main/core/crypto'
import { largestUploadableFile } from '../src/main/core/upload-queue'
import type { Run } from './upload-client'

const big = process.argv.includes('--big')
const sizeArg = process.argv.find((a) => a.startsWith('--size='))
// --big: the largest file whose ciphertext fits the service's 5 GB limit (~4.995 GB).
const SIZE = sizeArg ? Number(sizeArg.slice(7)) : big ? largestUploadableFile(encryptedLength) : 1_000_000_000
const roundsArg = process.argv.find((a) => a.startsWith('--rounds='))
const ROUNDS = roundsArg ? Number(roundsArg.slice(9)) : big ? 2 : 3
const MB = 1e6

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

async function makeFile(path: string, size: number): Promise<void> {
  // Random throughout, like ciphertext: a repeating pattern could be stored or moved more cheaply
  // by the layers underneath (page dedup, compressed disks) and flatter the plain upload.
  const out = createWriteStream(path, { highWaterMark: 1 << 20 })
  let written = 0
  while (written < size) {
    const block = randomBytes(Math.min(16 * 1024 * 1024, size - written))
    if (!out.write(block)) await once(out, 'drain')
    written += block.length
  }
  out.end()
  await once(out, 'finish')
}

async function warmCache(path: string): Promise<void> {
  for await (const _ of createReadStream(path, { highWaterMark: 1 << 20 })) {
    // read only: both uploads start with the file in the page cache
  }
}

function startService(dataDir: string): Promise<{ child: ChildProcess; url: string; apiKey: string }> {
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

const work = await mkdtemp(join(tmpdir(), 'vault-bench-upload-'))
let service: ChildProcess | undefined
try {
  const clientBundle = join('out', 'bench', 'upload-client.mjs')
  await build({
    entryPoints: ['bench/upload-client.ts'],
    outfile: clientBundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    packages: 'external',
    logLevel: 'warning',
  })
  const file = join(work, `test-${SIZE}.bin`)
  log(`writing a ${(SIZE / 1e9).toFixed(3)} GB test file...`)
  await makeFile(file, SIZE)
  await warmCache(file)
  await mkdir(join(work, 'service'))
  const svc = await startService(join(work, 'service'))
  service = svc.child
  log(`uploading plain and encrypted: one untimed of each, then ${ROUNDS} rounds in alternating order...`)
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
    creditsConsumed: number
    startRssMB: number
    plainPeakRssMB: number
    peakRssMB: number
  }
  for (const run of measured.runs) {
    log(
      `${run.mode.padEnd(9)} ${run.seconds.toFixed(2)} s  ${(SIZE / MB / run.seconds).toFixed(1)} MB/s  ` +
        `client CPU ${run.cpuSeconds.toFixed(2)} s` +
        (run.serviceCpuSeconds === null ? '' : `, service CPU ${run.serviceCpuSeconds.toFixed(2)} s`),
    )
  }
  const medianMBps = (mode: Run['mode']) => {
    const speeds = measured.runs
      .filter((r) => r.mode === mode)
      .map((r) => SIZE / MB / r.seconds)
      .sort((a, b) => a - b)
    const mid = Math.floor(speeds.length / 2)
    return speeds.length % 2 === 1 ? speeds[mid]! : (speeds[mid - 1]! + speeds[mid]!) / 2
  }
  const plainMBps = medianMBps('plain')
  const encryptedMBps = medianMBps('encrypted')
  log(
    `${measured.creditsConsumed} credits per encrypted upload; client RSS at start ${measured.startRssMB.toFixed(0)} MB, ` +
      `peak during plain uploads only ${measured.plainPeakRssMB.toFixed(0)} MB, overall peak ${measured.peakRssMB.toFixed(0)} MB`,
  )
  console.log(
    JSON.stringify({
      ratio: Number((encryptedMBps / plainMBps).toFixed(3)),
      encryptedMBps: Number(encryptedMBps.toFixed(1)),
      plainMBps: Number(plainMBps.toFixed(1)),
      peakRssMB: Number(measured.peakRssMB.toFixed(1)),
    }),
  )
} finally {
  if (service && service.exitCode === null) {
    service.kill('SIGTERM')
    await once(service, 'exit').catch(() => undefined)
  }
  await rm(work, { recursive: true, force: true })
}
