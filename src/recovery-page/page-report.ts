// The report's headline, apart from the DOM so it can be tested. Green only when every file wanted
// was recovered and nothing casts doubt on them: the recovery tool exits 1 in the same cases (cli.ts,
// recover-files.ts runProblems), so the page must not call them a success.
import type { PageRun } from './page-recovery'
import type { PageText } from './page-text'

export interface ReportHeadline {
  ok: boolean
  text: string
}

export function reportHeadline(
  run: Pick<PageRun, 'results' | 'manifest' | 'manifestExpected'>,
  words: Pick<PageText, 'allRecovered' | 'someRecovered' | 'nothingFound' | 'recoveredWithWarnings'>,
): ReportHeadline {
  const r = run.results
  const recovered = r.filter((x) => x.status === 'recovered').length
  // An older copy left out is not a file wanted; a copy newer than the list is (a newer list may
  // have been withheld), so it counts as not recovered.
  const wanted = r.filter((x) => x.status !== 'superseded').length
  if (recovered === 0 && wanted > 0) {
    // A list, or a copy set aside by one, shows the kits opened something.
    const opened = run.manifest !== null || r.some((x) => x.status === 'newer' || x.status === 'superseded')
    return { ok: false, text: opened ? words.someRecovered(0, wanted) : words.nothingFound }
  }
  if (recovered < wanted) return { ok: false, text: words.someRecovered(recovered, wanted) }
  const doubts = (run.manifest?.rivals.length ?? 0) > 0 || run.manifestExpected || r.some((x) => x.olderCopy)
  if (doubts) return { ok: false, text: words.recoveredWithWarnings(recovered) }
  return { ok: recovered > 0, text: words.allRecovered(recovered) }
}
