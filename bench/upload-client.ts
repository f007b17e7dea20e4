// The measured side of bench/upload.ts, run as its own bundled Node process (as the app's main
// process runs bundled), so its peak RSS is the client's alone: no tsx, no service, no test file
// generation. Uploads the file plain and encrypted (through the upload queue) in alternating order,
// round after round; prints one JSON line with every run. The plain side reads the file with the
// reader the queue encrypts on (crypto/file-read-worker.ts: a thread of its own, a ring of reused
// buffers), so the two differ by the encryption and the queue, not by how the file is read.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { getHeapSpaceStatistics } from 'node:v8'
import { MemorySecretStore } from '../src/main/core/storage/secret-store'
import { VaultKeyStore } from '../src/main/core/storage/vault-key-store'
import { buildMultipartBody } from '../src/main/core/uploads/multipart-body'
import { UploadQueue } from '../src/main/core/uploads/upload-queue'
import type { UploadItem } from '../src/main/core/uploads/upload-records'
import { nativeAeadStatus } from '../src/node-cipher/aead-native'
import { FILE_READ_IDLE_RELEASE_MS, readFileInWorker } from '../src/node-cipher/file-read-worker'
import { readFileHere } from '../src/node-cipher/file-seal-here'
import { VaultApiClient } from '../src/service-client'
import { generateVaultKey } from '../src/vault-format'

const args = process.argv.slice(2)
const apiKey = process.env.VAULT_BENCH_API_KEY
if (!apiKey || args.length !== 5 || args.some((a) => !a)) {
  console.error('usage: VAULT_BENCH_API_KEY=... upload-client <url> <file> <userDataDir> <size> <rounds>')
  process.exit(2)
}
const [url, file, userData] = args as [string, string, string]
const size = Number(args[3])
const rounds = Number(args[4])
const servicePid = process.env.VAULT_BENCH_SERVICE_PID
/** /proc/<pid>/stat counts in clock ticks: 100 per second on Linux unless the kernel says otherwise. */
const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    return 100
  }
})()

const SETTLE_MS = 2000
/** How long to wait for V8 to shrink the idle client's young generation before the last upload. */
const WAIT_FOR_IDLE_MS = 120_000

type Mode = 'plain' | 'encrypted'
export interface Run {
  mode: Mode
  seconds: number
  /** Client CPU (user + system, all threads): what the path costs regardless of machine load. */
  cpuSeconds: number
  serviceCpuSeconds: number | null
  /** The client's peak RSS during this upload alone (Linux); the process's peak so far elsewhere. */
  peakRssMB: number
  /** The client's RSS as this upload starts: what earlier runs left resident, apart from the upload's own growth. */
  runStartRssMB: number
  /** Peak RSS while the queue hashed the file for its index after the upload (encrypted runs). */
  afterPeakRssMB: number | null
  /** Client CPU of that hashing (encrypted runs): part of the upload's cost, after its end. */
  afterCpuSeconds: number | null
}

// Peak RSS as the kernel tracks it (ru_maxrss): exact, and costs nothing while the uploads run.
const peakRss = () => process.resourceUsage().maxRSS * 1024
/**
 * Linux keeps a resettable peak (VmHWM, reset by writing 5 to clear_refs): each run's own peak, so
 * the upload is told apart from the index hashing that follows it. Null where that is unavailable.
 */
function resetPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5')
    return true
  } catch {
    return false
  }
}
function phasePeak(): number | null {
  try {
    const kB = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
    return kB ? Number(kB) * 1024 : null
  } catch {
    return null
  }
}

const client = new VaultApiClient({ baseUrl: url, apiKey, timeoutMs: 120_000 })
await client.listVaults()
const startRss = process.memoryUsage.rss()

/**
 * Whether the plain side hashes what it reads too: yes when the queue hashes a file as it encrypts
 * it (for its index), so that both sides read the same way and differ by encryption alone; no when
 * the queue hashes afterwards (reported apart). Told by the untimed encrypted upload below.
 */
let plainSideHashes = false
const plainBody = buildMultipartBody(
  [
    ['filename', 'plain.bin'],
    ['contentType', 'application/octet-stream'],
  ],
  {
    fieldName: 'file',
    filename: 'plain.bin',
    contentType: 'application/octet-stream',
    length: size,
    // Read where the encrypted side reads: this thread with the native AES-GCM, else the reader thread.
    content: () =>
      (nativeAeadStatus().inUse ? readFileHere : readFileInWorker)(file, { size, sha256: plainSideHashes }),
  },
)

const keys = new VaultKeyStore(new MemorySecretStore())
await mkdir(userData, { recursive: true })
const queue = await UploadQueue.open({
  userDataDir: userData,
  clientFor: async () => client,
  vaultKeys: keys,
})

async function uploadPlain(vaultId: string): Promise<void> {
  const plain = await client.uploadAsset({
    vaultId,
    body: plainBody.stream,
    contentType: plainBody.contentType,
    contentLength: plainBody.contentLength,
    retry: false,
  })
  if (plain.sizeBytes !== size) throw new Error(`the plain upload stored ${plain.sizeBytes} bytes`)
}

let creditsConsumed = 0
async function uploadEncrypted(vaultId: string): Promise<void> {
  // Timed to the item's end (asset stored, or failure), not to the index hashing that follows.
  const ended = new Promise<UploadItem>((resolve) => {
    const onItem = (i: UploadItem) => {
      if (i.state !== 'done' && i.state !== 'failed' && i.state !== 'cancelled') return
      queue.off('item', onItem)
      resolve(i)
    }
    queue.on('item', onItem)
  })
  // force: the same file again, not skipped as already uploaded.
  await queue.enqueue({ vaultId, paths: [file], force: true })
  const item = await ended
  if (item.state !== 'done')
    throw new Error(`the encrypted upload ended ${item.state}: ${item.error?.message}`)
  creditsConsumed = item.creditsConsumed ?? 0
}

/**
 * The service's CPU seconds so far (all its threads), from /proc on Linux; null elsewhere. Shows
 * what each run cost the other side: on a VM whose fresh memory is slow to fault in, the service's
 * page-cache writes vary from run to run, and this says which runs that slowed.
 */
function serviceCpuSeconds(): number | null {
  try {
    const fields = readFileSync(`/proc/${servicePid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / clockTicks
  } catch {
    return null
  }
}
async function measure(mode: Mode): Promise<Run> {
  // Every run starts from the same settled state: the previous run's background hashing finished
  // and its vault and blob deleted (at the end of that run), no dirty pages, then a pause. Without
  // that, runs differ by the machine, not the path: on a VM that hands freed memory back to its
  // host, page cache that must be faulted in again costs the service 1.4 s or 4 s of CPU per GB
  // depending on what the previous run left (measured here, same plain upload both times).
  const vaultId = (await client.createVault()).id
  await keys.put(vaultId, generateVaultKey())
  execFileSync('sync')
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  const phases = resetPeak()
  const runStartRss = process.memoryUsage.rss()
  const cpu = process.cpuUsage()
  const service0 = serviceCpuSeconds()
  const t0 = performance.now()
  await (mode === 'plain' ? uploadPlain(vaultId) : uploadEncrypted(vaultId))
  const seconds = (performance.now() - t0) / 1000
  const used = process.cpuUsage(cpu)
  const service1 = serviceCpuSeconds()
  const uploadPeak = (phases && phasePeak()) || peakRss()
  const after = phases && resetPeak()
  const afterCpu = process.cpuUsage()
  await queue.idle() // the index hashing that follows an encrypted upload
  const afterUsed = process.cpuUsage(afterCpu)
  const afterPeak = after ? phasePeak() : null
  await client.deleteVault(vaultId)
  return {
    mode,
    seconds,
    cpuSeconds: (used.user + used.system) / 1e6,
    serviceCpuSeconds: service0 === null || service1 === null ? null : service1 - service0,
    peakRssMB: uploadPeak / 1e6,
    runStartRssMB: runStartRss / 1e6,
    afterPeakRssMB: mode === 'encrypted' && afterPeak !== null ? afterPeak / 1e6 : null,
    afterCpuSeconds: mode === 'encrypted' ? (afterUsed.user + afterUsed.system) / 1e6 : null,
  }
}

// One untimed upload of each kind first: code paths compiled, memory and connections in use.
await measure('plain')
const untimed = await measure('encrypted')
// The queue hashes afterwards when that takes CPU in proportion to the file (~1 s/GB), inline otherwise.
plainSideHashes = (untimed.afterCpuSeconds ?? 0) < (0.2 * size) / 1e9
await measure('plain')
// Alternating order (plain first, then encrypted first, ...), so that drift in the machine's speed
// is not charged to whichever path always runs second.
const runs: Run[] = []
for (let round = 0; round < rounds; round++) {
  const order: Mode[] = round % 2 === 0 ? ['plain', 'encrypted'] : ['encrypted', 'plain']
  for (const mode of order) runs.push(await measure(mode))
}
// The app spends its life waiting in the tray, and V8 shrinks an idle process's young generation (its
// memory reducer, ~30 s after the last full collection): then one more encrypted upload, the owner's
// drop into an app that has been open a while. The runs above are an app that uploads as it starts.
const youngGenerationMB = () =>
  (getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0) / 1e6
const youngBeforeWait = youngGenerationMB()
const waitStarted = performance.now()
while (youngGenerationMB() >= youngBeforeWait / 2 && performance.now() - waitStarted < WAIT_FOR_IDLE_MS)
  await new Promise((resolve) => setTimeout(resolve, 1000))
const afterWait = {
  waitedSeconds: (performance.now() - waitStarted) / 1000,
  youngGenerationMB: { before: youngBeforeWait, after: youngGenerationMB() },
  run: await measure('encrypted'),
}
await queue.stop()
// What the client holds once no upload runs: the reader thread is let go once idle for a while.
await new Promise((resolve) => setTimeout(resolve, FILE_READ_IDLE_RELEASE_MS + SETTLE_MS))
const idleRss = process.memoryUsage.rss()

console.log(
  JSON.stringify({
    runs,
    afterWait,
    creditsConsumed,
    plainSideHashes,
    startRssMB: startRss / 1e6,
    idleRssMB: idleRss / 1e6,
    /** The process's peak since it started (all runs, index hashing included), or null on Linux, where each run has its own. */
    peakRssMB: resetPeak() ? null : peakRss() / 1e6,
  }),
)
process.exit(0)
