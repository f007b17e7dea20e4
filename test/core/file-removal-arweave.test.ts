// Deleting files from a vault whose service keeps its blobs on Arweave (arlocal here): the plan says
// the store is permanent; a lone file's asset is taken out (its bytes stay on the network); a bundle
// that keeps other files is left as it is instead of re-packed (a re-pack would not take the bytes off
// and would cost credits); either way the vault's list no longer names the file, so an heir's
// recovery of every blob left does not bring it back, while the others come back byte for byte.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src/main/core/storage/secret-store'
import { VaultKeyStore } from '../../src/main/core/storage/vault-key-store'
import { fileLibrary } from '../../src/main/core/uploads/file-library'
import { planFileRemoval, removeVaultFiles } from '../../src/main/core/uploads/file-removal'
import { UploadQueue } from '../../src/main/core/uploads/upload-queue'
import { recoverRun } from '../../src/recovery/recover-files'
import { startService } from '../../src/service/index'
import { VaultApiClient } from '../../src/service-client'
import { type LocalArweave, startLocalArweave } from '../service/local-arweave'

let network: LocalArweave
let service: Awaited<ReturnType<typeof startService>>
let work: string

beforeAll(async () => {
  network = await startLocalArweave('file-removal-arweave-')
  work = await mkdtemp(join(tmpdir(), 'file-removal-arweave-'))
  service = await startService({
    dataDir: join(work, 'service'),
    port: 0,
    rateLimits: false,
    tickIntervalMs: 3_600_000,
    blobs: { kind: 'arweave', gateway: network.gateway, walletFile: network.walletFile },
  })
}, 60_000)
afterAll(async () => {
  await service?.close()
  await network?.stop()
  await rm(work, { recursive: true, force: true })
})

const CONTENT: Record<string, Buffer> = {
  'Backup/Letters/to-anna.txt': Buffer.from('Dear Anna, the keys are in the blue box.\n'),
  'Backup/Letters/to-ben.txt': Buffer.from('Dear Ben, the password is hunter2\n'),
  'Backup/Photos/beach.raw': Buffer.alloc(100_000, 'beach-photo '),
}

describe('deleting files on a permanent store', () => {
  it('takes the lone blob out, leaves the bundle as it is, and the list no longer names either file', async () => {
    const { apiKey, accountId } = await service.admin.createAccount({ email: 'owner@example.com' })
    await service.admin.addCredits({ account: accountId, credits: 1000 })
    const client = new VaultApiClient({ baseUrl: service.url, apiKey })
    const vaultId = (await client.createVault()).id
    const keys = new VaultKeyStore(new MemorySecretStore())
    await keys.create(vaultId)
    const vaultKey = (await keys.get(vaultId))!
    for (const [path, bytes] of Object.entries(CONTENT)) {
      await mkdir(join(work, 'files', path, '..'), { recursive: true })
      await writeFile(join(work, 'files', path), bytes)
    }
    const queue = await UploadQueue.open({
      userDataDir: join(work, 'user-data'),
      clientFor: async () => client,
      vaultKeys: keys,
      progressIntervalMs: 0,
      bundleSmallFiles: { fileThreshold: 65_536 },
    })
    try {
      await queue.enqueue({ vaultId, paths: [join(work, 'files', 'Backup')] })
      await queue.idle()
      const deps = { client, queue, vaultKey, tempRoot: join(work, 'user-data') }
      const selection = { files: ['Backup/Letters/to-ben.txt', 'Backup/Photos/beach.raw'], folders: [] }
      const balanceBefore = (await client.getVault(vaultId)).creditsBalance

      const plan = await planFileRemoval(deps, vaultId, selection)
      expect(plan).toMatchObject({
        files: 2,
        blobsDeleted: 1,
        bundlesRepacked: 0,
        bundlesKept: 1,
        repackCredits: 0,
        permanentStore: true,
      })
      const report = await removeVaultFiles(deps, vaultId, selection)
      expect(report).toEqual({
        vaultId,
        removed: 2,
        blobsDeleted: 1,
        bundlesRepacked: 0,
        creditsSpent: 0,
        contentKept: 2,
      })
      expect((await client.getVault(vaultId)).creditsBalance).toBe(balanceBefore - plan.manifestCredits)
      const assets = await client.listAllAssets(vaultId)
      const library = fileLibrary({ assets, ...(await queue.knownFiles(vaultId, undefined, assets)) })
      expect(library.files.map((f) => f.path)).toEqual(['Backup/Letters/to-anna.txt'])

      // An heir with every blob the vault still lists gets Anna's letter only.
      const blobs = join(work, 'blobs')
      const out = join(work, 'recovered')
      await mkdir(blobs)
      for (const asset of assets) {
        const chunks: Buffer[] = []
        for await (const chunk of await client.downloadAsset(vaultId, asset.id)) chunks.push(chunk as Buffer)
        await writeFile(join(blobs, `${asset.id}.vault`), Buffer.concat(chunks))
      }
      const run = await recoverRun({ vaultKey, vaultId, inputs: [blobs], outDir: out })
      const recovered = run.results.filter((r) => r.status === 'recovered')
      expect(recovered.map((r) => r.output)).toEqual([join(out, 'Backup', 'Letters', 'to-anna.txt')])
      expect((await readFile(recovered[0]!.output)).equals(CONTENT['Backup/Letters/to-anna.txt']!)).toBe(true)
      expect(run.results.filter((r) => r.status === 'failed' || r.status === 'missing')).toEqual([])
    } finally {
      await queue.close()
    }
  }, 120_000)
})
