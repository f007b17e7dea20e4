// The trial on this computer owns its writes: credits added through the operation (no IPC handler in
// between) leave a 'credits-added' line on every vault of the account, after the vaults are read
// again; starting the trial on an empty account makes the first vault, with its key, in one call.
import { describe, expect, it } from 'vitest'
import type { ConnectionSummary } from '../../src/main/core/connections'
import { type LocalTrialDeps, localTrialOperations } from '../../src/main/core/vaults/local-trial-operations'
import type { VaultsSnapshot, VaultView } from '../../src/shared/ipc/vault-types'

const local: ConnectionSummary = {
  id: 'c_local',
  label: 'This computer',
  serviceUrl: 'http://127.0.0.1:1',
} as ConnectionSummary

function trial(connections: ConnectionSummary[], vaultIds: string[]) {
  const steps: string[] = []
  const recorded: Parameters<LocalTrialDeps['recordActivity']>[0][] = []
  const deps: LocalTrialDeps = {
    connections: {
      list: () => connections,
      active: () => connections[0],
      add: async (request) => {
        steps.push(`add ${request.label}`)
        connections.push({ ...local, serviceUrl: request.serviceUrl })
        return local
      },
      switchTo: async (id) => {
        steps.push(`switch ${id}`)
        return local
      },
    },
    localService: {
      isLocal: (url) => url === local.serviceUrl,
      start: async () => {
        steps.push('start')
        return { url: local.serviceUrl }
      },
      createAccount: async () => ({ apiKey: 'sk_human_x', serviceUrl: local.serviceUrl }),
      addCredits: async (credits) => 100 + credits,
    },
    vaults: {
      list: async () => vaultIds.map((id) => ({ id }) as never),
      create: async (options) => {
        steps.push(`create ${options?.preset}`)
        return { id: 'vlt_new' } as never
      },
    },
    facts: { service: null },
    connection: () => local,
    connectionInfo: (summary) => ({ id: summary.id }) as never,
    viewOf: async (vault) => ({ id: vault.id }) as VaultView,
    vaultsRead: async () => {
      steps.push('read')
    },
    snapshot: () => ({ vaults: vaultIds.map((id) => ({ id })) }) as VaultsSnapshot,
    recordActivity: (input) => {
      steps.push(`record ${input.vaultId}`)
      recorded.push(input)
      return undefined
    },
  }
  return { ops: localTrialOperations(deps), steps, recorded }
}

describe('local trial operations own their writes', () => {
  it('credits added are recorded on every vault of the account, once the vaults are read again', async () => {
    const { ops, steps, recorded } = trial([local], ['vlt_a', 'vlt_b'])
    expect(await ops.addCredits(50)).toEqual({ creditsBalance: 150 })
    expect(steps).toEqual(['read', 'record vlt_a', 'record vlt_b'])
    expect(recorded).toEqual([
      { vaultId: 'vlt_a', kind: 'credits-added', source: 'window', detail: { credits: 50 } },
      { vaultId: 'vlt_b', kind: 'credits-added', source: 'window', detail: { credits: 50 } },
    ])
  })

  it('credits for another service are refused, nothing recorded', async () => {
    const { ops, recorded } = trial([{ ...local, serviceUrl: 'https://elsewhere.example' }], ['vlt_a'])
    await expect(ops.addCredits(50)).rejects.toMatchObject({ code: 'NOT_LOCAL' })
    expect(recorded).toEqual([])
  })

  it('starting the trial makes the account, its connection and the first vault in one call', async () => {
    const fresh = trial([], [])
    expect(await fresh.ops.start('me@example.com')).toEqual({
      connection: { id: 'c_local' },
      vault: { id: 'vlt_new' },
    })
    expect(fresh.steps).toEqual(['add This computer', 'create standard'])
    const again = trial([local], ['vlt_a'])
    expect(await again.ops.start('me@example.com')).toMatchObject({ vault: { id: 'vlt_a' } })
    expect(again.steps).toEqual(['start', 'switch c_local'])
  })
})
