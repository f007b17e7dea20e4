// Credits kept back for check-ins: how many check-ins fall in a number of months (a partial period
// still needs its check-in), what they cost, and how long a balance lasts.
import { describe, expect, it } from 'vitest'
import {
  checkInReserveCredits,
  checkInsIn,
  DEFAULT_RESERVE_MONTHS,
  runwayDays,
  runwayMonths,
} from '../../src/shared/check-in-reserve'

describe('check-in reserve', () => {
  it('counts check-ins in 12 months, rounding a partial period up', () => {
    expect(DEFAULT_RESERVE_MONTHS).toBe(12)
    // 365.25 days: 52.18 weeks, 26.09 fortnights, 12.175 months of 30 days, 4.06 quarters.
    expect(checkInsIn('weekly', 12)).toBe(53)
    expect(checkInsIn('biweekly', 12)).toBe(27)
    expect(checkInsIn('monthly', 12)).toBe(13)
    expect(checkInsIn('quarterly', 12)).toBe(5)
    expect(checkInsIn('quarterly', 3)).toBe(2) // 91.3 days > 90
  })

  it('reserves 2 credits per check-in, none without a dead man’s switch', () => {
    expect(checkInReserveCredits('weekly', 12)).toBe(106)
    expect(checkInReserveCredits('monthly', 12)).toBe(26)
    expect(checkInReserveCredits('quarterly', 12)).toBe(10)
    expect(checkInReserveCredits(null, 12)).toBe(0)
  })

  it('runway: whole check-ins the balance pays, in days and months', () => {
    expect(runwayDays(26, 'monthly')).toBe(13 * 30)
    expect(runwayDays(25, 'monthly')).toBe(12 * 30)
    expect(runwayDays(1, 'weekly')).toBe(0)
    expect(runwayDays(-5, 'weekly')).toBe(0)
    expect(runwayDays(100, null)).toBeNull()
    expect(runwayMonths(100, null)).toBeNull()
    expect(runwayMonths(2, 'monthly')).toBeCloseTo(30 / (365.25 / 12), 10)
  })
})
