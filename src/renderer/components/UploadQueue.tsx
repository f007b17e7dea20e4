import type { UploadItemView } from '../../shared/ipc/vault-types'
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

export function UploadQueue({ vaultId }: { vaultId: string }) {
  const { items, progress } = useUploadsStore()
  const list = Object.values(items)
    .filter((i) => i.vaultId === vaultId)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
  if (list.length === 0) return null
  const failures = list.filter((i) => i.state === 'failed' || i.state === 'cancelled').length
  const finished = list.filter((i) => ['done', 'skipped', 'failed', 'cancelled'].includes(i.state)).length

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
      <ul className="upload-list" aria-label="Upload queue">
        {list.map((item) => {
          const p = progress[item.id]
          const total = p?.totalBytes ?? item.totalBytes ?? item.encryptedBytes ?? item.sizeBytes ?? 0
          const sent = p?.sentBytes ?? item.sentBytes
          const pct =
            item.state === 'done' ? 100 : total > 0 ? Math.min(100, Math.round((sent / total) * 100)) : 0
          const running = item.state === 'queued' || item.state === 'checking' || item.state === 'uploading'
          return (
            <li key={item.id} className={`upload-item upload-${item.state}`} data-testid="upload-item">
              <div className="upload-line">
                <span className="filename" title={item.relativePath}>
                  {item.relativePath}
                </span>
                <span className="upload-state">{STATE_TEXT[item.state]}</span>
              </div>
              <progress max={100} value={pct} aria-label={`${item.relativePath}: ${pct}%`} />
              <div className="upload-meta muted small">
                {item.sizeBytes !== undefined && <span>{formatBytes(item.sizeBytes)}</span>}
                {item.state === 'uploading' && p && (
                  <span>
                    {formatRate(p.bytesPerSecond)}
                    {p.etaSeconds !== null ? ` · ${formatDuration(p.etaSeconds)} left` : ''}
                  </span>
                )}
                {item.creditsConsumed !== undefined ? (
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
            </li>
          )
        })}
      </ul>
    </div>
  )
}
