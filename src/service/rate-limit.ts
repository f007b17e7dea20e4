// Per-key, per-pattern fixed one-minute windows, as in the spec's rate-limit table; and the same windows
// per client address for failed authentication (wrong API keys, heir, practice or guardian tokens), which
// refuse further wrong credentials but never a valid key (AuthFailureLimiter).
// The windows are counted in this process's memory (one instance, the SQLite default) or in the
// database's rate_windows table, so that instances sharing one PostgreSQL share one limit.
import { RATE_LIMITS_PER_MINUTE, type RateLimitPattern } from '../shared/api'
import type { SqlStore } from './sql-store'

/**
 * Per-pattern overrides of the spec's per-minute limits, plus `authFailures` (failed authentications per
 * client address and minute, default AUTH_FAILURES_PER_MINUTE); false turns every limit off.
 */
export type RateLimitSettings = Partial<Record<RateLimitPattern | 'authFailures', number>> | false

/** Where the windows are counted: this instance's memory, or the database all instances share. */
export type RateCounterKind = 'memory' | 'database'

const WINDOW_MS = 60_000

/**
 * A client that sends this many unknown credentials in a minute has further unknown ones refused until the
 * minute is over. Above the app's own polling budget (30 requests a minute), so an app left with a revoked
 * key is told 401, not made to wait; far below what guessing would need (tokens carry 256 bits).
 */
export const AUTH_FAILURES_PER_MINUTE = 60

export type RateDecision =
  | { allowed: true; limit: number; remaining: number }
  | { allowed: false; limit: number; retryAfterSeconds: number }

/** An id's count in its current window and the whole seconds until that window ends (at least 1). */
export interface WindowCount {
  count: number
  secondsLeft: number
}

/** Counts events per id in fixed one-minute windows. */
export interface RateCounter {
  /** Counts one more event for the id; returns the window's count with it. */
  add(id: string): Promise<WindowCount>
  /** The id's count so far in the current window, without counting. */
  peek(id: string): Promise<WindowCount>
}

/** Whole seconds from now until a window that started at `start` ends (at least 1). */
function secondsLeft(start: number, now: number): number {
  return Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000))
}

/** Windows in this process's memory; each starts at the id's first event after the last one ended. */
export class MemoryRateCounter implements RateCounter {
  private readonly windows = new Map<string, { start: number; count: number }>()

  constructor(private readonly now: () => number) {}

  async add(id: string): Promise<WindowCount> {
    const now = this.now()
    const window = this.current(id, now)
    window.count++
    return { count: window.count, secondsLeft: secondsLeft(window.start, now) }
  }

  async peek(id: string): Promise<WindowCount> {
    const now = this.now()
    const window = this.current(id, now)
    return { count: window.count, secondsLeft: secondsLeft(window.start, now) }
  }

  /** The id's window at this moment (a fresh one once the last has ended, or the clock went back). */
  private current(id: string, now: number): { start: number; count: number } {
    let window = this.windows.get(id)
    if (!window || now - window.start >= WINDOW_MS || now < window.start) {
      if (this.windows.size > 50_000) this.prune(now)
      window = { start: now, count: 0 }
      this.windows.set(id, window)
    }
    return window
  }

  private prune(now: number): void {
    for (const [id, window] of this.windows) if (now - window.start >= WINDOW_MS) this.windows.delete(id)
  }
}

/**
 * Windows in the database's rate_windows table, shared by every instance using it. Windows are aligned to
 * the clock's minutes, so instances agree on when one starts. `window_start` holds the minute's number
 * (milliseconds / 60 000), which fits a 32-bit INTEGER column on PostgreSQL as well.
 */
export class DatabaseRateCounter implements RateCounter {
  /** When this instance last deleted ended windows (once a minute is enough to keep the table small). */
  private lastSweep = Number.NEGATIVE_INFINITY

  /** `scope` keeps the ids of different limiters apart in the one table. */
  constructor(
    private readonly db: SqlStore,
    private readonly scope: string,
    private readonly now: () => number,
  ) {}

  async add(id: string): Promise<WindowCount> {
    const now = this.now()
    const minute = Math.floor(now / WINDOW_MS)
    await this.sweep(now, minute)
    // One statement: concurrent requests on any instance each get their own count, none is lost.
    const row = await this.db.get<{ count: number | string }>(
      `INSERT INTO rate_windows (id, window_start, count) VALUES (?, ?, 1)
       ON CONFLICT (id) DO UPDATE SET
         count = CASE WHEN rate_windows.window_start = excluded.window_start THEN rate_windows.count + 1 ELSE 1 END,
         window_start = excluded.window_start
       RETURNING count`,
      `${this.scope}:${id}`,
      minute,
    )
    if (!row) throw new Error('counting a rate-limit window returned no row; check the rate_windows table')
    return { count: Number(row.count), secondsLeft: secondsLeft(minute * WINDOW_MS, now) }
  }

  async peek(id: string): Promise<WindowCount> {
    const now = this.now()
    const minute = Math.floor(now / WINDOW_MS)
    const row = await this.db.get<{ window_start: number | string; count: number | string }>(
      'SELECT window_start, count FROM rate_windows WHERE id = ?',
      `${this.scope}:${id}`,
    )
    // A row from an earlier minute is a window that has ended: nothing counted yet in this one.
    const count = row && Number(row.window_start) === minute ? Number(row.count) : 0
    return { count, secondsLeft: secondsLeft(minute * WINDOW_MS, now) }
  }

  /** Deletes windows ended before the previous minute (kept one more, for instances whose clock lags). */
  private async sweep(now: number, minute: number): Promise<void> {
    if (now - this.lastSweep < WINDOW_MS && now >= this.lastSweep) return
    this.lastSweep = now
    await this.db.run('DELETE FROM rate_windows WHERE window_start < ?', minute - 1)
  }
}

/** A counter of the chosen kind; `scope` names the limiter in the shared table. */
export function rateCounter(
  kind: RateCounterKind,
  db: SqlStore,
  scope: string,
  now: () => number,
): RateCounter {
  return kind === 'database' ? new DatabaseRateCounter(db, scope, now) : new MemoryRateCounter(now)
}

export class RateLimiter {
  private readonly limits: Record<RateLimitPattern, number> | null

  constructor(
    settings: RateLimitSettings | undefined,
    private readonly counter: RateCounter,
  ) {
    this.limits = settings === false ? null : { ...RATE_LIMITS_PER_MINUTE, ...(settings ?? {}) }
  }

  /** Counts a request by the key and says whether it is within the pattern's limit. */
  async check(keyId: string, pattern: RateLimitPattern): Promise<RateDecision> {
    if (!this.limits)
      return { allowed: true, limit: Number.POSITIVE_INFINITY, remaining: Number.POSITIVE_INFINITY }
    const limit = this.limits[pattern]
    // Refused requests are counted too; they only push the count further past the limit, which
    // changes nothing until the window ends.
    const window = await this.counter.add(`${keyId}|${pattern}`)
    if (window.count > limit) return { allowed: false, limit, retryAfterSeconds: window.secondsLeft }
    return { allowed: true, limit, remaining: limit - window.count }
  }
}

/**
 * Slows down guessing of credentials. Failed authentications are counted per client address; once an
 * address has `limit` of them in a minute, each further unknown credential it presents is answered 429
 * (Retry-After: the rest of the minute) instead of 401 (or the pages' 404). The API and the guardian and
 * check-in pages look a presented key or token up first, so a valid one is never refused for failures: on
 * loopback every local program shares one address, and a stray or hostile process sending
 * wrong keys must not lock the owner's own app (and its check-ins) out. That a valid key still passes tells
 * a guesser nothing usable: keys and tokens carry 256 random bits, so no number of guesses finds one.
 */
export class AuthFailureLimiter {
  private readonly limit: number | null

  constructor(
    settings: RateLimitSettings | undefined,
    private readonly counter: RateCounter,
  ) {
    this.limit = settings === false ? null : (settings?.authFailures ?? AUTH_FAILURES_PER_MINUTE)
  }

  /** Null while the address may try; else how long it must wait (used before a token is looked up). */
  async refusal(address: string): Promise<{ limit: number; retryAfterSeconds: number } | null> {
    if (this.limit === null) return null
    const window = await this.counter.peek(address)
    if (window.count < this.limit) return null
    return { limit: this.limit, retryAfterSeconds: window.secondsLeft }
  }

  /**
   * Counts a credential that matched nothing (unknown, mistyped or revoked) and returns the refusal when
   * this failure is past the address's limit (null: answer it as a plain failed authentication). Never
   * rejects: the caller is already answering the failed authentication, and a counter that could not be
   * written must not turn that answer into an error (it is logged instead).
   */
  async recordFailure(address: string): Promise<{ limit: number; retryAfterSeconds: number } | null> {
    if (this.limit === null) return null
    try {
      const window = await this.counter.add(address)
      return window.count > this.limit ? { limit: this.limit, retryAfterSeconds: window.secondsLeft } : null
    } catch (error) {
      console.error('[vault-service] could not count a failed authentication:', error)
      return null
    }
  }

  /** The 429 message for a refused address. */
  static message(refusal: { limit: number; retryAfterSeconds: number }): string {
    return `too many failed authentications from this address (${refusal.limit} in a minute); check the key or link and retry after ${refusal.retryAfterSeconds} s`
  }
}
