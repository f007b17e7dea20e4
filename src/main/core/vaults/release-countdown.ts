// Days the owner has left to cancel a release: 30 days of contestation from its start.
import { LIMITS } from '../../../shared/api'
import { DAY_MS } from './checkin-schedule'

export interface ReleaseTiming {
  releaseStartedAt?: string | null
  contestationEndsAt?: string | null
}

/**
 * Whole days left (rounded up, never negative). Uses the service's end of contestation when it
 * reports one, else 30 days from the start, else (start unknown) from when this app first saw it.
 */
export function daysLeftToCancel(timing: ReleaseTiming, now: number, firstSeenAt?: number): number {
  const endsAt = timing.contestationEndsAt ? Date.parse(timing.contestationEndsAt) : Number.NaN
  const startedAt = timing.releaseStartedAt
    ? Date.parse(timing.releaseStartedAt)
    : (firstSeenAt ?? Number.NaN)
  const end = Number.isFinite(endsAt)
    ? endsAt
    : Number.isFinite(startedAt)
      ? startedAt + LIMITS.contestationDays * DAY_MS
      : now + LIMITS.contestationDays * DAY_MS
  return Math.max(0, Math.ceil((end - now) / DAY_MS))
}
