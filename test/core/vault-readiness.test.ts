// Readiness, item by item: each condition for a release that really reaches the heirs, met or unmet,
// with the one fix the window offers; then the whole list's count and summary.
import { describe, expect, it } from 'vitest'
import { type ReadinessInput, vaultReadiness } from '../../src/main/core/vaults/vault-readiness'
import type { GuardianKitCheck, Rehearsal } from '../../src/shared/api'
import type { ReadinessItemId, ServiceSummary } from '../../src/shared/ipc/vault-types'

const PUBLIC: ServiceSummary = {
  trial: false,
  publicUrl: 'https://vault.example.com',
  reachableByOthers: true,
  mailConfigured: true,
  lastMailTest: { to: 'me@example.com', at: '2026-01-01T00:00:00.000Z', delivered: true, error: null },
  extensions: ['rehearsal', 'vault-name'],
  credits: { addHere: false, buyAt: 'https://vault.example.com/credits' },
  storage: { kind: 'folder', permanent: false },
}

const SPLIT_AT = '2026-03-01T00:00:00.000Z'

function rehearsal(over: Partial<Rehearsal> = {}): Rehearsal {
  return {
    id: 'rhs_1',
    vaultId: 'vlt_1',
    state: 'passed',
    heir: { id: 'hr_1', name: 'Hana', email: 'hana@example.com' },
    sample: { filename: 'Practice file - 2026-03-01.txt', sizeBytes: 700, ownerFile: false },
    guardiansNotified: 2,
    startedAt: '2026-03-02T00:00:00.000Z',
    expiresAt: '2026-03-09T00:00:00.000Z',
    openedAt: '2026-03-02T01:00:00.000Z',
    downloadedAt: '2026-03-02T01:00:00.000Z',
    passedAt: '2026-03-02T02:00:00.000Z',
    failedReports: 0,
    ...over,
  }
}

/** Everything met: a vault that is ready. */
function ready(): ReadinessInput {
  return {
    vault: {
      releaseTrigger: 'dead_man_switch',
      checkInFrequency: 'monthly',
      sssPreset: 'standard',
      creditsBalance: 500,
      heirCount: 1,
      guardianCount: 3,
    },
    service: PUBLIC,
    guardians: { accepted: 3, pending: 0, declined: 0 },
    kits: { total: 3, handedOver: 3, splitCreatedAt: SPLIT_AT },
    kitChecks: null,
    keyOnDevice: true,
    keyDurable: true,
    ownerKitConfirmed: true,
    rehearsal: rehearsal(),
  }
}

type InputPatch = Omit<Partial<ReadinessInput>, 'vault'> & { vault?: Partial<ReadinessInput['vault']> }

function input(patch: InputPatch = {}): ReadinessInput {
  const base = ready()
  return { ...base, ...patch, vault: { ...base.vault, ...patch.vault } }
}

function item(patch: InputPatch, id: ReadinessItemId) {
  const found = vaultReadiness(input(patch)).items.find((i) => i.id === id)
  if (!found) throw new Error(`no item ${id}`)
  return found
}

describe('every item met', () => {
  it('is "Ready" with all ten items in order', () => {
    const r = vaultReadiness(ready())
    expect(r).toMatchObject({ ready: true, stepsLeft: 0, summary: 'Ready' })
    expect(r.items.map((i) => i.id)).toEqual([
      'reachable',
      'mail',
      'trigger',
      'guardians',
      'kits',
      'owner-kit',
      'heir',
      'runway',
      'key-storage',
      'rehearsal',
    ])
    for (const i of r.items) {
      expect(i.met).toBe(true)
      expect(i.fix).toBeNull()
    }
  })
})

describe('reachable and mail', () => {
  const trial: ServiceSummary = {
    ...PUBLIC,
    trial: true,
    publicUrl: 'http://127.0.0.1:4100',
    reachableByOthers: false,
    mailConfigured: false,
    lastMailTest: null,
    credits: { addHere: true, buyAt: null },
  }

  it('a trial (local) service meets neither, both fixed by connecting to an always-on service', () => {
    for (const id of ['reachable', 'mail'] as const) {
      const i = item({ service: trial }, id)
      expect(i.met).toBe(false)
      expect(i.fix?.action).toEqual({ kind: 'open-settings' })
    }
    expect(item({ service: trial }, 'reachable').detail).toMatch(/trial/)
    expect(item({ service: trial }, 'mail').detail).toMatch(/No e-mail leaves this computer/)
  })

  it('a public URL on loopback or a private network is not reachable', () => {
    for (const publicUrl of ['http://127.0.0.1:8080', 'http://192.168.1.20:8080']) {
      const i = item({ service: { ...PUBLIC, publicUrl, reachableByOthers: false } }, 'reachable')
      expect(i.met).toBe(false)
      expect(i.detail).toContain(publicUrl)
      expect(i.fix?.action).toEqual({ kind: 'open-settings' })
    }
    const ok = item({}, 'reachable')
    expect(ok.met).toBe(true)
    expect(ok.detail).toContain('https://vault.example.com')
  })

  it('without service info yet, both wait with no fix', () => {
    for (const id of ['reachable', 'mail'] as const) {
      expect(item({ service: null }, id)).toMatchObject({ met: false, fix: null })
    }
  })

  it('a remote service that does not report mail is taken at its word', () => {
    const i = item({ service: { ...PUBLIC, mailConfigured: null, lastMailTest: null } }, 'mail')
    expect(i.met).toBe(true)
    expect(i.detail).toMatch(/taken at its word/)
  })

  it('mail not configured: unmet, nothing the owner can click', () => {
    const i = item({ service: { ...PUBLIC, mailConfigured: false, lastMailTest: null } }, 'mail')
    expect(i).toMatchObject({ met: false, fix: null })
    expect(i.detail).toMatch(/--smtp/)
  })

  it('configured but untested: unmet with a send-test-mail fix', () => {
    const i = item({ service: { ...PUBLIC, lastMailTest: null } }, 'mail')
    expect(i.met).toBe(false)
    expect(i.fix?.action).toEqual({ kind: 'send-test-mail' })
    expect(i.detail).toMatch(/send a test message/)
  })

  it('a failed test is unmet, names the address and the reason, and offers another test', () => {
    const i = item(
      {
        service: {
          ...PUBLIC,
          lastMailTest: {
            to: 'me@example.com',
            at: '2026-01-01T00:00:00.000Z',
            delivered: false,
            error: '550 mailbox unavailable',
          },
        },
      },
      'mail',
    )
    expect(i.met).toBe(false)
    expect(i.detail).toContain('me@example.com')
    expect(i.detail).toContain('550 mailbox unavailable')
    expect(i.fix?.action).toEqual({ kind: 'send-test-mail' })
  })

  it('a delivered test meets it', () => {
    expect(item({}, 'mail')).toMatchObject({ met: true, fix: null })
  })
})

describe('trigger', () => {
  it('no trigger: unmet, fix opens the release tab', () => {
    const i = item({ vault: { releaseTrigger: null, checkInFrequency: null } }, 'trigger')
    expect(i.met).toBe(false)
    expect(i.fix?.action).toEqual({ kind: 'open-tab', tab: 'release' })
  })
})

describe('guardians', () => {
  it('standard needs 2 accepted: 1 is unmet (with the pending count), 2 is met', () => {
    const one = item({ guardians: { accepted: 1, pending: 2, declined: 0 } }, 'guardians')
    expect(one.met).toBe(false)
    expect(one.title).toBe('At least 2 guardians accepted')
    expect(one.detail).toBe('1 of the 2 needed have accepted; 2 not answered yet.')
    expect(one.fix?.action).toEqual({ kind: 'open-tab', tab: 'guardians' })
    expect(item({ guardians: { accepted: 2, pending: 1, declined: 0 } }, 'guardians').met).toBe(true)
  })

  it('enhanced needs 3 accepted: 2 is unmet, 3 is met', () => {
    const vault = { sssPreset: 'enhanced' as const, guardianCount: 5 }
    const kits = { total: 5, handedOver: 5, splitCreatedAt: SPLIT_AT }
    const two = item({ vault, kits, guardians: { accepted: 2, pending: 0, declined: 3 } }, 'guardians')
    expect(two.met).toBe(false)
    expect(two.title).toBe('At least 3 guardians accepted')
    expect(two.detail).not.toMatch(/not answered/)
    expect(item({ vault, kits, guardians: { accepted: 3, pending: 0, declined: 2 } }, 'guardians').met).toBe(
      true,
    )
  })

  it('answers unknown (null) is unmet: the app cannot confirm them', () => {
    const i = item({ guardians: null }, 'guardians')
    expect(i.met).toBe(false)
    expect(i.detail).toMatch(/does not report/)
    expect(i.fix?.action).toEqual({ kind: 'open-tab', tab: 'guardians' })
  })
})

describe('kits', () => {
  it('no guardians: unmet', () => {
    const i = item(
      { vault: { guardianCount: 0 }, kits: { total: 0, handedOver: 0, splitCreatedAt: null } },
      'kits',
    )
    expect(i.met).toBe(false)
    expect(i.detail).toMatch(/No guardians/)
  })

  it('fewer kits than guardians: unmet, the reason depends on whether the key is here', () => {
    const kits = { total: 2, handedOver: 2, splitCreatedAt: SPLIT_AT }
    const here = item({ kits }, 'kits')
    expect(here.met).toBe(false)
    expect(here.detail).toMatch(/Some guardians have no kit/)
    const away = item({ kits, keyOnDevice: false }, 'kits')
    expect(away.met).toBe(false)
    expect(away.detail).toMatch(/not on this one/)
  })

  it('all kits made but one not handed over: unmet, with the count', () => {
    const i = item({ kits: { total: 3, handedOver: 2, splitCreatedAt: SPLIT_AT } }, 'kits')
    expect(i.met).toBe(false)
    expect(i.detail).toMatch(/^2 of 3 kits of the current split marked as handed over/)
    expect(i.detail).toMatch(/practice run never checks real kits/)
    expect(i.fix?.action).toEqual({ kind: 'open-tab', tab: 'guardians' })
  })

  it('all handed over: met', () => {
    expect(item({}, 'kits')).toMatchObject({ met: true, fix: null })
  })
})

describe('owner kit and key storage', () => {
  it('owner kit unconfirmed: unmet with the save-owner-kit fix; the detail depends on the key being here', () => {
    const here = item({ ownerKitConfirmed: false }, 'owner-kit')
    expect(here.met).toBe(false)
    expect(here.fix?.action).toEqual({ kind: 'save-owner-kit' })
    expect(here.detail).toMatch(/lost computer means lost files/)
    expect(item({ ownerKitConfirmed: false, keyOnDevice: false }, 'owner-kit').detail).toMatch(/import/)
    expect(item({ ownerKitConfirmed: true }, 'owner-kit').met).toBe(true)
  })

  it('non-durable storage is unmet: save the kit first, or see key storage once it is confirmed', () => {
    const unsaved = item({ keyDurable: false, ownerKitConfirmed: false }, 'key-storage')
    expect(unsaved.met).toBe(false)
    expect(unsaved.fix?.action).toEqual({ kind: 'save-owner-kit' })
    const saved = item({ keyDurable: false, ownerKitConfirmed: true }, 'key-storage')
    expect(saved.met).toBe(false)
    expect(saved.fix?.action).toEqual({ kind: 'open-settings' })
    expect(item({ keyDurable: true }, 'key-storage')).toMatchObject({ met: true, fix: null })
  })
})

describe('heir', () => {
  it('no heir: unmet, fix opens the heirs tab; one heir: met', () => {
    const none = item({ vault: { heirCount: 0 } }, 'heir')
    expect(none.met).toBe(false)
    expect(none.fix?.action).toEqual({ kind: 'open-tab', tab: 'heirs' })
    expect(item({ vault: { heirCount: 1 } }, 'heir').detail).toBe('1 heir named.')
  })
})

describe('runway (credits for 12 months of check-ins)', () => {
  // Monthly: 365.25 / 30 = 12.175 -> 13 check-ins of 2 credits = 26. Weekly: 53 check-ins = 106.
  it('monthly: met at exactly 26 credits, unmet at 25 with the add-credits fix', () => {
    expect(item({ vault: { creditsBalance: 26 } }, 'runway')).toMatchObject({ met: true, fix: null })
    const short = item({ vault: { creditsBalance: 25 } }, 'runway')
    expect(short.met).toBe(false)
    expect(short.detail).toContain('need 26 credits and the balance is 25')
    expect(short.fix?.action).toEqual({ kind: 'add-credits' })
  })

  it('weekly: met at 106, unmet at 105', () => {
    expect(item({ vault: { checkInFrequency: 'weekly', creditsBalance: 106 } }, 'runway').met).toBe(true)
    expect(item({ vault: { checkInFrequency: 'weekly', creditsBalance: 105 } }, 'runway').met).toBe(false)
  })

  it('only a dead man’s switch needs it: manual and guardian claim are met with no credits', () => {
    for (const releaseTrigger of ['manual', 'guardian_claim'] as const) {
      expect(
        item({ vault: { releaseTrigger, checkInFrequency: 'weekly', creditsBalance: 0 } }, 'runway').met,
      ).toBe(true)
    }
    expect(item({ vault: { releaseTrigger: null, creditsBalance: 0 } }, 'runway').met).toBe(true)
  })

  it('says which trigger needs no check-ins, and that none is set when none is', () => {
    expect(item({ vault: { releaseTrigger: null } }, 'runway').detail).toBe(
      'No release trigger is set yet, so no check-ins are due.',
    )
    expect(item({ vault: { releaseTrigger: 'manual' } }, 'runway').detail).toBe(
      'A manual release needs no check-ins.',
    )
    expect(item({ vault: { releaseTrigger: 'guardian_claim' } }, 'runway').detail).toBe(
      'A guardian claim needs no check-ins.',
    )
  })
})

describe('rehearsal', () => {
  it('none yet: unmet with the start-rehearsal fix', () => {
    const i = item({ rehearsal: null }, 'rehearsal')
    expect(i.met).toBe(false)
    expect(i.fix?.action).toEqual({ kind: 'start-rehearsal' })
  })

  it('running: unmet, names the heir, fix shows the run', () => {
    const i = item({ rehearsal: rehearsal({ state: 'running', passedAt: null }) }, 'rehearsal')
    expect(i.met).toBe(false)
    expect(i.detail).toContain('Hana')
    expect(i.fix?.action).toEqual({ kind: 'start-rehearsal' })
  })

  it('passed after the current split: met', () => {
    const i = item({}, 'rehearsal')
    expect(i).toMatchObject({ met: true, fix: null })
    expect(i.detail).toContain('Hana')
  })

  it('passed before the current split was made: unmet (the kits changed since)', () => {
    const i = item(
      { rehearsal: rehearsal({ passedAt: '2026-02-28T23:59:59.000Z' }), kits: ready().kits },
      'rehearsal',
    )
    expect(i.met).toBe(false)
    expect(i.detail).toMatch(/Guardians changed after the last practice passed/)
    expect(i.fix?.action).toEqual({ kind: 'start-rehearsal' })
  })

  it('expired or cancelled before passing: unmet', () => {
    for (const state of ['expired', 'cancelled'] as const) {
      const i = item({ rehearsal: rehearsal({ state, passedAt: null }) }, 'rehearsal')
      expect(i.met).toBe(false)
      expect(i.detail).toContain(state)
    }
  })

  it('a passed practice says it used practice kits, and never stands in for the real kits', () => {
    expect(item({}, 'rehearsal').detail).toMatch(/practice file with the guardians' practice kits/)
    // The practice never touched the real kits: only the owner's hand-over confirmations count for them.
    const kits = item({ kits: { total: 3, handedOver: 1, splitCreatedAt: SPLIT_AT } }, 'kits')
    expect(item({}, 'rehearsal').met).toBe(true)
    expect(kits.met).toBe(false)
  })

  it('a service without rehearsals: unmet, and nothing to click', () => {
    expect(item({ rehearsal: 'unsupported' }, 'rehearsal')).toMatchObject({ met: false, fix: null })
  })
})

describe('counting', () => {
  it('a fresh vault on a public service (mail configured, untested) with durable storage: "7 steps left"', () => {
    const fresh: ReadinessInput = {
      vault: {
        releaseTrigger: null,
        checkInFrequency: null,
        sssPreset: 'standard',
        creditsBalance: 100,
        heirCount: 0,
        guardianCount: 0,
      },
      service: { ...PUBLIC, lastMailTest: null },
      guardians: { accepted: 0, pending: 0, declined: 0 },
      kits: { total: 0, handedOver: 0, splitCreatedAt: null },
      kitChecks: null,
      keyOnDevice: true,
      keyDurable: true,
      ownerKitConfirmed: false,
      rehearsal: null,
    }
    const r = vaultReadiness(fresh)
    expect(r).toMatchObject({ ready: false, stepsLeft: 7, summary: '7 steps left' })
    expect(r.items.filter((i) => !i.met).map((i) => i.id)).toEqual([
      'mail',
      'trigger',
      'guardians',
      'kits',
      'owner-kit',
      'heir',
      'rehearsal',
    ])
  })

  it('one unmet item is "1 step left"', () => {
    expect(vaultReadiness(input({ vault: { heirCount: 0 } }))).toMatchObject({
      ready: false,
      stepsLeft: 1,
      summary: '1 step left',
    })
  })
})

describe('kit checks (extension kit-check)', () => {
  const check = (over: Partial<GuardianKitCheck> = {}): GuardianKitCheck => ({
    split: 'a1b2c3d4',
    confirmedAt: null,
    remindedAt: null,
    overdue: false,
    ...over,
  })
  const kitChecks = (...checks: Array<GuardianKitCheck | null>) =>
    checks.map((kitCheck, i) => ({ name: ['Ana', 'Bo', 'Cy'][i]!, kitCheck }))

  it('each guardian on a line: confirmed, not yet, no code; none overdue keeps the step met', () => {
    const kits = item(
      {
        kitChecks: kitChecks(
          check({ confirmedAt: '2026-03-05T10:00:00.000Z' }),
          check({ remindedAt: '2026-03-01T00:00:00.000Z' }),
          null,
        ),
      },
      'kits',
    )
    expect(kits.met).toBe(true)
    expect(kits.lines).toEqual([
      'Ana: kit confirmed 5 Mar 2026',
      'Bo: not confirmed yet — reminded 1 Mar 2026',
      'Cy: no check code registered for this kit',
    ])
  })

  it('an overdue guardian is named as a step to do, with since when and the reminder', () => {
    const kits = item(
      {
        kitChecks: kitChecks(
          check({ confirmedAt: '2026-03-05T10:00:00.000Z' }),
          check({ remindedAt: '2026-03-01T00:00:00.000Z', overdue: true }),
          check({
            confirmedAt: '2025-02-01T00:00:00.000Z',
            remindedAt: '2026-02-01T00:00:00.000Z',
            overdue: true,
          }),
        ),
      },
      'kits',
    )
    expect(kits.met).toBe(false)
    expect(kits.detail).toMatch(/^Ask Bo and Cy to check their kits: reminded, not confirmed in 30 days/)
    expect(kits.lines).toEqual([
      'Ana: kit confirmed 5 Mar 2026',
      'Bo: not confirmed since 1 Mar 2026 — reminded 1 Mar 2026',
      'Cy: not confirmed since 1 Feb 2025 — reminded 1 Feb 2026',
    ])
    expect(kits.fix?.action).toEqual({ kind: 'open-tab', tab: 'guardians' })
    expect(vaultReadiness(input({ kitChecks: kitChecks(check({ overdue: true })) })).stepsLeft).toBe(1)
  })

  it('a service without kit checks: no lines, nothing changes', () => {
    expect(item({ kitChecks: null }, 'kits').lines).toBeUndefined()
  })
})
