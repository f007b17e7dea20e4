import { type FormEvent, useState } from 'react'
import { LIMITS } from '../../../shared/api'
import type { CheckInOutcome } from '../../../shared/ipc/vault-types'
import { DeleteVaultPanel } from '../../components/DeleteVaultPanel'
import { EncryptedExportPanel } from '../../components/EncryptedExportPanel'
import { ErrorNotice } from '../../components/ErrorNotice'
import { NextStep, ReadinessPanel } from '../../components/Readiness'
import { ReleaseDates } from '../../components/ReleasingBanner'
import { StateBadge } from '../../components/StateBadge'
import { useAction } from '../../components/use-action'
import { VaultKeyPanel } from '../../components/VaultKeyPanel'
import { FREQUENCY_SHORT, TRIGGER_TEXT } from '../../display/release-text'
import { runway } from '../../display/runway'
import { describeDeadline } from '../../display/units'
import { useNavigationStore } from '../../stores/navigation-store'
import { useVault, useVaultsStore } from '../../stores/vaults-store'
import { format, text } from '../../text'

const t = text.overview

export function OverviewTab({ vaultId }: { vaultId: string }) {
  const v = useVault(vaultId)
  const setTab = useNavigationStore((s) => s.setTab)
  const [note, setNote] = useState('')
  const [result, setResult] = useState<CheckInOutcome>()
  const checkingIn = useAction(async () => {
    setResult(undefined)
    setResult(await useVaultsStore.getState().checkIn(vaultId, note))
    setNote('')
  })
  if (!v) return null
  const now = Date.now()
  const r = runway(v.creditsBalance, v.releaseTrigger === 'dead_man_switch' ? v.checkInFrequency : null)
  const due = v.nextCheckInDue ? describeDeadline(v.nextCheckInDue, now) : null
  const canCheckIn = v.state === 'active' && v.releaseTrigger === 'dead_man_switch'

  const checkIn = (event: FormEvent) => {
    event.preventDefault()
    void checkingIn.run()
  }

  return (
    <div className="overview-grid">
      <div className="overview-main">
        {/* Where it stands and the one next step, then checking in: all in view without scrolling. */}
        <section className="panel overview-head" aria-labelledby="overview-head-title">
          <h2 id="overview-head-title">{t.standsTitle}</h2>
          <p className="overview-state">
            <StateBadge state={v.state} />
            <span className="muted">{text.common.credits(v.creditsBalance)}</span>
            {v.nextCheckInDue && due && (
              <span className={due.overdue ? 'text-danger' : 'muted'}>{t.nextDueShort(due.text)}</span>
            )}
          </p>
          <NextStep v={v} />
        </section>
        {/* Checking in cannot stop a release that has started: only cancelling can. */}
        {v.state === 'active' && (
          <form className="panel checkin-panel" onSubmit={checkIn} aria-labelledby="checkin-title">
            <h2 id="checkin-title">{t.checkInTitle}</h2>
            <p className="muted">{t.checkInNote(LIMITS.checkInCostCredits)}</p>
            <label htmlFor="checkin-note">{t.note}</label>
            <input
              id="checkin-note"
              type="text"
              value={note}
              maxLength={1000}
              onChange={(e) => setNote(e.target.value)}
              placeholder={t.notePlaceholder}
              disabled={!canCheckIn}
            />
            <div className="row">
              <button type="submit" className="button" disabled={!canCheckIn || checkingIn.busy}>
                {checkingIn.busy ? t.checkingIn : t.checkInTitle}
              </button>
              {!canCheckIn && (
                <span className="muted small">{v.releaseTrigger ? t.otherTrigger : t.noSwitch}</span>
              )}
            </div>
            {result && (
              <p className="notice notice-ok" role="status" data-testid="checkin-result">
                {t.checkedIn(result.nextCheckInDue, result.daysRemaining)}
              </p>
            )}
            {checkingIn.error !== undefined && <ErrorNotice error={checkingIn.error} />}
            <p className="muted small" data-testid="last-checkin">
              {t.lastCheckIn}{' '}
              {v.lastCheckIn ? t.lastCheckInAt(v.lastCheckIn.at, v.lastCheckIn.note ?? null) : t.noneYet}
            </p>
          </form>
        )}

        <div className="overview-pair">
          <div className="panel">
            <h2>{t.status}</h2>
            <dl className="facts">
              <dt>{t.state}</dt>
              <dd>
                <StateBadge state={v.state} />
              </dd>
              <dt>{t.credits}</dt>
              <dd data-testid="overview-credits">{text.common.credits(v.creditsBalance)}</dd>
              <dt>{t.balanceCovers}</dt>
              <dd>{t.covers(r.text, format.bytes(r.storageBytes))}</dd>
              <dt>{t.contents}</dt>
              <dd>
                {t.contentsCounts(v.fileCount, v.assetCount, v.guardianCount, v.sssPreset, v.heirCount)}
              </dd>
              <dt>{t.vaultKey}</dt>
              <dd>
                {v.keyOnDevice ? (v.keyStorage.durable ? t.keyOnDevice : t.keyUntilClose) : t.keyNotOnDevice}
              </dd>
              <dt>{t.ownerKit}</dt>
              <dd>
                {v.ownerKitConfirmedAt ? t.ownerKitConfirmed(v.ownerKitConfirmedAt) : t.ownerKitNotConfirmed}
              </dd>
              <dt>{t.created}</dt>
              <dd>{format.date(v.createdAt)}</dd>
            </dl>
          </div>
          <div className="panel">
            <h2>{t.release}</h2>
            {v.releaseTrigger ? (
              <dl className="facts">
                <dt>{t.trigger}</dt>
                <dd>{TRIGGER_TEXT[v.releaseTrigger].label}</dd>
                {v.releaseTrigger === 'dead_man_switch' && (
                  <>
                    <dt>{t.checkIn}</dt>
                    <dd>{v.checkInFrequency ? FREQUENCY_SHORT[v.checkInFrequency] : text.common.notSet}</dd>
                    <dt>{t.nextDue}</dt>
                    <dd className={due?.overdue ? 'text-danger' : undefined} data-testid="next-due">
                      {v.nextCheckInDue && due ? t.nextDueAt(v.nextCheckInDue, due.text) : text.common.notSet}
                    </dd>
                  </>
                )}
                {v.state === 'active' && (
                  <>
                    <dt>{t.ifItStarts}</dt>
                    <dd>{t.daysToCancel(LIMITS.contestationDays)}</dd>
                  </>
                )}
              </dl>
            ) : (
              <p>
                {t.noTrigger}{' '}
                <button type="button" className="link-button" onClick={() => setTab('release')}>
                  {t.chooseTrigger}
                </button>
              </p>
            )}
            {/* Started: when heirs get access, not what would happen "if it starts" (the banner cancels). */}
            {v.state !== 'active' && (
              <p data-testid="overview-release-dates">
                <ReleaseDates v={v} />
              </p>
            )}
          </div>
        </div>
        {/* Released: the day came, nothing is left to get ready. */}
        {v.state !== 'released' && <ReadinessPanel v={v} />}
      </div>
      {/* Used now and then: the key and its kit, a copy for the drawer, deleting. */}
      <div className="overview-side">
        <VaultKeyPanel v={v} />
        <EncryptedExportPanel vaultId={vaultId} />
        <DeleteVaultPanel v={v} />
      </div>
    </div>
  )
}
