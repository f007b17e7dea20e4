// Heir recovery from the service: one large file (default 1 GiB, --mb N to change) uploaded encrypted
// through the owner's app core, the vault released, then recovered by the heir through
// recoverFromService. Prints the download and check+decrypt rates, the total, and the peak resident
// memory of this process (service included), last as one JSON line.
//   npx tsx bench/heir-recovery.ts [--mb 1024]
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { recoverFromService } from '../src/recovery/heir-recovery'
import {
  DAY_MS,
  heirToken,
  ownerVaultKey,
  startReleaseWorld,
  writeSeededFile,
} from '../test/release/release-fixture'

const mbArg = process.argv.indexOf('--mb')
const megabytes = mbArg > 0 ? Number(process.argv[mbArg + 1]) : 1024
const bytes = megabytes * 1024 * 1024

const world = await startReleaseWorld('bench-owner@example.com')
await world.service.admin.addCredits({
  account: world.accountId,
  credits: Math.ceil((bytes / 1e9) * 4650) + 100,
})
try {
  const owner = await world.ownerCore()
  const vaultId = (await owner.vaults.create({ preset: 'standard' })).id
  await owner.vaults.addHeir(vaultId, { name: 'Bench Heir', email: 'bench-heir@example.com' })
  const source = join(await world.tempDir('vault-bench-heir-src-'), 'big.bin')
  await writeSeededFile(source, bytes, 'bench')
  const uploadStarted = performance.now()
  await owner.uploads.enqueue({ vaultId, paths: [source] })
  await owner.uploads.idle()
  const uploadSeconds = (performance.now() - uploadStarted) / 1000
  const vaultKey = await ownerVaultKey(owner, vaultId)
  await owner.vaults.configureRelease(vaultId, { trigger: 'manual', config: { checkInFrequency: 'weekly' } })
  await owner.vaults.startRelease(vaultId)
  world.advance(30 * DAY_MS + 60_000)
  await world.service.tick()
  const accessToken = heirToken(await world.mail.waitFor('bench-heir@example.com'))

  const outDir = await world.tempDir('vault-bench-heir-out-')
  let peakRss = process.memoryUsage().rss
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss)
  }, 50)
  const started = performance.now()
  let downloadedAt = started
  const report = await recoverFromService({
    serviceUrl: world.service.url,
    accessToken,
    vaultId,
    vaultKey,
    outDir,
    onProgress: (p) => {
      if (p.phase === 'downloading') downloadedAt = performance.now()
    },
  })
  const finished = performance.now()
  clearInterval(sampler)
  if (report.stopped || report.results[0]?.status !== 'recovered') {
    throw new Error(`recovery failed: ${JSON.stringify(report)}`)
  }
  const written = (await stat(join(outDir, 'big.bin'))).size
  if (written !== bytes) throw new Error(`wrote ${written} bytes, expected ${bytes}`)
  const mb = bytes / 1e6
  const result = {
    megabytes: Math.round(mb),
    uploadMBps: Math.round(mb / uploadSeconds),
    downloadMBps: Math.round(mb / ((downloadedAt - started) / 1000)),
    checkAndDecryptMBps: Math.round(mb / ((finished - downloadedAt) / 1000)),
    heirTotalSeconds: Number(((finished - started) / 1000).toFixed(1)),
    heirTotalMBps: Math.round(mb / ((finished - started) / 1000)),
    peakRssMB: Math.round(peakRss / 1e6),
  }
  console.log(
    `heir recovery of ${result.megabytes} MB: download ${result.downloadMBps} MB/s, check+decrypt ${result.checkAndDecryptMBps} MB/s, total ${result.heirTotalSeconds} s (${result.heirTotalMBps} MB/s); peak RSS ${result.peakRssMB} MB (service in the same process)`,
  )
  console.log(JSON.stringify(result))
} finally {
  await world.close()
}
