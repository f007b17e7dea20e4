import { useEffect, useRef, useState } from 'react'
import {
  collectDroppedFiles,
  DropTransferError,
  droppedEntries,
  sendDroppedFiles,
  type TransferProgress,
} from '../bridge/drop-transfer'
import { fileIntake } from '../bridge/vault-client'
import { useWriteAccess } from '../stores/connection-store'
import { useNavigationStore } from '../stores/navigation-store'
import { useUploadFlowStore } from '../stores/upload-flow-store'
import { useVault } from '../stores/vaults-store'
import { format, text } from '../text'

/** Resolves once the owner has confirmed or declined the upload the drop started. */
function uploadDecided(): Promise<void> {
  const decided = () => {
    const s = useUploadFlowStore.getState()
    return !s.pending && !s.busy
  }
  if (decided()) return Promise.resolve()
  return new Promise((resolve) => {
    const stop = useUploadFlowStore.subscribe(() => {
      if (!decided()) return
      stop()
      resolve()
    })
  })
}

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
  const [message, setMessage] = useState<string>()
  const [receiving, setReceiving] = useState<TransferProgress>()
  const abort = useRef<AbortController | undefined>(undefined)

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
    const receive = async (vaultId: string, entries: ReturnType<typeof droppedEntries>) => {
      const intake = fileIntake()
      if (!intake) {
        setMessage(text.drop.noBackend)
        return
      }
      const controller = new AbortController()
      abort.current?.abort()
      abort.current = controller
      try {
        const files = await collectDroppedFiles(entries)
        if (files.length === 0) {
          setMessage(text.drop.nothingDropped)
          return
        }
        setReceiving({
          sentBytes: 0,
          totalBytes: files.reduce((sum, f) => sum + f.file.size, 0),
          sentFiles: 0,
          totalFiles: files.length,
        })
        const { dropId, paths } = await sendDroppedFiles(intake, files, {
          onProgress: setReceiving,
          signal: controller.signal,
        })
        setReceiving(undefined)
        await useUploadFlowStore.getState().start(vaultId, paths)
        await uploadDecided()
        // Keeps only what the queue will read; the rest of the drop is deleted now.
        await intake.request('release', { dropId })
      } catch (error) {
        setMessage(
          controller.signal.aborted
            ? text.drop.cancelled
            : error instanceof DropTransferError
              ? text.drop.failed(error.message)
              : error instanceof DOMException && error.name === 'NotReadableError'
                ? text.drop.readFailed
                : text.drop.failed(error instanceof Error ? error.message : String(error)),
        )
      } finally {
        setReceiving(undefined)
        if (abort.current === controller) abort.current = undefined
      }
    }
    const onDrop = (e: DragEvent) => {
      if (!hasFiles(e)) return
      e.preventDefault()
      setOver(false)
      if (!v) {
        setMessage(text.drop.openVaultFirst)
        return
      }
      if (!canWrite || v.state !== 'active') {
        setMessage(reason ?? text.drop.vaultNotActive)
        return
      }
      setMessage(undefined)
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
      if (e.dataTransfer) void receive(v.id, droppedEntries(e.dataTransfer))
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
  useEffect(() => () => abort.current?.abort(), [])

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
          </p>
          <button type="button" onClick={() => abort.current?.abort()}>
            {text.drop.cancel}
          </button>
        </section>
      )}
      {message && (
        <div className="toasts">
          <div className="toast" role="alert">
            <p>{message}</p>
            <button type="button" className="link-button" onClick={() => setMessage(undefined)}>
              {text.common.dismiss}
            </button>
          </div>
        </div>
      )}
    </>
  )
}
