// Client-side pacing: keeps one API key under the service's per-pattern, per-minute limits so a
// busy app (uploads of a big folder, polling many vaults) waits locally instead of collecting 429s.
import { RATE_LIMITS_PER_MINUTE, type RateLimitPattern } from '../shared/api'

export interface PacerClock {
  now(): number
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

export const realPacerClock: PacerClock = {
  now: () => Date.now(),
  sleep: (ms, signal) => abortableSleep(ms, signal),
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error('aborted'))
      return
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason ?? new Error('aborted'))
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** Which rate-limit bucket of the spec a request falls in (path without prefix, e.g. /vault/v1/asset). */
export function rateLimitPattern(method: string, path: string): RateLimitPattern {
  const m = method.toUpperCase()
  if (m === 'GET') return 'getVault'
  const parts = path.split('?')[0]!.split('/').filter(Boolean)
  // parts: ['vault', ':id', 'asset'] ...
  if (m === 'POST' && parts[0] === 'vault' && parts.length >= 3) {
    if (parts[2] === 'asset' && parts.length === 3) return 'postAsset'
    if (parts[2] === 'release') return 'postRelease'
    if (parts[2] === 'guardian' && parts.length === 3) return 'postGuardian'
    if (parts[2] === 'heir' && parts.length === 3) return 'postHeir'
  }
  return 'otherPost'
}

export interface RequestPacerOptions {
  /** Fraction of each limit the client allows itself (headroom for other clients of the same key). */
  share?: number
  limits?: Partial<Record<RateLimitPattern, number>>
  windowMs?: number
  clock?: PacerClock
}

/** Sliding one-minute window per pattern. One pacer per API key. */
export class RequestPacer {
  readonly #limits: Record<RateLimitPattern, number>
  readonly #windowMs: number
  readonly #clock: PacerClock
  readonly #sent = new Map<RateLimitPattern, number[]>()
  // Serialises waiters per pattern so they are admitted in order.
  readonly #tails = new Map<RateLimitPattern, Promise<void>>()

  constructor(options: RequestPacerOptions = {}) {
    const share = options.share ?? 0.9
    const limits = { ...RATE_LIMITS_PER_MINUTE, ...options.limits }
    this.#limits = Object.fromEntries(
      Object.entries(limits).map(([k, v]) => [k, Math.max(1, Math.floor(v * share))]),
    ) as Record<RateLimitPattern, number>
    this.#windowMs = options.windowMs ?? 60_000
    this.#clock = options.clock ?? realPacerClock
  }

  limit(pattern: RateLimitPattern): number {
    return this.#limits[pattern]
  }

  /** Requests of this pattern still allowed right now without waiting. */
  available(pattern: RateLimitPattern): number {
    return this.#limits[pattern] - this.#recent(pattern).length
  }

  /** Resolves when a request of this pattern may be sent, and counts it as sent. */
  acquire(pattern: RateLimitPattern, signal?: AbortSignal): Promise<void> {
    const previous = this.#tails.get(pattern) ?? Promise.resolve()
    const mine = previous.catch(() => undefined).then(() => this.#admit(pattern, signal))
    this.#tails.set(
      pattern,
      mine.catch(() => undefined),
    )
    return mine
  }

  async #admit(pattern: RateLimitPattern, signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted()
      const recent = this.#recent(pattern)
      if (recent.length < this.#limits[pattern]) {
        recent.push(this.#clock.now())
        return
      }
      const waitMs = recent[0]! + this.#windowMs - this.#clock.now() + 1
      await this.#clock.sleep(Math.max(1, waitMs), signal)
    }
  }

  #recent(pattern: RateLimitPattern): number[] {
    const cutoff = this.#clock.now() - this.#windowMs
    let list = this.#sent.get(pattern)
    if (!list) {
      list = []
      this.#sent.set(pattern, list)
    }
    while (list.length > 0 && list[0]! <= cutoff) list.shift()
    return list
  }
}
