// Deadlines, periods and expiries count whole days of 24 hours.
export const DAY_MS = 86_400_000

/** The ISO time `days` days after `iso`. */
export const addDays = (iso: string, days: number): string =>
  new Date(Date.parse(iso) + days * DAY_MS).toISOString()
