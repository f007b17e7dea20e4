// The measured side of bench/upload.ts, run as its own bundled Node process (as the app's main
// process runs bundled), so its peak RSS is the client's alone: no tsx, no service, no test file
// generation. Uploads the file plain, then encrypted through the upload queue; prints one JSON line.
import { execFileSync } from 'node:child_process'
import { createReadStream } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { VaultApiClient } from '../src/main/core/api-client'
import { generateVaultKey } from '../src/main/core/crypto'
import { buildMultipartBody } from '../src/main/core/multipart-body'
import { MemorySecretStore } from '../src/main/core/secret-store'
import { UploadQueue } from '../src/main/core/upload-queue'
import { VaultKeyStore } from '../src/main/core/vault-key-store'

const [url, vaultId, file, userData, sizeText] = process.argv.slice(2)
const apiKey = process.env.VAULT_BENCH_API_KEY
if (!url || !apiKey || !vaultId || !file || !userData || !sizeText) {
  console.error('usage: VAULT_BENCH_API_KEY=... upload-client <url> <vaultId> <file> <userDataDir> <size>')
  process.exit(2)
}
const size = Number(sizeText)

let peakRss = process.memoryUsage.rss()
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss())
}, 10)
sampler.unref()

const client = new VaultApiClient({ baseUrl: url, apiKey, timeoutMs: 120_000 })
await client.listVaults()
const startRss = process.memoryUsage.rss()

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
    content: () => createReadStream(file, { highWaterMark: 1 << 20 }),
  },
)
// Each run starts with no dirty pages left by the previous one (the service fsyncs as it writes,
// so leftover write-back of the first 1-5 GB would slow the second run down).
const settleDisk = () => execFileSync('sync')
settleDisk()
const cpu0 = process.cpuUsage()
const t0 = performance.now()
const plain = await client.uploadAsset({
  vaultId,
  body: plainBody.stream,
  contentType: plainBody.contentType,
  contentLength: plainBody.contentLength,
  retry: false,
})
const plainSeconds = (performance.now() - t0) / 1000
const plainCpu = process.cpuUsage(cpu0)
if (plain.sizeBytes !== size) throw new Error(`the plain upload stored ${plain.sizeBytes} bytes`)
const plainPeak = peakRss

const keys = new VaultKeyStore(new MemorySecretStore())
await keys.put(vaultId, generateVaultKey())
await mkdir(userData, { recursive: true })
const queue = await UploadQueue.open({
  userDataDir: join(userData),
  clientFor: async () => client,
  vaultKeys: keys,
})
// Timed to the item's end (asset stored, or failure); the index hashing that follows while the
// queue is idle is not part of the upload.
const finished = new Promise<number>((resolve) => {
  queue.on('item', (i) => {
    if (i.state === 'done' || i.state === 'failed' || i.state === 'cancelled') resolve(performance.now())
  })
})
settleDisk()
const cpu1 = process.cpuUsage()
const t1 = performance.now()
await queue.enqueue({ vaultId, paths: [file] })
const encryptedSeconds = ((await finished) - t1) / 1000
const encryptedCpu = process.cpuUsage(cpu1)
const [item] = queue.list()
if (item?.state !== 'done')
  throw new Error(`the encrypted upload ended ${item?.state}: ${item?.error?.message}`)
await queue.stop()

peakRss = Math.max(peakRss, process.memoryUsage.rss())
console.log(
  JSON.stringify({
    plainSeconds,
    encryptedSeconds,
    // Client CPU (user + system) per run: what the encryption path costs regardless of machine load.
    plainCpuSeconds: (plainCpu.user + plainCpu.system) / 1e6,
    encryptedCpuSeconds: (encryptedCpu.user + encryptedCpu.system) / 1e6,
    creditsConsumed: item.creditsConsumed,
    startRssMB: startRss / 1e6,
    plainPeakRssMB: plainPeak / 1e6,
    peakRssMB: Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / 1e6,
  }),
)
process.exit(0)
