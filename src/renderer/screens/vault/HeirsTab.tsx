import { useEffect, useState } from 'react'
import { LIMITS } from '../../../shared/api'
import { vault } from '../../bridge/vault-client'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { ErrorNotice } from '../../components/ErrorNotice'
import { PersonForm } from '../../components/PersonForm'
import { ReadOnlyNote } from '../../components/ReadOnlyNote'
import { formatDate } from '../../display/units'
import { useWriteAccess } from '../../stores/connection-store'
import { usePeopleStore } from '../../stores/people-store'
import { useVault } from '../../stores/vaults-store'

export function HeirsTab({ vaultId }: { vaultId: string }) {
  const v = useVault(vaultId)
  const entry = usePeopleStore((s) => s.byVault[vaultId])
  const load = usePeopleStore((s) => s.loadHeirs)
  const { canWrite, reason } = useWriteAccess()
  const [error, setError] = useState<unknown>()
  const [removing, setRemoving] = useState<{ id: string; name: string }>()
  const [busy, setBusy] = useState(false)

  // biome-ignore lint/correctness/useExhaustiveDependencies: re-read when the vault's count moves (a change made elsewhere)
  useEffect(() => {
    void load(vaultId)
  }, [load, vaultId, v?.heirCount])
  if (!v) return null
  const heirs = entry?.heirs ?? []
  const full = heirs.length >= LIMITS.maxHeirs
  const writable = canWrite && v.state === 'active'

  const add = async (person: { name: string; email: string; walletAddress?: string }) => {
    setError(undefined)
    try {
      await vault().addHeir({ vaultId, person })
      // The form clears now; the list refreshes behind it.
      void load(vaultId)
      return true
    } catch (e) {
      setError(e)
      return false
    }
  }
  const remove = async () => {
    if (!removing) return
    setBusy(true)
    try {
      await vault().removeHeir({ vaultId, heirId: removing.id })
      await load(vaultId)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
      setRemoving(undefined)
    }
  }

  return (
    <div>
      <div className="panel">
        <h2>
          Heirs{' '}
          <span className="count" data-testid="heir-count">
            {heirs.length} of {LIMITS.maxHeirs}
          </span>
        </h2>
        <p className="muted">
          Heirs are told nothing until a release completes: after the trigger fires and the{' '}
          {LIMITS.contestationDays}-day period to cancel ends, each heir receives full access to the vault.
        </p>
        {entry?.fromService === false && (
          <p className="muted small">
            This service does not list heirs; shown are those added from this device.
          </p>
        )}
        {entry?.error !== undefined && <ErrorNotice error={entry.error} onRetry={() => void load(vaultId)} />}
        {heirs.length === 0 ? (
          <p>No heirs yet.</p>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Wallet</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {heirs.map((h) => (
                <tr key={h.id}>
                  <td>{h.name}</td>
                  <td>{h.email}</td>
                  <td>{h.walletAddress ? <code>{`${h.walletAddress.slice(0, 8)}…`}</code> : '—'}</td>
                  <td>{formatDate(h.addedAt)}</td>
                  <td>
                    <button
                      type="button"
                      className="button small danger"
                      disabled={!writable}
                      title={reason ?? undefined}
                      onClick={() => setRemoving({ id: h.id, name: h.name })}
                      aria-label={`Remove heir ${h.name}`}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <div className="panel">
        <h2>Add an heir</h2>
        <ReadOnlyNote />
        {full ? (
          <p data-testid="heir-limit">A vault can have {LIMITS.maxHeirs} heirs; remove one to add another.</p>
        ) : (
          <PersonForm
            who="heir"
            submitLabel="Add heir"
            disabled={!writable}
            disabledReason={reason}
            onSubmit={add}
          />
        )}
        {error !== undefined && <ErrorNotice error={error} />}
      </div>
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.name}?`}
          confirmLabel="Remove heir"
          danger
          busy={busy}
          onConfirm={remove}
          onCancel={() => setRemoving(undefined)}
        >
          <p>
            {removing.name} will not receive access if the vault is released. You can add them again later.
          </p>
        </ConfirmDialog>
      )}
    </div>
  )
}
