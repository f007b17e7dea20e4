import { useEffect, useState } from 'react'
import { formatRate } from '../display/units'
import { useWriteAccess } from '../stores/connection-store'
import { useFileIntakeStore } from '../stores/file-intake-store'
import { useNavigationStore } from '../stores/navigation-store'
import { showNotice } from '../stores/notices-store'
import { useUploadFlowStore } from '../stores/upload-flow-store'
import { useVault } from '../stores/vaults-store'
import { format, text } from '../text'

/**
 * Files or folders dropped anywhere on the window become an encrypted backup of the open vault.
 * In Electron the preload gives their paths; in browser mode their bytes stream to the backend first.
 */
export function DropTarget() {
  const vaultId = useNavigationStore((s) => s.vaultId)
  const setTab = useNavigationStore((s) => s.setTab)
  const v = useVault(vaultId)
  const { canWrite, reason } = useWriteAccess()
  const [over, setOver] = useState(false)
  const { receiving, cancel } = useFileIntakeStore()

  useEffect(() => {
    const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes('Files')
    const onOver = (e: DragEvent) => {
      if (!hasFiles(e)) return
      e.preventDefault()
      if (e.dataTransfer) e.dataTransfer.dropEffect = v && canWrite ? 'copy' : 'none'
      setOver(true)
    }
    const onLeave = (e: DragEvent) => {
      if (e.relatedTarget === null) setOver(false)
    }
    const onDrop = (e: DragEvent) => {
      if (!hasFiles(e)) return
      e.preventDefault()
      setOver(false)
      if (!v) {
        showNotice({ kind: 'error', body: text.drop.openVaultFirst })
        return
      }
      if (!canWrite || v.state !== 'active') {
        showNotice({ kind: 'error', body: reason ?? text.drop.vaultNotActive })
        return
      }
      setTab('assets')
      const pathFor = window.vaultFiles?.pathForFile
      if (pathFor) {
        const paths = Array.from(e.dataTransfer?.files ?? [])
          .map((f) => pathFor(f))
          .filter(Boolean)
        if (paths.length > 0) void useUploadFlowStore.getState().start(v.id, paths)
        return
      }
      // Entries must be taken inside the event; reading them can wait.
      if (e.dataTransfer) void useFileIntakeStore.getState().receiveDrop(v.id, e.dataTransfer)
    }
    window.addEventListener('dragover', onOver)
    window.addEventListener('dragleave', onLeave)
    window.addEventListener('drop', onDrop)
    return () => {
      window.removeEventListener('dragover', onOver)
      window.removeEventListener('dragleave', onLeave)
      window.removeEventListener('drop', onDrop)
    }
  }, [v, canWrite, reason, setTab])

  // Leaving the page mid-transfer: the backend removes what arrived when the socket closes.
  useEffect(() => () => useFileIntakeStore.getState().cancel(), [])

  return (
    <>
      {over && (
        <div className="drop-overlay" aria-hidden="true">
          <div>{v ? text.drop.overlay(v.label) : text.drop.overlayNoVault}</div>
        </div>
      )}
      {receiving && (
        <section className="drop-intake" aria-labelledby="drop-intake-title">
          <h2 id="drop-intake-title">{text.drop.receivingTitle}</h2>
          <progress
            aria-label={text.drop.progressLabel}
            max={Math.max(1, receiving.totalBytes)}
            value={receiving.sentBytes}
          />
          <p role="status">
            {text.drop.receiving(
              receiving.sentFiles,
              receiving.totalFiles,
              format.bytes(receiving.sentBytes),
              format.bytes(receiving.totalBytes),
            )}
            {receiving.bytesPerSecond !== null && (
              <span className="muted">
                {' '}
                {formatRate(receiving.bytesPerSecond)}
                {receiving.etaSeconds !== null ? text.drop.left(format.duration(receiving.etaSeconds)) : ''}
              </span>
            )}
          </p>
          <button type="button" className="button secondary small" onClick={cancel}>
            {text.drop.cancel}
          </button>
        </section>
      )}
    </>
  )
}
