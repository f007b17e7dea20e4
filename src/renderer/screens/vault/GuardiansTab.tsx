import { useEffect, useState } from 'react'
import { type Guardian, type PersonRequest, SSS_PRESET_SHAPE } from '../../../shared/api'
import type { GuardianChange } from '../../../shared/ipc/vault-types'
import { KeyRotationPanel } from '../../components/KeyRotationPanel'
import { GuardianKitViewer } from '../../components/KitViewer'
import { LocalMailLink } from '../../components/LocalMailPanel'
import { useAction } from '../../components/use-action'
import { kitCheckText } from '../../display/readiness-text'
import { useConnectionStore, useWriteAccess } from '../../stores/connection-store'
import { usePeopleStore } from '../../stores/people-store'
import { useVault } from '../../stores/vaults-store'
import { text } from '../../text'
import { PeopleTab, type TabAction } from './PeopleTab'

const t = text.guardians

export function GuardiansTab({ vaultId }: { vaultId: string }) {
  const v = useVault(vaultId)
  const entry = usePeopleStore((s) => s.byVault[vaultId])
  const load = usePeopleStore((s) => s.loadGuardians)
  const { addGuardian, removeGuardian, setKitHandedOver } = usePeopleStore.getState()
  const service = useConnectionStore((s) => s.status?.service)
  const [handing, setHanding] = useState<string>()
  const { canWrite } = useWriteAccess()
  const action: TabAction = useAction((work: () => Promise<unknown>) => work())
  const [change, setChange] = useState<GuardianChange>()
  /** The kits there were before the change: earlier kits only matter when some were made. */
  const [before, setBefore] = useState<{ made: number; handedOver: number }>({ made: 0, handedOver: 0 })
  const [kitFor, setKitFor] = useState<string>()
  /** After a removal the rotation is offered here, and stays while it runs. */
  const [offerRotation, setOfferRotation] = useState(false)

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

  const add = async (person: PersonRequest) => {
    setChange(undefined)
    setBefore(kitsNow())
    setChange(await addGuardian(vaultId, person))
    void load(vaultId)
  }

  const remove = async (guardianId: string) => {
    setBefore(kitsNow())
    setChange(await removeGuardian(vaultId, guardianId))
    setOfferRotation(true)
    await load(vaultId)
  }

  const kitOf = (guardianId: string) => entry?.kits?.find((k) => k.guardianId === guardianId)
  // Without mail (or on the trial service) nobody is told anything by e-mail: say so plainly.
  const noMail = !!service && (service.trial || service.mailConfigured === false)
  const handedOver = guardians.filter((g) => kitOf(g.id)?.handedOver).length
  const withKit = guardians.filter((g) => kitOf(g.id)).length

  const markHandedOver = async (guardianId: string, value: boolean) => {
    setHanding(guardianId)
    await action.run(() => setKitHandedOver(vaultId, guardianId, value))
    setHanding(undefined)
  }

  const status = (g: Guardian) => {
    const check = kitCheckText(g.kitCheck, kitOf(g.id)?.createdAt ?? null)
    return (
      <>
        {/* No e-mail left this computer: nobody was invited, so nobody can be waited for. */}
        <span className={`pill pill-${g.status}`}>
          {g.status === 'pending' && noMail ? t.status.notTold : t.status[g.status]}
        </span>
        <span className="muted small cell-note">
          {g.status === 'pending' && noMail ? t.addedNoMail(g.invitedAt) : t.invitedOn(g.invitedAt)}
        </span>
        {check && (
          <span
            className={`small cell-note ${check.overdue ? 'text-warn' : 'muted'}`}
            data-testid="guardian-kit-check"
          >
            {check.overdue ? `${check.text}. ${t.kitCheck.askToCheck(g.name)}` : check.text}
          </span>
        )}
      </>
    )
  }

  const kitCell = (g: Guardian) => {
    const kit = kitOf(g.id)
    if (!kit) return <span className="muted small">{t.noKit}</span>
    return (
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
    )
  }

  return (
    <PeopleTab
      t={t}
      countTestId="guardian-count"
      max={shape.shares}
      note={t.note(shape.threshold, shape.shares)}
      people={guardians}
      listed={entry}
      onReload={() => void load(vaultId)}
      columns={[
        { header: t.statusColumn, cell: status },
        { header: t.kit, cell: kitCell },
      ]}
      stacksWhenNarrow
      beforeList={
        guardians.length > 0 &&
        !full && (
          <p className="notice notice-info" data-testid="add-all-first">
            {tk.addAllFirst(guardians.length, shape.shares)}
          </p>
        )
      }
      afterList={
        <>
          {withKit > 0 && (
            <p className="muted small" data-testid="kits-handed-over">
              {t.handedOverCount(handedOver, withKit)}
            </p>
          )}
          {change && (
            <div
              className={
                change.kitProblem || before.handedOver > 0 ? 'notice notice-warn' : 'notice notice-ok'
              }
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
                    : `${tk.removed} ${tk.removedStillOpens}`}{' '}
                  {before.made > 0 ? tk.kitsRemade(change.kits.length) : tk.kitsMade(change.kits.length)}{' '}
                  {before.handedOver > 0
                    ? tk.earlierHandedOver(before.handedOver)
                    : before.made > 0
                      ? tk.earlierNotHandedOver
                      : null}
                  {change.guardian && noMail && (
                    <>
                      {' '}
                      <LocalMailLink />
                    </>
                  )}
                </p>
              )}
            </div>
          )}
          {/* A removal is honest only with the way to make the removed guardian's kit worthless. */}
          {offerRotation && <KeyRotationPanel v={v} afterRemoval onRotated={() => setChange(undefined)} />}
        </>
      }
      fullNote={<p>{t.full(shape.shares)}</p>}
      beforeForm={
        <>
          {noMail ? (
            <p className="notice notice-warn" data-testid="guardian-no-mail">
              {service?.trial ? t.noMailTrial : t.noMail} <LocalMailLink />
            </p>
          ) : (
            <p className="muted small">{t.invitation}</p>
          )}
          {guardians.length === 0 && <p className="muted small">{t.addAllBeforePrinting}</p>}
        </>
      }
      writable={writable}
      action={action}
      onAdd={add}
      onRemove={remove}
      removeNote={() => t.removeNote}
    >
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
    </PeopleTab>
  )
}
