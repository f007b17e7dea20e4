// Credits kept back for check-ins, so that spending on uploads can never let a dead man's switch
// fire for lack of credits. Used by the core (upload refusal, readiness, warnings) and the UI.
import { CHECK_IN_FREQUENCY_DAYS, type CheckInFrequency, LIMITS } from './api'

export const DEFAULT_RESERVE_MONTHS = 12
const DAYS_PER_MONTH = 365.25 / 12

/** Check-ins due in `months` at this frequency (rounded up: a partial period still needs its check-in). */
export function checkInsIn(frequency: CheckInFrequency, months: number): number {
  return Math.ceil((months * DAYS_PER_MONTH) / CHECK_IN_FREQUENCY_DAYS[frequency])
}

/** Credits to keep for `months` of check-ins; 0 without a dead man's switch. */
export function checkInReserveCredits(frequency: CheckInFrequency | null, months: number): number {
  return frequency ? checkInsIn(frequency, months) * LIMITS.checkInCostCredits : 0
}

/** Whole days of check-ins the balance pays for; null without a dead man's switch. */
export function runwayDays(balance: number, frequency: CheckInFrequency | null): number | null {
  if (!frequency) return null
  return Math.max(0, Math.floor(balance / LIMITS.checkInCostCredits)) * CHECK_IN_FREQUENCY_DAYS[frequency]
}

/** Months (of 365.25/12 days) the balance pays check-ins for; null without a dead man's switch. */
export function runwayMonths(balance: number, frequency: CheckInFrequency | null): number | null {
  const days = runwayDays(balance, frequency)
  return days === null ? null : days / DAYS_PER_MONTH
}
