import { useEffect, useState } from 'react'
import { SSS_PRESET_SHAPE } from '../../../shared/api'
import type { GuardianChange } from '../../../shared/ipc/vault-types'
import { vault } from '../../bridge/vault-client'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { ErrorNotice } from '../../components/ErrorNotice'
import { GuardianKitViewer } from '../../components/KitViewer'
import { PersonForm } from '../../components/PersonForm'
import { ReadOnlyNote } from '../../components/ReadOnlyNote'
import { useConnectionStore, useWriteAccess } from '../../stores/connection-store'
import { usePeopleStore } from '../../stores/people-store'
import { useVault } from '../../stores/vaults-store'
import { text } from '../../text'

const t = text.guardians

export function GuardiansTab({ vaultId }: { vaultId: string }) {
  const v = useVault(vaultId)
  const entry = usePeopleStore((s) => s.byVault[vaultId])
  const load = usePeopleStore((s) => s.loadGuardians)
  const setKits = usePeopleStore((s) => s.setKits)
  const service = useConnectionStore((s) => s.status?.service)
  const [handing, setHanding] = useState<string>()
  const { canWrite, reason } = useWriteAccess()
  const [error, setError] = useState<unknown>()
  const [change, setChange] = useState<GuardianChange>()
  /** The kits there were before the change: earlier kits only matter when some were made. */
  const [before, setBefore] = useState<{ made: number; handedOver: number }>({ made: 0, handedOver: 0 })
  const [removing, setRemoving] = useState<{ id: string; name: string }>()
  const [busy, setBusy] = useState(false)
  const [kitFor, setKitFor] = useState<string>()

  // biome-ignore lint/correctness/useExhaustiveDependencies: re-read when the vault's count moves (a change made elsewhere)
  useEffect(() => {
    void load(vaultId)
  }, [load, vaultId, v?.guardianCount])
  if (!v) return null

  const tk = text.guardianKits
  const shape = SSS_PRESET_SHAPE[v.sssPreset]
  const guardians = entry?.guardians ?? []
  const full = guardians.length >= shape.shares
  const writable = canWrite && v.state === 'active'

  const kitsNow = () => ({
    made: entry?.kits?.length ?? 0,
    handedOver: entry?.kits?.filter((k) => k.handedOver).length ?? 0,
  })

  const add = async (person: { name: string; email: string; walletAddress?: string }) => {
    setError(undefined)
    setChange(undefined)
    setBefore(kitsNow())
    try {
      setChange(await vault().addGuardian({ vaultId, person }))
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
    setError(undefined)
    setBefore(kitsNow())
    try {
      setChange(await vault().removeGuardian({ vaultId, guardianId: removing.id }))
      await load(vaultId)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
      setRemoving(undefined)
    }
  }

  const kitOf = (guardianId: string) => entry?.kits?.find((k) => k.guardianId === guardianId)
  // Without mail (or on the trial service) nobody is told anything by e-mail: say so plainly.
  const noMail = !!service && (service.trial || service.mailConfigured === false)
  const handedOver = guardians.filter((g) => kitOf(g.id)?.handedOver).length
  const withKit = guardians.filter((g) => kitOf(g.id)).length

  const markHandedOver = async (guardianId: string, value: boolean) => {
    setHanding(guardianId)
    setError(undefined)
    try {
      setKits(vaultId, await vault().setKitHandedOver({ vaultId, guardianId, handedOver: value }))
    } catch (e) {
      setError(e)
    } finally {
      setHanding(undefined)
    }
  }

  return (
    <div>
      <div className="panel">
        <h2>
          {t.title}{' '}
          <span className="count" data-testid="guardian-count">
            {t.count(guardians.length, shape.shares)}
          </span>
        </h2>
        <p className="muted">{t.note(shape.threshold, shape.shares)}</p>
        {entry?.fromService === false && <p className="muted small">{t.notListed}</p>}
        {entry?.error !== undefined && <ErrorNotice error={entry.error} onRetry={() => void load(vaultId)} />}
        {guardians.length > 0 && !full && (
          <p className="notice notice-info" data-testid="add-all-first">
            {tk.addAllFirst(guardians.length, shape.shares)}
          </p>
        )}
        {guardians.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <div className="table-scroll people-table-box">
            <table className="table people-table">
              <thead>
                <tr>
                  <th scope="col">{t.name}</th>
                  <th scope="col">{t.email}</th>
                  <th scope="col">{t.statusColumn}</th>
                  <th scope="col">{t.kit}</th>
                  <th scope="col">
                    <span className="visually-hidden">{t.actions}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {guardians.map((g) => {
                  const kit = kitOf(g.id)
                  return (
                    <tr key={g.id}>
                      <td>{g.name}</td>
                      <td className="email-cell">{g.email}</td>
                      <td>
                        <span className={`pill pill-${g.status}`}>{t.status[g.status]}</span>
                        <span className="muted small cell-note">
                          {g.status === 'pending' && noMail
                            ? t.addedNoMail(g.invitedAt)
                            : t.invitedOn(g.invitedAt)}
                        </span>
                      </td>
                      <td>
                        {kit ? (
                          <div className="kit-cell">
                            <button type="button" className="link-button" onClick={() => setKitFor(g.id)}>
                              {t.viewKit(kit.shareIndex)}
                            </button>
                            <label className="check-label">
                              <input
                                type="checkbox"
                                checked={kit.handedOver}
                                disabled={handing === g.id || !writable}
                                onChange={(e) => void markHandedOver(g.id, e.target.checked)}
                                aria-label={t.handedOverLabel(kit.shareIndex, g.name)}
                                data-testid="kit-handed-over"
                              />
                              <span aria-hidden="true">{t.handedOver}</span>
                            </label>
                          </div>
                        ) : (
                          <span className="muted small">{t.noKit}</span>
                        )}
                      </td>
                      <td>
                        <button
                          type="button"
                          className="button small danger"
                          disabled={!writable}
                          title={reason ?? undefined}
                          onClick={() => setRemoving({ id: g.id, name: g.name })}
                          aria-label={t.removeLabel(g.name)}
                        >
                          {t.remove}
                        </button>
                      </td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
          </div>
        )}
        {withKit > 0 && (
          <p className="muted small" data-testid="kits-handed-over">
            {t.handedOverCount(handedOver, withKit)}
          </p>
        )}
        {change && (
          <div
            className={change.kitProblem || before.handedOver > 0 ? 'notice notice-warn' : 'notice notice-ok'}
            role="status"
          >
            {change.kitProblem ? (
              <p>{change.kitProblem}</p>
            ) : (
              <p data-testid="guardian-change">
                {change.guardian
                  ? noMail
                    ? tk.addedNoMail(change.guardian.name)
                    : tk.invited(change.guardian.name)
                  : tk.removed}{' '}
                {before.made > 0 ? tk.kitsRemade(change.kits.length) : tk.kitsMade(change.kits.length)}{' '}
                {before.handedOver > 0
                  ? tk.earlierHandedOver(before.handedOver)
                  : before.made > 0
                    ? tk.earlierNotHandedOver
                    : null}
              </p>
            )}
          </div>
        )}
      </div>

      <div className="panel">
        <h2>{t.addTitle}</h2>
        <ReadOnlyNote />
        {full ? (
          <p>{t.full(shape.shares)}</p>
        ) : (
          <>
            {noMail ? (
              <p className="notice notice-warn" data-testid="guardian-no-mail">
                {service?.trial ? t.noMailTrial : t.noMail}
              </p>
            ) : (
              <p className="muted small">{t.invitation}</p>
            )}
            {guardians.length === 0 && <p className="muted small">{t.addAllBeforePrinting}</p>}
            <PersonForm
              who={t.who}
              submitLabel={t.add}
              disabled={!writable}
              disabledReason={reason}
              onSubmit={add}
            />
          </>
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
          <p>{t.removeNote}</p>
        </ConfirmDialog>
      )}
      {kitFor && (
        <GuardianKitViewer
          vaultId={vaultId}
          guardianId={kitFor}
          onClose={() => setKitFor(undefined)}
          footer={
            full ? undefined : (
              <p className="notice notice-warn" data-testid="kit-not-final">
                {tk.kitChangesLater(shape.shares)}
              </p>
            )
          }
        />
      )}
    </div>
  )
}
