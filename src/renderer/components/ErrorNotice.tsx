import { useEffect, useState } from 'react'
import { revealSentence } from '../../shared/untrusted-text'
import { errorView } from '../display/error-text'
import { useNavigationStore } from '../stores/navigation-store'
import { useOwnerKitFlow } from '../stores/owner-kit-store'
import { coreLang, langOf, text } from '../text'
import { UntrustedSentence } from './UntrustedName'

const t = text.errors

/** A failure as the user should read it: the sentence, and the way forward its code calls for. */
export function ErrorNotice({
  error,
  onRetry,
  vaultId,
}: {
  error: unknown
  onRetry?: () => void
  /** The vault the failure is about (for "save the owner kit"); else the open vault. */
  vaultId?: string
}) {
  const view = errorView(error)
  const go = useNavigationStore((s) => s.go)
  const openVaultId = useNavigationStore((s) => s.vaultId)
  const openOwnerKit = useOwnerKitFlow((s) => s.open)
  const kitVault = vaultId ?? openVaultId
  const [wait, setWait] = useState(view.retryAfterSeconds ?? 0)

  useEffect(() => {
    setWait(view.retryAfterSeconds ?? 0)
  }, [view.retryAfterSeconds])
  useEffect(() => {
    if (wait <= 0) return
    const timer = setTimeout(() => setWait((w) => w - 1), 1000)
    return () => clearTimeout(timer)
  }, [wait])

  return (
    <div className="notice notice-error" role="alert" data-code={view.code} lang={langOf('errors')}>
      <p lang={view.lang}>
        {/* The sentence may name a file or a service's answer: hidden characters shown. */}
        <UntrustedSentence text={view.message} />
      </p>
      {view.credits && (view.credits.needed !== undefined || view.credits.balance !== undefined) && (
        <p className="notice-detail">
          {view.credits.needed !== undefined && <>{t.creditsNeeded(view.credits.needed)} </>}
          {view.credits.balance !== undefined && <>{t.creditsBalance(view.credits.balance)}</>}
        </p>
      )}
      {view.retryAfterSeconds !== null && !onRetry && (
        <p className="notice-detail" role="timer">
          {wait > 0 ? t.tryAgainIn(wait) : t.tryAgainNow}
        </p>
      )}
      <div className="notice-actions">
        {view.retryAfterSeconds !== null && onRetry && (
          <button type="button" className="button secondary" disabled={wait > 0} onClick={onRetry}>
            {wait > 0 ? t.retryIn(wait) : t.retry}
          </button>
        )}
        {view.reconnect && (
          <button type="button" className="button secondary" onClick={() => go('settings')}>
            {t.reconnect}
          </button>
        )}
        {view.ownerKit && kitVault && (
          <button type="button" className="button" onClick={() => openOwnerKit(kitVault)}>
            {t.saveOwnerKit}
          </button>
        )}
        {view.extensionMissing && (
          <button type="button" className="button secondary" onClick={() => go('settings', 'connections')}>
            {t.connections}
          </button>
        )}
      </div>
      {view.detail && (
        <details className="notice-technical">
          <summary>{t.technicalDetails}</summary>
          <code lang={coreLang}>{revealSentence(view.detail)}</code>
        </details>
      )}
    </div>
  )
}
