import { useEffect, useRef, useState } from 'react'
import { vault } from '../bridge/vault-client'
import { useSettingsStore } from '../stores/settings-store'
import { ErrorNotice } from './ErrorNotice'
import { useModalDialog } from './use-return-focus'

export interface LoadedKit {
  html: string
  fileName: string
  /** One line under the title (share number, fingerprint…). */
  detail: string
}

interface Props {
  title: string
  load(): Promise<LoadedKit>
  /** Printing and PDF export; only the desktop app can. */
  print(as: 'print' | 'pdf'): Promise<{ saved: string | null }>
  onClose(): void
  /** Shown under the kit (what to do next). */
  footer?: React.ReactNode
  /** The next step once the kit is kept (e.g. "I have saved it"). */
  next?: { label: string; onClick(): void }
}

/** A printable kit: shown in a sandboxed frame; printed or saved as PDF by the desktop app. */
export function KitViewer({ title, load, print, onClose, footer, next }: Props) {
  const ref = useRef<HTMLDialogElement>(null)
  const mode = useSettingsStore((s) => s.appInfo?.mode)
  const [kit, setKit] = useState<LoadedKit>()
  const [error, setError] = useState<unknown>()
  const [status, setStatus] = useState<string>()

  useModalDialog(ref)
  // biome-ignore lint/correctness/useExhaustiveDependencies: the kit is loaded once per opening
  useEffect(() => {
    load().then(setKit, setError)
  }, [])

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

  const printAs = async (as: 'print' | 'pdf') => {
    setError(undefined)
    try {
      const { saved } = await print(as)
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
      <h2 id="kit-title">{title}</h2>
      {kit && <p className="muted small">{kit.detail}</p>}
      {kit && <iframe className="kit-frame" title={title} sandbox="" srcDoc={kit.html} />}
      {error !== undefined && <ErrorNotice error={error} />}
      {status && (
        <p className="notice notice-ok" role="status">
          {status}
        </p>
      )}
      {footer}
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
              onClick={() => void printAs('print')}
              disabled={!kit}
            >
              Print…
            </button>
            <button
              type="button"
              className={next ? 'button secondary' : 'button'}
              onClick={() => void printAs('pdf')}
              disabled={!kit}
            >
              Save as PDF…
            </button>
          </>
        )}
        {next && (
          <button type="button" className="button" onClick={next.onClick} disabled={!kit}>
            {next.label}
          </button>
        )}
      </div>
    </dialog>
  )
}

export function GuardianKitViewer({
  vaultId,
  guardianId,
  onClose,
  footer,
}: {
  vaultId: string
  guardianId: string
  onClose(): void
  /** Shown under the kit (e.g. that it changes when another guardian is added). */
  footer?: React.ReactNode
}) {
  return (
    <KitViewer
      footer={footer}
      title="Guardian kit"
      load={async () => {
        const kit = await vault().getGuardianKit({ vaultId, guardianId })
        return {
          html: kit.html,
          fileName: kit.fileName,
          detail: `${kit.guardianName}: share ${kit.shareIndex} of ${kit.shares}; any ${kit.threshold} kits together recover the vault key. Share set ${kit.splitId}, made ${new Date(kit.createdAt).toLocaleString()}.`,
        }
      }}
      print={(as) => vault().printGuardianKit({ vaultId, guardianId, as })}
      onClose={onClose}
    />
  )
}

export function OwnerKitViewer({
  vaultId,
  onClose,
  footer,
  next,
}: {
  vaultId: string
  onClose(): void
  footer?: React.ReactNode
  next?: { label: string; onClick(): void }
}) {
  return (
    <KitViewer
      footer={footer}
      next={next}
      title="Owner recovery kit"
      load={async () => {
        const kit = await vault().getOwnerKit({ vaultId })
        return {
          html: kit.html,
          fileName: kit.fileName,
          detail: `The vault key itself (fingerprint ${kit.fingerprint}): whoever holds these words can open the vault. Keep it where you keep your will.`,
        }
      }}
      print={(as) => vault().printOwnerKit({ vaultId, as })}
      onClose={onClose}
    />
  )
}
