import { useNavigationStore } from '../stores/navigation-store'
import { useNoticesStore } from '../stores/notices-store'
import { useVaultsStore } from '../stores/vaults-store'

export function Toasts() {
  const { toasts, dismiss, retrying } = useNoticesStore()
  const openVault = useNavigationStore((s) => s.openVault)
  const go = useNavigationStore((s) => s.go)
  const vaults = useVaultsStore((s) => s.snapshot?.vaults)
  // A release alarm is over once its vault is no longer releasing (cancelled here or elsewhere).
  const shown = toasts.filter(
    (t) => t.kind !== 'releasing' || vaults?.find((v) => v.id === t.vaultId)?.state === 'releasing',
  )
  if (shown.length === 0 && !retrying) return null
  return (
    <div className="toasts" role="log" aria-live="polite" aria-label="Notifications">
      {retrying && (
        <div className="toast toast-retrying" role="status">
          <p>{retrying.text}.</p>
        </div>
      )}
      {shown.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`}>
          <strong>{t.title}</strong>
          <p>{t.body}</p>
          <div className="toast-actions">
            {t.kind === 'credits-low' && (
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  go('settings', 'credits')
                  dismiss(t.id)
                }}
              >
                Add credits
              </button>
            )}
            {t.vaultId && (
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  openVault(t.vaultId!)
                  dismiss(t.id)
                }}
              >
                Open vault
              </button>
            )}
            <button type="button" className="link-button" onClick={() => dismiss(t.id)}>
              Dismiss
            </button>
          </div>
        </div>
      ))}
    </div>
  )
}
