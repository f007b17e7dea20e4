import { useVirtualizer } from '@tanstack/react-virtual'
import { useMemo, useRef } from 'react'
import type { UploadItemView, UploadProgressView } from '../../shared/ipc/vault-types'
import { formatRate } from '../display/units'
import {
  type BatchGroup,
  endedCounts,
  filesText,
  STATE_TEXT,
  stateCountsText,
  uploadListView,
} from '../display/upload-list'
import { useUploadFlowStore } from '../stores/upload-flow-store'
import { useUploadsStore } from '../stores/uploads-store'
import { format, text } from '../text'
import { UntrustedName, UntrustedSentence } from './UntrustedName'

const t = text.uploadQueue

/**
 * The queue of one vault. Only the rows in view are in the page (react-virtual rather than a fixed-height
 * window: an error or a wrapped line makes a row taller, and it measures rows as they render), so a
 * dropped folder of 20,000 files scrolls smoothly. Several batches get a header line each.
 */
export function UploadQueue({ vaultId }: { vaultId: string }) {
  const items = useUploadsStore((s) => s.items)
  const progress = useUploadsStore((s) => s.progress)
  // Progress batches leave `items` untouched, so this pass runs per item batch only.
  const view = useMemo(() => uploadListView(items, vaultId), [items, vaultId])
  // A bundle travels as one upload: its progress, whichever of its files the event names.
  const bundleProgress = useMemo(() => {
    const byBundle = new Map<string, UploadProgressView>()
    for (const p of Object.values(progress)) {
      const bundleId = items[p.itemId]?.bundleId
      if (bundleId) byBundle.set(bundleId, p)
    }
    return byBundle
  }, [progress, items])

  const { rows } = view
  const scroller = useRef<HTMLDivElement>(null)
  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => (rows[index]?.kind === 'batch' ? 44 : 62),
    overscan: 8,
    getItemKey: (index) => {
      const row = rows[index]!
      return row.kind === 'batch' ? `batch:${row.group.batchId}` : row.item.id
    },
  })

  if (view.total.files === 0) return null
  const { failures, finished } = endedCounts(view.total)

  return (
    <div className="panel">
      <div className="table-toolbar">
        <h2>{t.title}</h2>
        <button
          type="button"
          className="button secondary small"
          disabled={failures === 0}
          onClick={() => void useUploadsStore.getState().clearFinished('failed')}
        >
          {t.clearFailures}
        </button>
        <button
          type="button"
          className="button secondary small"
          disabled={finished === 0}
          onClick={() => void useUploadsStore.getState().clearFinished('finished')}
        >
          {t.clearFinished}
        </button>
      </div>
      <p className="muted small upload-summary" data-testid="upload-summary">
        {filesText(view.total)}: {stateCountsText(view.total)}
        {view.total.credits > 0 && t.spent(view.total.credits)}
      </p>
      <div className="upload-scroller" ref={scroller}>
        <ul
          className="upload-list"
          aria-label={t.list}
          style={{ height: virtual.getTotalSize(), position: 'relative' }}
        >
          {virtual.getVirtualItems().map((v) => {
            const row = rows[v.index]!
            const common = {
              ref: virtual.measureElement,
              'data-index': v.index,
              // Only the rows in view exist in the page: say where they sit in the whole list.
              'aria-setsize': rows.length,
              'aria-posinset': v.index + 1,
              style: {
                position: 'absolute',
                top: 0,
                left: 0,
                right: 0,
                transform: `translateY(${v.start}px)`,
              } as const,
            }
            if (row.kind === 'batch') {
              return (
                <li key={v.key} {...common} className="upload-batch" data-testid="upload-batch">
                  <BatchLine group={row.group} />
                </li>
              )
            }
            const item = row.item
            const p = progress[item.id] ?? (item.bundleId ? bundleProgress.get(item.bundleId) : undefined)
            return (
              <li
                key={v.key}
                {...common}
                className={`upload-item upload-${item.state}`}
                data-testid="upload-item"
              >
                <UploadRow
                  item={item}
                  progress={p}
                  bundleFiles={item.bundleId ? view.bundleSize.get(item.bundleId) : undefined}
                />
              </li>
            )
          })}
        </ul>
      </div>
    </div>
  )
}

/** "Photos, added 23 Nov 2026, 14:48 — 2,000 files (1 bundle of small files): 1,500 stored · 500 waiting". */
function BatchLine({ group }: { group: BatchGroup }) {
  return (
    <div className="upload-batch-line">
      <strong className="filename">
        {group.folder !== null ? <UntrustedName name={group.folder} title /> : t.files}
      </strong>
      <span className="muted small">
        {t.added(group.createdAt)} {filesText(group)}: {stateCountsText(group)}
        {group.credits > 0 && t.spent(group.credits)}
      </span>
    </div>
  )
}

export function UploadRow({
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
        <UntrustedName name={item.relativePath} className="filename" title />
        <span className="upload-state">{STATE_TEXT[item.state]}</span>
      </div>
      <progress max={100} value={pct} aria-label={t.progress(item.relativePath, pct)} />
      <div className="upload-meta muted small">
        {item.sizeBytes !== undefined && <span>{format.bytes(item.sizeBytes)}</span>}
        {bundleFiles !== undefined && bundleFiles > 1 && (
          <span title={t.bundleTitle}>{t.inBundle(bundleFiles - 1)}</span>
        )}
        {item.state === 'uploading' && p && (
          <span>
            {formatRate(p.bytesPerSecond)}
            {p.etaSeconds !== null ? t.left(format.duration(p.etaSeconds)) : ''}
          </span>
        )}
        {/* A bundle is charged as one upload: its credits are in the summary, not split per file. */}
        {bundleFiles !== undefined ? null : item.creditsConsumed !== undefined ? (
          <span>{t.credits(item.creditsConsumed)}</span>
        ) : (
          item.estimatedCredits !== undefined && <span>{t.estimated(item.estimatedCredits)}</span>
        )}
        {item.error && <UntrustedSentence className="text-danger" text={item.error.message} />}
        {!item.error && item.note && <UntrustedSentence text={item.note} />}
        {running && (
          <button
            type="button"
            className="link-button small"
            onClick={() => void useUploadsStore.getState().cancel(item.id)}
          >
            {t.cancel}
          </button>
        )}
        {(item.state === 'failed' || item.state === 'cancelled') && (
          <button
            type="button"
            className="link-button small"
            // Nothing was stored, so going up again costs credits: asked like a new upload.
            onClick={() => void useUploadFlowStore.getState().retry(item)}
          >
            {t.retry}
          </button>
        )}
      </div>
    </>
  )
}
