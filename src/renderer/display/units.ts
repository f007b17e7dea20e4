// How numbers, sizes, money and times read in the UI. Pure functions, unit tested.
import { creditsToDollars } from '../../shared/api'

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const

/** Decimal units (1 KB = 1000 B), like the service's price per GB. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—'
  let value = bytes
  let unit = 0
  while (value >= 1000 && unit < BYTE_UNITS.length - 1) {
    value /= 1000
    unit++
  }
  const digits = unit === 0 || value >= 100 ? 0 : value >= 10 ? 1 : 2
  return `${value.toFixed(digits)} ${BYTE_UNITS[unit]}`
}

export function formatCredits(credits: number): string {
  return `${credits.toLocaleString('en-US')} credit${credits === 1 ? '' : 's'} (${creditsToDollars(credits)})`
}

export function formatRate(bytesPerSecond: number): string {
  return `${formatBytes(bytesPerSecond)}/s`
}

/** "45 s", "3 min 20 s", "2 h 5 min". */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds))
  if (s < 60) return `${s} s`
  const minutes = Math.floor(s / 60)
  if (minutes < 60) return s % 60 ? `${minutes} min ${s % 60} s` : `${minutes} min`
  const hours = Math.floor(minutes / 60)
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`
}

const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000

/** Where a deadline stands: "in 29 days", "in 5 hours", "overdue by 2 days". */
export function describeDeadline(
  dueIso: string,
  now: number,
): { text: string; overdue: boolean; days: number } {
  const ms = Date.parse(dueIso) - now
  if (!Number.isFinite(ms)) return { text: 'unknown', overdue: false, days: 0 }
  const abs = Math.abs(ms)
  const days = Math.ceil(abs / DAY_MS)
  let span: string
  if (abs < HOUR_MS) span = 'less than an hour'
  else if (abs < DAY_MS) {
    const hours = Math.round(abs / HOUR_MS)
    span = `${hours} hour${hours === 1 ? '' : 's'}`
  } else span = `${days} day${days === 1 ? '' : 's'}`
  return ms >= 0
    ? { text: `in ${span}`, overdue: false, days }
    : { text: `overdue by ${span}`, overdue: true, days: -days }
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
  if (!iso) return '—'
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return '—'
  return date.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' })
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—'
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return '—'
  return date.toLocaleString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  })
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
