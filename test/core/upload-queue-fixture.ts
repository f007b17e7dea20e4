// The world every upload-queue test file starts from, as a vitest fixture each test asks for by name
// (`async ({ world }) => …`): a real local service and an API client shared by the file's tests, and
// per test a fresh user-data folder, a folder for the files, a vault and its key. Nothing lives in a
// module-level binding, so any test runs alone. Queues opened with world.openQueue() are closed after
// the test.
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'vitest'
import { MemorySecretStore } from '../../src/main/core/storage/secret-store'
import { VaultKeyStore } from '../../src/main/core/storage/vault-key-store'
import { UploadQueue } from '../../src/main/core/uploads/upload-queue'
import { VaultApiClient } from '../../src/service-client'
import { type ServiceFixture, startServiceFixture, tempDir } from './service-fixture'

type QueueOptions = Parameters<typeof UploadQueue.open>[0]

export interface UploadQueueWorld {
  svc: ServiceFixture
  client: VaultApiClient
  /** This test's user-data folder (the queue's database lives there). */
  userData: string
  /** An empty folder for this test's files. */
  files: string
  keys: VaultKeyStore
  /** A vault made for this test, with its key in `keys`. */
  vaultId: string
  /** A queue on this test's user-data folder and vault key, closed after the test. */
  openQueue(extra?: Partial<QueueOptions>): Promise<UploadQueue>
  /** Closes a queue before the test ends (to open the same folder again, say). */
  closeQueue(queue: UploadQueue): Promise<void>
}

interface FileService {
  svc: ServiceFixture
  client: VaultApiClient
}

/** The file's `it`; `credits` are added to the account on top of the trial credits. */
export function uploadQueueTest(prefix: string, options: { credits?: number } = {}) {
  return test.extend<{ service: FileService; world: UploadQueueWorld }>({
    service: [
      // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's needs from this pattern
      async ({}, use) => {
        const svc = await startServiceFixture()
        try {
          if (options.credits)
            await svc.service.admin.addCredits({ account: svc.accountId, credits: options.credits })
          await use({ svc, client: new VaultApiClient({ baseUrl: svc.url, apiKey: svc.humanKey }) })
        } finally {
          await svc.close()
        }
      },
      { scope: 'file' },
    ],
    world: async ({ service }, use) => {
      const { svc, client } = service
      const work = await tempDir(prefix)
      const opened: UploadQueue[] = []
      try {
        const userData = join(work.path, 'user-data')
        const files = join(work.path, 'files')
        await mkdir(userData)
        await mkdir(files)
        const keys = new VaultKeyStore(new MemorySecretStore())
        const vaultId = (await client.createVault()).id
        await keys.create(vaultId)
        await use({
          svc,
          client,
          userData,
          files,
          keys,
          vaultId,
          openQueue: async (extra = {}) => {
            const queue = await UploadQueue.open({
              userDataDir: userData,
              clientFor: async () => client,
              vaultKeys: keys,
              progressIntervalMs: 0,
              ...extra,
            })
            opened.push(queue)
            return queue
          },
          closeQueue: async (queue) => {
            await queue.close()
            opened.splice(opened.indexOf(queue), 1)
          },
        })
      } finally {
        for (const q of opened.splice(0)) await q.close()
        await work.remove()
      }
    },
  })
}
