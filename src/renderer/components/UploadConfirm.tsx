import { formatBytes, formatCredits } from '../display/units'
import { useUploadFlowStore } from '../stores/upload-flow-store'
import { ConfirmDialog } from './ConfirmDialog'

/** The estimated cost, confirmed before a large upload (or refused when the balance is short). */
export function UploadConfirm() {
  const { pending, busy, confirm, cancel } = useUploadFlowStore()
  if (!pending) return null
  const e = pending.estimate
  return (
    <ConfirmDialog
      title={e.enough ? 'Upload these files?' : 'Not enough credits'}
      confirmLabel={e.enough ? `Encrypt and upload (${e.credits} credits)` : 'Upload what fits'}
      cancelLabel="Not now"
      busy={busy}
      onConfirm={() => void confirm()}
      onCancel={cancel}
    >
      <p>
        {e.files} file{e.files === 1 ? '' : 's'}, {formatBytes(e.plaintextBytes)} (
        {formatBytes(e.encryptedBytes)} once encrypted). Estimated cost:{' '}
        <strong>{formatCredits(e.credits)}</strong>. Balance: {formatCredits(e.balanceCredits)}.
      </p>
      {!e.enough && (
        <p className="text-danger">
          The balance is {e.credits - e.balanceCredits} credits short. Files that do not fit will fail without
          being charged; add credits first, or choose fewer files.
        </p>
      )}
      {e.tooLarge.length > 0 && (
        <p className="text-danger">
          Over the 5 GB limit and left out: {e.tooLarge.slice(0, 3).join(', ')}
          {e.tooLarge.length > 3 ? ` and ${e.tooLarge.length - 3} more` : ''}.
        </p>
      )}
      {e.skipped.length > 0 && (
        <p className="muted small">
          {e.skipped.length} item(s) skipped: {e.skipped[0]?.detail}
        </p>
      )}
      <p className="muted small">
        Credits are charged only for files that are stored. Cancelling costs nothing.
      </p>
    </ConfirmDialog>
  )
}
