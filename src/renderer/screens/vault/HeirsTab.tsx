import { useEffect, useState } from 'react'
import { LIMITS } from '../../../shared/api'
import { vault } from '../../bridge/vault-client'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { ErrorNotice } from '../../components/ErrorNotice'
import { PersonForm } from '../../components/PersonForm'
import { ReadOnlyNote } from '../../components/ReadOnlyNote'
import { useWriteAccess } from '../../stores/connection-store'
import { usePeopleStore } from '../../stores/people-store'
import { useVault } from '../../stores/vaults-store'
import { format, text } from '../../text'

const t = text.heirs

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
          {t.title}{' '}
          <span className="count" data-testid="heir-count">
            {t.count(heirs.length, LIMITS.maxHeirs)}
          </span>
        </h2>
        <p className="muted">{t.note(LIMITS.contestationDays)}</p>
        {entry?.fromService === false && <p className="muted small">{t.notListed}</p>}
        {entry?.error !== undefined && <ErrorNotice error={entry.error} onRetry={() => void load(vaultId)} />}
        {heirs.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th scope="col">{t.name}</th>
                <th scope="col">{t.email}</th>
                <th scope="col">{t.wallet}</th>
                <th scope="col">{t.added}</th>
                <th scope="col">
                  <span className="visually-hidden">{t.actions}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {heirs.map((h) => (
                <tr key={h.id}>
                  <td>{h.name}</td>
                  <td>{h.email}</td>
                  <td>
                    {h.walletAddress ? <code>{`${h.walletAddress.slice(0, 8)}…`}</code> : text.common.notSet}
                  </td>
                  <td>{format.date(h.addedAt)}</td>
                  <td>
                    <button
                      type="button"
                      className="button small danger"
                      disabled={!writable}
                      title={reason ?? undefined}
                      onClick={() => setRemoving({ id: h.id, name: h.name })}
                      aria-label={t.removeLabel(h.name)}
                    >
                      {t.remove}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <div className="panel">
        <h2>{t.addTitle}</h2>
        <ReadOnlyNote />
        {full ? (
          <p data-testid="heir-limit">{t.limit(LIMITS.maxHeirs)}</p>
        ) : (
          <PersonForm
            who={t.who}
            submitLabel={t.add}
            disabled={!writable}
            disabledReason={reason}
            onSubmit={add}
          />
        )}
        {error !== undefined && <ErrorNotice error={error} />}
      </div>
      {removing && (
        <ConfirmDialog
          title={t.removeTitle(removing.name)}
          confirmLabel={t.removeConfirm}
          danger
          busy={busy}
          onConfirm={remove}
          onCancel={() => setRemoving(undefined)}
        >
          <p>{t.removeNote(removing.name)}</p>
        </ConfirmDialog>
      )}
    </div>
  )
}
