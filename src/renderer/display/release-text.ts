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
