// How numbers, sizes, money and times read in the UI: thin names over the one formatting layer
// (src/shared/locale-format.ts, Intl in the system's locale) and the catalogue's words.
import { format, text } from '../text'

/** Decimal units (1 kB = 1000 B), like the service's price per GB. */
export function formatBytes(bytes: number): string {
  return format.bytes(bytes)
}

export function formatCredits(credits: number): string {
  return text.common.credits(credits)
}

export function formatRate(bytesPerSecond: number): string {
  return text.common.rate(format.bytes(bytesPerSecond))
}

/** "45 s", "3 min 20 s", "2 h 5 min". */
export function formatDuration(totalSeconds: number): string {
  return format.duration(totalSeconds)
}

const DAY_MS = 86_400_000

/** Where a deadline stands: "in 29 days", "in 5 hours", "overdue by 2 days". */
export function describeDeadline(
  dueIso: string,
  now: number,
): { text: string; overdue: boolean; days: number } {
  const ms = Date.parse(dueIso) - now
  if (!Number.isFinite(ms)) return { text: text.common.unknown, overdue: false, days: 0 }
  const days = Math.ceil(Math.abs(ms) / DAY_MS)
  return ms >= 0
    ? { text: format.relative(dueIso, now), overdue: false, days }
    : { text: text.common.overdueBy(-ms), overdue: true, days: -days }
}

/** Whole days left to cancel a release (30 days from its start unless the service says otherwise). */
export function daysLeftToCancel(
  vault: { releaseStartedAt: string | null; contestationEndsAt: string | null },
  now: number,
  contestationDays = 30,
): number {
  const end = vault.contestationEndsAt
    ? Date.parse(vault.contestationEndsAt)
    : vault.releaseStartedAt
      ? Date.parse(vault.releaseStartedAt) + contestationDays * DAY_MS
      : now + contestationDays * DAY_MS
  return Math.max(0, Math.ceil((end - now) / DAY_MS))
}

export function formatDate(iso: string | null | undefined): string {
  return format.date(iso)
}

export function formatDateTime(iso: string | null | undefined): string {
  return format.dateTime(iso)
}

/**
 * The original size of a file the service holds encrypted (Cobblestone-256: 56-byte header, a
 * 16-byte tag per 16 KiB chunk, always at least one chunk). Null when the size cannot be one.
 */
export function plaintextBytes(encryptedBytes: number): number | null {
  const body = encryptedBytes - 56
  if (!Number.isInteger(encryptedBytes) || body < 16) return null
  const chunks = Math.ceil(body / (16_384 + 16))
  const plain = body - 16 * chunks
  return plain >= 0 ? plain : null
}
