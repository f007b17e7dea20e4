// Rotating the key of a vault whose service keeps its blobs on Arweave (arlocal here): the service
// says its store is permanent, the estimate says so, the rotation re-encrypts every file and takes the
// old assets out of the vault, but the network still holds the old transactions and the old key opens
// them: exactly what the app tells the owner ("old copies stay readable with the old kits for ever").
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src/main/core/storage/secret-store'
import { VaultKeyStore } from '../../src/main/core/storage/vault-key-store'
import { buildMultipartBody } from '../../src/main/core/uploads/multipart-body'
import { UploadQueue } from '../../src/main/core/uploads/upload-queue'
import { KeyRotation } from '../../src/main/core/vaults/key-rotation'
import { KeyRotationStore } from '../../src/main/core/vaults/key-rotation-store'
import { startService } from '../../src/service/index'
import { VaultApiClient } from '../../src/service-client'
import { collectBytes, encryptStream, openVaultBlob } from '../../src/vault-format'
import { type LocalArweave, startLocalArweave } from '../service/local-arweave'

let network: LocalArweave
let service: Awaited<ReturnType<typeof startService>>
let dataDir: string

beforeAll(async () => {
  network = await startLocalArweave('key-rotation-arweave-')
  dataDir = await mkdtemp(join(tmpdir(), 'key-rotation-arweave-svc-'))
  service = await startService({
    dataDir,
    port: 0,
    rateLimits: false,
    tickIntervalMs: 3_600_000,
    blobs: { kind: 'arweave', gateway: network.gateway, walletFile: network.walletFile },
  })
}, 60_000)
afterAll(async () => {
  await service?.close()
  await network?.stop()
  await rm(dataDir, { recursive: true, force: true })
})

describe('rotating the key on a permanent store', () => {
  it('says the old copies stay readable, and they do: the network keeps them and the old key opens them', async () => {
    const { apiKey } = await service.admin.createAccount({ email: 'owner@example.com' })
    const client = new VaultApiClient({ baseUrl: service.url, apiKey })
    const vaultId = (await client.createVault()).id
    const keys = new VaultKeyStore(new MemorySecretStore())
    await keys.create(vaultId)
    const oldKey = (await keys.get(vaultId))!
    const content = Buffer.from('The will, signed and witnessed.\n'.repeat(100))
    const blob = await collectBytes(
      encryptStream([content], {
        vaultKey: oldKey,
        vaultId,
        identity: { path: 'will.txt', size: content.length },
      }),
    )
    const body = buildMultipartBody([['filename', 'will.txt']], {
      fieldName: 'file',
      filename: 'will.txt.c2sp',
      contentType: 'application/octet-stream',
      length: blob.length,
      content: async function* () {
        yield blob
      },
    })
    const uploaded = await client.uploadAsset({
      vaultId,
      body: body.stream,
      contentType: body.contentType,
      contentLength: body.contentLength,
    })

    const userData = await mkdtemp(join(tmpdir(), 'key-rotation-arweave-app-'))
    const queue = await UploadQueue.open({
      userDataDir: userData,
      clientFor: async () => client,
      vaultKeys: keys,
    })
    const rotation = new KeyRotation({
      store: await KeyRotationStore.open(userData),
      vaultKeys: keys,
      client: async () => client,
      activeConnectionId: () => undefined,
      durableKeys: () => true,
      index: () => queue.index,
      remakeKits: async () => 0,
      // The owner has confirmed the new owner kit: the old blobs may go (key-rotation.test.ts holds the wait).
      ownerKitSaved: () => true,
    })
    try {
      const estimate = await rotation.estimate(vaultId)
      expect(estimate.storage).toEqual({ kind: 'arweave', permanent: true })
      expect(estimate.canDelete).toBe(true)
      await rotation.start(vaultId, estimate.credits)
      await rotation.idle(vaultId)
      const status = rotation.status(vaultId)
      expect(status).toMatchObject({ phase: 'done', problem: null, oldCopiesKept: 1 })
      expect(status.storage).toEqual({ kind: 'arweave', permanent: true })

      // The vault lists only the new copy, which opens with the new key alone...
      const [listed, ...more] = await client.listAllAssets(vaultId)
      expect(more).toEqual([])
      expect(listed!.id).not.toBe(uploaded.id)
      const newKey = (await keys.get(vaultId))!
      const fresh = await openVaultBlob(await client.downloadAsset(vaultId, listed!.id), {
        vaultKey: newKey,
        vaultId,
      })
      expect(fresh.kind).toBe('file')
      // ...but the old transaction is still on the network, and the old key still opens it.
      const onNetwork = await network.arweave.transactions.getData(uploaded.storageTxId, { decode: true })
      const old = await openVaultBlob([new Uint8Array(onNetwork as Uint8Array)], {
        vaultKey: oldKey,
        vaultId,
      })
      expect(old.kind === 'file' && old.identity?.path).toBe('will.txt')
    } finally {
      await rotation.close()
      await queue.close()
      await rm(userData, { recursive: true, force: true })
    }
  }, 120_000)
})
