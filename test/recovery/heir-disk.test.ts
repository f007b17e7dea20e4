// The heir's own disk: too small for the downloads, or full in the middle of one. The run says so in
// those words, before downloading what cannot fit, and never as a service that cannot be reached.
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ARWEAVE_DOWNLOADS_FOLDER, recoverFromArweave } from '../../src/recovery/arweave-recovery'
import * as confinedWrite from '../../src/recovery/confined-write'
import { DOWNLOADS_FOLDER, recoverFromService } from '../../src/recovery/heir-recovery'
import * as outputSpace from '../../src/recovery/output-space'
import { notEnoughSpace, outputWriteProblem } from '../../src/recovery/output-space'
import { startFakeGateway, txId, wallet } from '../hostile/fake-arweave-gateway'
import {
  assetId,
  type FakeService,
  fileBlob,
  newVault,
  startFakeService,
} from '../hostile/fake-vault-service'
import { makeWorld, type World } from '../hostile/hostile-world'

vi.mock('../../src/recovery/output-space', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/recovery/output-space')>()
  return { ...real, freeBytes: vi.fn(real.freeBytes) }
})
vi.mock('../../src/recovery/confined-write', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/recovery/confined-write')>()
  return { ...real, downloadStream: vi.fn(real.downloadStream) }
})

const cleanup: { stop?: () => Promise<void>; remove?: () => Promise<void> }[] = []
afterEach(async () => {
  vi.mocked(outputSpace.freeBytes).mockReset()
  vi.mocked(confinedWrite.downloadStream).mockReset()
  for (const item of cleanup.splice(0)) await (item.remove ?? item.stop)?.call(item)
})

/**
 * A vault of two small files on a fake service, and an heir's output folder: `outDir`, which holds a
 * file of the heir's already, or with `fresh`, a new folder inside it.
 */
async function heirCase(fresh = false): Promise<{
  world: World
  service: FakeService
  run: () => ReturnType<typeof recoverFromService>
  /** The two encrypted files' sizes together. */
  encryptedBytes: number
}> {
  const vault = newVault()
  const world = await makeWorld()
  const createdAt = new Date().toISOString()
  const will = await fileBlob(vault, 'will.txt', 'the will')
  const photos = await fileBlob(vault, 'photos.txt', 'photos')
  const service = await startFakeService({
    key: vault.heirCode,
    vaultId: vault.vaultId,
    assets: [
      { id: assetId(), filename: 'will.txt', blob: will, createdAt },
      { id: assetId(), filename: 'photos.txt', blob: photos, createdAt },
    ],
  })
  cleanup.push(world, service)
  if (fresh) world.outDir = join(world.outDir, 'Recovered')
  const run = () =>
    recoverFromService({
      serviceUrl: service.origin,
      accessToken: vault.heirCode,
      vaultId: vault.vaultId,
      vaultKey: vault.vaultKey,
      outDir: world.outDir,
      timeoutMs: 2_000,
      maxRetries: 0,
    })
  return { world, service, run, encryptedBytes: will.length + photos.length }
}

/** A download whose disk is full from its first byte. */
function fullDisk(): void {
  vi.mocked(confinedWrite.downloadStream).mockImplementationOnce(
    async () =>
      new Writable({
        write(_chunk, _encoding, done) {
          const full = Object.assign(new Error('ENOSPC: no space left on device, write'), {
            code: 'ENOSPC',
            errno: -28,
            syscall: 'write',
          })
          done(full)
        },
      }) as unknown as Awaited<ReturnType<typeof confinedWrite.downloadStream>>,
  )
}

const contentReads = (service: FakeService) => service.requests.filter((r) => r.url.endsWith('/content'))

describe("the heir's disk", () => {
  it('too small for the encrypted files: the run stops before downloading any, and says how much is needed', async () => {
    const { world, service, run } = await heirCase()
    vi.mocked(outputSpace.freeBytes).mockResolvedValue(100)
    const report = await run()
    expect(report.stopped?.code).toBe('OUTPUT_UNWRITABLE')
    expect(report.stopped?.message).toContain(`The disk holding ${world.outDir} has 0 MB free`)
    expect(report.stopped?.message).toMatch(/about twice the vault's size/)
    expect(report.stopped?.message).not.toMatch(/reached/)
    expect(contentReads(service)).toEqual([])
    expect(await readdir(join(world.outDir, DOWNLOADS_FOLDER)).catch(() => [])).toEqual([])
  })

  it('room for the encrypted files but not for the files recovered from them too: the run stops before downloading any', async () => {
    const { world, service, run, encryptedBytes } = await heirCase(true)
    // The files are decrypted beside their downloads, which are kept until every file is written.
    vi.mocked(outputSpace.freeBytes).mockResolvedValue(encryptedBytes)
    const report = await run()
    expect(report.stopped?.code).toBe('OUTPUT_UNWRITABLE')
    expect(report.stopped?.message).toContain(`The disk holding ${world.outDir} has 0 MB free`)
    expect(report.stopped?.message).toMatch(/the encrypted files still to download, and the files recovered/)
    expect(contentReads(service)).toEqual([])
    expect(await readdir(join(world.outDir, DOWNLOADS_FOLDER)).catch(() => [])).toEqual([])
  })

  it('a second run into the folder where the files already are: counts only the downloads, and goes on', async () => {
    const { run, encryptedBytes } = await heirCase(true)
    expect((await run()).results.map((r) => r.status)).toEqual(['recovered', 'recovered'])
    // The recovered files are on the disk already: room for the downloads is enough this time.
    vi.mocked(outputSpace.freeBytes).mockResolvedValue(encryptedBytes)
    const again = await run()
    expect(again.stopped).toBeUndefined()
    expect(again.results.map((r) => r.status)).toEqual(['kept', 'kept'])
    // With less than that, it stops before downloading, in the downloads' own words.
    vi.mocked(outputSpace.freeBytes).mockResolvedValue(encryptedBytes - 1)
    const short = await run()
    expect(short.stopped?.code).toBe('OUTPUT_UNWRITABLE')
    expect(short.stopped?.message).toMatch(/the encrypted files still to download need/)
  })

  it('with room enough, the same vault is recovered', async () => {
    const { service, run } = await heirCase()
    vi.mocked(outputSpace.freeBytes).mockResolvedValue(10_000_000)
    const report = await run()
    expect(report.stopped).toBeUndefined()
    expect(report.results.map((r) => r.status)).toEqual(['recovered', 'recovered'])
    expect(contentReads(service)).toHaveLength(2)
  })

  it('full in the middle of a download: named as the disk, not as the service, and the run can go on later', async () => {
    const { world, run } = await heirCase()
    fullDisk()
    const report = await run()
    expect(report.stopped?.code).toBe('OUTPUT_UNWRITABLE')
    expect(report.stopped?.message).toContain(`The disk holding ${world.outDir} is full`)
    expect(report.stopped?.message).toMatch(/downloading "will\.txt"/)
    expect(report.stopped?.message).toMatch(/continues where it stopped/)
    expect(report.results.map((r) => r.status)).toEqual(['not-reached', 'not-reached'])

    // Space freed: the next run recovers both.
    const again = await run()
    expect(again.stopped).toBeUndefined()
    expect(again.results.map((r) => r.status)).toEqual(['recovered', 'recovered'])
  })
})

describe('plaintext staged by a run that was killed', () => {
  it('from the service: a download already complete is used, and its stale plaintext removed', async () => {
    const { world, service, run } = await heirCase()
    const downloads = join(world.outDir, DOWNLOADS_FOLDER)
    await mkdir(downloads, { recursive: true })
    for (const asset of service.options.assets ?? []) {
      const local = join(
        downloads,
        confinedWrite.localDownloadName('service', service.options.vaultId, asset.id),
      )
      await writeFile(`${local}.part`, asset.blob)
      await writeFile(`${local}.plain`, 'decrypted by the run that was killed')
    }
    const report = await run()
    expect(report.results.map((r) => r.status)).toEqual(['recovered', 'recovered'])
    expect(await readdir(downloads).catch(() => [])).toEqual([])
  })

  it('from Arweave: a download already finished is used, and its stale plaintext removed', async () => {
    const vault = newVault()
    const world = await makeWorld()
    const will = { id: txId(), owner: wallet(), data: await fileBlob(vault, 'will.txt', 'the will') }
    const gateway = await startFakeGateway({
      vaultId: vault.vaultId,
      // A transaction served wrongly keeps the downloads folder (the run is not settled).
      txs: [will, { id: txId(), owner: wallet(), data: will.data, sha256Hex: 'ab'.repeat(32) }],
    })
    cleanup.push(world, gateway)
    const downloads = join(world.outDir, ARWEAVE_DOWNLOADS_FOLDER)
    await mkdir(downloads, { recursive: true })
    const local = `${join(downloads, confinedWrite.localDownloadName('arweave', vault.vaultId, will.id))}.vault`
    await writeFile(local, will.data)
    await writeFile(`${local}.plain`, 'decrypted by the run that was killed')
    const report = await recoverFromArweave({
      gateway: gateway.origin,
      vaultId: vault.vaultId,
      vaultKey: vault.vaultKey,
      outDir: world.outDir,
      timeoutMs: 2_000,
    })
    expect(report.results.map((r) => r.status).sort()).toEqual(['failed', 'recovered'])
    expect((await readdir(downloads)).filter((name) => name.endsWith('.plain'))).toEqual([])
  })
})

describe("the heir's disk, recovering from Arweave", () => {
  it('full in the middle of a download: the run stops and names the disk', async () => {
    const vault = newVault()
    const world = await makeWorld()
    const gateway = await startFakeGateway({
      vaultId: vault.vaultId,
      txs: [{ id: txId(), owner: wallet(), data: await fileBlob(vault, 'will.txt', 'the will') }],
    })
    cleanup.push(world, gateway)
    fullDisk()
    const report = await recoverFromArweave({
      gateway: gateway.origin,
      vaultId: vault.vaultId,
      vaultKey: vault.vaultKey,
      outDir: world.outDir,
      timeoutMs: 2_000,
    })
    expect(report.stopped?.code).toBe('OUTPUT_UNWRITABLE')
    expect(report.stopped?.message).toContain(`The disk holding ${world.outDir} is full`)
  })
})

describe('notEnoughSpace', () => {
  it('gives sizes an heir can compare with the vault', () => {
    expect(notEnoughSpace('/out', 2_400_000_000, 800_000_000)).toContain(
      'The disk holding /out has 800 MB free, and the recovery needs 2.4 GB while it runs',
    )
    expect(notEnoughSpace('/out', 120_000_000_000, 31_600_000_000)).toContain('has 32 GB free')
    expect(notEnoughSpace('/out', 2_400_000_000, 800_000_000, false)).toContain(
      'The disk holding /out has 800 MB free, and the encrypted files still to download need 2.4 GB',
    )
  })
})

describe('outputWriteProblem', () => {
  const errno = (code: string, syscall?: string) => Object.assign(new Error(code), { code, syscall })

  it("words the disk's own failures", () => {
    expect(outputWriteProblem(errno('EFBIG', 'write'), '/out', 'downloading "a"')).toMatch(/FAT32/)
    expect(outputWriteProblem(errno('EROFS', 'open'), '/out', 'downloading "a"')).toMatch(/read-only/)
    expect(outputWriteProblem(errno('EDQUOT', 'write'), '/out', 'downloading "a"')).toMatch(/is full/)
  })

  it('leaves everything else to the caller: sockets, and errors that are not a local write', () => {
    expect(outputWriteProblem(errno('ECONNRESET', 'read'), '/out', 'x')).toBeUndefined()
    expect(outputWriteProblem(errno('EACCES', 'connect'), '/out', 'x')).toBeUndefined()
    expect(outputWriteProblem(errno('ENOSPC'), '/out', 'x')).toBeUndefined()
    expect(outputWriteProblem(new Error('boom'), '/out', 'x')).toBeUndefined()
  })
})
