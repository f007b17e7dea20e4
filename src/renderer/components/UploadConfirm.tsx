import { formatBytes, formatCredits } from '../display/units'
import { useNavigationStore } from '../stores/navigation-store'
import { creditsToAdd, uploadFit } from '../stores/upload-cost'
import { spendsReserve, useUploadFlowStore } from '../stores/upload-flow-store'
import { text } from '../text'
import { ConfirmDialog } from './ConfirmDialog'

/**
 * The estimated cost, confirmed before a large upload, one that would not fit the balance, or one
 * that would spend the credits kept for check-ins (then the owner must choose it explicitly).
 */
export function UploadConfirm() {
  const { pending, busy, confirm, cancel } = useUploadFlowStore()
  const go = useNavigationStore((s) => s.go)
  if (!pending) return null
  const e = pending.estimate
  const reserve = spendsReserve(pending)
  const after = Math.max(0, e.balanceCredits - e.credits)
  const months = `${e.reserveMonths} month${e.reserveMonths === 1 ? '' : 's'}`
  // Nothing fits: "upload what fits" would upload nothing, so the way forward is adding credits.
  const nothingFits = uploadFit(e) === 'none'
  const add = creditsToAdd(e)
  const addCredits = () => {
    cancel()
    go('settings', 'credits')
  }

  if (nothingFits) {
    const t = text.uploadCost
    return (
      <ConfirmDialog
        title={t.nothingFitsTitle}
        confirmLabel={t.addCredits}
        cancelLabel={t.notNow}
        opener={pending.opener}
        onConfirm={addCredits}
        onCancel={cancel}
      >
        <p>
          {e.files.toLocaleString('en-US')} file{e.files === 1 ? '' : 's'}, {formatBytes(e.plaintextBytes)} (
          {formatBytes(e.encryptedBytes)} once encrypted). Estimated cost:{' '}
          <strong>{formatCredits(e.credits)}</strong>. Balance: {formatCredits(e.balanceCredits)}.
        </p>
        <p className="text-danger" data-testid="nothing-fits">
          {t.nothingFits(e.balanceCredits, add.needed)}
        </p>
        {e.reserveCredits > 0 && add.withReserve > add.needed && (
          <p data-testid="nothing-fits-reserve">{t.withReserve(add.withReserve, e.reserveMonths)}</p>
        )}
        {pending.retryItemIds && <p className="muted small">{t.retryNote}</p>}
      </ConfirmDialog>
    )
  }

  const title = reserve
    ? 'Spend the credits kept for check-ins?'
    : e.enough
      ? 'Upload these files?'
      : 'Not enough credits'
  const confirmLabel = reserve
    ? e.enough
      ? 'Upload anyway, spend the reserve'
      : 'Upload what fits, spend the reserve'
    : e.enough
      ? `Encrypt and upload (${e.credits.toLocaleString('en-US')} credit${e.credits === 1 ? '' : 's'})`
      : 'Upload what fits'

  return (
    <ConfirmDialog
      title={title}
      confirmLabel={confirmLabel}
      cancelLabel={reserve ? 'Cancel' : 'Not now'}
      danger={reserve}
      busy={busy}
      opener={pending.opener}
      onConfirm={() => void confirm()}
      onCancel={cancel}
    >
      <p>
        {e.files.toLocaleString('en-US')} file{e.files === 1 ? '' : 's'}, {formatBytes(e.plaintextBytes)} (
        {formatBytes(e.encryptedBytes)} once encrypted). Estimated cost:{' '}
        <strong>{formatCredits(e.credits)}</strong>. Balance: {formatCredits(e.balanceCredits)}.
      </p>
      {e.bundles > 0 && e.creditsWithoutBundles > e.credits && (
        // The totals are the whole upload's: large files in it cost the same either way.
        <p data-testid="upload-bundles">
          {e.bundledFiles.toLocaleString('en-US')} small file{e.bundledFiles === 1 ? ' goes' : 's go'} in{' '}
          {e.bundles.toLocaleString('en-US')} bundle{e.bundles === 1 ? '' : 's'}: this upload costs{' '}
          <strong>{formatCredits(e.credits)}</strong> instead of {formatCredits(e.creditsWithoutBundles)} one
          by one. They come back as separate files when recovered.
        </p>
      )}
      {e.reserveCredits > 0 && (
        <p data-testid="upload-reserve">
          Kept for check-ins: {formatCredits(e.reserveCredits)} — {months} of check-ins. After this upload:{' '}
          {formatCredits(after)}.
        </p>
      )}
      {reserve && (
        <div className="notice notice-error" data-testid="reserve-warning">
          <p>
            <strong>
              This upload would leave too few credits for check-ins, so the dead man's switch could release
              the vault by accident.
            </strong>{' '}
            Every check-in costs credits; when they run out you cannot check in, and a missed check-in starts
            the release to your heirs.
          </p>
          <p>
            Safer: add credits first, or choose fewer files.{' '}
            <button type="button" className="link-button" onClick={addCredits}>
              Add credits in Settings
            </button>
          </p>
        </div>
      )}
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
      {pending.retryItemIds && <p data-testid="retry-note">{text.uploadCost.retryNote}</p>}
      <p className="muted small">
        Credits are charged only for files that are stored. Cancelling costs nothing.
      </p>
    </ConfirmDialog>
  )
}
