import { useEffect, useId, useState } from 'react'
import type { ActivityEntry } from '../../../shared/ipc/vault-types'
import { ErrorNotice } from '../../components/ErrorNotice'
import { ACTIVITY_FILTERS, type ActivityFilter, useActivityStore } from '../../stores/activity-store'
import { format, text } from '../../text'

const t = text.activity

/** The sentence under an entry's title: what exactly happened, from its structured detail. */
function detailOf(entry: ActivityEntry): string[] {
  const d = entry.detail
  const person = d.person ? (d.email ? `${d.person} <${d.email}>` : d.person) : undefined
  switch (entry.kind) {
    case 'check-in':
      return [d.nextCheckInDue ? t.nextDue(format.date(d.nextCheckInDue)) : '', d.note ? t.note(d.note) : '']
    case 'check-in-failed':
      return [d.error ?? '']
    case 'upload': {
      const names = d.names ?? []
      return [
        t.uploaded(d.files ?? 0, d.failed ?? 0),
        d.credits !== undefined ? t.spent(d.credits) : '',
        names.length ? t.names(names, (d.files ?? 0) > names.length) : '',
      ]
    }
    case 'vault-created':
    case 'vault-renamed':
      return [d.note ?? '']
    case 'credits-added':
      return [d.credits !== undefined ? t.creditsAdded(d.credits) : '']
    case 'practice-started':
    case 'practice-passed':
      return [person ?? '']
    case 'files-deleted': {
      const names = d.names ?? []
      return [
        t.deleted(d.files ?? 0),
        d.credits ? t.spent(d.credits) : '',
        names.length ? t.names(names, (d.files ?? 0) > names.length) : '',
      ]
    }
    case 'guardian-added':
    case 'guardian-removed':
    case 'heir-added':
    case 'heir-removed':
    case 'kit-handed-over':
    case 'kit-taken-back':
      return [person ?? '']
    case 'release-configured': {
      const trigger = t.triggers[d.trigger as keyof typeof t.triggers] ?? d.trigger ?? ''
      const frequency = d.checkInFrequency
        ? (t.frequency[d.checkInFrequency as keyof typeof t.frequency] ?? d.checkInFrequency)
        : ''
      return [frequency ? `${trigger}, ${frequency}` : trigger]
    }
    default:
      return []
  }
}

/** Offers text as a file download through a Blob link (works in the desktop app and browser mode). */
function download(fileName: string, mimeType: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: mimeType }))
  const link = document.createElement('a')
  link.href = url
  link.download = fileName
  document.body.append(link)
  link.click()
  link.remove()
  // The click has handed the data over; the URL is released once the download has started.
  setTimeout(() => URL.revokeObjectURL(url), 0)
}

export function ActivityTab({ vaultId }: { vaultId: string }) {
  const entry = useActivityStore((s) => s.byVault[vaultId])
  const load = useActivityStore((s) => s.load)
  const more = useActivityStore((s) => s.more)
  const filterId = useId()
  const [status, setStatus] = useState<{ kind: 'saved' | 'error'; text: string }>()
  const [exportError, setExportError] = useState<unknown>()

  useEffect(() => {
    void load(vaultId)
  }, [load, vaultId])

  const items = entry?.items ?? []
  const total = entry?.total ?? 0
  const filter = entry?.filter ?? 'all'

  const exportAs = async (as: 'csv' | 'json') => {
    setExportError(undefined)
    try {
      const file = await useActivityStore.getState().exportAs(vaultId, as)
      download(file.fileName, file.mimeType, file.text)
      setStatus({ kind: 'saved', text: t.exported(file.fileName) })
    } catch (error) {
      setStatus(undefined)
      setExportError(error)
    }
  }

  return (
    <div className="panel activity-panel">
      <div className="table-toolbar">
        <h2>
          {t.title}{' '}
          <span className="count" data-testid="activity-count">
            {t.count(items.length, total)}
          </span>
        </h2>
        <label htmlFor={filterId}>{t.filter}</label>
        <select
          id={filterId}
          value={filter}
          onChange={(event) => void load(vaultId, event.target.value as ActivityFilter)}
        >
          <option value="all">{t.filterAll}</option>
          {(Object.keys(ACTIVITY_FILTERS) as Array<keyof typeof ACTIVITY_FILTERS>).map((id) => (
            <option key={id} value={id}>
              {t.filters[id]}
            </option>
          ))}
        </select>
        <button type="button" className="button secondary small" onClick={() => void exportAs('csv')}>
          {t.exportCsv}
        </button>
        <button type="button" className="button secondary small" onClick={() => void exportAs('json')}>
          {t.exportJson}
        </button>
      </div>
      <p className="muted small">{t.intro}</p>
      <p className="status-line" role="status" data-kind={status?.kind}>
        {status?.text}
      </p>
      {exportError !== undefined && <ErrorNotice error={exportError} />}
      {entry?.problem && (
        <div className="notice notice-warn" role="alert">
          <p>
            <strong>{t.problemTitle}</strong>
          </p>
          <p>{entry.problem}</p>
        </div>
      )}
      {entry?.error !== undefined && <ErrorNotice error={entry.error} onRetry={() => void load(vaultId)} />}
      {items.length === 0 ? (
        entry && !entry.loading && <p>{filter === 'all' ? t.empty : t.emptyFiltered}</p>
      ) : (
        <div className="table-scroll">
          <table className="table activity-table">
            <thead>
              <tr>
                <th scope="col">{t.when}</th>
                <th scope="col">{t.what}</th>
                <th scope="col">{t.how}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((e) => {
                const lines = detailOf(e).filter(Boolean)
                return (
                  <tr key={e.id} data-testid="activity-entry" data-kind={e.kind}>
                    <td className="activity-when">
                      <time dateTime={e.at} title={format.dateTime(e.at)}>
                        {format.relative(e.at)}
                      </time>
                      <span className="muted small">{format.dateTime(e.at)}</span>
                    </td>
                    <td>
                      <strong className="activity-kind">
                        {e.kind === 'check-in' && e.source === 'unlock'
                          ? t.checkedInOnUnlock
                          : t.kinds[e.kind]}
                      </strong>
                      {lines.length > 0 && <span className="activity-detail">{lines.join(' ')}</span>}
                    </td>
                    <td>
                      <span className={`pill activity-source activity-source-${e.source}`}>
                        {t.sources[e.source]}
                      </span>
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
      {items.length < total && (
        <div className="pager">
          <button
            type="button"
            className="button secondary small"
            disabled={entry?.loading}
            onClick={() => void more(vaultId)}
          >
            {t.more}
          </button>
        </div>
      )}
    </div>
  )
}
