// What each release trigger and frequency means, in one sentence each (words: the catalogue's release section).
import { type CheckInFrequency, RELEASE_TRIGGERS, type ReleaseTrigger } from '../../shared/api'
import { text } from '../text'

export const TRIGGER_TEXT: Record<ReleaseTrigger, { label: string; sentence: string }> = Object.fromEntries(
  RELEASE_TRIGGERS.map((t) => [
    t,
    { label: text.release.triggerLabel[t], sentence: text.release.triggerSentence[t] },
  ]),
) as Record<ReleaseTrigger, { label: string; sentence: string }>

export const FREQUENCY_SHORT: Record<CheckInFrequency, string> = text.release.frequencyShort

export const FREQUENCY_TEXT: Record<CheckInFrequency, string> = text.release.frequency

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
