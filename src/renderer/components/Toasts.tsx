import { useEffect, useRef, useState } from 'react'
import { useNavigationStore } from '../stores/navigation-store'
import { type Toast, useNoticesStore } from '../stores/notices-store'
import { useVaultsStore } from '../stores/vaults-store'
import { text } from '../text'
import { UntrustedSentence } from './UntrustedName'

/**
 * The notices, in the sidebar's free space below the navigation (styles.css `.toasts`), so they never
 * cover the page's controls or its error text. They stay while the pointer or focus is on them.
 */
export function Toasts() {
  const { toasts, dismiss, retrying, checkingIn, checkIn, pause, resume } = useNoticesStore()
  const openVault = useNavigationStore((s) => s.openVault)
  const go = useNavigationStore((s) => s.go)
  const vaults = useVaultsStore((s) => s.snapshot?.vaults)
  const [hovered, setHovered] = useState(false)
  const [focused, setFocused] = useState(false)
  const region = useRef<HTMLElement>(null)
  const holding = hovered || focused
  useEffect(() => (holding ? pause() : resume()), [holding, pause, resume])
  // A dismissed notice takes its focused button (no blur event) or the whole region with it.
  useEffect(() => {
    if (!region.current) setHovered(false)
    if (!region.current?.contains(document.activeElement)) setFocused(false)
  })

  // A release alarm is over once its vault is no longer releasing (cancelled here or elsewhere).
  const shown = toasts.filter(
    (t) => t.kind !== 'releasing' || vaults?.find((v) => v.id === t.vaultId)?.state === 'releasing',
  )
  if (shown.length === 0 && !retrying) return null
  const t = text.toasts
  return (
    <section
      ref={region}
      className="toasts"
      role="log"
      aria-live="polite"
      aria-label={t.regionLabel}
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget)) setFocused(false)
      }}
    >
      {retrying && (
        <div className="toast toast-retrying" role="status">
          <p>{retrying.text}.</p>
        </div>
      )}
      {shown.map((toast) => (
        <div key={toast.id} className={`toast toast-${toast.kind}`} data-testid="toast">
          <ToastText toast={toast} />
          <div className="toast-actions">
            {toast.kind === 'reminder' && toast.vaultId && (
              <button
                type="button"
                className="button small"
                disabled={checkingIn === toast.vaultId}
                onClick={() => void checkIn(toast.id, toast.vaultId!)}
              >
                {checkingIn === toast.vaultId ? t.checkingIn : t.checkInNow}
              </button>
            )}
            {toast.kind === 'credits-low' && (
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  go('settings', 'credits')
                  dismiss(toast.id)
                }}
              >
                {t.addCredits}
              </button>
            )}
            {toast.vaultId && (
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  openVault(toast.vaultId!)
                  dismiss(toast.id)
                }}
              >
                {t.openVault}
              </button>
            )}
            <button type="button" className="link-button" onClick={() => dismiss(toast.id)}>
              {text.common.dismiss}
            </button>
          </div>
        </div>
      ))}
    </section>
  )
}

/**
 * A notice's words. Its title and body may hold names of files or vaults, written by the core: shown
 * with their hidden characters as markers, each sentence isolated from the next.
 */
export function ToastText({ toast }: { toast: Toast }) {
  if (toast.lines.length > 1) {
    return (
      <>
        <strong>{text.toasts.backupsFinished(toast.lines.length)}</strong>
        <ul className="toast-lines">
          {toast.lines.map((line) => (
            <li key={line} lang={toast.lang}>
              <UntrustedSentence text={line} />
            </li>
          ))}
        </ul>
      </>
    )
  }
  return (
    <>
      {toast.title && (
        <strong lang={toast.lang}>
          <UntrustedSentence text={toast.title} />
        </strong>
      )}
      <p lang={toast.lang}>
        <UntrustedSentence text={toast.body} />
      </p>
    </>
  )
}
