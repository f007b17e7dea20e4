// How numbers, counts, dates and times read, for one locale: every user-facing format goes
// through here (Intl only), so the renderer, the main process and the service pages agree.
import { creditsToDollars } from './api'

/** The words of a countable thing, by CLDR plural category; `other` is required. */
export type PluralForms = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string }

export interface LocaleFormat {
  readonly locale: string
  /** 2,000 (grouped per locale). */
  number(value: number): string
  /** "1 file", "2,000 files": the number and the word in the right plural form. */
  count(value: number, forms: PluralForms): string
  /** Just the right form, for sentences that place the number themselves. */
  plural(value: number, forms: PluralForms): string
  /** "23 Nov 2026" in the locale's order. */
  date(value: string | number | Date | null | undefined): string
  /** "23 Nov 2026, 09:45". */
  dateTime(value: string | number | Date | null | undefined): string
  /** "in 3 days", "2 hours ago", "tomorrow". */
  relative(value: string | number | Date, now?: number): string
  /** "4.2 MB" (decimal units, as the service prices them). */
  bytes(value: number): string
  /** "94 credits ($0.94)". */
  credits(value: number, forms?: PluralForms): string
  /** "45 s", "3 min 20 s", "2 h 5 min". */
  duration(totalSeconds: number): string
  /** A list: "Ana, Ben and Chloe". */
  list(items: readonly string[]): string
}

const MISSING = '—'
const MINUTE_MS = 60_000
const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
const BYTE_UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const

function toDate(value: string | number | Date | null | undefined): Date | undefined {
  if (value === null || value === undefined || value === '') return undefined
  const date = value instanceof Date ? value : new Date(value)
  return Number.isNaN(date.getTime()) ? undefined : date
}

let naturalOrder: Intl.Collator | undefined
/**
 * Orders names as people expect (IMG_2 before IMG_10, case aside), whatever the language. The collator
 * is made on first use: its ICU data is ~8 MB of memory a process that sorts nothing need not hold.
 */
export function compareNaturally(a: string, b: string): number {
  naturalOrder ??= new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' })
  return naturalOrder.compare(a, b)
}

/** The locale asked for when Intl supports it, else English. */
/** The language this process runs in: in Node, what LC_ALL or LANG names ("und" when neither does). */
export function processLocale(): string {
  return new Intl.DateTimeFormat().resolvedOptions().locale
}

export function supportedLocale(wanted: string | undefined): string {
  if (!wanted) return 'en'
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([wanted])[0] ?? 'en'
  } catch {
    return 'en'
  }
}

export function localeFormat(wantedLocale?: string): LocaleFormat {
  const locale = supportedLocale(wantedLocale)
  const numbers = new Intl.NumberFormat(locale)
  const plurals = new Intl.PluralRules(locale)
  const dates = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric' })
  const dateTimes = new Intl.DateTimeFormat(locale, {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  })
  const relatives = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' })
  const lists = new Intl.ListFormat(locale, { type: 'conjunction' })
  const unitFormats = new Map<string, Intl.NumberFormat>()
  const unit = (name: string, digits: number, value: number) => {
    const key = `${name}:${digits}`
    let f = unitFormats.get(key)
    if (!f) {
      f = new Intl.NumberFormat(locale, {
        style: 'unit',
        unit: name,
        unitDisplay: 'short',
        maximumFractionDigits: digits,
        minimumFractionDigits: digits,
      })
      unitFormats.set(key, f)
    }
    return f.format(value)
  }
  const plural = (value: number, forms: PluralForms) => forms[plurals.select(value)] ?? forms.other

  return {
    locale,
    number: (value) => (Number.isFinite(value) ? numbers.format(value) : MISSING),
    count: (value, forms) => `${numbers.format(value)} ${plural(value, forms)}`,
    plural,
    date: (value) => {
      const d = toDate(value)
      return d ? dates.format(d) : MISSING
    },
    dateTime: (value) => {
      const d = toDate(value)
      return d ? dateTimes.format(d) : MISSING
    },
    relative: (value, now = Date.now()) => {
      const d = toDate(value)
      if (!d) return MISSING
      const ms = d.getTime() - now
      const abs = Math.abs(ms)
      if (abs < HOUR_MS) return relatives.format(Math.round(ms / MINUTE_MS), 'minute')
      if (abs < DAY_MS) return relatives.format(Math.round(ms / HOUR_MS), 'hour')
      // Whole days, rounded away from now, so "due in 1.2 days" never reads as "tomorrow" too early.
      const days = ms > 0 ? Math.ceil(ms / DAY_MS) : -Math.ceil(abs / DAY_MS)
      return relatives.format(days, 'day')
    },
    bytes: (value) => {
      if (!Number.isFinite(value) || value < 0) return MISSING
      let scaled = value
      let index = 0
      while (scaled >= 1000 && index < BYTE_UNITS.length - 1) {
        scaled /= 1000
        index++
      }
      // Intl has no short form for a single byte in every locale ("12 byte"): B reads everywhere.
      if (index === 0) return `${numbers.format(value)} B`
      const digits = scaled >= 100 ? 0 : scaled >= 10 ? 1 : 2
      return unit(BYTE_UNITS[index]!, digits, scaled)
    },
    credits: (value, forms = { one: 'credit', other: 'credits' }) =>
      `${numbers.format(value)} ${plural(value, forms)} (${creditsToDollars(value)})`,
    duration: (totalSeconds) => {
      const s = Math.max(0, Math.round(totalSeconds))
      if (s < 60) return unit('second', 0, s)
      const minutes = Math.floor(s / 60)
      if (minutes < 60) {
        return s % 60
          ? `${unit('minute', 0, minutes)} ${unit('second', 0, s % 60)}`
          : unit('minute', 0, minutes)
      }
      const hours = Math.floor(minutes / 60)
      return minutes % 60
        ? `${unit('hour', 0, hours)} ${unit('minute', 0, minutes % 60)}`
        : unit('hour', 0, hours)
    },
    list: (items) => lists.format(items),
  }
}
