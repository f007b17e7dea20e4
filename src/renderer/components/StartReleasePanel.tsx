import { useState } from 'react'
import { LIMITS } from '../../shared/api'
import type { VaultView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { formatDate } from '../display/units'
import { useConnectionStore, useWriteAccess } from '../stores/connection-store'
import { useSectionTarget } from '../stores/section-target'
import { ConfirmDialog } from './ConfirmDialog'
import { ErrorNotice } from './ErrorNotice'

/** The manual trigger's one control: start the release now (with the days to cancel explained). */
export function StartReleasePanel({ v }: { v: VaultView }) {
  const service = useConnectionStore((s) => s.status?.service)
  const extensions = service?.extensions
  const noMail = !!service && (service.trial || service.mailConfigured === false)
  const { canWrite, reason } = useWriteAccess()
  const [confirming, setConfirming] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  useSectionTarget('start-release', v.releaseTrigger === 'manual')
  if (v.releaseTrigger !== 'manual' || v.state !== 'active') return null
  const offered = extensions?.includes('release-start') ?? false
  const endsOn = formatDate(new Date(Date.now() + LIMITS.contestationDays * 86_400_000).toISOString())

  const start = async () => {
    setBusy(true)
    setError(undefined)
    try {
      await vault().startRelease({ vaultId: v.id })
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
      setConfirming(false)
    }
  }

  return (
    <section className="panel" aria-labelledby="section-start-release">
      <h2 id="section-start-release" tabIndex={-1}>
        Start the release
      </h2>
      {offered ? (
        <>
          <p>
            This vault uses the manual trigger: nothing happens until you start the release here. It begins
            with
            {` ${LIMITS.contestationDays}`} days in which you can still cancel; your heirs get access only
            when they end.
          </p>
          <button
            type="button"
            className="button danger"
            onClick={() => setConfirming(true)}
            disabled={!canWrite}
            title={reason ?? undefined}
          >
            Start release now…
          </button>
        </>
      ) : (
        <p className="notice notice-info">
          The connected service cannot start a release from this app. Start it on the service's own website,
          or ask whoever runs the service. Until then nothing is released.
        </p>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
      {confirming && (
        <ConfirmDialog
          title="Start the release now?"
          confirmLabel="Start the release"
          danger
          busy={busy}
          onConfirm={() => void start()}
          onCancel={() => setConfirming(false)}
        >
          <ul className="plain-list">
            <li>
              Today a {LIMITS.contestationDays}-day contestation period begins. During it you are alerted, and
              you can cancel the release at any time from this app.
            </li>
            <li>
              When it ends — around {endsOn} — your heirs are told and get access to the vault's files. That
              cannot be taken back.
            </li>
            <li>Your heirs are told nothing before the period ends.</li>
          </ul>
          {noMail && (
            <p className="notice notice-warn">
              {service?.trial
                ? 'This is a trial on this computer: no e-mail leaves it, and your heirs cannot reach it. They would not be told, and could not get the files.'
                : 'This service has no e-mail set up: your heirs would not be told. Check the steps on the Overview first.'}
            </p>
          )}
        </ConfirmDialog>
      )}
    </section>
  )
}
