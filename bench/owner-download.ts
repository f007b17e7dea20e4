// Owner download benchmark (issue 28): the owner saving their own 1 GB file back, through the app's
// real path (saveVaultFiles: download from the service, encrypted bytes kept in a `.part` for resume,
// decrypted in a stream through the recovery writer into the file), against the same blob downloaded
// plain with the same client and piped to a file, in the same run. The service runs as a child
// process with rate limits off; the file is uploaded once, encrypted, through the real upload queue
// (untimed), and the blob to save is planned as the app plans it (file library + blobsToSave).
// Each run is a bundled client process of its own (bench/owner-download-client.ts), so its CPU and
// peak RSS are its own; each writes into a fresh folder deleted after it, from a settled machine
// (sync, then a pause). One untimed run of each first, then plain and save alternate over
// `--rounds=N` rounds (default 3); each side's median counts. The first save is checked byte for
// byte (SHA-256) against the original.
// Per-run lines on stderr; last line: {saveMBps, plainMBps, ratio, peakRssMB: {save, plain},
// startRssMB, cpuSecondsPerGB: {save, plain}, sizeBytes, rounds, cores, load}. MB/s counts the
// file's plaintext bytes on both sides. `--size=N` (bytes) is for a quick smoke run; `--cpu-prof=DIR`
// runs every client under `node --cpu-prof` into DIR (to see where the time goes; the figures then
// include the profiler's cost).
import type { ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { blobsToSave } from '../src/main/core/ipc/file-save-handlers'
import { MemorySecretStore } from '../src/main/core/storage/secret-store'
import { VaultKeyStore } from '../src/main/core/storage/vault-key-store'
import { fileLibrary, selectedFiles } from '../src/main/core/uploads/file-library'
import { UploadQueue } from '../src/main/core/uploads/upload-queue'
import type { UploadItem } from '../src/main/core/uploads/upload-records'
import { VaultApiClient } from '../src/service-client'
import { generateVaultKey } from '../src/vault-format'
import {
  bundleBenchClient,
  log,
  makeFile,
  median,
  runMeasuredClient,
  sha256Of,
  startService,
  stopService,
} from './bench-processes'
import type { DownloadMode, OwnerDownloadRun } from './owner-download-client'

const sizeArg = process.argv.find((a) => a.startsWith('--size='))
const SIZE = sizeArg ? Number(sizeArg.slice(7)) : 1_000_000_000
const roundsArg = process.argv.find((a) => a.startsWith('--rounds='))
const ROUNDS = roundsArg ? Math.max(1, Number(roundsArg.slice(9))) : 3
if (!Number.isSafeInteger(SIZE) || SIZE <= 0 || !Number.isSafeInteger(ROUNDS)) {
  log('usage: tsx bench/owner-download.ts [--size=<bytes>] [--rounds=<n>] [--cpu-prof=<dir>]')
  process.exit(2)
}
const profileArg = process.argv.find((a) => a.startsWith('--cpu-prof='))
const PROFILE_ARGS = profileArg ? ['--cpu-prof', `--cpu-prof-dir=${profileArg.slice(11)}`] : []
const NAME = 'owner-download-bench.bin'
const GB = 1e9
const load0 = loadavg()

const work = await mkdtemp(join(tmpdir(), 'vault-bench-download-'))
let service: ChildProcess | undefined
try {
  const clientBundle = await bundleBenchClient('owner-download-client', 'bench/owner-download-client.ts')
  const source = join(work, 'files', NAME)
  await mkdir(join(work, 'files'))
  log(`writing a ${(SIZE / GB).toFixed(3)} GB test file...`)
  const originalSha256 = await makeFile(source, SIZE)
  await mkdir(join(work, 'service'))
  const svc = await startService(join(work, 'service'))
  service = svc.child

  log('uploading it encrypted through the upload queue (untimed)...')
  const client = new VaultApiClient({ baseUrl: svc.url, apiKey: svc.apiKey, timeoutMs: 120_000 })
  const vaultId = (await client.createVault()).id
  const vaultKey = generateVaultKey()
  const keys = new VaultKeyStore(new MemorySecretStore())
  await keys.put(vaultId, vaultKey)
  const queue = await UploadQueue.open({
    userDataDir: join(work, 'user-data'),
    clientFor: async () => client,
    vaultKeys: keys,
  })
  const ended = new Promise<UploadItem>((resolve) => {
    queue.on('item', (i: UploadItem) => {
      if (i.state === 'done' || i.state === 'failed' || i.state === 'cancelled') resolve(i)
    })
  })
  await queue.enqueue({ vaultId, paths: [source] })
  const item = await ended
  if (item.state !== 'done') throw new Error(`the upload ended ${item.state}: ${item.error?.message}`)
  await queue.idle()
  // The blob to save, planned as the app plans "save the whole vault".
  const assets = await client.listAllAssets(vaultId)
  const known = await queue.knownFiles(vaultId)
  const library = fileLibrary({ assets, ...known })
  const listed = new Map(known.elsewhere.map((e) => [e.path, e.sha256]))
  const blobs = blobsToSave(
    selectedFiles(library.files, { files: [], folders: [''] }),
    library.files,
    assets,
    listed,
  )
  await queue.stop()
  if (blobs.length !== 1 || blobs[0]!.files.length !== 1) {
    throw new Error(`expected one blob holding the file, planned ${JSON.stringify(blobs)}`)
  }
  const blobsFile = join(work, 'blobs.json')
  await writeFile(blobsFile, JSON.stringify(blobs))
  const encryptedBytes = blobs[0]!.encryptedBytes
  log(
    `stored as one blob of ${encryptedBytes} bytes (+${(encryptedBytes - SIZE).toLocaleString()} over the file)`,
  )

  let checked = false
  let runNumber = 0
  async function measure(mode: DownloadMode, timed: boolean): Promise<OwnerDownloadRun> {
    return runMeasuredClient<OwnerDownloadRun>({
      bundle: clientBundle,
      nodeArgs: PROFILE_ARGS,
      args: (folder) => [mode, svc.url, vaultId, folder, blobsFile],
      env: {
        VAULT_BENCH_API_KEY: svc.apiKey,
        ...(mode === 'save' ? { VAULT_BENCH_VAULT_KEY: Buffer.from(vaultKey).toString('hex') } : {}),
      },
      folder: join(work, `out-${++runNumber}`),
      bytes: SIZE,
      timed,
      check: async (run) => {
        if (mode !== 'save' || checked) return
        const got = await sha256Of(run.output)
        if (got !== originalSha256)
          throw new Error(`the saved file differs: SHA-256 ${got}, original ${originalSha256}`)
        checked = true
        log('saved file checked: SHA-256 identical to the original')
      },
    })
  }

  log(`one untimed run of each, then ${ROUNDS} rounds of plain and save in alternating order...`)
  await measure('plain', false)
  await measure('save', false)
  const runs: OwnerDownloadRun[] = []
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating order, so that drift in the machine's speed is not charged to whichever runs second.
    const order: DownloadMode[] = round % 2 === 0 ? ['plain', 'save'] : ['save', 'plain']
    for (const mode of order) runs.push(await measure(mode, true))
  }

  const of = (mode: DownloadMode, figure: (r: OwnerDownloadRun) => number) =>
    median(runs.filter((r) => r.mode === mode).map(figure))
  const peak = (mode: DownloadMode) =>
    Math.max(...runs.filter((r) => r.mode === mode).map((r) => r.peakRssMB))
  const saveMBps = of('save', (r) => SIZE / 1e6 / r.seconds)
  const plainMBps = of('plain', (r) => SIZE / 1e6 / r.seconds)
  const round1 = (x: number) => Number(x.toFixed(1))
  const round2 = (x: number) => Number(x.toFixed(2))
  console.log(
    JSON.stringify({
      saveMBps: round1(saveMBps),
      plainMBps: round1(plainMBps),
      ratio: Number((saveMBps / plainMBps).toFixed(3)),
      peakRssMB: { save: round1(peak('save')), plain: round1(peak('plain')) },
      startRssMB: round1(median(runs.map((r) => r.startRssMB))),
      cpuSecondsPerGB: {
        save: round2(of('save', (r) => (r.cpuSeconds * GB) / SIZE)),
        plain: round2(of('plain', (r) => (r.cpuSeconds * GB) / SIZE)),
      },
      sizeBytes: SIZE,
      rounds: ROUNDS,
      cores: availableParallelism(),
      load: { start: load0.map(round2), end: loadavg().map(round2) },
    }),
  )
} finally {
  await stopService(service)
  await rm(work, { recursive: true, force: true })
}
