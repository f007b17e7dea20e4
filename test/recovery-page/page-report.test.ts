// The report's headline: green "all recovered" only when the recovery tool would exit 0 for the same
// run; a copy newer than the vault's list, rival lists, a list lost or withheld, or a file written from
// an older copy make it a warning, in both languages.
import { describe, expect, it } from 'vitest'
import type { PageFileResult, PageRun } from '../../src/recovery-page/page-recovery'
import { reportHeadline } from '../../src/recovery-page/page-report'
import { PAGE_TEXT } from '../../src/recovery-page/page-text'

const t = PAGE_TEXT.en
const line = (output: string, status: PageFileResult['status'], more: Partial<PageFileResult> = {}) =>
  ({ label: `${output}.vault`, output, status, ...more }) as PageFileResult
const listed = { sequence: 3, writtenAtMs: 1000, listed: 2, inputs: ['0'], older: 0, rivals: [] }
const run = (results: PageFileResult[], more: Partial<PageRun> = {}): PageRun => ({
  results,
  manifest: listed,
  manifestExpected: false,
  ...more,
})
const recovered = [line('a.txt', 'recovered'), line('b.txt', 'recovered')]

describe('the report’s headline', () => {
  it('a copy newer than the vault’s list counts as not recovered (older copies left out do not count)', () => {
    expect(reportHeadline(run([...recovered, line('a.txt', 'superseded')]), t)).toEqual({
      ok: true,
      text: t.allRecovered(2),
    })
    expect(reportHeadline(run([...recovered, line('late.txt', 'newer')]), t)).toEqual({
      ok: false,
      text: t.someRecovered(2, 3),
    })
    // Only newer copies: not "nothing could be opened", the kits opened them.
    expect(reportHeadline(run([line('late.txt', 'newer')], { manifest: null }), t).text).toBe(
      t.someRecovered(0, 1),
    )
  })

  it('rival lists, a list lost or withheld, or a file from an older copy: a warning, not green', () => {
    // Old files without a list, none expected: green; a key that opened nothing: said so.
    expect(reportHeadline(run(recovered, { manifest: null }), t).ok).toBe(true)
    expect(reportHeadline(run([line('a.txt', 'damaged')], { manifest: null }), t)).toEqual({
      ok: false,
      text: t.nothingFound,
    })
    const warning = { ok: false, text: t.recoveredWithWarnings(2) }
    expect(reportHeadline(run(recovered, { manifest: { ...listed, rivals: ['1'] } }), t)).toEqual(warning)
    expect(reportHeadline(run(recovered, { manifest: null, manifestExpected: true }), t)).toEqual(warning)
    const older = [recovered[0]!, line('b.txt', 'recovered', { olderCopy: true })]
    expect(reportHeadline(run(older, { manifest: null }), t)).toEqual(warning)
    expect(reportHeadline(run(older, { manifest: null }), PAGE_TEXT.es).text).toBe(
      PAGE_TEXT.es.recoveredWithWarnings(2),
    )
  })
})
