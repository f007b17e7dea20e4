// The measured side of bench/upload-small.ts, run bundled in a Node process of its own (as the app's
// main process runs bundled) so that its CPU time is the client's alone, not the service's. One run:
// a fresh queue database and a fresh vault, the folder estimated then enqueued through the real
// UploadQueue (real encryption, the app's request pacer when the service limits the rate), timed
// until every file is stored. Prints one JSON line.
import { mkdir } from 'node:fs/promises'
import { MemorySecretStore } from '../src/main/core/storage/secret-store'
import { VaultKeyStore } from '../src/main/core/storage/vault-key-store'
import { UploadQueue } from '../src/main/core/uploads/upload-queue'
import { VaultApiClient } from '../src/service-client'
import { RequestPacer } from '../src/service-client/request-pacer'

export interface SmallRun {
  files: number
  mode: 'bundles' | 'one-by-one'
  rateLimited: boolean
  /** From enqueue until every file is stored. */
  seconds: number
  /** Client CPU (user + system, all threads) over the same span. */
  cpuSeconds: number
  estimateSeconds: number
  estimateCredits: number
  /** What the same files cost uploaded one by one (each upload at least 1 credit). */
  creditsWithoutBundles: number
  creditsCharged: number
  assets: number
  bundles: number
}

const [url, folder, userData, mode, rateLimitedArg] = process.argv.slice(2)
const apiKey = process.env.VAULT_BENCH_API_KEY
if (!apiKey || !url || !folder || !userData || (mode !== 'bundles' && mode !== 'one-by-one')) {
  console.error(
    'usage: VAULT_BENCH_API_KEY=... upload-small-client <url> <folder> <userDataDir> bundles|one-by-one [rate-limited]',
  )
  process.exit(2)
}
const rateLimited = rateLimitedArg === 'rate-limited'

const client = new VaultApiClient({
  baseUrl: url,
  apiKey,
  timeoutMs: 120_000,
  // As the app does: keep under the service's per-minute limits instead of collecting 429s.
  ...(rateLimited ? { pacer: new RequestPacer() } : {}),
})
const keys = new VaultKeyStore(new MemorySecretStore())
await mkdir(userData, { recursive: true })
const queue = await UploadQueue.open({
  userDataDir: userData,
  clientFor: async () => client,
  vaultKeys: keys,
  bundleSmallFiles: mode === 'bundles',
})
const vaultId = (await client.createVault()).id
await keys.create(vaultId)
const balanceBefore = (await client.getVault(vaultId)).creditsBalance

const e0 = performance.now()
const estimate = await queue.estimate(vaultId, [folder])
const estimateSeconds = (performance.now() - e0) / 1000

const cpu = process.cpuUsage()
const t0 = performance.now()
const { batchId } = await queue.enqueue({ vaultId, paths: [folder] })
await new Promise<void>((resolve) => {
  const check = () => {
    const c = queue.batchCounts(batchId)!
    if (c.queued + c.checking + c.uploading > 0) return
    queue.off('item', check)
    resolve()
  }
  queue.on('item', check)
  check()
})
const seconds = (performance.now() - t0) / 1000
const used = process.cpuUsage(cpu)

const counts = queue.batchCounts(batchId)!
if (counts.done !== estimate.files) {
  console.error(
    `only ${counts.done} of ${estimate.files} files were stored: ${counts.firstError?.message ?? 'no error given'}`,
  )
  process.exit(1)
}
await queue.idle()
const vault = await client.getVault(vaultId)
const assets = await client.listAllAssets(vaultId)
await queue.close()
await client.deleteVault(vaultId)

const run: SmallRun = {
  files: estimate.files,
  mode,
  rateLimited,
  seconds,
  cpuSeconds: (used.user + used.system) / 1e6,
  estimateSeconds,
  estimateCredits: estimate.credits,
  creditsWithoutBundles: estimate.creditsWithoutBundles,
  creditsCharged: balanceBefore - vault.creditsBalance,
  assets: assets.length,
  bundles: estimate.bundles,
}
console.log(JSON.stringify(run))
process.exit(0)
