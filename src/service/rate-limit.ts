// Per-key, per-pattern fixed one-minute windows, as in the spec's rate-limit table; and the same windows
// per client address for failed authentication (wrong API keys, heir, practice or guardian tokens).
import { RATE_LIMITS_PER_MINUTE, type RateLimitPattern } from '../shared/api'

/**
 * Per-pattern overrides of the spec's per-minute limits, plus `authFailures` (failed authentications per
 * client address and minute, default AUTH_FAILURES_PER_MINUTE); false turns every limit off.
 */
export type RateLimitSettings = Partial<Record<RateLimitPattern | 'authFailures', number>> | false

const WINDOW_MS = 60_000

/**
 * A client that sends this many unknown credentials in a minute is refused until the minute is over. Above
 * the app's own polling budget (30 requests a minute), so an app left with a revoked key does not get the
 * other users of its address refused; far below what guessing would need (tokens carry 256 bits).
 */
export const AUTH_FAILURES_PER_MINUTE = 60

export type RateDecision =
  | { allowed: true; limit: number; remaining: number }
  | { allowed: false; limit: number; retryAfterSeconds: number }

/** Counters in fixed one-minute windows, one per id. */
class FixedWindows {
  private readonly windows = new Map<string, { start: number; count: number }>()

  constructor(private readonly now: () => number) {}

  /** The id's window at this moment (a fresh one once the last has ended, or the clock went back). */
  current(id: string): { start: number; count: number } {
    const now = this.now()
    let window = this.windows.get(id)
    if (!window || now - window.start >= WINDOW_MS || now < window.start) {
      if (this.windows.size > 50_000) this.prune(now)
      window = { start: now, count: 0 }
      this.windows.set(id, window)
    }
    return window
  }

  /** Whole seconds until the window ends (at least 1). */
  secondsLeft(window: { start: number }): number {
    return Math.max(1, Math.ceil((window.start + WINDOW_MS - this.now()) / 1000))
  }

  private prune(now: number): void {
    for (const [id, window] of this.windows) if (now - window.start >= WINDOW_MS) this.windows.delete(id)
  }
}

export class RateLimiter {
  private readonly limits: Record<RateLimitPattern, number> | null
  private readonly windows: FixedWindows

  constructor(settings: RateLimitSettings | undefined, now: () => number) {
    this.limits = settings === false ? null : { ...RATE_LIMITS_PER_MINUTE, ...(settings ?? {}) }
    this.windows = new FixedWindows(now)
  }

  check(keyId: string, pattern: RateLimitPattern): RateDecision {
    if (!this.limits)
      return { allowed: true, limit: Number.POSITIVE_INFINITY, remaining: Number.POSITIVE_INFINITY }
    const limit = this.limits[pattern]
    const window = this.windows.current(`${keyId}|${pattern}`)
    if (window.count >= limit) {
      return { allowed: false, limit, retryAfterSeconds: this.windows.secondsLeft(window) }
    }
    window.count++
    return { allowed: true, limit, remaining: limit - window.count }
  }
}

/**
 * Slows down guessing of credentials: after `limit` failed authentications from one client address in a
 * minute, every request from that address that presents a credential is refused (429) until the minute
 * ends, a correct one included (otherwise the refusal itself would tell a guess apart from a hit).
 * Clients at other addresses are not affected.
 */
export class AuthFailureLimiter {
  private readonly limit: number | null
  private readonly windows: FixedWindows

  constructor(settings: RateLimitSettings | undefined, now: () => number) {
    this.limit = settings === false ? null : (settings?.authFailures ?? AUTH_FAILURES_PER_MINUTE)
    this.windows = new FixedWindows(now)
  }

  /** Null while the address may try; else how long it must wait. */
  refusal(address: string): { limit: number; retryAfterSeconds: number } | null {
    if (this.limit === null) return null
    const window = this.windows.current(address)
    if (window.count < this.limit) return null
    return { limit: this.limit, retryAfterSeconds: this.windows.secondsLeft(window) }
  }

  /** Counts a credential that matched nothing (unknown, mistyped or revoked). */
  recordFailure(address: string): void {
    if (this.limit !== null) this.windows.current(address).count++
  }

  /** The 429 message for a refused address. */
  static message(refusal: { limit: number; retryAfterSeconds: number }): string {
    return `too many failed authentications from this address (${refusal.limit} in a minute); check the key or link and retry after ${refusal.retryAfterSeconds} s`
  }
}
