// The measured side of bench/owner-download.ts, run bundled as a Node process of its own per run (as
// the app's main process runs bundled), so its CPU and peak RSS are that one run's alone. One run:
//   plain  the blob downloaded with the app's service client and piped to a file, nothing else;
//   save   saveVaultFiles(): the same download, its encrypted bytes kept in a `.part` for resume,
//          decrypted in a stream through the recovery writer into the file.
// Prints one JSON line (OwnerDownloadRun). The API key and the vault key come in the environment.
import { createWriteStream, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { type BlobToSave, saveVaultFiles } from '../src/main/core/vaults/file-save'
import { VaultApiClient } from '../src/service-client'

export type DownloadMode = 'plain' | 'save'
export interface OwnerDownloadRun {
  mode: DownloadMode
  seconds: number
  /** User + system CPU of the whole process (all threads) during the run. */
  cpuSeconds: number
  /** RSS just before the run, with the code loaded and the connection made. */
  startRssMB: number
  /** The process's peak RSS (startup included): the kernel's VmHWM, or sampled every 50 ms. */
  peakRssMB: number
  peakFrom: 'VmHWM' | 'sampled'
  /** The file written (for the parent to check). */
  output: string
}

const args = process.argv.slice(2)
const apiKey = process.env.VAULT_BENCH_API_KEY
const [mode, url, vaultId, folder, blobsFile] = args as [DownloadMode, string, string, string, string]
if (!apiKey || args.length !== 5 || (mode !== 'plain' && mode !== 'save')) {
  console.error(
    'usage: VAULT_BENCH_API_KEY=... [VAULT_BENCH_VAULT_KEY=<hex>] owner-download-client <plain|save> <url> <vaultId> <folder> <blobs.json>',
  )
  process.exit(2)
}
const blobs = JSON.parse(readFileSync(blobsFile, 'utf8')) as BlobToSave[]
if (blobs.length !== 1 || blobs[0]!.files.length !== 1) {
  console.error('the benchmark expects one blob holding one file')
  process.exit(2)
}
const blob = blobs[0]!

function vmHwm(): number | null {
  try {
    const kB = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
    return kB ? Number(kB) * 1024 : null
  } catch {
    return null
  }
}
// Where /proc is missing, sample: a 50 ms timer sees any peak that lasts longer than that.
let sampledPeak = process.memoryUsage.rss()
const sampler =
  vmHwm() === null
    ? setInterval(() => {
        sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss())
      }, 50)
    : undefined

const client = new VaultApiClient({ baseUrl: url, apiKey, timeoutMs: 120_000 })
await client.listVaults()

async function plain(): Promise<string> {
  const output = join(folder, 'plain.bin')
  const { stream } = await client.downloadAssetFrom(vaultId, blob.assetId, 0)
  await pipeline(stream, createWriteStream(output, { highWaterMark: 1 << 20 }))
  return output
}

async function save(): Promise<string> {
  const hex = process.env.VAULT_BENCH_VAULT_KEY
  if (!hex || !/^[0-9a-f]{64}$/.test(hex)) throw new Error('VAULT_BENCH_VAULT_KEY (64 hex digits) is missing')
  const outcome = await saveVaultFiles({
    source: client,
    vaultId,
    vaultKey: new Uint8Array(Buffer.from(hex, 'hex')),
    folder,
    blobs,
  })
  if (outcome.saved !== 1 || outcome.failed.length > 0 || outcome.stopped) {
    throw new Error(`the save did not write the file: ${JSON.stringify(outcome)}`)
  }
  return join(folder, blob.files[0]!.saveAs)
}

const startRss = process.memoryUsage.rss()
const cpu = process.cpuUsage()
const t0 = performance.now()
const output = await (mode === 'plain' ? plain() : save())
const seconds = (performance.now() - t0) / 1000
const used = process.cpuUsage(cpu)
if (sampler) clearInterval(sampler)
const hwm = vmHwm()
const run: OwnerDownloadRun = {
  mode,
  seconds,
  cpuSeconds: (used.user + used.system) / 1e6,
  startRssMB: startRss / 1e6,
  peakRssMB: Math.max(hwm ?? 0, sampledPeak, process.memoryUsage.rss()) / 1e6,
  peakFrom: hwm === null ? 'sampled' : 'VmHWM',
  output,
}
console.log(JSON.stringify(run))
process.exit(0)
