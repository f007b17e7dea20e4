import { describe, expect, it } from 'vitest'
import { RequestPacer, rateLimitPattern } from '../../src/service-client/request-pacer'
import { RATE_LIMITS_PER_MINUTE } from '../../src/shared/api'

function fakeClock() {
  let now = 1_000_000
  const sleeps: number[] = []
  return {
    sleeps,
    now: () => now,
    sleep: async (ms: number, signal?: AbortSignal) => {
      signal?.throwIfAborted()
      sleeps.push(ms)
      now += ms
    },
  }
}

describe('request pacer', () => {
  it('maps requests to the spec rate-limit patterns', () => {
    expect(rateLimitPattern('GET', '/vault')).toBe('getVault')
    expect(rateLimitPattern('GET', '/vault/v1/asset?limit=5')).toBe('getVault')
    expect(rateLimitPattern('POST', '/vault/v1/asset')).toBe('postAsset')
    expect(rateLimitPattern('POST', '/vault/v1/release/checkin')).toBe('postRelease')
    expect(rateLimitPattern('POST', '/vault/v1/release/config')).toBe('postRelease')
    expect(rateLimitPattern('POST', '/vault/v1/guardian')).toBe('postGuardian')
    expect(rateLimitPattern('POST', '/vault/v1/heir')).toBe('postHeir')
    expect(rateLimitPattern('DELETE', '/vault/v1/heir/h1')).toBe('otherPost')
    expect(rateLimitPattern('POST', '/vault')).toBe('otherPost')
  })

  it('keeps each pattern under its per-minute limit with headroom', async () => {
    const clock = fakeClock()
    const pacer = new RequestPacer({ clock })
    expect(pacer.limit('postRelease')).toBe(Math.floor(RATE_LIMITS_PER_MINUTE.postRelease * 0.9))
    const start = clock.now()
    const admitted: number[] = []
    for (let i = 0; i < 20; i++) {
      await pacer.acquire('postRelease')
      admitted.push(clock.now() - start)
    }
    // No 60 s window ever holds more than the limit.
    for (let i = 0; i < admitted.length; i++) {
      const inWindow = admitted.filter((t) => t >= admitted[i]! && t < admitted[i]! + 60_000).length
      expect(inWindow).toBeLessThanOrEqual(pacer.limit('postRelease'))
    }
    expect(admitted.slice(0, 9).every((t) => t === 0)).toBe(true)
    expect(admitted[9]).toBeGreaterThan(60_000)
    // Other patterns are not held back by this one.
    expect(pacer.available('getVault')).toBe(pacer.limit('getVault'))
  })

  it('stops waiting when the caller aborts', async () => {
    const clock = fakeClock()
    const pacer = new RequestPacer({ clock, limits: { postHeir: 1 }, share: 1 })
    await pacer.acquire('postHeir')
    const controller = new AbortController()
    controller.abort(new Error('cancelled by the user'))
    await expect(pacer.acquire('postHeir', controller.signal)).rejects.toThrow('cancelled by the user')
    // The pacer keeps working afterwards.
    await pacer.acquire('postHeir')
    expect(clock.sleeps.length).toBeGreaterThan(0)
  })
})
