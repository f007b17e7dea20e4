import { type FormEvent, useState } from 'react'
import { LIMITS } from '../../../shared/api'
import type { CheckInOutcome } from '../../../shared/ipc/vault-types'
import { vault } from '../../bridge/vault-client'
import { DeleteVaultPanel } from '../../components/DeleteVaultPanel'
import { ErrorNotice } from '../../components/ErrorNotice'
import { ReadinessPanel } from '../../components/Readiness'
import { StateBadge } from '../../components/StateBadge'
import { VaultKeyPanel } from '../../components/VaultKeyPanel'
import { FREQUENCY_SHORT, TRIGGER_TEXT } from '../../display/release-text'
import { runway } from '../../display/runway'
import { describeDeadline, formatBytes, formatCredits, formatDate, formatDateTime } from '../../display/units'
import { useNavigationStore } from '../../stores/navigation-store'
import { useVault } from '../../stores/vaults-store'

export function OverviewTab({ vaultId }: { vaultId: string }) {
  const v = useVault(vaultId)
  const setTab = useNavigationStore((s) => s.setTab)
  const [note, setNote] = useState('')
  const [busy, setBusy] = useState(false)
  const [result, setResult] = useState<CheckInOutcome>()
  const [error, setError] = useState<unknown>()
  if (!v) return null
  const now = Date.now()
  const r = runway(v.creditsBalance, v.releaseTrigger === 'dead_man_switch' ? v.checkInFrequency : null)
  const due = v.nextCheckInDue ? describeDeadline(v.nextCheckInDue, now) : null
  const canCheckIn = v.state === 'active' && v.releaseTrigger === 'dead_man_switch'

  const checkIn = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    setResult(undefined)
    try {
      setResult(await vault().checkIn({ vaultId, note: note.trim() || undefined }))
      setNote('')
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  return (
    <div className="overview-grid">
      <ReadinessPanel v={v} />
      <div className="panel">
        <h2>Status</h2>
        <dl className="facts">
          <dt>State</dt>
          <dd>
            <StateBadge state={v.state} />
          </dd>
          <dt>Credits</dt>
          <dd data-testid="overview-credits">{formatCredits(v.creditsBalance)}</dd>
          <dt>The balance covers</dt>
          <dd>
            {r.text}, or about {formatBytes(r.storageBytes)} of new encrypted files
          </dd>
          <dt>Contents</dt>
          <dd>
            {v.assetCount} file{v.assetCount === 1 ? '' : 's'} · {v.guardianCount} guardian
            {v.guardianCount === 1 ? '' : 's'} ({v.sssPreset === 'standard' ? 'any 2 of 3' : 'any 3 of 5'}) ·{' '}
            {v.heirCount} heir{v.heirCount === 1 ? '' : 's'}
          </dd>
          <dt>Vault key</dt>
          <dd>
            {v.keyOnDevice
              ? v.keyStorage.durable
                ? 'On this device'
                : 'On this device until the app closes'
              : 'Not on this device (uploads and kits need it)'}
          </dd>
          <dt>Owner kit</dt>
          <dd>
            {v.ownerKitConfirmedAt ? `Confirmed ${formatDate(v.ownerKitConfirmedAt)}` : 'Not confirmed'}
          </dd>
          <dt>Created</dt>
          <dd>{formatDate(v.createdAt)}</dd>
        </dl>
      </div>

      <div className="panel">
        <h2>Release</h2>
        {v.releaseTrigger ? (
          <dl className="facts">
            <dt>Trigger</dt>
            <dd>{TRIGGER_TEXT[v.releaseTrigger].label}</dd>
            {v.releaseTrigger === 'dead_man_switch' && (
              <>
                <dt>Check-in</dt>
                <dd>{v.checkInFrequency ? FREQUENCY_SHORT[v.checkInFrequency] : '—'}</dd>
                <dt>Next check-in due</dt>
                <dd className={due?.overdue ? 'text-danger' : undefined} data-testid="next-due">
                  {v.nextCheckInDue ? `${formatDateTime(v.nextCheckInDue)} (${due?.text})` : '—'}
                </dd>
              </>
            )}
            <dt>If it starts</dt>
            <dd>You have {LIMITS.contestationDays} days to cancel before heirs are told.</dd>
          </dl>
        ) : (
          <p>
            No release trigger yet: nothing will ever reach your heirs.{' '}
            <button type="button" className="link-button" onClick={() => setTab('release')}>
              Choose a trigger
            </button>
          </p>
        )}
      </div>

      <form className="panel checkin-panel" onSubmit={checkIn} aria-labelledby="checkin-title">
        <h2 id="checkin-title">Check in</h2>
        <p className="muted">
          Tells the service you are still here and resets the dead man's switch. Costs{' '}
          {LIMITS.checkInCostCredits} credits. Agent keys may check in too.
        </p>
        <label htmlFor="checkin-note">Note (optional)</label>
        <input
          id="checkin-note"
          type="text"
          value={note}
          maxLength={1000}
          onChange={(e) => setNote(e.target.value)}
          placeholder="e.g. all well, back from holiday"
          disabled={!canCheckIn}
        />
        <div className="row">
          <button type="submit" className="button" disabled={!canCheckIn || busy}>
            {busy ? 'Checking in…' : 'Check in'}
          </button>
          {!canCheckIn && (
            <span className="muted small">
              {v.state !== 'active'
                ? 'Check-ins apply to active vaults only.'
                : v.releaseTrigger
                  ? "Check-ins apply to the dead man's switch trigger; this vault uses another trigger."
                  : "Choose the dead man's switch in Release settings to start checking in."}
            </span>
          )}
        </div>
        {result && (
          <p className="notice notice-ok" role="status" data-testid="checkin-result">
            Checked in. Next check-in due {formatDateTime(result.nextCheckInDue)} — {result.daysRemaining} day
            {result.daysRemaining === 1 ? '' : 's'} from now.
          </p>
        )}
        {error !== undefined && <ErrorNotice error={error} />}
        <p className="muted small" data-testid="last-checkin">
          Last check-in from this device:{' '}
          {v.lastCheckIn
            ? `${formatDateTime(v.lastCheckIn.at)}${v.lastCheckIn.note ? ` — “${v.lastCheckIn.note}”` : ''}`
            : 'none yet'}
        </p>
      </form>

      <VaultKeyPanel v={v} />
      <DeleteVaultPanel v={v} />
    </div>
  )
}
