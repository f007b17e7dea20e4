// The pure rules behind the owner's everyday window: notices (how long, how many, finished backups
// folded, pause on hover or focus), an upload's fit against the balance and a retry's estimate, and
// where a started release stands.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { releaseProgress } from '../../src/renderer/display/release-text'
import {
  AFTER_PAUSE_MS,
  addNotice,
  DismissTimers,
  MAX_TOASTS,
  type NoticeInput,
  readingMs,
  staysUntilDismissed,
  type Toast,
} from '../../src/renderer/stores/notice-queue'
import {
  creditsToAdd,
  needsConfirmation,
  retryEstimate,
  uploadFit,
} from '../../src/renderer/stores/upload-cost'
import type { UploadEstimateView, UploadItemView } from '../../src/shared/ipc/vault-types'

function add(toasts: Toast[], ...notices: NoticeInput[]): Toast[] {
  let id = toasts.reduce((max, t) => Math.max(max, t.id), 0)
  return notices.reduce((list, n) => addNotice(list, n, ++id), toasts)
}

describe('notices', () => {
  it('stay long enough to read, longer for longer text, within bounds', () => {
    const short = readingMs({ title: 'Checked in', body: 'Due in 7 days.', lines: [] })
    const long = readingMs({ title: 'Backup finished', body: 'x'.repeat(200), lines: [] })
    expect(short).toBe(8_000)
    expect(long).toBeGreaterThan(short)
    expect(readingMs({ body: 'x'.repeat(5_000), lines: [] })).toBe(20_000)
  })

  it('the release alarm and problems needing action stay; the rest go by themselves', () => {
    expect(staysUntilDismissed('releasing')).toBe(true)
    expect(staysUntilDismissed('upload-failed')).toBe(true)
    expect(staysUntilDismissed('credits-low')).toBe(true)
    expect(staysUntilDismissed('error')).toBe(true)
    expect(staysUntilDismissed('upload-done')).toBe(false)
    expect(staysUntilDismissed('reminder')).toBe(false)
    expect(staysUntilDismissed('info')).toBe(false)
  })

  it('finished backups of one vault fold into one notice; the same batch told twice is one line', () => {
    const done = (body: string, vaultId = 'v1'): NoticeInput => ({
      kind: 'upload-done',
      title: 'Backup finished',
      body,
      vaultId,
    })
    const list = add(
      [],
      done('Family: 2 files stored.'),
      done('Family: 2 files stored.'),
      done('Family: 1 file stored.'),
    )
    expect(list).toHaveLength(1)
    expect(list[0]!.lines).toEqual(['Family: 2 files stored.', 'Family: 1 file stored.'])
    // Another vault's backup is its own notice.
    expect(add(list, done('Work: 3 files stored.', 'v2'))).toHaveLength(2)
  })

  it('stacks at most a few: the oldest passing notice goes first, the release alarm never', () => {
    const alarm: NoticeInput = { kind: 'releasing', title: 'Releasing', body: 'Cancel it', vaultId: 'v1' }
    const failed: NoticeInput = { kind: 'upload-failed', title: 'Failed', body: 'Retry' }
    const info = (n: number): NoticeInput => ({ kind: 'info', body: `note ${n}` })
    const list = add([], alarm, info(1), failed, info(2), info(3))
    expect(list).toHaveLength(MAX_TOASTS)
    expect(list.map((t) => t.body)).toEqual(['Cancel it', 'Retry', 'note 3'])
    // Only notices that stay: the newest still shows, the alarm is kept, the oldest other goes.
    const stuck = add(
      [],
      alarm,
      failed,
      { ...failed, body: 'Retry 2' },
      { kind: 'error', body: 'Check-in failed' },
    )
    expect(stuck.map((t) => t.body)).toEqual(['Cancel it', 'Retry 2', 'Check-in failed'])
  })

  it('an identical notice replaces the one shown instead of stacking', () => {
    const reminder: NoticeInput = {
      kind: 'reminder',
      title: 'Check in',
      body: 'Due in 3 days',
      vaultId: 'v1',
    }
    const list = add([], reminder, reminder)
    expect(list).toHaveLength(1)
  })
})

describe('notice timers', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('go after their reading time, not while paused, and get a moment after the pause', () => {
    const gone: number[] = []
    const timers = new DismissTimers((id) => gone.push(id))
    const toasts = add([], { kind: 'info', body: 'Saved.' }, { kind: 'releasing', body: 'Cancel it' })
    timers.sync(toasts)
    const time = readingMs(toasts[0]!)
    vi.advanceTimersByTime(time - 1_000)
    timers.pause()
    vi.advanceTimersByTime(60_000)
    expect(gone).toEqual([])
    timers.resume()
    // 1 s was left, but the owner just moved away: the notice stays a little longer than that.
    vi.advanceTimersByTime(AFTER_PAUSE_MS - 1)
    expect(gone).toEqual([])
    vi.advanceTimersByTime(1)
    expect(gone).toEqual([toasts[0]!.id])
    // The release alarm never goes by itself.
    vi.advanceTimersByTime(10 * 60_000)
    expect(gone).toEqual([toasts[0]!.id])
  })

  it('a notice dismissed by hand loses its timer; one arriving while paused waits for the resume', () => {
    const gone: number[] = []
    const timers = new DismissTimers((id) => gone.push(id))
    const first = add([], { kind: 'info', body: 'one' })
    timers.sync(first)
    timers.sync([])
    vi.advanceTimersByTime(30_000)
    expect(gone).toEqual([])
    timers.pause()
    const second = add(first, { kind: 'info', body: 'two' }).slice(1)
    timers.sync(second)
    vi.advanceTimersByTime(30_000)
    expect(gone).toEqual([])
    timers.resume()
    vi.advanceTimersByTime(readingMs(second[0]!))
    expect(gone).toEqual([second[0]!.id])
  })
})

const estimate = (over: Partial<UploadEstimateView>): UploadEstimateView => ({
  vaultId: 'v1',
  files: 1,
  plaintextBytes: 25_000_000,
  encryptedBytes: 25_030_000,
  credits: 117,
  dollars: '$1.17',
  balanceCredits: 100,
  enough: false,
  reserveCredits: 0,
  reserveMonths: 0,
  eatsReserve: false,
  tooLarge: [],
  skipped: [],
  bundles: 0,
  bundledFiles: 0,
  creditsWithoutBundles: 117,
  ...over,
})

describe('upload cost', () => {
  it('nothing fits: one upload over the balance, or no credits at all', () => {
    expect(uploadFit(estimate({}))).toBe('none')
    expect(uploadFit(estimate({ files: 3, credits: 3, balanceCredits: 0 }))).toBe('none')
    // Three small files in one bundle are one upload.
    expect(
      uploadFit(estimate({ files: 3, bundles: 1, bundledFiles: 3, credits: 5, balanceCredits: 4 })),
    ).toBe('none')
  })

  it('some fit when the balance pays for the average upload; otherwise it cannot be told', () => {
    expect(uploadFit(estimate({ files: 2, credits: 118, balanceCredits: 100 }))).toBe('some')
    expect(uploadFit(estimate({ files: 2, credits: 234, balanceCredits: 100 }))).toBe('unknown')
    expect(uploadFit(estimate({ enough: true, credits: 10 }))).toBe('all')
  })

  it('with the cheapest upload known, some fit exactly when the balance pays for it', () => {
    // Two files: 234 credits in all, the cheaper one 24: it fits a balance of 100.
    expect(
      uploadFit(estimate({ files: 2, credits: 234, balanceCredits: 100, cheapestUploadCredits: 24 })),
    ).toBe('some')
    // The cheaper of two costs 110: nothing fits 100, though the totals could not tell.
    expect(
      uploadFit(estimate({ files: 2, credits: 230, balanceCredits: 100, cheapestUploadCredits: 110 })),
    ).toBe('none')
  })

  it('says how many credits to add, with and without the check-in reserve', () => {
    expect(creditsToAdd(estimate({ reserveCredits: 54 }))).toEqual({ needed: 17, withReserve: 71 })
  })

  it('asks above the threshold, over the balance, into the reserve or with files left out', () => {
    const fine = estimate({ enough: true, credits: 10, balanceCredits: 100 })
    expect(needsConfirmation(fine, 50)).toBe(false)
    expect(needsConfirmation(fine, 0)).toBe(true)
    expect(needsConfirmation({ ...fine, eatsReserve: true }, 50)).toBe(true)
    expect(needsConfirmation({ ...fine, tooLarge: ['huge.iso'] }, 50)).toBe(true)
    expect(needsConfirmation(estimate({}), 1_000)).toBe(true)
  })

  it("a retry's estimate: the item's own cost, the balance, and the reserve of a dead man's switch", () => {
    const item: UploadItemView = {
      id: 'i1',
      batchId: 'b1',
      vaultId: 'v1',
      relativePath: 'two/b.bin',
      state: 'cancelled',
      sizeBytes: 5_000_000,
      sentBytes: 0,
      createdAt: '2026-11-23T10:00:00Z',
      updatedAt: '2026-11-23T10:00:00Z',
    }
    const vault = { id: 'v1', creditsBalance: 30, releaseTrigger: null, checkInFrequency: null }
    const e = retryEstimate([item], vault, 12)
    expect(e).toMatchObject({ files: 1, credits: 24, balanceCredits: 30, enough: true, eatsReserve: false })
    expect(e.reserveCredits).toBe(0)
    // Known from the earlier attempt: that estimate is the cost.
    expect(
      retryEstimate([{ ...item, estimatedCredits: 25, encryptedBytes: 5_001_000 }], vault, 12).credits,
    ).toBe(25)
    // A file of a bundle goes up again on its own: at least 1 credit, not its share of the bundle.
    expect(
      retryEstimate([{ ...item, sizeBytes: 900, bundleId: 'x', estimatedCredits: 0 }], vault, 12).credits,
    ).toBe(1)
    const dms = { ...vault, releaseTrigger: 'dead_man_switch' as const, checkInFrequency: 'monthly' as const }
    const reserved = retryEstimate([item], dms, 12)
    expect(reserved.reserveCredits).toBe(26)
    expect(reserved.eatsReserve).toBe(true)
  })
})

describe('release progress', () => {
  const now = Date.parse('2026-11-23T12:00:00Z')
  const base = { releaseStartedAt: null, contestationEndsAt: null, releasedAt: null }

  it("releasing: started, heirs' access at the end of the period, whole days left rounded up", () => {
    const started = '2026-11-20T09:00:00.000Z'
    expect(releaseProgress({ ...base, state: 'releasing', releaseStartedAt: started }, now, 30)).toEqual({
      state: 'releasing',
      startedAt: started,
      accessAt: '2026-12-20T09:00:00.000Z',
      daysLeft: 27,
    })
    // The service's end of the period wins over the computed one.
    const ends = '2026-12-01T00:00:00.000Z'
    expect(
      releaseProgress(
        { ...base, state: 'releasing', releaseStartedAt: started, contestationEndsAt: ends },
        now,
        30,
      ),
    ).toMatchObject({ accessAt: ends, daysLeft: 8 })
  })

  it('released: when heirs were given access; active: nothing to say', () => {
    const at = '2026-12-20T09:00:00.000Z'
    expect(releaseProgress({ ...base, state: 'released', releasedAt: at }, now, 30)).toEqual({
      state: 'released',
      accessAt: at,
    })
    expect(
      releaseProgress({ ...base, state: 'released', releaseStartedAt: '2026-11-20T09:00:00.000Z' }, now, 30),
    ).toEqual({ state: 'released', accessAt: '2026-12-20T09:00:00.000Z' })
    expect(releaseProgress({ ...base, state: 'active' }, now, 30)).toBeNull()
  })
})
