// Small-files benchmark (`npm run bench:upload -- --small`, or `tsx bench/upload-small.ts`): 2,000
// files of 10 kB through the app's real upload queue (real encryption, bundles of small files)
// against the local service.
//  1. With the service's rate limits on (60 uploads a minute per key) and the app's request pacer:
//     wall seconds and credits charged, against the credits of 2,000 single assets.
//     Targets: under 60 s, under 5 % of the credits.
//  2. With rate limits off: files/s and client CPU ms per file for 250, 1,000 and 2,000 files, in
//     bundles and one by one (bundling off), interleaved over several rounds (`--rounds=N`, default
//     3; medians): the queue's cost per file should stay flat as the folder grows.
// The client runs bundled in a Node process of its own per run (bench/upload-small-client.ts), so
// its CPU time is measured apart from the service's, which runs in this process.
// Last line: one JSON object with every figure.
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { externalExceptBundled } from '../scripts/bundled-dependencies.mjs'
import { NODE_CIPHER_WORKERS } from '../scripts/node-cipher-workers.mjs'
import { startService } from '../src/service/index'
import type { SmallRun } from './upload-small-client'

const FILE_BYTES = 10_000
const MAIN_FILES = 2_000
const SIZES = [250, 1_000, 2_000]
const roundsArg = process.argv.find((a) => a.startsWith('--rounds='))
const ROUNDS = roundsArg ? Math.max(1, Number(roundsArg.slice(9))) : 3
const TARGET_SECONDS = 60
const TARGET_PERCENT = 5

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

async function makeFolder(dir: string, n: number): Promise<void> {
  // Several folders deep, like a real photo or document tree; random bytes, like real content.
  for (let i = 0; i < n; i++) {
    const sub = join(dir, `folder-${String(Math.floor(i / 100)).padStart(2, '0')}`)
    if (i % 100 === 0) await mkdir(sub, { recursive: true })
    await writeFile(join(sub, `document-${String(i).padStart(5, '0')}.txt`), randomBytes(FILE_BYTES))
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const round2 = (x: number) => Number(x.toFixed(2))

const work = await mkdtemp(join(tmpdir(), 'vault-bench-small-'))
try {
  const clientBundle = join('out', 'bench', 'upload-small-client.mjs')
  await build({
    // The worker threads' modules go beside the client, which starts them from there.
    entryPoints: { 'upload-small-client': 'bench/upload-small-client.ts', ...NODE_CIPHER_WORKERS },
    outdir: join('out', 'bench'),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    plugins: [externalExceptBundled],
    logLevel: 'warning',
  })
  log(`writing ${SIZES.join(' + ')} files of ${FILE_BYTES / 1000} kB...`)
  const folders = new Map<number, string>()
  for (const n of SIZES) {
    const dir = join(work, `files-${n}`)
    await makeFolder(dir, n)
    folders.set(n, dir)
  }

  let runCount = 0
  /** One client run in its own process; the service's CPU over the same span, from this process. */
  async function run(
    service: Awaited<ReturnType<typeof startService>>,
    apiKey: string,
    files: number,
    mode: SmallRun['mode'],
    rateLimited: boolean,
  ): Promise<SmallRun & { serviceCpuSeconds: number }> {
    const userData = join(work, `user-data-${runCount++}`)
    const cpu = process.cpuUsage()
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [clientBundle, service.url, folders.get(files)!, userData, mode, rateLimited ? 'rate-limited' : ''],
      // The key goes through the environment: command lines show up in process lists.
      { maxBuffer: 1 << 20, env: { ...process.env, VAULT_BENCH_API_KEY: apiKey } },
    )
    // Includes the client's start and its vault set-up: an upper bound of the service's share.
    const used = process.cpuUsage(cpu)
    await rm(userData, { recursive: true, force: true })
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as SmallRun
    return { ...result, serviceCpuSeconds: (used.user + used.system) / 1e6 }
  }

  async function withService<T>(
    rateLimits: boolean,
    body: (service: Awaited<ReturnType<typeof startService>>, apiKey: string) => Promise<T>,
  ): Promise<T> {
    const dataDir = join(work, rateLimits ? 'service-limited' : 'service-unlimited')
    await mkdir(dataDir)
    const service = await startService({
      dataDir,
      port: 0,
      ...(rateLimits ? {} : { rateLimits: false as const }),
      tickIntervalMs: 3_600_000,
    })
    try {
      const { accountId, apiKey } = await service.admin.createAccount({ email: 'bench@example.com' })
      await service.admin.addCredits({ account: accountId, credits: 10_000_000 })
      return await body(service, apiKey)
    } finally {
      await service.close()
    }
  }

  // 1. Rate limits on: what the owner waits and pays for a dropped folder of 2,000 small files.
  log(`${MAIN_FILES} files with the service's rate limits on...`)
  const main = await withService(true, (service, apiKey) => run(service, apiKey, MAIN_FILES, 'bundles', true))
  const creditsPercent = (100 * main.creditsCharged) / main.creditsWithoutBundles
  log(
    `  ${main.seconds.toFixed(1)} s, ${main.assets} asset(s), ${main.creditsCharged} credits charged ` +
      `(estimate ${main.estimateCredits}) against ${main.creditsWithoutBundles} as single assets: ${creditsPercent.toFixed(2)} %`,
  )

  // 2. Rate limits off: the cost per file as the folder grows, bundles and one by one, interleaved.
  const runs: Array<SmallRun & { serviceCpuSeconds: number }> = []
  await withService(false, async (service, apiKey) => {
    log(`rate limits off: ${SIZES.join(', ')} files, bundles and one by one, ${ROUNDS} rounds...`)
    // One untimed run first: code paths compiled, connections and page cache warm.
    await run(service, apiKey, SIZES[0]!, 'one-by-one', false)
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? SIZES : [...SIZES].reverse()
      for (const files of order) {
        const modes: SmallRun['mode'][] =
          round % 2 === 0 ? ['bundles', 'one-by-one'] : ['one-by-one', 'bundles']
        for (const mode of modes) {
          const r = await run(service, apiKey, files, mode, false)
          runs.push(r)
          log(
            `  ${String(files).padStart(5)} ${mode.padEnd(10)} ${r.seconds.toFixed(2)} s  ` +
              `${(files / r.seconds).toFixed(1)} files/s  client CPU ${((1000 * r.cpuSeconds) / files).toFixed(2)} ms/file  ` +
              `service CPU ${((1000 * r.serviceCpuSeconds) / files).toFixed(2)} ms/file`,
          )
        }
      }
    }
  })
  const scaling = SIZES.flatMap((files) =>
    (['bundles', 'one-by-one'] as const).map((mode) => {
      const mine = runs.filter((r) => r.files === files && r.mode === mode)
      return {
        files,
        mode,
        filesPerSecond: round2(median(mine.map((r) => files / r.seconds))),
        clientCpuMsPerFile: round2(median(mine.map((r) => (1000 * r.cpuSeconds) / files))),
        serviceCpuMsPerFile: round2(median(mine.map((r) => (1000 * r.serviceCpuSeconds) / files))),
        assets: mine[0]!.assets,
      }
    }),
  )
  for (const s of scaling) {
    log(
      `median ${String(s.files).padStart(5)} ${s.mode.padEnd(10)} ${s.filesPerSecond} files/s, ` +
        `client ${s.clientCpuMsPerFile} ms/file, service ${s.serviceCpuMsPerFile} ms/file`,
    )
  }
  console.log(
    JSON.stringify({
      small: {
        files: MAIN_FILES,
        fileBytes: FILE_BYTES,
        rateLimits: true,
        seconds: round2(main.seconds),
        clientCpuSeconds: round2(main.cpuSeconds),
        estimateSeconds: round2(main.estimateSeconds),
        assets: main.assets,
        credits: main.creditsCharged,
        estimateCredits: main.estimateCredits,
        singleAssetCredits: main.creditsWithoutBundles,
        creditsPercent: round2(creditsPercent),
        targetSeconds: TARGET_SECONDS,
        targetPercent: TARGET_PERCENT,
        meetsTargets: main.seconds < TARGET_SECONDS && creditsPercent < TARGET_PERCENT,
      },
      scaling,
      rounds: ROUNDS,
      runs: runs.map((r) => ({
        files: r.files,
        mode: r.mode,
        seconds: round2(r.seconds),
        clientCpuSeconds: round2(r.cpuSeconds),
        serviceCpuSeconds: round2(r.serviceCpuSeconds),
      })),
      cores: availableParallelism(),
      loadAverage: loadavg().map(round2),
    }),
  )
} finally {
  await rm(work, { recursive: true, force: true })
}
