import { useEffect, useState } from 'react'
import { errorView } from '../display/error-text'
import { formatCredits } from '../display/units'
import { useNavigationStore } from '../stores/navigation-store'
import { useOwnerKitFlow } from '../stores/owner-kit-store'

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
    <div className="notice notice-error" role="alert" data-code={view.code}>
      <p>{view.message}</p>
      {view.credits && (view.credits.needed !== undefined || view.credits.balance !== undefined) && (
        <p className="notice-detail">
          {view.credits.needed !== undefined && <>Needed: {formatCredits(view.credits.needed)}. </>}
          {view.credits.balance !== undefined && <>Balance: {formatCredits(view.credits.balance)}.</>}
        </p>
      )}
      {view.retryAfterSeconds !== null && !onRetry && (
        <p className="notice-detail" role="timer">
          {wait > 0 ? `You can try again in ${wait} s.` : 'You can try again now.'}
        </p>
      )}
      <div className="notice-actions">
        {view.retryAfterSeconds !== null && onRetry && (
          <button type="button" className="button secondary" disabled={wait > 0} onClick={onRetry}>
            {wait > 0 ? `Try again in ${wait} s` : 'Try again'}
          </button>
        )}
        {view.reconnect && (
          <button type="button" className="button secondary" onClick={() => go('settings')}>
            Reconnect in Settings
          </button>
        )}
        {view.ownerKit && kitVault && (
          <button type="button" className="button" onClick={() => openOwnerKit(kitVault)}>
            Save the owner kit…
          </button>
        )}
        {view.extensionMissing && (
          <button type="button" className="button secondary" onClick={() => go('settings', 'connections')}>
            Connections in Settings
          </button>
        )}
      </div>
    </div>
  )
}
