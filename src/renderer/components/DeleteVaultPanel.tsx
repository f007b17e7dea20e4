import { useState } from 'react'
import type { VaultView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { deletionLosses } from '../display/readiness-text'
import { useConnectionStore, useWriteAccess } from '../stores/connection-store'
import { useNavigationStore } from '../stores/navigation-store'
import { useVaultsStore } from '../stores/vaults-store'
import { text } from '../text'
import { ConfirmDialog } from './ConfirmDialog'
import { ErrorNotice } from './ErrorNotice'

const t = text.deleteVault

/** The danger zone: delete an active vault for good, after saying exactly what goes with it. */
export function DeleteVaultPanel({ v }: { v: VaultView }) {
  const extensions = useConnectionStore((s) => s.status?.service?.extensions)
  const closeVault = useNavigationStore((s) => s.closeVault)
  const { canWrite, reason } = useWriteAccess()
  const [confirming, setConfirming] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  if (v.state !== 'active') return null
  const offered = extensions?.includes('vault-delete') ?? false

  const remove = async () => {
    setBusy(true)
    setError(undefined)
    try {
      await vault().deleteVault({ vaultId: v.id })
      setConfirming(false)
      closeVault()
      void useVaultsStore
        .getState()
        .refresh()
        .catch(() => undefined)
    } catch (e) {
      setError(e)
      setConfirming(false)
    } finally {
      setBusy(false)
    }
  }

  return (
    <section className="panel danger-zone" aria-labelledby="delete-vault-title">
      <h2 id="delete-vault-title">{t.title}</h2>
      {offered ? (
        <>
          <p className="muted small">{t.note}</p>
          <button
            type="button"
            className="button danger"
            onClick={() => setConfirming(true)}
            disabled={!canWrite}
            title={reason ?? undefined}
          >
            {t.button}
          </button>
        </>
      ) : (
        <p className="muted small">{t.notOffered}</p>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
      {confirming && (
        <ConfirmDialog
          title={t.confirmTitle(v.label)}
          confirmLabel={t.confirm}
          danger
          busy={busy}
          onConfirm={() => void remove()}
          onCancel={() => setConfirming(false)}
        >
          <p>
            <strong>{t.cannotUndo}</strong> {t.deletes(deletionLosses(v))}
          </p>
          <ul className="plain-list">
            <li>{t.nobody}</li>
            <li>{t.kits}</li>
            <li>{t.localFiles}</li>
          </ul>
        </ConfirmDialog>
      )}
    </section>
  )
}
