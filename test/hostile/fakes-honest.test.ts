// The fakes tell the truth until told to lie: the same recovery and client calls the hostile cases
// attack succeed against them, so a hostile case fails for its lie and not for a broken fake.
import { afterEach, describe, expect, it } from 'vitest'
import { recoverFromArweave } from '../../src/recovery/arweave-recovery'
import { recoverFromService } from '../../src/recovery/heir-recovery'
import { VaultApiClient } from '../../src/service-client'
import { startFakeGateway, txId, wallet } from './fake-arweave-gateway'
import { assetId, fileBlob, newVault, startFakeService } from './fake-vault-service'
import { contained, makeWorld, type RecordingListener, type World } from './hostile-world'

const cleanup: (World | RecordingListener)[] = []
afterEach(async () => {
  for (const item of cleanup.splice(0)) await ('remove' in item ? item.remove() : item.stop())
})

describe('the fakes, honest', () => {
  it('serve an heir recovery: every file recovered, nothing outside the output folder', async () => {
    const vault = newVault()
    const world = await makeWorld()
    const service = await startFakeService({
      key: vault.heirCode,
      vaultId: vault.vaultId,
      assets: [
        {
          id: assetId(),
          filename: 'will.txt',
          blob: await fileBlob(vault, 'letters/will.txt', 'the will'),
          createdAt: new Date().toISOString(),
        },
      ],
    })
    cleanup.push(world, service)
    const { result, appeared } = await contained(world, () =>
      recoverFromService({
        serviceUrl: service.origin,
        accessToken: vault.heirCode,
        vaultId: vault.vaultId,
        vaultKey: vault.vaultKey,
        outDir: world.outDir,
        timeoutMs: 2000,
        maxRetries: 0,
      }),
    )
    expect(result.stopped).toBeUndefined()
    expect(result.results.map((r) => [r.name, r.status])).toEqual([['letters/will.txt', 'recovered']])
    expect(appeared).toContain('letters/will.txt')
  })

  it('serve an Arweave recovery', async () => {
    const vault = newVault()
    const world = await makeWorld()
    const gateway = await startFakeGateway({
      vaultId: vault.vaultId,
      txs: [{ id: txId(), owner: wallet(), data: await fileBlob(vault, 'will.txt', 'the will') }],
    })
    cleanup.push(world, gateway)
    const { result, appeared } = await contained(world, () =>
      recoverFromArweave({
        gateway: gateway.origin,
        vaultId: vault.vaultId,
        vaultKey: vault.vaultKey,
        outDir: world.outDir,
        timeoutMs: 2000,
      }),
    )
    expect(result.stopped).toBeUndefined()
    expect(result.results.map((r) => r.status)).toEqual(['recovered'])
    expect(appeared).toContain('will.txt')
  })

  it('serve the owner client: vault list, detail, upload', async () => {
    const vault = newVault()
    const service = await startFakeService({ key: vault.ownerKey, vaultId: vault.vaultId })
    cleanup.push(service)
    const client = new VaultApiClient({
      baseUrl: service.origin,
      apiKey: vault.ownerKey,
      timeoutMs: 2000,
      maxRetries: 0,
    })
    expect((await client.listVaults()).map((v) => v.id)).toEqual([vault.vaultId])
    expect((await client.getVault(vault.vaultId)).id).toBe(vault.vaultId)
  })
})
