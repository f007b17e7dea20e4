// The window's Refresh (and its return after a while, refresh-on-return.test.ts) reads the readiness
// facts again at once: polling reads them only hourly (readiness-facts.ts), so this is how an owner
// looking at the window sees a guardian's answer without waiting.
import { describe, expect, it } from 'vitest'
import { createVaultHandlers } from '../../src/main/core/ipc/vault-handlers'
import type { VaultSession } from '../../src/main/core/vault-session'

describe('refreshVaults', () => {
  it('polls the list, then reads every vault’s facts forced, after the list', async () => {
    const calls: string[] = []
    const session = {
      watcher: { pollNow: async () => void calls.push('list') },
      facts: {
        refreshService: async () => void calls.push('service'),
        refresh: async (vaultId: string, force?: boolean) =>
          void calls.push(`facts ${vaultId} ${force ?? true}`),
      },
      snapshot: () => ({ vaults: [{ id: 'v1' }, { id: 'v2' }] }),
    } as unknown as VaultSession
    const handlers = createVaultHandlers(async () => session)
    await handlers.refreshVaults(undefined as never)
    expect(calls.slice(0, 2).sort()).toEqual(['list', 'service'])
    expect(calls.slice(2)).toEqual(['facts v1 true', 'facts v2 true'])
  })
})
