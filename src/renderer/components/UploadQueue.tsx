import { useVirtualizer } from '@tanstack/react-virtual'
import { useMemo, useRef } from 'react'
import type { UploadItemView, UploadProgressView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { formatBytes, formatDuration, formatRate } from '../display/units'
import { useUploadsStore } from '../stores/uploads-store'

const STATE_TEXT: Record<UploadItemView['state'], string> = {
  queued: 'Waiting',
  checking: 'Checking',
  uploading: 'Uploading',
  done: 'Stored',
  skipped: 'Skipped',
  failed: 'Failed',
  cancelled: 'Cancelled',
}

const SUMMARY_ORDER: UploadItemView['state'][] = [
  'uploading',
  'checking',
  'queued',
  'done',
  'skipped',
  'failed',
  'cancelled',
]

const count = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`

/**
 * The queue of one vault. Only the rows in view are in the page (react-virtual, rows measured as they
 * render since an error makes a row taller), so a dropped folder of 20,000 files scrolls smoothly.
 */
export function UploadQueue({ vaultId }: { vaultId: string }) {
  const items = useUploadsStore((s) => s.items)
  const progress = useUploadsStore((s) => s.progress)
  const list = useMemo(
    () =>
      Object.values(items)
        .filter((i) => i.vaultId === vaultId)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt)),
    [items, vaultId],
  )
  const summary = useMemo(() => {
    const byState = new Map<UploadItemView['state'], number>()
    const bundleSize = new Map<string, number>()
    let credits = 0
    for (const item of list) {
      credits += item.creditsConsumed ?? 0
      byState.set(item.state, (byState.get(item.state) ?? 0) + 1)
      if (item.bundleId) bundleSize.set(item.bundleId, (bundleSize.get(item.bundleId) ?? 0) + 1)
    }
    return { byState, bundleSize, credits }
  }, [list])
  // A bundle travels as one upload: its progress, whichever of its files the event names.
  const bundleProgress = useMemo(() => {
    const byBundle = new Map<string, UploadProgressView>()
    for (const p of Object.values(progress)) {
      const bundleId = items[p.itemId]?.bundleId
      if (bundleId) byBundle.set(bundleId, p)
    }
    return byBundle
  }, [progress, items])

  const scroller = useRef<HTMLDivElement>(null)
  const rows = useVirtualizer({
    count: list.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 62,
    overscan: 8,
    getItemKey: (index) => list[index]!.id,
  })

  if (list.length === 0) return null
  const failures = (summary.byState.get('failed') ?? 0) + (summary.byState.get('cancelled') ?? 0)
  const finished = failures + (summary.byState.get('done') ?? 0) + (summary.byState.get('skipped') ?? 0)
  const bundles = summary.bundleSize.size

  return (
    <div className="panel">
      <div className="table-toolbar">
        <h2>Uploads</h2>
        <button
          type="button"
          className="button secondary small"
          disabled={failures === 0}
          onClick={() => void vault().clearFinishedUploads({ only: 'failed' })}
        >
          Clear failures
        </button>
        <button
          type="button"
          className="button secondary small"
          disabled={finished === 0}
          onClick={() => void vault().clearFinishedUploads({ only: 'finished' })}
        >
          Clear finished
        </button>
      </div>
      <p className="muted small upload-summary" data-testid="upload-summary">
        {count(list.length, 'file')}
        {bundles > 0 && ` (${count(bundles, 'bundle')} of small files)`}:{' '}
        {SUMMARY_ORDER.filter((state) => summary.byState.get(state))
          .map(
            (state) =>
              `${(summary.byState.get(state) ?? 0).toLocaleString('en-US')} ${STATE_TEXT[state].toLowerCase()}`,
          )
          .join(' · ')}
        {summary.credits > 0 && ` · ${count(summary.credits, 'credit')} spent`}
      </p>
      <div className="upload-scroller" ref={scroller}>
        <ul
          className="upload-list"
          aria-label="Upload queue"
          style={{ height: rows.getTotalSize(), position: 'relative' }}
        >
          {rows.getVirtualItems().map((row) => {
            const item = list[row.index]!
            const p = progress[item.id] ?? (item.bundleId ? bundleProgress.get(item.bundleId) : undefined)
            return (
              <li
                key={row.key}
                ref={rows.measureElement}
                data-index={row.index}
                className={`upload-item upload-${item.state}`}
                data-testid="upload-item"
                style={{
                  position: 'absolute',
                  top: 0,
                  left: 0,
                  right: 0,
                  transform: `translateY(${row.start}px)`,
                }}
              >
                <UploadRow
                  item={item}
                  progress={p}
                  bundleFiles={item.bundleId ? summary.bundleSize.get(item.bundleId) : undefined}
                />
              </li>
            )
          })}
        </ul>
      </div>
    </div>
  )
}

function UploadRow({
  item,
  progress: p,
  bundleFiles,
}: {
  item: UploadItemView
  progress: UploadProgressView | undefined
  bundleFiles: number | undefined
}) {
  const total = p?.totalBytes ?? item.totalBytes ?? item.encryptedBytes ?? item.sizeBytes ?? 0
  const sent = p?.sentBytes ?? item.sentBytes
  const pct = item.state === 'done' ? 100 : total > 0 ? Math.min(100, Math.round((sent / total) * 100)) : 0
  const running = item.state === 'queued' || item.state === 'checking' || item.state === 'uploading'
  return (
    <>
      <div className="upload-line">
        <span className="filename" title={item.relativePath}>
          {item.relativePath}
        </span>
        <span className="upload-state">{STATE_TEXT[item.state]}</span>
      </div>
      <progress max={100} value={pct} aria-label={`${item.relativePath}: ${pct}%`} />
      <div className="upload-meta muted small">
        {item.sizeBytes !== undefined && <span>{formatBytes(item.sizeBytes)}</span>}
        {bundleFiles !== undefined && bundleFiles > 1 && (
          <span title="Small files are packed together and stored as one encrypted upload">
            in a bundle with {count(bundleFiles - 1, 'other file')}
          </span>
        )}
        {item.state === 'uploading' && p && (
          <span>
            {formatRate(p.bytesPerSecond)}
            {p.etaSeconds !== null ? ` · ${formatDuration(p.etaSeconds)} left` : ''}
          </span>
        )}
        {/* A bundle is charged as one upload: its credits are in the summary, not split per file. */}
        {bundleFiles !== undefined ? null : item.creditsConsumed !== undefined ? (
          <span>
            {item.creditsConsumed} credit{item.creditsConsumed === 1 ? '' : 's'}
          </span>
        ) : (
          item.estimatedCredits !== undefined && (
            <span>
              ≈ {item.estimatedCredits} credit{item.estimatedCredits === 1 ? '' : 's'}
            </span>
          )
        )}
        {item.error && <span className="text-danger">{item.error.message}</span>}
        {!item.error && item.note && <span>{item.note}</span>}
        {running && (
          <button
            type="button"
            className="link-button small"
            onClick={() => void vault().cancelUpload({ itemId: item.id })}
          >
            Cancel
          </button>
        )}
        {(item.state === 'failed' || item.state === 'cancelled') && (
          <button
            type="button"
            className="link-button small"
            onClick={() => void vault().retryUpload({ itemId: item.id })}
          >
            Retry
          </button>
        )}
      </div>
    </>
  )
}
