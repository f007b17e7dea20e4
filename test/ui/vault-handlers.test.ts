// The vault channels end to end through the real handler table, against the real local service.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { createVaultApp, type VaultApp } from '../../src/main/core/vault-app'
import { type RunningService, startService } from '../../src/service'
import { invokeChannels } from '../../src/shared/ipc/contract'
import type { IpcResponse } from '../../src/shared/ipc/contract-kit'
import { encodeOwnerKitWords, generateVaultKey } from '../../src/vault-format'

let service: RunningService
let backend: VaultApp
let dirs: string[] = []
let account: { accountId: string; apiKey: string }
let vaultId: string

async function call<T = unknown>(key: keyof typeof invokeChannels, args?: unknown): Promise<IpcResponse<T>> {
  return (await dispatch(backend.handlers, invokeChannels[key].name, args)) as IpcResponse<T>
}
async function ok<T = unknown>(key: keyof typeof invokeChannels, args?: unknown): Promise<T> {
  const response = await call<T>(key, args)
  if (!response.ok) throw new Error(`${key} failed: ${response.error.code} ${response.error.message}`)
  return response.value
}

beforeAll(async () => {
  const serviceDir = await mkdtemp(join(tmpdir(), 'vault-ui-service-'))
  const userDataDir = await mkdtemp(join(tmpdir(), 'vault-ui-app-'))
  dirs = [serviceDir, userDataDir]
  service = await startService({ dataDir: serviceDir, port: 0 })
  account = await service.admin.createAccount({ email: 'handlers@example.com' })
  vaultId = (await service.admin.createVault({ account: account.accountId, preset: 'standard' })).vaultId
  backend = createVaultApp({ userDataDir, mode: 'browser', version: '0.0.0-test', useKeychain: false })
})

afterAll(async () => {
  await backend?.close()
  await service?.close()
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

describe('vault handlers against the local service', () => {
  it('refuses a malformed key before storing anything, then connects with a good one', async () => {
    const bad = await call('connectService', { serviceUrl: service.url, apiKey: 'hello' })
    expect(bad.ok).toBe(false)
    if (!bad.ok) expect(bad.error.message).toContain('sk_human_')
    const connection = await ok<{ keyKind: string; keyLast4: string }>('connectService', {
      serviceUrl: service.url,
      apiKey: account.apiKey,
    })
    expect(connection).toMatchObject({ keyKind: 'human', keyLast4: account.apiKey.slice(-4) })
    expect(JSON.stringify(connection)).not.toContain(account.apiKey)
    const snapshot = await ok<{ vaults: Array<{ id: string; creditsBalance: number }> }>('getVaults')
    expect(snapshot.vaults).toEqual([expect.objectContaining({ id: vaultId, creditsBalance: 100 })])
  })

  it('configures the release, checks in, and reports the deadline', async () => {
    const config = await ok<{ trigger: string; checkInFrequency: string }>('configureRelease', {
      vaultId,
      trigger: 'dead_man_switch',
      checkInFrequency: 'monthly',
    })
    expect(config).toMatchObject({ trigger: 'dead_man_switch', checkInFrequency: 'monthly' })
    const result = await ok<{ daysRemaining: number }>('checkIn', { vaultId, note: 'fine' })
    expect(result.daysRemaining).toBe(30)
    const vault = (
      await ok<{ vaults: Array<{ lastCheckIn: { note: string }; creditsBalance: number }> }>('getVaults')
    ).vaults[0]!
    expect(vault.lastCheckIn.note).toBe('fine')
    expect(vault.creditsBalance).toBe(98)
  })

  it('adds guardians without a vault key on this device and says why there are no kits', async () => {
    const change = await ok<{ kitProblem: string | null; kits: unknown[] }>('addGuardian', {
      vaultId,
      person: { name: 'Ann', email: 'ann@example.com' },
    })
    expect(change.kits).toEqual([])
    expect(change.kitProblem).toContain('does not hold the vault key')
    const list = await ok<{ items: Array<{ name: string }>; fromService: boolean }>('listGuardians', {
      vaultId,
    })
    expect(list).toMatchObject({ fromService: true, items: [expect.objectContaining({ name: 'Ann' })] })
  })

  it('imports the vault key from an owner kit, refusing a kit of another vault', async () => {
    const words = encodeOwnerKitWords({ vaultKey: generateVaultKey(), vaultId })
    const other = encodeOwnerKitWords({ vaultKey: generateVaultKey(), vaultId: 'vlt_other' })
    const wrong = await call('importOwnerKit', { vaultId, words: other })
    expect(wrong).toMatchObject({ ok: false })
    if (!wrong.ok) expect(wrong.error.message).toContain('belongs to vault vlt_other')
    const view = await ok<{ keyOnDevice: boolean }>('importOwnerKit', { vaultId, words })
    expect(view.keyOnDevice).toBe(true)
    const gate = await ok<{ typeThis: string }>('getOwnerKitGate', { vaultId })
    await ok('openOwnerKitGate', { vaultId, typed: ` ${gate.typeThis.toUpperCase()} ` })
    const kit = await ok<{ html: string; fingerprint: string }>('getOwnerKit', { vaultId })
    expect(kit.html).toContain(kit.fingerprint)
    // With the key here, adding a guardian now makes kits.
    const change = await ok<{ kits: unknown[]; kitProblem: string | null }>('addGuardian', {
      vaultId,
      person: { name: 'Cy', email: 'cy@example.com' },
    })
    expect(change).toMatchObject({ kitProblem: null })
    expect(change.kits).toHaveLength(2)
  })

  it('turns service errors into sentences: duplicate heir (409), invalid person (argument check)', async () => {
    await ok('addHeir', { vaultId, person: { name: 'Kim', email: 'kim@example.com' } })
    const dup = await call('addHeir', { vaultId, person: { name: 'Kim again', email: 'kim@example.com' } })
    expect(dup).toMatchObject({ ok: false, error: { code: 'CONFLICT', status: 409 } })
    if (!dup.ok) expect(dup.error.message).toContain('already on this vault')
    const invalid = await call('addHeir', { vaultId, person: { name: '', email: 'nope' } })
    expect(invalid).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } })
  })

  it('cancels a release the service started', async () => {
    await service.admin.startRelease({ vault: vaultId })
    const releasing = await ok<{ state: string }>('refreshVault', { vaultId })
    expect(releasing.state).toBe('releasing')
    const cancelled = await ok<{ vaultState: string }>('cancelRelease', { vaultId })
    expect(cancelled.vaultState).toBe('active')
    expect((await ok<{ vaults: Array<{ state: string }> }>('getVaults')).vaults[0]!.state).toBe('active')
  })

  it('a revoked key shows up as UNAUTHORIZED on the vault list', async () => {
    const agent = await service.admin.createKey({ account: account.accountId, kind: 'agent' })
    const connection = await ok<{ keyKind: string }>('connectService', {
      serviceUrl: service.url,
      apiKey: agent.apiKey,
    })
    expect(connection.keyKind).toBe('agent')
    const denied = await call('addHeir', { vaultId, person: { name: 'Lee', email: 'lee@example.com' } })
    expect(denied).toMatchObject({ ok: false, error: { code: 'FORBIDDEN', status: 403 } })
    await service.admin.revokeKey({ key: agent.apiKey })
    const snapshot = await ok<{ error: { code: string; message: string } | null }>('refreshVaults')
    expect(snapshot.error).toMatchObject({ code: 'UNAUTHORIZED' })
  })
})
