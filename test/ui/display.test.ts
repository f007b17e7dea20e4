// Pure renderer logic: how sizes, money, deadlines, runway and errors read.
import { describe, expect, it } from 'vitest'
import { errorView } from '../../src/renderer/display/error-text'
import { runway } from '../../src/renderer/display/runway'
import {
  daysLeftToCancel,
  describeDeadline,
  formatBytes,
  formatCredits,
  formatDuration,
  plaintextBytes,
} from '../../src/renderer/display/units'
import { writeAccess } from '../../src/renderer/display/write-access'
import { AppError } from '../../src/shared/app-error'
import type { ConnectionStatus } from '../../src/shared/ipc/vault-types'
import { encryptedLength } from '../../src/vault-format'

const DAY = 86_400_000

describe('sizes, money and durations', () => {
  it('formats bytes in decimal units with sensible precision', () => {
    expect(formatBytes(0)).toBe('0 B')
    expect(formatBytes(999)).toBe('999 B')
    expect(formatBytes(20_000)).toBe('20.0 kB')
    expect(formatBytes(1_234_567)).toBe('1.23 MB')
    expect(formatBytes(5_000_000_000)).toBe('5.00 GB')
    expect(formatBytes(-1)).toBe('—')
  })

  it('shows credits with dollars', () => {
    expect(formatCredits(100)).toBe('100 credits ($1.00)')
    expect(formatCredits(1)).toBe('1 credit ($0.01)')
    expect(formatCredits(12_345)).toBe('12,345 credits ($123.45)')
  })

  it('formats durations for ETAs', () => {
    // Intl's short units for the test's locale (English: no navigator in Node).
    expect(formatDuration(42)).toBe('42 sec')
    expect(formatDuration(200)).toBe('3 min 20 sec')
    expect(formatDuration(7_500)).toBe('2 hr 5 min')
  })

  it('recovers the original size from the encrypted size for every chunk boundary', () => {
    for (const size of [0, 1, 16_383, 16_384, 16_385, 32_768, 1_000_000, 5_000_000_000]) {
      expect(plaintextBytes(encryptedLength(size))).toBe(size)
    }
    expect(plaintextBytes(10)).toBeNull()
  })
})

describe('deadlines and the release countdown', () => {
  const now = Date.parse('2026-01-01T12:00:00Z')
  it('describes time until and past a deadline', () => {
    expect(describeDeadline(new Date(now + 29.5 * DAY).toISOString(), now)).toMatchObject({
      text: 'in 30 days',
      overdue: false,
    })
    expect(describeDeadline(new Date(now + 5 * 3_600_000).toISOString(), now).text).toBe('in 5 hours')
    expect(describeDeadline(new Date(now - 2 * DAY).toISOString(), now)).toMatchObject({
      text: 'overdue by 2 days',
      overdue: true,
    })
  })

  it('counts days left to cancel from the service end, else 30 days from the start', () => {
    const started = new Date(now - 3 * DAY).toISOString()
    expect(daysLeftToCancel({ releaseStartedAt: started, contestationEndsAt: null }, now)).toBe(27)
    const ends = new Date(now + 10 * DAY - 1000).toISOString()
    expect(daysLeftToCancel({ releaseStartedAt: started, contestationEndsAt: ends }, now)).toBe(10)
    expect(
      daysLeftToCancel(
        { releaseStartedAt: null, contestationEndsAt: new Date(now - DAY).toISOString() },
        now,
      ),
    ).toBe(0)
  })
})

describe('runway', () => {
  it('counts check-ins and the storage the balance buys', () => {
    const r = runway(100, 'monthly')
    expect(r.checkIns).toBe(50)
    expect(r.days).toBe(1500)
    expect(r.text).toBe('50 check-ins (about 4 years of monthly check-ins)')
    expect(r.storageBytes).toBe(Math.floor(100 / (4650 / 1e9)))
    expect(runway(1, null).text).toBe('not enough for a single check-in')
    expect(runway(10, null)).toMatchObject({ checkIns: 5, days: null, text: '5 check-ins' })
  })
})

describe('errors as the user sees them', () => {
  it('402 carries what is needed and the balance', () => {
    const view = errorView(
      AppError.fromData({
        code: 'INSUFFICIENT_CREDITS',
        status: 402,
        message: 'A check-in costs 2 credits.',
        details: { creditsNeeded: 2, creditsBalance: 1 },
      }),
    )
    expect(view.credits).toEqual({ needed: 2, balance: 1 })
    expect(view.reconnect).toBe(false)
  })
  it('429 gives a retry countdown and 401 offers to reconnect', () => {
    expect(
      errorView(
        AppError.fromData({ code: 'RATE_LIMITED', status: 429, message: 'slow', retryAfterSeconds: 7 }),
      ).retryAfterSeconds,
    ).toBe(7)
    expect(errorView(AppError.fromData({ code: 'UNAUTHORIZED', message: 'no' })).reconnect).toBe(true)
    expect(errorView(new Error('plain')).message).toBe('plain')
  })
})

describe('write access', () => {
  const status = (keyKind: 'human' | 'agent'): ConnectionStatus => {
    const active = {
      id: 'c',
      serviceUrl: 'https://vault.example.com',
      label: 'vault.example.com',
      keyKind,
      keyLast4: 'ab12',
      keyStore: 'keychain' as const,
      addedAt: '2026-01-01T00:00:00Z',
      active: true,
      local: false,
      keyMissing: false,
    }
    return {
      connections: [active],
      active,
      secretStore: 'keychain',
      localService: { running: false, url: null },
      keyStorage: { kind: 'keychain', durable: true, description: 'in the keychain' },
      service: null,
    }
  }
  it('an owner key may write; an agent key may not, and the reason says so', () => {
    expect(writeAccess(status('human'))).toEqual({ canWrite: true, reason: null })
    const agent = writeAccess(status('agent'))
    expect(agent.canWrite).toBe(false)
    expect(agent.reason).toContain('This key can read and check in only')
    expect(agent.reason).toContain('ab12')
    expect(writeAccess(undefined).canWrite).toBe(false)
  })
})

describe('the pace of a drop being received', () => {
  it('says nothing for the first second, then a rate and the time left from the whole drop so far', async () => {
    const { paceOf } = await import(`../../src/renderer/stores/file-intake-store${''}`)
    const progress = { sentBytes: 50_000_000, totalBytes: 200_000_000, sentFiles: 0, totalFiles: 1 }
    expect(paceOf(progress, 500)).toEqual({ bytesPerSecond: null, etaSeconds: null })
    expect(paceOf({ ...progress, sentBytes: 0 }, 5000)).toEqual({ bytesPerSecond: null, etaSeconds: null })
    expect(paceOf(progress, 2000)).toEqual({ bytesPerSecond: 25_000_000, etaSeconds: 6 })
  })
})
