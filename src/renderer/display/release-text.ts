// What each release trigger and frequency means, in one sentence each.
import type { CheckInFrequency, ReleaseTrigger } from '../../shared/api'

export const TRIGGER_TEXT: Record<ReleaseTrigger, { label: string; sentence: string }> = {
  dead_man_switch: {
    label: "Dead man's switch",
    sentence:
      'The release starts when you miss a check-in; checking in from the app or the tray resets the timer.',
  },
  manual: {
    label: 'Manual',
    sentence: 'Nothing starts by itself: the release begins only when you start it.',
  },
  guardian_claim: {
    label: 'Guardian claim',
    sentence: 'The release starts when enough of your guardians (as many as your kits require) claim it.',
  },
}

export const FREQUENCY_SHORT: Record<CheckInFrequency, string> = {
  weekly: 'Every 7 days',
  biweekly: 'Every 14 days',
  monthly: 'Every 30 days (monthly)',
  quarterly: 'Every 90 days (quarterly)',
}

export const FREQUENCY_TEXT: Record<CheckInFrequency, string> = {
  weekly: 'Weekly (every 7 days)',
  biweekly: 'Every two weeks (14 days)',
  monthly: 'Monthly (every 30 days) — recommended',
  quarterly: 'Quarterly (every 90 days)',
}

const DAY_MS = 86_400_000

/** Where a started release stands: when it began, when heirs get (or got) access, days to cancel. */
export type ReleaseProgress =
  | { state: 'releasing'; startedAt: string | null; accessAt: string | null; daysLeft: number }
  | { state: 'released'; accessAt: string | null }

/**
 * The release's dates from the vault. Heirs get access when the contestation period ends: the
 * service's date, else the start plus the period; released without a date, the end of the period.
 */
export function releaseProgress(
  v: {
    state: string
    releaseStartedAt: string | null
    contestationEndsAt: string | null
    releasedAt: string | null
  },
  now: number,
  contestationDays: number,
): ReleaseProgress | null {
  const start = v.releaseStartedAt ? Date.parse(v.releaseStartedAt) : Number.NaN
  const end = v.contestationEndsAt
    ? Date.parse(v.contestationEndsAt)
    : Number.isFinite(start)
      ? start + contestationDays * DAY_MS
      : Number.NaN
  const endIso = Number.isFinite(end) ? new Date(end).toISOString() : null
  if (v.state === 'releasing') {
    return {
      state: 'releasing',
      startedAt: v.releaseStartedAt,
      accessAt: endIso,
      // Whole days, rounded up: the last day still counts until it ends.
      daysLeft: Number.isFinite(end) ? Math.max(0, Math.ceil((end - now) / DAY_MS)) : contestationDays,
    }
  }
  if (v.state === 'released') return { state: 'released', accessAt: v.releasedAt ?? endIso }
  return null
}
