import { useState } from 'react'
import type { VaultView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { daysLeftToCancel, formatDate } from '../display/units'
import { useWriteAccess } from '../stores/connection-store'
import { ConfirmDialog } from './ConfirmDialog'
import { ErrorNotice } from './ErrorNotice'

/** Shown on every screen of a releasing vault: days left and the way to stop it. */
export function ReleasingBanner({ vaultView }: { vaultView: VaultView }) {
  const [confirming, setConfirming] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  const { canWrite, reason } = useWriteAccess()
  if (vaultView.state !== 'releasing') return null
  const days = daysLeftToCancel(vaultView, Date.now())

  const cancel = async () => {
    setBusy(true)
    setError(undefined)
    try {
      await vault().cancelRelease({ vaultId: vaultView.id })
      setConfirming(false)
    } catch (e) {
      setError(e)
      setConfirming(false)
    } finally {
      setBusy(false)
    }
  }

  return (
    <div className="releasing-banner" role="alert" data-testid="releasing-banner">
      <div>
        <strong>This vault is releasing to your heirs.</strong> {days} day{days === 1 ? '' : 's'} left to
        cancel
        {vaultView.releaseStartedAt ? ` (started ${formatDate(vaultView.releaseStartedAt)})` : ''}. If you did
        not intend this, cancel the release now; after the period ends your heirs get access.
      </div>
      <button
        type="button"
        className="button danger-solid"
        onClick={() => setConfirming(true)}
        disabled={!canWrite}
        title={reason ?? undefined}
      >
        Cancel release
      </button>
      {!canWrite && <p className="banner-note">{reason}</p>}
      {error !== undefined && <ErrorNotice error={error} />}
      {confirming && (
        <ConfirmDialog
          title="Cancel the release?"
          confirmLabel="Cancel release"
          busy={busy}
          onConfirm={cancel}
          onCancel={() => setConfirming(false)}
        >
          <p>
            The vault goes back to active and your heirs are not told anything. If the release was started by
            your dead man's switch, check in regularly so it does not start again.
          </p>
        </ConfirmDialog>
      )}
    </div>
  )
}
