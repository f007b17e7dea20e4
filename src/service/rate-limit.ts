// Per-key, per-pattern fixed one-minute windows, as in the spec's rate-limit table.
import { RATE_LIMITS_PER_MINUTE, type RateLimitPattern } from '../shared/api'

export type RateLimitSettings = Partial<Record<RateLimitPattern, number>> | false

const WINDOW_MS = 60_000

export type RateDecision =
  | { allowed: true; limit: number; remaining: number }
  | { allowed: false; limit: number; retryAfterSeconds: number }

export class RateLimiter {
  private readonly limits: Record<RateLimitPattern, number> | null
  private readonly windows = new Map<string, { start: number; count: number }>()

  constructor(
    settings: RateLimitSettings | undefined,
    private readonly now: () => number,
  ) {
    this.limits = settings === false ? null : { ...RATE_LIMITS_PER_MINUTE, ...(settings ?? {}) }
  }

  check(keyId: string, pattern: RateLimitPattern): RateDecision {
    if (!this.limits)
      return { allowed: true, limit: Number.POSITIVE_INFINITY, remaining: Number.POSITIVE_INFINITY }
    const limit = this.limits[pattern]
    const now = this.now()
    const id = `${keyId}|${pattern}`
    let window = this.windows.get(id)
    if (!window || now - window.start >= WINDOW_MS || now < window.start) {
      if (this.windows.size > 50_000) this.prune(now)
      window = { start: now, count: 0 }
      this.windows.set(id, window)
    }
    if (window.count >= limit) {
      return {
        allowed: false,
        limit,
        retryAfterSeconds: Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000)),
      }
    }
    window.count++
    return { allowed: true, limit, remaining: limit - window.count }
  }

  private prune(now: number): void {
    for (const [id, window] of this.windows) if (now - window.start >= WINDOW_MS) this.windows.delete(id)
  }
}
