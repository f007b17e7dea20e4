// Pure renderer text for readiness: test e-mails, what deleting loses, practice runs, error affordances.
import { describe, expect, it } from 'vitest'
import { errorView } from '../../src/renderer/display/error-text'
import {
  deletionLosses,
  mailTestText,
  rehearsalStages,
  rehearsalStateText,
} from '../../src/renderer/display/readiness-text'
import type { Rehearsal } from '../../src/shared/api'
import { AppError } from '../../src/shared/app-error'

const rehearsal = (patch: Partial<Rehearsal> = {}): Rehearsal => ({
  id: 'r1',
  vaultId: 'v1',
  state: 'running',
  heir: { id: 'h1', name: 'Ada', email: 'ada@example.com' },
  sample: { filename: 'letter.txt', sizeBytes: 500, ownerFile: false },
  guardiansNotified: 3,
  startedAt: '2026-03-01T10:00:00.000Z',
  expiresAt: '2026-03-08T10:00:00.000Z',
  openedAt: null,
  downloadedAt: null,
  passedAt: null,
  failedReports: 0,
  ...patch,
})

describe('test e-mail', () => {
  it('says where it went and what to check, or why it failed and what to do', () => {
    const ok = mailTestText({
      to: 'me@example.com',
      at: '2026-03-01T10:00:00.000Z',
      delivered: true,
      error: null,
    })
    expect(ok).toContain('sent to me@example.com')
    expect(ok).toContain('Check that it arrived')
    const failed = mailTestText({
      to: 'me@example.com',
      at: '2026-03-01T10:00:00.000Z',
      delivered: false,
      error: 'connection refused',
    })
    expect(failed).toContain('could not be sent')
    expect(failed).toContain('connection refused')
    expect(failed).toContain('send another')
  })

  it('says how the mail travelled when the service tells, and warns about plaintext', () => {
    const base = { to: 'me@example.com', at: '2026-03-01T10:00:00.000Z', delivered: true, error: null }
    expect(mailTestText({ ...base, security: 'tls' })).toContain('encrypted (TLS)')
    expect(mailTestText({ ...base, security: 'loopback' })).toContain('without crossing a network')
    const clear = mailTestText({ ...base, security: 'insecure-plaintext' })
    expect(clear).toMatch(/^Test e-mail sent .*Warning: it travelled to the mail server unencrypted/)
    expect(clear).toContain('Ask the operator to turn TLS back on')
    expect(mailTestText(base)).not.toMatch(/TLS|unencrypted/)
  })
})

describe('deleting a vault', () => {
  it('names what is lost with correct plurals', () => {
    expect(deletionLosses({ assetCount: 1, guardianCount: 3, heirCount: 0 })).toBe(
      '1 file, 3 guardians, and 0 heirs', // Intl's list for English
    )
  })
})

describe('practice runs', () => {
  it('lists the four stages in order, with dates as they happen', () => {
    const stages = rehearsalStages(rehearsal({ openedAt: '2026-03-02T10:00:00.000Z' }))
    expect(stages.map((s) => s.key)).toEqual(['invited', 'opened', 'downloaded', 'passed'])
    expect(stages[0]?.label).toBe('Practice e-mail to Ada, and a practice kit to 3 guardians')
    expect(stages.map((s) => s.at !== null)).toEqual([true, true, false, false])
    expect(rehearsalStages(rehearsal(), false)[0]?.label).toBe(
      'Practice started for Ada (no e-mail was sent)',
    )
  })

  it('says what it waits for while running, and each end plainly', () => {
    const now = Date.parse('2026-03-02T00:00:00.000Z')
    expect(rehearsalStateText(rehearsal(), now)).toContain('waiting for Ada to open the practice access')
    expect(
      rehearsalStateText(rehearsal({ state: 'passed', passedAt: '2026-03-03T10:00:00.000Z' }), now),
    ).toMatch(/^Passed on /)
    expect(rehearsalStateText(rehearsal({ state: 'expired' }), now)).toContain('Nothing was released')
    expect(rehearsalStateText(rehearsal({ state: 'cancelled' }), now)).toContain('no longer works')
  })
})

describe('error affordances', () => {
  it('OWNER_KIT_REQUIRED offers the owner kit; EXTENSION_MISSING offers Connections', () => {
    const kit = errorView(
      AppError.fromData({ code: 'OWNER_KIT_REQUIRED', message: 'Save the owner kit first.' }),
    )
    expect(kit.ownerKit).toBe(true)
    expect(kit.extensionMissing).toBe(false)
    const ext = errorView(AppError.fromData({ code: 'EXTENSION_MISSING', message: 'Not offered.' }))
    expect(ext.extensionMissing).toBe(true)
    expect(errorView(new Error('x')).ownerKit).toBe(false)
  })
})
