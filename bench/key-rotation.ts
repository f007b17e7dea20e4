// Key rotation benchmark: a 1 GB vault (four 200 MB files, each its own blob, and 200 MB of 100 KB
// files that travel in bundles) uploaded through the upload queue to the local service running as a
// child process (bench/upload-service-child.ts, rate limits off), then rotated through the app's real
// path (key-rotation.ts: download, decrypt, re-encrypt, upload, delete the old blobs, new kits).
// Measures the rotation's wall time, MB/s of blob bytes moved, the credits it showed before it
// started and those the service charged, and this process's peak RSS (the client side: nothing is
// held whole in memory). `--size=N` (bytes, default 1e9) scales the vault for a quick run.
// Last line: {"vaultBytes", "blobs", "seconds", "MBps", "creditsShown", "creditsCharged", "dollars",
// "peakRssMB", "rssAtStartMB" (after the upload, before the rotation), "cpuSeconds", "uploadMBps"}.
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MemorySecretStore } from '../src/main/core/storage/secret-store'
import { VaultKeyStore } from '../src/main/core/storage/vault-key-store'
import { UploadQueue } from '../src/main/core/uploads/upload-queue'
import { KeyRotation } from '../src/main/core/vaults/key-rotation'
import { KeyRotationStore } from '../src/main/core/vaults/key-rotation-store'
import { VaultApiClient } from '../src/service-client'
import { creditsToDollars } from '../src/shared/api'

const sizeArg = process.argv.find((a) => a.startsWith('--size='))
const TOTAL = sizeArg ? Number(sizeArg.slice(7)) : 1_000_000_000
const LARGE_FILES = 4
const LARGE = Math.floor((TOTAL * 0.8) / LARGE_FILES)
const SMALL = 100_000
const SMALL_FILES = Math.floor((TOTAL - LARGE * LARGE_FILES) / SMALL)

async function writeRandomFile(path: string, size: number): Promise<void> {
  const out = createWriteStream(path)
  for (let left = size; left > 0; ) {
    const n = Math.min(left, 1 << 20)
    if (!out.write(randomBytes(n))) await once(out, 'drain')
    left -= n
  }
  out.end()
  await once(out, 'finish')
}

function startServiceChild(dataDir: string): Promise<{ child: ChildProcess; url: string; apiKey: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/upload-service-child.ts', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split('\n')[0]
      if (out.includes('\n') && line)
        resolve({ child, ...(JSON.parse(line) as { url: string; apiKey: string }) })
    })
    child.once('exit', (code) => reject(new Error(`the service exited early (${code})`)))
  })
}

const work = await mkdtemp(join(tmpdir(), 'vault-bench-rotation-'))
let service: ChildProcess | undefined
try {
  const files = join(work, 'files')
  await mkdir(join(files, 'small'), { recursive: true })
  for (let i = 0; i < LARGE_FILES; i++) await writeRandomFile(join(files, `large-${i}.bin`), LARGE)
  for (let i = 0; i < SMALL_FILES; i++) await writeRandomFile(join(files, 'small', `${i}.bin`), SMALL)
  const started = await startServiceChild(join(work, 'service'))
  service = started.child
  const client = new VaultApiClient({ baseUrl: started.url, apiKey: started.apiKey })
  const keys = new VaultKeyStore(new MemorySecretStore())
  const vaultId = (await client.createVault()).id
  await keys.create(vaultId)
  const userData = join(work, 'user-data')
  const queue = await UploadQueue.open({
    userDataDir: userData,
    clientFor: async () => client,
    vaultKeys: keys,
  })
  const uploadStart = performance.now()
  await queue.enqueue({ vaultId, paths: [files] })
  await queue.idle()
  const failed = queue.list().filter((i) => i.state !== 'done')
  if (failed.length > 0)
    throw new Error(`${failed.length} uploads did not finish: ${failed[0]?.error?.message}`)
  const uploadSeconds = (performance.now() - uploadStart) / 1000
  console.error(`uploaded ${TOTAL / 1e6} MB in ${uploadSeconds.toFixed(1)} s; rotating…`)

  const rotation = new KeyRotation({
    store: await KeyRotationStore.open(userData),
    vaultKeys: keys,
    client: async () => client,
    activeConnectionId: () => undefined,
    durableKeys: () => true,
    index: () => queue.index,
    remakeKits: async () => 0,
    // Throughput only: the owner confirms the new owner kit at once, so the old blobs go in the same run.
    ownerKitSaved: () => true,
  })
  const estimate = await rotation.estimate(vaultId)
  const balanceBefore = (await client.getVault(vaultId)).creditsBalance
  const rssAtStart = process.memoryUsage().rss
  let peakRss = rssAtStart
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss)
  }, 100)
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  await rotation.start(vaultId, estimate.credits)
  await rotation.idle(vaultId)
  const seconds = (performance.now() - t0) / 1000
  const cpu = process.cpuUsage(cpu0)
  clearInterval(sampler)
  const status = rotation.status(vaultId)
  if (status.phase !== 'done') throw new Error(`the rotation stopped: ${status.problem}`)
  const charged = balanceBefore - (await client.getVault(vaultId)).creditsBalance
  await rotation.close()
  await queue.close()
  console.log(
    JSON.stringify({
      vaultBytes: TOTAL,
      blobs: estimate.files,
      blobBytes: estimate.encryptedBytes,
      seconds: Number(seconds.toFixed(1)),
      MBps: Number((estimate.encryptedBytes / 1e6 / seconds).toFixed(1)),
      creditsShown: estimate.credits,
      creditsCharged: charged,
      dollars: creditsToDollars(charged),
      peakRssMB: Math.round(peakRss / 1e6),
      rssAtStartMB: Math.round(rssAtStart / 1e6),
      cpuSeconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(1)),
      uploadMBps: Number((TOTAL / 1e6 / uploadSeconds).toFixed(1)),
    }),
  )
} finally {
  service?.kill('SIGTERM')
  if (service) await once(service, 'exit').catch(() => undefined)
  await rm(work, { recursive: true, force: true })
}
