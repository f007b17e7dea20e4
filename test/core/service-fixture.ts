// A real local Vault Service on a free port in a temporary directory, with one account, its human
// key and an agent key. The clock is movable so tests can jump time (rate-limit windows, deadlines).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type RateLimitSettings, startService } from '../../src/service/index'

export interface ServiceFixture {
  url: string
  dataDir: string
  accountId: string
  humanKey: string
  agentKey: string
  service: Awaited<ReturnType<typeof startService>>
  /** Current service time (ms). */
  now(): number
  advance(ms: number): void
  close(): Promise<void>
}

export async function startServiceFixture(
  options: { rateLimits?: RateLimitSettings } = {},
): Promise<ServiceFixture> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vault-core-svc-'))
  let offset = 0
  const now = () => Date.now() + offset
  const service = await startService({
    dataDir,
    port: 0,
    clock: () => new Date(now()),
    rateLimits: options.rateLimits ?? false,
    tickIntervalMs: 3_600_000,
  })
  const { accountId, apiKey } = await service.admin.createAccount({ email: 'owner@example.com' })
  const { apiKey: agentKey } = await service.admin.createKey({ account: accountId, kind: 'agent' })
  return {
    url: service.url,
    dataDir,
    accountId,
    humanKey: apiKey,
    agentKey,
    service,
    now,
    advance: (ms) => {
      offset += ms
    },
    close: async () => {
      await service.close()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}

export async function tempDir(prefix: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix))
  return { path, remove: () => rm(path, { recursive: true, force: true }) }
}
