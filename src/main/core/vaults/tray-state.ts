// What the tray shows: the worst state across all vaults and the next check-in, as a pure function
// of the vaults and the time.
import type { VaultState } from '../../../shared/api'
import { revealControls } from '../../../shared/untrusted-text'
import { desktopText } from '../desktop-text'
import { DAY_MS, describeDue } from './checkin-schedule'
import { daysLeftToCancel } from './release-countdown'

export type TrayLevel = 'ok' | 'due-soon' | 'overdue' | 'releasing'
const RANK: Record<TrayLevel, number> = { ok: 0, 'due-soon': 1, overdue: 2, releasing: 3 }

export interface TrayVault {
  vaultId: string
  label: string
  state: VaultState
  nextCheckInDue: string | null
  releaseStartedAt?: string | null
  contestationEndsAt?: string | null
}

export interface TrayState {
  level: TrayLevel
  /** One line for the tray tooltip / menu header. */
  text: string
  /** The soonest check-in among active vaults with a dead man's switch. */
  nextCheckIn: { vaultId: string; label: string; dueAt: string; text: string } | null
  releasing: Array<{ vaultId: string; label: string; daysLeftToCancel: number }>
}

export function deriveTrayState(
  vaults: TrayVault[],
  now: number,
  options: { dueSoonDays?: number } = {},
): TrayState {
  const t = desktopText().tray
  const dueSoonMs = (options.dueSoonDays ?? 3) * DAY_MS
  let level: TrayLevel = 'ok'
  const raise = (l: TrayLevel) => {
    if (RANK[l] > RANK[level]) level = l
  }
  const releasing: TrayState['releasing'] = []
  let next: { vault: TrayVault; dueAt: number } | null = null
  for (const v of vaults) {
    if (v.state === 'releasing') {
      raise('releasing')
      // The tray's menu and tooltip draw the service's label raw: its hidden characters show.
      releasing.push({
        vaultId: v.vaultId,
        label: revealControls(v.label),
        daysLeftToCancel: daysLeftToCancel(v, now),
      })
      continue
    }
    if (v.state !== 'active' || !v.nextCheckInDue) continue
    const dueAt = Date.parse(v.nextCheckInDue)
    if (!Number.isFinite(dueAt)) continue
    if (dueAt <= now) raise('overdue')
    else if (dueAt - now <= dueSoonMs) raise('due-soon')
    if (!next || dueAt < next.dueAt) next = { vault: v, dueAt }
  }
  releasing.sort((a, b) => a.daysLeftToCancel - b.daysLeftToCancel)
  const nextCheckIn = next
    ? {
        vaultId: next.vault.vaultId,
        label: revealControls(next.vault.label),
        dueAt: next.vault.nextCheckInDue!,
        text:
          next.dueAt <= now
            ? t.overdueCheckIn(revealControls(next.vault.label), describeDue(next.dueAt, now))
            : t.nextCheckIn(revealControls(next.vault.label), describeDue(next.dueAt, now)),
      }
    : null
  let text: string
  const first = releasing[0]
  if (first) {
    text = t.releasing(first.label, first.daysLeftToCancel)
  } else if (nextCheckIn) {
    text = nextCheckIn.text
  } else {
    text = vaults.length === 0 ? t.noVaults : t.noCheckIns
  }
  return { level, text, nextCheckIn, releasing }
}
