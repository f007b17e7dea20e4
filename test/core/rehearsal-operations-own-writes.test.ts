// A practice release owns what it writes: its material is made at the session's clock (the practice
// letter's date, the practice kits' last day), not the computer's, and its history lines (started,
// passed once) come from the operation, whichever door calls it.
import { describe, expect, it } from 'vitest'
import {
  type RehearsalOperationDeps,
  rehearsalOperations,
} from '../../src/main/core/vaults/rehearsal-operations'
import type { VaultDetails } from '../../src/service-client'
import { EXTENSION_LIMITS, type Guardian, type Rehearsal, type RehearsalRequest } from '../../src/shared/api'
import { decodePracticeShareWords } from '../../src/vault-format'

const DAY_MS = 86_400_000
const vaultId = 'vlt_practice'

const guardian = (id: string): Guardian => ({
  id,
  name: `Guardian ${id}`,
  email: `${id}@example.com`,
  status: 'accepted',
  invitedAt: '2031-01-01T00:00:00.000Z',
})

function practiceService(passed: boolean) {
  const sent: RehearsalRequest[] = []
  const recorded: Parameters<RehearsalOperationDeps['recordActivity']>[0][] = []
  const noted: (Rehearsal | null)[] = []
  const rehearsal = (request?: RehearsalRequest): Rehearsal =>
    ({
      id: 'rh_1',
      vaultId,
      state: passed ? 'passed' : 'running',
      heir: { id: 'heir_1', name: 'Hana', email: 'hana@example.com' },
      sample: { filename: request?.sample.filename ?? 'Practice file', sizeBytes: 1, ownerFile: false },
      guardiansNotified: 3,
      passedAt: passed ? '2031-03-05T00:00:00.000Z' : null,
    }) as Rehearsal
  const vaults: RehearsalOperationDeps['vaults'] = {
    get: async () => ({ id: vaultId, name: 'Family papers', sssPreset: 'standard' }) as VaultDetails,
    listGuardians: async () => [guardian('g1'), guardian('g2'), guardian('g3')],
    startRehearsal: async (_id, request) => {
      sent.push(request)
      return rehearsal(request)
    },
    getRehearsal: async () => rehearsal(),
    endRehearsal: async () => rehearsal(),
  }
  return { vaults, sent, recorded, noted }
}

describe('rehearsal operations own their writes', () => {
  it("makes the practice material at the session's clock and records the start", async () => {
    // A fake clock far from the computer's: the letter's date and the kits' last day must come from it.
    const now = Date.parse('2031-03-04T05:06:07.000Z')
    const service = practiceService(false)
    const ops = rehearsalOperations({
      vaults: service.vaults,
      service: () => ({ extensions: ['rehearsal'] }),
      noteRehearsal: (_id, r) => service.noted.push(r),
      now: () => now,
      recordActivity: (input) => {
        service.recorded.push(input)
        return undefined
      },
    })
    const started = await ops.start(vaultId, 'heir_1', { kind: 'letter' })

    const request = service.sent[0]!
    expect(request.sample.filename).toBe('Practice file - 2031-03-04.txt')
    const lastDay = new Date(now + EXTENSION_LIMITS.rehearsalDays * DAY_MS).toISOString().slice(0, 10)
    for (const kit of request.practiceKits)
      expect(decodePracticeShareWords(kit.words).expiresOn).toBe(lastDay)
    expect(service.noted).toEqual([started])
    expect(service.recorded).toEqual([
      {
        vaultId,
        kind: 'practice-started',
        source: 'window',
        detail: { person: 'Hana', email: 'hana@example.com' },
        ref: 'practice-started:rh_1',
      },
    ])
  })

  it('records a passed practice when it reads one (once per practice, by its ref), and nothing while it runs', async () => {
    for (const passed of [false, true]) {
      const service = practiceService(passed)
      const ops = rehearsalOperations({
        vaults: service.vaults,
        service: () => null,
        noteRehearsal: (_id, r) => service.noted.push(r),
        now: () => 0,
        recordActivity: (input) => {
          service.recorded.push(input)
          return undefined
        },
      })
      await ops.get(vaultId)
      expect(service.recorded).toEqual(
        passed
          ? [
              expect.objectContaining({
                kind: 'practice-passed',
                source: 'service',
                ref: 'practice-passed:rh_1',
              }),
            ]
          : [],
      )
    }
  })

  it('a service without the practice extension is refused before any material is made', async () => {
    const service = practiceService(false)
    const ops = rehearsalOperations({
      vaults: service.vaults,
      service: () => ({ extensions: [] }),
      noteRehearsal: () => {},
      now: () => 0,
      recordActivity: () => undefined,
    })
    await expect(ops.start(vaultId, 'heir_1', { kind: 'letter' })).rejects.toMatchObject({
      code: 'EXTENSION_MISSING',
    })
    expect(await ops.get(vaultId)).toBeNull()
    expect(service.sent).toEqual([])
  })
})
