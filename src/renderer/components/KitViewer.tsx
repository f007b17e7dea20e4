import { useEffect, useRef, useState } from 'react'
import type { GuardianKit } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { useSettingsStore } from '../stores/settings-store'
import { ErrorNotice } from './ErrorNotice'

/** One guardian's kit: shown in a sandboxed frame; printed or saved as PDF by the desktop app. */
export function KitViewer({
  vaultId,
  guardianId,
  onClose,
}: {
  vaultId: string
  guardianId: string
  onClose(): void
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const mode = useSettingsStore((s) => s.appInfo?.mode)
  const [kit, setKit] = useState<GuardianKit>()
  const [error, setError] = useState<unknown>()
  const [status, setStatus] = useState<string>()

  useEffect(() => {
    const dialog = ref.current
    if (dialog && !dialog.open) dialog.showModal()
    vault().getGuardianKit({ vaultId, guardianId }).then(setKit, setError)
    return () => dialog?.close()
  }, [vaultId, guardianId])

  const download = () => {
    if (!kit) return
    const url = URL.createObjectURL(new Blob([kit.html], { type: 'text/html' }))
    const a = document.createElement('a')
    a.href = url
    a.download = kit.fileName
    a.click()
    setTimeout(() => URL.revokeObjectURL(url), 1000)
    setStatus(`Downloaded ${kit.fileName}. Open it and print it (Ctrl+P / Cmd+P, or "Save as PDF").`)
  }

  const print = async (as: 'print' | 'pdf') => {
    setError(undefined)
    try {
      const { saved } = await vault().printGuardianKit({ vaultId, guardianId, as })
      setStatus(saved ? `Saved ${saved}` : as === 'print' ? 'Sent to the printer.' : 'Not saved.')
    } catch (e) {
      setError(e)
    }
  }

  return (
    <dialog
      ref={ref}
      className="dialog kit-dialog"
      aria-labelledby="kit-title"
      onCancel={(e) => {
        e.preventDefault()
        onClose()
      }}
    >
      <h2 id="kit-title">Guardian kit{kit ? ` for ${kit.guardianName}` : ''}</h2>
      {kit && (
        <p className="muted small">
          Share {kit.shareIndex} of {kit.shares}; any {kit.threshold} kits together recover the vault key.
          Split {kit.splitId.slice(0, 8)}, made {new Date(kit.createdAt).toLocaleString()}.
        </p>
      )}
      {kit && <iframe className="kit-frame" title="Guardian kit" sandbox="" srcDoc={kit.html} />}
      {error !== undefined && <ErrorNotice error={error} />}
      {status && (
        <p className="notice notice-ok" role="status">
          {status}
        </p>
      )}
      {mode === 'browser' && (
        <p className="muted small">
          Browser mode cannot print or make PDFs itself: download the kit page and print it from your browser.
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="button secondary" onClick={onClose}>
          Close
        </button>
        <button type="button" className="button secondary" onClick={download} disabled={!kit}>
          Download page
        </button>
        {mode === 'electron' && (
          <>
            <button
              type="button"
              className="button secondary"
              onClick={() => void print('print')}
              disabled={!kit}
            >
              Print…
            </button>
            <button type="button" className="button" onClick={() => void print('pdf')} disabled={!kit}>
              Save as PDF…
            </button>
          </>
        )}
      </div>
    </dialog>
  )
}
