import { useNavigationStore } from '../stores/navigation-store'
import { useNoticesStore } from '../stores/notices-store'

export function Toasts() {
  const { toasts, dismiss } = useNoticesStore()
  const openVault = useNavigationStore((s) => s.openVault)
  if (toasts.length === 0) return null
  return (
    <div className="toasts" role="log" aria-live="polite" aria-label="Notifications">
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`}>
          <strong>{t.title}</strong>
          <p>{t.body}</p>
          <div className="toast-actions">
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
