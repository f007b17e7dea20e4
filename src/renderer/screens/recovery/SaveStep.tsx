import type { Dispatch, FormEvent } from 'react'
import { ErrorNotice } from '../../components/ErrorNotice'
import { text } from '../../text'
import { RecoveryReportView } from './RecoveryReportView'
import type { RecoveryEvent, RecoveryState } from './recovery-state'

const t = text.recovery

/** Step 3: where the recovered files go, the button that recovers them, its progress and its outcome. */
export function SaveStep({
  state,
  dispatch,
  canPick,
  onPickFolder,
  onRecover,
  busy,
  error,
  missingText,
  practice,
}: {
  state: RecoveryState
  dispatch: Dispatch<RecoveryEvent>
  /** The desktop app has a folder picker; a browser page types the path. */
  canPick: boolean
  onPickFolder(): void
  onRecover(): void
  busy: boolean
  error: unknown
  /** What is still missing before a recovery can start, or null. */
  missingText: string | null
  practice: boolean
}) {
  const { outputDir, progress, report, source, finishedAt } = state
  const submit = (event: FormEvent) => {
    event.preventDefault()
    onRecover()
  }
  return (
    <form className="panel" onSubmit={submit}>
      <h2>{t.saveStep}</h2>
      <label htmlFor="recovery-output">{t.output}</label>
      <div className="row">
        <input
          id="recovery-output"
          type="text"
          value={outputDir}
          placeholder={t.outputPlaceholder}
          onChange={(e) => dispatch({ type: 'field', field: 'outputDir', value: e.target.value })}
          spellCheck={false}
        />
        {canPick && (
          <button type="button" className="button secondary small" onClick={onPickFolder}>
            {t.chooseFolder}
          </button>
        )}
      </div>
      <p className="muted small">{t.outputNote}</p>
      <div className="row">
        <button type="submit" className="button" disabled={busy || missingText !== null}>
          {busy
            ? t.recovering
            : report?.stopped
              ? t.continue
              : practice
                ? t.recoverPractice
                : source === 'service'
                  ? t.recoverFromService
                  : t.recoverFiles}
        </button>
        {missingText && <span className="muted small">{missingText}</span>}
      </div>
      {busy && progress && (
        <div role="status">
          <progress max={progress.totalBytes || 1} value={progress.doneBytes} aria-label={t.progress} />
          <span className="muted small">
            {t.progressFile(Math.min(progress.filesDone + 1, progress.filesTotal), progress.filesTotal)} ·{' '}
            {progress.input}
          </span>
        </div>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
      {report && <RecoveryReportView report={report} source={source} finishedAt={finishedAt} />}
    </form>
  )
}
