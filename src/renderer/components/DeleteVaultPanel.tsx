import { useState } from 'react'
import type { VaultView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { deletionLosses } from '../display/readiness-text'
import { useConnectionStore, useWriteAccess } from '../stores/connection-store'
import { useNavigationStore } from '../stores/navigation-store'
import { useVaultsStore } from '../stores/vaults-store'
import { ConfirmDialog } from './ConfirmDialog'
import { ErrorNotice } from './ErrorNotice'

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
      <h2 id="delete-vault-title">Delete this vault</h2>
      {offered ? (
        <>
          <p className="muted small">
            Removes the vault and everything in it from the service. Use it for a vault you made by mistake or
            no longer want anyone to receive.
          </p>
          <button
            type="button"
            className="button danger"
            onClick={() => setConfirming(true)}
            disabled={!canWrite}
            title={reason ?? undefined}
          >
            Delete vault…
          </button>
        </>
      ) : (
        <p className="muted small">
          The connected service does not let the app delete vaults. Use the service's own website, or ask
          whoever runs it.
        </p>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
      {confirming && (
        <ConfirmDialog
          title={`Delete ${v.label}?`}
          confirmLabel="Delete the vault for good"
          danger
          busy={busy}
          onConfirm={() => void remove()}
          onCancel={() => setConfirming(false)}
        >
          <p>
            <strong>This cannot be undone.</strong> The service deletes {deletionLosses(v)}.
          </p>
          <ul className="plain-list">
            <li>Nobody will receive anything from this vault: there is nothing left to release.</li>
            <li>
              The guardians' kits and your owner kit stop mattering: there is nothing left for them to open.
              They can be destroyed.
            </li>
            <li>The files on this computer are not touched.</li>
          </ul>
        </ConfirmDialog>
      )}
    </section>
  )
}
