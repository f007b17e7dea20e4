import { type ReactNode, useEffect, useRef } from 'react'
import type { RecoveryFileResult, RecoveryReport } from '../../../shared/ipc/vault-types'
import { UntrustedName, UntrustedSentence } from '../../components/UntrustedName'
import { coreLang, text } from '../../text'
import type { Source } from './recovery-state'

const t = text.recovery

/**
 * One file's outcome. The app core explains it in English: shown whole when the window is in English;
 * in a translation, the outcome in the window's words, with the English detail where it says why.
 */
function FileOutcome({ result }: { result: RecoveryFileResult }) {
  if (!coreLang || !result.status) {
    return (
      <span lang={coreLang}>
        <UntrustedSentence text={result.message} />
      </span>
    )
  }
  const status = t.fileStatus[result.status]
  if (result.status === 'recovered' || result.status === 'kept') return <>{status}</>
  return (
    <>
      {status} (
      <span lang={coreLang}>
        <UntrustedSentence text={result.message} />
      </span>
      )
    </>
  )
}

/** Past this many files, the list of outcomes is folded under its summary (the problems stay above it). */
const RESULTS_SHOWN_OPEN = 20

/** The outcome per file: open when short, folded behind "Show all N files" when long. */
function ResultList({ count, children }: { count: number; children: ReactNode }) {
  const list = (
    <ul className="plain-list" style={{ listStyle: 'none', paddingLeft: 0 }}>
      {children}
    </ul>
  )
  if (count <= RESULTS_SHOWN_OPEN) return list
  return (
    <details data-testid="recovery-results-folded">
      <summary>{t.showAllResults(count)}</summary>
      {list}
    </details>
  )
}

/** What a recovery run did: practice result, kits set aside, a stop, the manifest, then file by file. */
export function RecoveryReportView({
  report,
  source,
  finishedAt,
}: {
  report: RecoveryReport
  source: Source
  finishedAt: number | undefined
}) {
  const reportRef = useRef<HTMLDivElement>(null)
  // The outcome is what the heir waited for: brought into view (and focus) when it arrives.
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new report is brought into view
  useEffect(() => {
    reportRef.current?.scrollIntoView({ block: 'start', behavior: 'smooth' })
    reportRef.current?.focus({ preventScroll: true })
  }, [report])
  const recovered = report.results.filter((r) => r.ok).length
  // Older copies of files whose newer copy was recovered: listed, but neither counted nor failures.
  const counted = report.results.filter((r) => r.status !== 'superseded')

  return (
    <div className="panel inset" data-testid="recovery-report" ref={reportRef} tabIndex={-1}>
      {report.rehearsal && (
        <div
          className={`notice ${report.rehearsal.passed ? 'notice-ok' : 'notice-warn'}`}
          data-testid="rehearsal-result"
        >
          <p>
            <strong>{report.rehearsal.passed ? t.practicePassed : t.practiceNotConfirmed}</strong>{' '}
            <span lang={coreLang}>{report.rehearsal.message}</span>
          </p>
          <p>{t.practiceNote}</p>
        </div>
      )}
      {report.kitsSetAside && (
        <div className="notice notice-warn" data-testid="kits-set-aside">
          <p>
            <strong>{t.kitsSetAside(report.kitsSetAside.length)}</strong>
          </p>
          <ul>
            {report.kitsSetAside.map((reason) => (
              <li key={reason} lang={coreLang}>
                <UntrustedSentence text={reason} />
              </li>
            ))}
          </ul>
        </div>
      )}
      {report.stopped && (
        <div className="notice notice-error" role="alert" data-code={report.stopped.code}>
          <p>
            <strong>{t.stopped}</strong>{' '}
            <span lang={coreLang}>
              <UntrustedSentence text={report.stopped.message} />
            </span>
          </p>
        </div>
      )}
      {report.manifestNote && (
        <div
          className={`notice ${report.manifestWarning ? 'notice-warn' : 'notice-ok'}`}
          data-testid="manifest-note"
        >
          <p>
            <strong>{report.manifestWarning ? t.manifestMissing : t.manifestUsed}</strong>{' '}
            <span lang={coreLang}>
              <UntrustedSentence text={report.manifestNote} />
            </span>
          </p>
        </div>
      )}
      {counted.length > 0 && (
        <h3>
          {recovered === counted.length
            ? t.allRecovered(recovered)
            : report.stopped
              ? t.someRecoveredSoFar(recovered, counted.length)
              : t.someRecovered(recovered, counted.length)}
          {recovered > 0 && ` ${t.savedIn(recovered, report.outputDir)}`}
        </h3>
      )}
      {finishedAt !== undefined && (
        <p className="muted small" data-testid="recovery-finished">
          {t.finishedAt(finishedAt)}
        </p>
      )}
      {recovered > 0 && <p className="muted">{t.openNote}</p>}
      <ResultList count={report.results.length}>
        {report.results.map((r, i) => (
          <li
            // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list where older copies share a file's name
            key={`${i}:${r.input}`}
            className={
              r.ok
                ? 'text-ok'
                : r.status === 'not-reached' || r.status === 'superseded'
                  ? 'muted'
                  : 'text-danger'
            }
          >
            {r.ok ? '✓' : r.status === 'not-reached' ? '…' : r.status === 'superseded' ? '–' : '✗'}{' '}
            <strong>
              <UntrustedName name={r.input} />
            </strong>
            {source === 'files' && r.output ? (
              <>
                {' → '}
                <UntrustedName name={r.output} />
              </>
            ) : null}
            : <FileOutcome result={r} />
          </li>
        ))}
      </ResultList>
    </div>
  )
}
