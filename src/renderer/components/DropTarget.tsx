import { useEffect, useState } from 'react'
import { useWriteAccess } from '../stores/connection-store'
import { useNavigationStore } from '../stores/navigation-store'
import { useUploadFlowStore } from '../stores/upload-flow-store'
import { useVault } from '../stores/vaults-store'

/**
 * Files or folders dropped anywhere on the window become an encrypted backup of the open vault.
 * Their paths come from the preload (webUtils); a plain browser has none, so it says what to do.
 */
export function DropTarget() {
  const vaultId = useNavigationStore((s) => s.vaultId)
  const setTab = useNavigationStore((s) => s.setTab)
  const v = useVault(vaultId)
  const { canWrite, reason } = useWriteAccess()
  const [over, setOver] = useState(false)
  const [message, setMessage] = useState<string>()

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
        setMessage('Open a vault first, then drop the files on its window to back them up there.')
        return
      }
      if (!canWrite || v.state !== 'active') {
        setMessage(reason ?? 'Files can be added while the vault is active.')
        return
      }
      const files = Array.from(e.dataTransfer?.files ?? [])
      const pathFor = window.vaultFiles?.pathForFile
      const paths = pathFor ? files.map((f) => pathFor(f)).filter(Boolean) : []
      setTab('assets')
      if (paths.length === 0) {
        setMessage(
          'Browser mode cannot see where dropped files are stored. Type the full path in "Back up files" on the Assets tab instead.',
        )
        return
      }
      setMessage(undefined)
      void useUploadFlowStore.getState().start(v.id, paths)
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

  return (
    <>
      {over && (
        <div className="drop-overlay" aria-hidden="true">
          <div>{v ? `Drop to back up to ${v.label}` : 'Open a vault to back up files into it'}</div>
        </div>
      )}
      {message && (
        <div className="toasts">
          <div className="toast" role="alert">
            <p>{message}</p>
            <button type="button" className="link-button" onClick={() => setMessage(undefined)}>
              Dismiss
            </button>
          </div>
        </div>
      )}
    </>
  )
}
