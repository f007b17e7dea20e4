// The world every upload-queue test file starts from: a real local service, an API client, and per
// test a fresh user-data folder, a folder for the files, a vault and its key. The bindings below are
// live: importers read the current test's values. Queues opened with openQueue() are closed after
// each test.
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import { MemorySecretStore } from '../../src/main/core/storage/secret-store'
import { VaultKeyStore } from '../../src/main/core/storage/vault-key-store'
import { UploadQueue } from '../../src/main/core/uploads/upload-queue'
import { VaultApiClient } from '../../src/service-client'
import { type ServiceFixture, startServiceFixture, tempDir } from './service-fixture'

export let svc: ServiceFixture
export let client: VaultApiClient
export let userData: string
export let files: string
export let keys: VaultKeyStore
export let vaultId: string
let work: { path: string; remove: () => Promise<void> }
const opened: UploadQueue[] = []

/** Registers the hooks; `credits` are added to the account on top of the trial credits. */
export function startUploadQueueWorld(prefix: string, options: { credits?: number } = {}): void {
  beforeAll(async () => {
    svc = await startServiceFixture()
    if (options.credits)
      await svc.service.admin.addCredits({ account: svc.accountId, credits: options.credits })
    client = new VaultApiClient({ baseUrl: svc.url, apiKey: svc.humanKey })
  })
  afterAll(async () => {
    await svc?.close()
  })
  beforeEach(async () => {
    work = await tempDir(prefix)
    userData = join(work.path, 'user-data')
    files = join(work.path, 'files')
    await mkdir(userData)
    await mkdir(files)
    keys = new VaultKeyStore(new MemorySecretStore())
    vaultId = (await client.createVault()).id
    await keys.create(vaultId)
  })
  afterEach(async () => {
    for (const q of opened.splice(0)) await q.close()
    await work.remove()
  })
}

/** A queue on this test's user-data folder and vault key, closed after the test. */
export async function openQueue(
  extra: Partial<Parameters<typeof UploadQueue.open>[0]> = {},
): Promise<UploadQueue> {
  const queue = await UploadQueue.open({
    userDataDir: userData,
    clientFor: async () => client,
    vaultKeys: keys,
    progressIntervalMs: 0,
    ...extra,
  })
  opened.push(queue)
  return queue
}

/** Closes a queue before the test ends (to open the same folder again, say). */
export async function closeQueue(queue: UploadQueue): Promise<void> {
  await queue.close()
  opened.splice(opened.indexOf(queue), 1)
}
