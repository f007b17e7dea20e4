// The Recovery screen's state: kits typed and checked, the vault a kit names, what the kits add up to.
import { describe, expect, it } from 'vitest'
import {
  initialRecovery,
  kitsInHand,
  type RecoveryState,
  recoveryReducer,
} from '../../src/renderer/screens/recovery/recovery-state'
import type { ShareCheck } from '../../src/shared/ipc/vault-types'

const kit = (splitId: string, extra: Partial<ShareCheck> = {}): ShareCheck =>
  ({
    ok: true,
    message: 'read',
    threshold: 2,
    shares: 3,
    shareIndex: 1,
    vaultFingerprint: 'aaaa',
    splitId,
    vaultId: 'vault-1',
    ...extra,
  }) as ShareCheck

function withKits(checks: ShareCheck[]): RecoveryState {
  let state = initialRecovery()
  checks.forEach((check, i) => {
    if (i > 0) state = recoveryReducer(state, { type: 'add-share' })
    const id = state.shares[i]!.id
    state = recoveryReducer(state, { type: 'share', id, patch: { text: `words ${i}` } })
    state = recoveryReducer(state, { type: 'share-checked', id, check })
  })
  return state
}

describe('recovery state', () => {
  it('a checked kit fills in the vault it names, unless one was typed', () => {
    expect(withKits([kit('s1')]).vaultId).toBe('vault-1')
    let typed = recoveryReducer(initialRecovery(), { type: 'field', field: 'vaultId', value: 'mine' })
    const id = typed.shares[0]!.id
    typed = recoveryReducer(typed, { type: 'share-checked', id, check: kit('s1') })
    expect(typed.vaultId).toBe('mine')
  })

  it('retyping a kit forgets its check; removing one keeps the others', () => {
    let state = withKits([kit('s1'), kit('s1')])
    const [first, second] = state.shares
    state = recoveryReducer(state, { type: 'share', id: first!.id, patch: { text: 'x', check: undefined } })
    expect(state.shares[0]!.check).toBeUndefined()
    expect(state.shares[1]!.check?.ok).toBe(true)
    state = recoveryReducer(state, { type: 'remove-share', id: first!.id })
    expect(state.shares.map((s) => s.id)).toEqual([second!.id])
  })

  it('enough kits of one set open the vault; kits of two vaults never do', () => {
    expect(kitsInHand(withKits([kit('s1')]).shares, 'service').enough).toBe(false)
    expect(kitsInHand(withKits([kit('s1'), kit('s1')]).shares, 'service').enough).toBe(true)
    const sets = kitsInHand(withKits([kit('s1'), kit('s2'), kit('s2')]).shares, 'files')
    expect([sets.mixedSets, sets.enough]).toEqual([true, true])
    const vaults = kitsInHand(withKits([kit('s1'), kit('s1', { vaultFingerprint: 'bbbb' })]).shares, 'files')
    expect([vaults.mixedVaults, vaults.enough]).toEqual([true, false])
  })

  it('a practice kit makes a service run a practice, not a run from files', () => {
    const shares = withKits([kit('s1', { practiceUntil: '2026-12-01T00:00:00Z' })]).shares
    expect(kitsInHand(shares, 'service').practice).toBe(true)
    expect(kitsInHand(shares, 'files').practice).toBe(false)
  })

  it('a new run forgets the last outcome; the pickers fill their field', () => {
    let state = recoveryReducer(initialRecovery(), {
      type: 'recovered',
      report: { results: [], outputDir: '/out' } as never,
      at: 1,
    })
    state = recoveryReducer(state, { type: 'recovery-started' })
    expect([state.report, state.finishedAt]).toEqual([undefined, undefined])
    state = recoveryReducer(state, { type: 'picked', kind: 'files', paths: ['/a.vault', '/b.vault'] })
    state = recoveryReducer(state, { type: 'picked', kind: 'output-folder', paths: ['/out'] })
    expect([state.inputs, state.outputDir]).toEqual(['/a.vault\n/b.vault', '/out'])
  })
})
