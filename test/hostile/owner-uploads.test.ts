// The owner's uploads (the app's upload queue and its client) against a lying Vault Service: each
// lie fails the upload with a message that names it instead of marking the file done, the owner's
// files are never changed, nothing is written outside the app's data folder, and the owner's key goes
// to the configured address only.

import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src/main/core/storage/secret-store'
import { VaultKeyStore } from '../../src/main/core/storage/vault-key-store'
import { UploadQueue } from '../../src/main/core/uploads/upload-queue'
import { VaultApiClient } from '../../src/service-client'
import { type FakeServiceOptions, json, newVault, startFakeService, vaultOf } from './fake-vault-service'
import {
  contained,
  expectNeverSent,
  makeWorld,
  type RecordingListener,
  startElsewhere,
  type World,
} from './hostile-world'
import { drip, hugeJson, redirect } from './lies'

const cleanup: (World | RecordingListener | UploadQueue)[] = []
afterEach(async () => {
  for (const item of cleanup.splice(0)) {
    if (item instanceof UploadQueue) await item.close()
    else await ('remove' in item ? item.remove() : item.stop())
  }
})

const isUpload = (request: { method?: string }, url: URL, vaultId: string) =>
  request.method === 'POST' && url.pathname === `/api/vault/${vaultId}/asset`

/** The answer a genuine service gives an upload, with `change` applied. */
function uploadAnswer(change: Record<string, unknown>) {
  return {
    data: {
      id: 'ast_honest000000000000',
      filename: 'upload',
      contentType: 'application/octet-stream',
      sizeBytes: 1000,
      category: 'document',
      storageTxId: 'local:ast_honest000000000000',
      createdAt: new Date().toISOString(),
      creditsConsumed: 1,
      ...change,
    },
  }
}

/** Uploads one owner's file through a lying service; returns the failed item's message. */
async function uploadThrough(
  lie: (app: { vaultId: string; elsewhere: string }) => FakeServiceOptions['lie'],
) {
  const vault = newVault()
  const world = await makeWorld()
  const elsewhere = await startElsewhere()
  const file = join(world.root, 'home', 'will.txt')
  await writeFile(file, 'my will, to upload\n')
  const service = await startFakeService({
    key: vault.ownerKey,
    vaultId: vault.vaultId,
    lie: lie({ vaultId: vault.vaultId, elsewhere: elsewhere.origin }),
  })
  cleanup.push(world, elsewhere, service)
  const client = new VaultApiClient({
    baseUrl: service.origin,
    apiKey: vault.ownerKey,
    prefix: '/api',
    timeoutMs: 400,
    maxRetries: 0,
    maxResponseBytes: 1024 * 1024,
  })
  const keys = new VaultKeyStore(new MemorySecretStore())
  await keys.create(vault.vaultId)
  const { result: item } = await contained(world, async () => {
    const queue = await UploadQueue.open({
      userDataDir: world.outDir,
      clientFor: async () => client,
      vaultKeys: keys,
      progressIntervalMs: 0,
    })
    cleanup.push(queue)
    await queue.enqueue({ vaultId: vault.vaultId, paths: [file] })
    await queue.idle()
    return queue.list()[0]!
  })
  expect(elsewhere.requests).toEqual([])
  expectNeverSent(vault.ownerKey, elsewhere)
  expect(item.state).toBe('failed')
  return { message: item.error?.message ?? '', elsewhere: elsewhere.origin, vaultId: vault.vaultId }
}

describe('uploads against a lying service', () => {
  it('redirect to another host: the upload is not sent there, the key never leaves', async () => {
    const { message, elsewhere } = await uploadThrough(
      ({ vaultId, elsewhere }) =>
        (request, response, url) =>
          isUpload(request, url, vaultId)
            ? redirect(response, `${elsewhere}/api/vault/${vaultId}/asset`, 307)
            : false,
    )
    expect(message).toContain(`redirected this request to ${elsewhere}`)
  })

  it('redirect to file://: refused and named', async () => {
    const { message } = await uploadThrough(
      ({ vaultId }) =>
        (request, response, url) =>
          isUpload(request, url, vaultId) ? redirect(response, 'file:///home/owner/.ssh/id_rsa', 308) : false,
    )
    expect(message).toContain('file://')
  })

  it('traversal id: an upload answered with asset "../../x" is refused, not recorded', async () => {
    const { message } = await uploadThrough(({ vaultId }) => (request, response, url) => {
      if (!isUpload(request, url, vaultId)) return false
      request.resume()
      json(response, 201, uploadAnswer({ id: '../../x' }))
      return true
    })
    expect(message).toContain('asset id "../../x" that is not an id')
  })

  it('wrong charge: an answer that charged -1,000,000 credits (a balance that grows) is refused', async () => {
    const { message } = await uploadThrough(({ vaultId }) => (request, response, url) => {
      if (!isUpload(request, url, vaultId)) return false
      request.resume()
      json(response, 201, uploadAnswer({ creditsConsumed: -1_000_000 }))
      return true
    })
    expect(message).toContain('a charge of "-1000000" credits')
  })

  it('oversized answer: a 20 MB answer to an upload is cut off at the client limit', async () => {
    const { message } = await uploadThrough(({ vaultId }) => (request, response, url) => {
      if (!isUpload(request, url, vaultId)) return false
      request.resume()
      return hugeJson(response, 20 * 1024 * 1024)
    })
    expect(message).toContain(`larger than ${1024 * 1024} bytes`)
  })

  it('slow drip: an upload answer that arrives a byte at a time is cut off in time', async () => {
    const started = Date.now()
    const { message } = await uploadThrough(({ vaultId }) => (request, response, url) => {
      if (!isUpload(request, url, vaultId)) return false
      request.resume()
      return drip(response, JSON.stringify(uploadAnswer({})), 25)
    })
    expect(message).toContain('still arriving after 0.4 s')
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('200 with an error body: an upload "accepted" with an error inside is not taken as done', async () => {
    const { message } = await uploadThrough(({ vaultId }) => (request, response, url) => {
      if (!isUpload(request, url, vaultId)) return false
      request.resume()
      json(response, 200, { error: { code: 'INTERNAL_ERROR', message: 'disk full' } })
      return true
    })
    expect(message).toContain('does not understand')
  })

  it('wrong vault id: the balance read before an upload answered with another vault is refused', async () => {
    const other = newVault().vaultId
    const { message } = await uploadThrough(({ vaultId }) => (request, response, url) => {
      if (request.method !== 'GET' || url.pathname !== `/api/vault/${vaultId}`) return false
      json(response, 200, {
        data: vaultOf({ key: '', vaultId: other, vault: { creditsBalance: 1_000_000 } }),
      })
      return true
    })
    expect(message).toContain(`vault "${other}" when vault`)
  })
})
