import { type FormEvent, useState } from 'react'
import {
  CHECK_IN_FREQUENCIES,
  type CheckInFrequency,
  LIMITS,
  RELEASE_TRIGGERS,
  type ReleaseTrigger,
} from '../../../shared/api'
import type { ReleaseSettings } from '../../../shared/ipc/vault-types'
import { CheckInLinksPanel } from '../../components/CheckInLinksPanel'
import { ErrorNotice } from '../../components/ErrorNotice'
import { RadioCards } from '../../components/RadioCards'
import { ReadOnlyNote } from '../../components/ReadOnlyNote'
import { RehearsalPanel } from '../../components/RehearsalPanel'
import { CancelReleaseButton, ReleaseDates } from '../../components/ReleasingBanner'
import { StartReleasePanel } from '../../components/StartReleasePanel'
import { useAction } from '../../components/use-action'
import { FREQUENCY_TEXT, TRIGGER_TEXT } from '../../display/release-text'
import { useWriteAccess } from '../../stores/connection-store'
import { useVault, useVaultsStore } from '../../stores/vaults-store'
import { text } from '../../text'

export function ReleaseTab({ vaultId }: { vaultId: string }) {
  const v = useVault(vaultId)
  const { canWrite, reason } = useWriteAccess()
  // A new vault has no trigger: none is shown chosen until the owner picks one and saves it.
  const [trigger, setTrigger] = useState<ReleaseTrigger | null>(v?.releaseTrigger ?? null)
  const [frequency, setFrequency] = useState<CheckInFrequency>(v?.checkInFrequency ?? 'monthly')
  const [saved, setSaved] = useState<ReleaseSettings>()
  const saving = useAction(async (chosen: ReleaseTrigger) => {
    setSaved(undefined)
    setSaved(await useVaultsStore.getState().configureRelease(vaultId, chosen, frequency))
  })
  const { busy, error } = saving
  if (!v) return null
  const writable = canWrite && v.state === 'active'
  // Once a release has started, the trigger and check-ins are over: say where it stands instead.
  if (v.state === 'releasing' || v.state === 'released') {
    const t = text.releaseStatus
    return (
      <section
        className="panel release-status"
        aria-labelledby="release-status-title"
        data-testid="release-status"
      >
        <h2 id="release-status-title">{v.state === 'releasing' ? t.releasingTitle : t.releasedTitle}</h2>
        <p>
          <ReleaseDates v={v} />
        </p>
        {v.state === 'releasing' ? (
          <>
            <div className="row">
              <CancelReleaseButton v={v} />
            </div>
            <p className="muted small">{t.settingsWhileActive}</p>
          </>
        ) : (
          <p>{t.releasedNote}</p>
        )}
      </section>
    )
  }

  const save = (event: FormEvent) => {
    event.preventDefault()
    if (trigger) void saving.run(trigger)
  }

  return (
    <div>
      <form className="panel release-form" onSubmit={save} aria-labelledby="release-title">
        <h2 id="release-title">{text.release.title}</h2>
        <ReadOnlyNote />
        {v.state !== 'active' && (
          <p className="notice notice-info">{text.releaseStatus.settingsWhileActive}</p>
        )}
        {!v.releaseTrigger && (
          <p className="notice notice-warn" data-testid="release-not-set">
            {text.release.notSet}
          </p>
        )}
        <RadioCards<ReleaseTrigger>
          legend={text.release.trigger}
          name="trigger"
          options={RELEASE_TRIGGERS.map((t) => ({ value: t, ...TRIGGER_TEXT[t] }))}
          value={trigger}
          onChange={setTrigger}
          disabled={!writable}
        />
        {trigger === 'dead_man_switch' && (
          <div className="field">
            <label htmlFor="checkin-frequency">{text.release.checkIn}</label>
            <select
              id="checkin-frequency"
              value={frequency}
              onChange={(e) => setFrequency(e.target.value as CheckInFrequency)}
              disabled={!writable}
            >
              {CHECK_IN_FREQUENCIES.map((f) => (
                <option key={f} value={f}>
                  {FREQUENCY_TEXT[f]}
                </option>
              ))}
            </select>
            <span className="muted small">{text.release.checkInCost(LIMITS.checkInCostCredits)}</span>
          </div>
        )}
        <p className="explain">
          <strong>{text.release.changeMind(LIMITS.contestationDays)}</strong>{' '}
          {text.release.contestation(LIMITS.contestationDays)}
        </p>
        <div className="row">
          <button
            type="submit"
            className="button"
            disabled={!writable || busy || !trigger}
            title={reason ?? undefined}
          >
            {busy ? text.release.saving : text.release.save}
          </button>
        </div>
        {saved && (
          <p className="notice notice-ok" role="status" data-testid="release-saved">
            {saved.trigger === 'dead_man_switch'
              ? text.release.savedSwitch(
                  TRIGGER_TEXT[saved.trigger].label,
                  text.release.frequencyWord[saved.checkInFrequency],
                  saved.nextCheckInDue,
                )
              : text.release.saved(TRIGGER_TEXT[saved.trigger].label)}
          </p>
        )}
        {error !== undefined && <ErrorNotice error={error} />}
      </form>
      <CheckInLinksPanel v={v} />
      <StartReleasePanel v={v} />
      <RehearsalPanel v={v} />
    </div>
  )
}
