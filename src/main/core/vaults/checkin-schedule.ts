// Check-in reminders as absolute times: N days before the deadline, at it, then every few hours
// while overdue. Evaluated on a short tick and on resume from sleep (long timers stall during sleep
// and overflow past ~24.8 days), so a reminder is never lost and never doubled. The rules are
// pure functions; CheckInReminders adds the clock, the persistence of what was already shown, and
// events.
import { EventEmitter } from 'node:events'
import { join } from 'node:path'
import { desktopText } from '../desktop-text'
import { JsonFileWriter, readJsonFile } from '../storage/json-file'

export const DAY_MS = 86_400_000
export const HOUR_MS = 3_600_000

export interface ReminderConfig {
  /** Days before the deadline to remind (e.g. [3, 1]). */
  reminderDaysBefore: number[]
  /** Repeat every N hours once overdue. */
  overdueRepeatHours: number
}

export const DEFAULT_REMINDER_CONFIG: ReminderConfig = { reminderDaysBefore: [3, 1], overdueRepeatHours: 12 }

export type ReminderKind = 'before' | 'deadline' | 'overdue'

export interface ReminderPoint {
  kind: ReminderKind
  /** When the reminder is due (ms since epoch). */
  at: number
  /** Stable identity: the same point is never shown twice. */
  key: string
}

/** The latest reminder point at or before `now` for a deadline, if any. Missed points collapse into it. */
export function latestReminderPoint(
  dueAt: number,
  now: number,
  config: ReminderConfig,
): ReminderPoint | undefined {
  const repeat = Math.max(1, config.overdueRepeatHours) * HOUR_MS
  if (now >= dueAt + repeat) {
    const k = Math.floor((now - dueAt) / repeat)
    return { kind: 'overdue', at: dueAt + k * repeat, key: `${dueAt}:overdue:${k}` }
  }
  if (now >= dueAt) return { kind: 'deadline', at: dueAt, key: `${dueAt}:deadline` }
  const before = [...new Set(config.reminderDaysBefore)].filter((d) => d > 0).sort((a, b) => a - b)
  for (const days of before) {
    const at = dueAt - days * DAY_MS
    if (now >= at) return { kind: 'before', at, key: `${dueAt}:before:${days}` }
  }
  return undefined
}

/** The next reminder point strictly after `now`. */
export function nextReminderPoint(dueAt: number, now: number, config: ReminderConfig): ReminderPoint {
  const before = [...new Set(config.reminderDaysBefore)].filter((d) => d > 0).sort((a, b) => b - a)
  for (const days of before) {
    const at = dueAt - days * DAY_MS
    if (at > now) return { kind: 'before', at, key: `${dueAt}:before:${days}` }
  }
  if (dueAt > now) return { kind: 'deadline', at: dueAt, key: `${dueAt}:deadline` }
  const repeat = Math.max(1, config.overdueRepeatHours) * HOUR_MS
  const k = Math.floor((now - dueAt) / repeat) + 1
  return { kind: 'overdue', at: dueAt + k * repeat, key: `${dueAt}:overdue:${k}` }
}

/** Whole days until the deadline, rounded up (the service's daysRemaining); negative when overdue. */
export function daysUntil(dueAt: number, now: number): number {
  const ms = dueAt - now
  return ms >= 0 ? Math.ceil(ms / DAY_MS) : -Math.ceil(-ms / DAY_MS)
}

/** "in 3 days", "today", "2 days ago"... for reminder texts. */
export function describeDue(dueAt: number, now: number): string {
  const t = desktopText().due
  const ms = dueAt - now
  if (ms <= 0) {
    const hours = Math.floor(-ms / HOUR_MS)
    if (hours < 1) return t.now
    if (hours < 48) return t.hoursAgo(hours)
    return t.daysAgo(Math.floor(hours / 24))
  }
  const hours = Math.ceil(ms / HOUR_MS)
  if (hours <= 24) return t.inHours(hours)
  return t.inDays(Math.ceil(ms / DAY_MS))
}

export interface ReminderDue {
  vaultId: string
  label: string
  kind: ReminderKind
  dueAt: string
  /** Whole days left (negative when overdue). */
  daysLeft: number
  title: string
  body: string
}

export function reminderText(
  vaultLabel: string,
  kind: ReminderKind,
  dueAt: number,
  now: number,
): { title: string; body: string } {
  const when = describeDue(dueAt, now)
  const t = desktopText().reminders
  switch (kind) {
    case 'before':
      return {
        title: t.beforeTitle(when),
        body: t.beforeBody(vaultLabel, dueAt),
      }
    case 'deadline':
      return { title: t.deadlineTitle, body: t.deadlineBody(vaultLabel) }
    case 'overdue':
      return { title: t.overdueTitle, body: t.overdueBody(vaultLabel, when) }
  }
}

export interface ReminderClock {
  now(): number
}

interface ReminderStateFile {
  version: 1
  /** vaultId -> key of the last reminder point shown. */
  shown: Record<string, string>
}

export interface ScheduledVault {
  vaultId: string
  label: string
  /** null: no dead man's switch (nothing to remind). */
  nextCheckInDue: string | null
}

export interface CheckInRemindersEvents {
  due: [ReminderDue]
}

export class CheckInReminders extends EventEmitter<CheckInRemindersEvents> {
  readonly #vaults = new Map<string, ScheduledVault>()
  #shown: Record<string, string>
  #config: ReminderConfig
  readonly #clock: ReminderClock
  readonly #writer: JsonFileWriter<ReminderStateFile> | undefined
  #timer: ReturnType<typeof setInterval> | undefined

  private constructor(
    clock: ReminderClock,
    config: ReminderConfig,
    shown: Record<string, string>,
    file: string | undefined,
  ) {
    super()
    this.#clock = clock
    this.#config = config
    this.#shown = shown
    this.#writer = file ? new JsonFileWriter(file) : undefined
  }

  /** With a userDataDir, what was already shown survives restarts (no repeat of the same reminder). */
  static async open(options: {
    userDataDir?: string
    clock?: ReminderClock
    config?: Partial<ReminderConfig>
  }): Promise<CheckInReminders> {
    const file = options.userDataDir ? join(options.userDataDir, 'reminders.json') : undefined
    const state = file ? await readJsonFile<ReminderStateFile>(file, { version: 1, shown: {} }) : undefined
    return new CheckInReminders(
      options.clock ?? { now: () => Date.now() },
      { ...DEFAULT_REMINDER_CONFIG, ...options.config },
      state?.shown ?? {},
      file,
    )
  }

  get config(): ReminderConfig {
    return { ...this.#config }
  }

  setConfig(config: Partial<ReminderConfig>): void {
    this.#config = { ...this.#config, ...config }
  }

  /** Adds or updates a vault's deadline (after a poll, a check-in or a configuration change). */
  setVault(vault: ScheduledVault): void {
    this.#vaults.set(vault.vaultId, { ...vault })
  }

  removeVault(vaultId: string): void {
    this.#vaults.delete(vaultId)
  }

  vaults(): ScheduledVault[] {
    return [...this.#vaults.values()].map((v) => ({ ...v }))
  }

  /** The next reminder time per vault, for display and for scheduling. */
  upcoming(): Array<{ vaultId: string; dueAt: string; nextReminderAt: string; kind: ReminderKind }> {
    const now = this.#clock.now()
    const out: Array<{ vaultId: string; dueAt: string; nextReminderAt: string; kind: ReminderKind }> = []
    for (const v of this.#vaults.values()) {
      if (!v.nextCheckInDue) continue
      const dueAt = Date.parse(v.nextCheckInDue)
      if (!Number.isFinite(dueAt)) continue
      const next = nextReminderPoint(dueAt, now, this.#config)
      out.push({
        vaultId: v.vaultId,
        dueAt: v.nextCheckInDue,
        nextReminderAt: new Date(next.at).toISOString(),
        kind: next.kind,
      })
    }
    return out.sort((a, b) => a.nextReminderAt.localeCompare(b.nextReminderAt))
  }

  /** Emits every reminder that became due since the last evaluation (at most one per vault). */
  tick(): ReminderDue[] {
    const now = this.#clock.now()
    const fired: ReminderDue[] = []
    for (const v of this.#vaults.values()) {
      if (!v.nextCheckInDue) continue
      const dueAt = Date.parse(v.nextCheckInDue)
      if (!Number.isFinite(dueAt)) continue
      const point = latestReminderPoint(dueAt, now, this.#config)
      if (!point || this.#shown[v.vaultId] === point.key) continue
      this.#shown[v.vaultId] = point.key
      const text = reminderText(v.label, point.kind, dueAt, now)
      fired.push({
        vaultId: v.vaultId,
        label: v.label,
        kind: point.kind,
        dueAt: v.nextCheckInDue,
        daysLeft: daysUntil(dueAt, now),
        ...text,
      })
    }
    if (fired.length > 0) {
      // Losing this file only means a reminder may show once more; never worth failing the tick.
      this.#writer
        ?.write({ version: 1, shown: this.#shown })
        .catch((error: Error) => console.warn(`Could not save reminder state: ${error.message}`))
      for (const r of fired) this.emit('due', r)
    }
    return fired
  }

  /** Called by the shell from powerMonitor 'resume' (and 'unlock-screen'). */
  onResume(): ReminderDue[] {
    return this.tick()
  }

  /** Short periodic evaluation; the times themselves are absolute, so drift does not matter. */
  start(intervalMs = 60_000): void {
    this.stop()
    this.#timer = setInterval(() => this.tick(), intervalMs)
    this.#timer.unref?.()
    this.tick()
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = undefined
  }

  async flush(): Promise<void> {
    await this.#writer?.flush()
  }
}
