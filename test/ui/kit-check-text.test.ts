// The Guardians tab's line for each guardian's kit check: confirmed when, not yet (with the reminder),
// overdue since the last check or the kits' making, no code registered, and nothing from a service
// without kit checks.
import { expect, it } from 'vitest'
import { kitCheckText } from '../../src/renderer/display/readiness-text'
import type { GuardianKitCheck } from '../../src/shared/api'

const check = (over: Partial<GuardianKitCheck>): GuardianKitCheck => ({
  split: 'a1b2c3d4',
  confirmedAt: null,
  remindedAt: null,
  overdue: false,
  ...over,
})
const MADE = '2026-03-01T12:00:00.000Z'

it('says each state of a kit check', () => {
  expect(kitCheckText(undefined, MADE)).toBeUndefined()
  expect(kitCheckText(null, MADE)).toEqual({
    text: 'No check code registered for this kit yet',
    overdue: false,
  })
  expect(kitCheckText(check({}), MADE)?.text).toBe('Kit not confirmed yet')
  expect(kitCheckText(check({ remindedAt: '2026-03-02T12:00:00.000Z' }), MADE)?.text).toMatch(
    /^Kit not confirmed yet — reminded .*2026$/,
  )
  const confirmed = kitCheckText(check({ confirmedAt: '2026-03-05T12:00:00.000Z' }), MADE)
  expect(confirmed).toEqual({ text: expect.stringMatching(/^Kit confirmed .*2026$/), overdue: false })
  expect(confirmed?.text).toContain('5')
  const late = kitCheckText(check({ remindedAt: '2026-03-02T12:00:00.000Z', overdue: true }), MADE)
  expect(late?.overdue).toBe(true)
  expect(late?.text).toMatch(/^Kit not confirmed since .*1.*2026 — reminded .*2.*2026$/)
  const lateAgain = kitCheckText(
    check({ confirmedAt: '2025-01-10T12:00:00.000Z', remindedAt: '2026-01-10T12:00:00.000Z', overdue: true }),
    MADE,
  )
  expect(lateAgain?.text).toMatch(/^Kit not confirmed since .*10.*2025 — reminded .*10.*2026$/)
})
