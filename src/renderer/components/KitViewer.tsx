import { useEffect, useState } from 'react'
import { useOwnerKitFlow } from '../stores/owner-kit-store'
import { usePeopleStore } from '../stores/people-store'
import { useSettingsStore } from '../stores/settings-store'
import { text } from '../text'
import { ErrorNotice } from './ErrorNotice'
import { ModalDialog } from './ModalDialog'

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
  const mode = useSettingsStore((s) => s.appInfo?.mode)
  const [kit, setKit] = useState<LoadedKit>()
  const [error, setError] = useState<unknown>()
  const [status, setStatus] = useState<string>()

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
    setStatus(text.kitViewer.downloaded(kit.fileName))
  }

  const printAs = async (as: 'print' | 'pdf') => {
    setError(undefined)
    try {
      const { saved } = await print(as)
      setStatus(
        saved
          ? text.kitViewer.saved(saved)
          : as === 'print'
            ? text.kitViewer.printed
            : text.kitViewer.notSaved,
      )
    } catch (e) {
      setError(e)
    }
  }

  return (
    <ModalDialog title={title} className="dialog kit-dialog" onClose={onClose}>
      {kit && <p className="muted small">{kit.detail}</p>}
      {kit && <iframe className="kit-frame" title={title} sandbox="" srcDoc={kit.html} />}
      {error !== undefined && <ErrorNotice error={error} />}
      {status && (
        <p className="notice notice-ok" role="status">
          {status}
        </p>
      )}
      {footer}
      {mode === 'browser' && <p className="muted small">{text.kitViewer.browserMode}</p>}
      <div className="dialog-actions">
        <button type="button" className="button secondary" onClick={onClose}>
          {text.kitViewer.close}
        </button>
        <button type="button" className="button secondary" onClick={download} disabled={!kit}>
          {text.kitViewer.download}
        </button>
        {mode === 'electron' && (
          <>
            <button
              type="button"
              className="button secondary"
              onClick={() => void printAs('print')}
              disabled={!kit}
            >
              {text.kitViewer.print}
            </button>
            <button
              type="button"
              className={next ? 'button secondary' : 'button'}
              onClick={() => void printAs('pdf')}
              disabled={!kit}
            >
              {text.kitViewer.pdf}
            </button>
          </>
        )}
        {next && (
          <button type="button" className="button" onClick={next.onClick} disabled={!kit}>
            {next.label}
          </button>
        )}
      </div>
    </ModalDialog>
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
      title={text.kitViewer.guardianTitle}
      load={async () => {
        const kit = await usePeopleStore.getState().readGuardianKit(vaultId, guardianId)
        return {
          html: kit.html,
          fileName: kit.fileName,
          detail: text.kitViewer.guardianDetail(
            kit.guardianName,
            kit.shareIndex,
            kit.shares,
            kit.threshold,
            kit.splitId,
            kit.createdAt,
          ),
        }
      }}
      print={(as) => usePeopleStore.getState().printGuardianKit(vaultId, guardianId, as)}
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
      title={text.kitViewer.ownerTitle}
      load={async () => {
        const kit = await useOwnerKitFlow.getState().readKit(vaultId)
        return {
          html: kit.html,
          fileName: kit.fileName,
          detail: text.kitViewer.ownerDetail(kit.fingerprint),
        }
      }}
      print={(as) => useOwnerKitFlow.getState().printKit(vaultId, as)}
      onClose={onClose}
    />
  )
}
