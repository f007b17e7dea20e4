// What the credit balance still covers: check-ins at the vault's frequency, or more storage.
import { CHECK_IN_FREQUENCY_DAYS, type CheckInFrequency, LIMITS } from '../../shared/api'
import { text } from '../text'

export interface Runway {
  checkIns: number
  /** Days of check-ins at the frequency (null without a dead man's switch). */
  days: number | null
  /** Bytes of encrypted storage the whole balance would buy instead. */
  storageBytes: number
  text: string
}

const STORAGE_CREDITS_PER_BYTE = 4650 / 1e9

function spanText(days: number): string {
  if (days >= 730) return text.runway.aboutYears(Math.floor(days / 365))
  if (days >= 60) return text.runway.aboutMonths(Math.floor(days / 30))
  return text.runway.days(days)
}

export function runway(balance: number, frequency: CheckInFrequency | null): Runway {
  const checkIns = Math.max(0, Math.floor(balance / LIMITS.checkInCostCredits))
  const days = frequency ? checkIns * CHECK_IN_FREQUENCY_DAYS[frequency] : null
  const storageBytes = Math.max(0, Math.floor(balance / STORAGE_CREDITS_PER_BYTE))
  const checkInText =
    checkIns === 0
      ? text.runway.none
      : days !== null && frequency
        ? text.runway.checkInsSpan(checkIns, spanText(days), frequency)
        : text.runway.checkIns(checkIns)
  return { checkIns, days, storageBytes, text: checkInText }
}
