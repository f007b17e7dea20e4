import { describe, expect, it } from 'vitest'
import {
  CheckInReminders,
  DAY_MS,
  DEFAULT_REMINDER_CONFIG,
  HOUR_MS,
  latestReminderPoint,
  nextReminderPoint,
  type ReminderDue,
} from '../../src/main/core/vaults/checkin-schedule'
import { daysLeftToCancel } from '../../src/main/core/vaults/release-countdown'
import { deriveTrayState } from '../../src/main/core/vaults/tray-state'
import { tempDir } from './service-fixture'

const T0 = Date.parse('2026-03-01T12:00:00Z')

function fakeClock(start = T0) {
  let now = start
  return { now: () => now, set: (t: number) => (now = t), advance: (ms: number) => (now += ms) }
}

describe('reminder points', () => {
  const due = T0 + 10 * DAY_MS
  it('are 3 days before, 1 day before, at the deadline, then every 12 h', () => {
    expect(latestReminderPoint(due, T0, DEFAULT_REMINDER_CONFIG)).toBeUndefined()
    expect(latestReminderPoint(due, due - 3 * DAY_MS, DEFAULT_REMINDER_CONFIG)?.key).toBe(`${due}:before:3`)
    expect(latestReminderPoint(due, due - 2 * DAY_MS, DEFAULT_REMINDER_CONFIG)?.key).toBe(`${due}:before:3`)
    expect(latestReminderPoint(due, due - DAY_MS, DEFAULT_REMINDER_CONFIG)?.key).toBe(`${due}:before:1`)
    expect(latestReminderPoint(due, due, DEFAULT_REMINDER_CONFIG)?.kind).toBe('deadline')
    expect(latestReminderPoint(due, due + 11 * HOUR_MS, DEFAULT_REMINDER_CONFIG)?.kind).toBe('deadline')
    expect(latestReminderPoint(due, due + 12 * HOUR_MS, DEFAULT_REMINDER_CONFIG)?.key).toBe(
      `${due}:overdue:1`,
    )
    expect(latestReminderPoint(due, due + 37 * HOUR_MS, DEFAULT_REMINDER_CONFIG)?.key).toBe(
      `${due}:overdue:3`,
    )
  })
  it('give the next absolute time', () => {
    expect(nextReminderPoint(due, T0, DEFAULT_REMINDER_CONFIG).at).toBe(due - 3 * DAY_MS)
    expect(nextReminderPoint(due, due - 2 * DAY_MS, DEFAULT_REMINDER_CONFIG).at).toBe(due - DAY_MS)
    expect(nextReminderPoint(due, due - 1, DEFAULT_REMINDER_CONFIG).at).toBe(due)
    expect(nextReminderPoint(due, due, DEFAULT_REMINDER_CONFIG).at).toBe(due + 12 * HOUR_MS)
  })
  it('follow the configuration', () => {
    const config = { reminderDaysBefore: [7], overdueRepeatHours: 6 }
    expect(latestReminderPoint(due, due - 7 * DAY_MS, config)?.key).toBe(`${due}:before:7`)
    expect(latestReminderPoint(due, due - DAY_MS, config)?.key).toBe(`${due}:before:7`)
    expect(latestReminderPoint(due, due + 6 * HOUR_MS, config)?.key).toBe(`${due}:overdue:1`)
  })
})

describe('CheckInReminders with a fake clock', () => {
  it('fires each reminder once, on tick and on resume, collapsing missed ones', async () => {
    const clock = fakeClock()
    const reminders = await CheckInReminders.open({ clock })
    const seen: ReminderDue[] = []
    reminders.on('due', (r) => seen.push(r))
    const due = T0 + 5 * DAY_MS
    reminders.setVault({ vaultId: 'v1', label: 'Family vault', nextCheckInDue: new Date(due).toISOString() })

    expect(reminders.tick()).toEqual([])
    clock.set(due - 3 * DAY_MS + 1000)
    expect(reminders.tick().map((r) => r.kind)).toEqual(['before'])
    expect(seen[0]!.daysLeft).toBe(3)
    expect(seen[0]!.title).toMatch(/Check-in due in 3 days/)
    expect(reminders.tick()).toEqual([])
    clock.set(due - DAY_MS)
    expect(reminders.tick()[0]!.title).toMatch(/in 24 hours/)

    // Asleep across the deadline and two overdue points: one reminder on resume, not three.
    clock.set(due + 25 * HOUR_MS)
    const resumed = reminders.onResume()
    expect(resumed.map((r) => r.kind)).toEqual(['overdue'])
    expect(resumed[0]!.body).toMatch(/due 25 hours ago/)
    expect(reminders.tick()).toEqual([])
    clock.advance(12 * HOUR_MS)
    expect(reminders.tick().map((r) => r.kind)).toEqual(['overdue'])
    expect(seen).toHaveLength(4)

    // A check-in moves the deadline: the cycle starts again for the new date.
    const newDue = clock.now() + 7 * DAY_MS
    reminders.setVault({
      vaultId: 'v1',
      label: 'Family vault',
      nextCheckInDue: new Date(newDue).toISOString(),
    })
    expect(reminders.tick()).toEqual([])
    expect(reminders.upcoming()[0]!.nextReminderAt).toBe(new Date(newDue - 3 * DAY_MS).toISOString())
  })

  it('does not repeat a shown reminder after a restart', async () => {
    const dir = await tempDir('vault-reminders-')
    try {
      const clock = fakeClock(T0 + 9 * DAY_MS)
      const due = new Date(T0 + 10 * DAY_MS).toISOString()
      const first = await CheckInReminders.open({ userDataDir: dir.path, clock })
      first.setVault({ vaultId: 'v1', label: 'V', nextCheckInDue: due })
      expect(first.tick()).toHaveLength(1)
      await first.flush()
      const second = await CheckInReminders.open({ userDataDir: dir.path, clock })
      second.setVault({ vaultId: 'v1', label: 'V', nextCheckInDue: due })
      expect(second.tick()).toEqual([])
      clock.advance(DAY_MS)
      expect(second.tick().map((r) => r.kind)).toEqual(['deadline'])
      await second.flush()
    } finally {
      await dir.remove()
    }
  })

  it('ignores vaults without a dead man switch', async () => {
    const reminders = await CheckInReminders.open({ clock: fakeClock() })
    reminders.setVault({ vaultId: 'v', label: 'V', nextCheckInDue: null })
    expect(reminders.tick()).toEqual([])
    expect(reminders.upcoming()).toEqual([])
  })
})

describe('tray state', () => {
  const iso = (t: number) => new Date(t).toISOString()
  it('is the worst state across vaults with the next check-in text', () => {
    const now = T0
    expect(deriveTrayState([], now)).toMatchObject({ level: 'ok', text: 'No vaults yet', nextCheckIn: null })
    const ok = { vaultId: 'a', label: 'A', state: 'active' as const, nextCheckInDue: iso(now + 20 * DAY_MS) }
    const soon = { vaultId: 'b', label: 'B', state: 'active' as const, nextCheckInDue: iso(now + 2 * DAY_MS) }
    const late = {
      vaultId: 'c',
      label: 'C',
      state: 'active' as const,
      nextCheckInDue: iso(now - 5 * HOUR_MS),
    }
    const releasing = {
      vaultId: 'd',
      label: 'D',
      state: 'releasing' as const,
      nextCheckInDue: null,
      releaseStartedAt: iso(now - 4 * DAY_MS),
    }
    expect(deriveTrayState([ok], now)).toMatchObject({ level: 'ok', text: 'Next check-in: A in 20 days' })
    expect(deriveTrayState([ok, soon], now)).toMatchObject({
      level: 'due-soon',
      text: 'Next check-in: B in 2 days',
    })
    const overdue = deriveTrayState([ok, soon, late], now)
    expect(overdue.level).toBe('overdue')
    expect(overdue.text).toBe('Check-in for C overdue (due 5 hours ago)')
    const alarm = deriveTrayState([ok, late, releasing], now)
    expect(alarm.level).toBe('releasing')
    expect(alarm.text).toBe('D is releasing: 26 days left to cancel')
    expect(alarm.releasing).toEqual([{ vaultId: 'd', label: 'D', daysLeftToCancel: 26 }])
    expect(alarm.nextCheckIn?.vaultId).toBe('c')
  })

  it('counts days left to cancel from the service end date, the start, or first sighting', () => {
    expect(daysLeftToCancel({ contestationEndsAt: new Date(T0 + 2.5 * DAY_MS).toISOString() }, T0)).toBe(3)
    expect(daysLeftToCancel({ releaseStartedAt: new Date(T0 - 29.5 * DAY_MS).toISOString() }, T0)).toBe(1)
    expect(daysLeftToCancel({ releaseStartedAt: new Date(T0 - 31 * DAY_MS).toISOString() }, T0)).toBe(0)
    expect(daysLeftToCancel({}, T0, T0 - 10 * DAY_MS)).toBe(20)
  })
})
