import { LIMITS } from '../../shared/api'
import { useConnectionStore } from '../stores/connection-store'
import { creditsToAdd, uploadFit } from '../stores/upload-cost'
import { spendsReserve, useUploadFlowStore } from '../stores/upload-flow-store'
import { format, text } from '../text'
import { ConfirmDialog } from './ConfirmDialog'

const t = text.uploadCost

/** "3 files, 4.2 MB (4.3 MB once encrypted). Estimated cost: 12 credits ($0.12). Balance: …" */
function Summary({
  e,
}: {
  e: {
    files: number
    plaintextBytes: number
    encryptedBytes: number
    credits: number
    balanceCredits: number
  }
}) {
  return (
    <p>
      {t.summary(e.files, format.bytes(e.plaintextBytes), format.bytes(e.encryptedBytes))}{' '}
      <strong>{format.credits(e.credits)}</strong>. {t.balance(e.balanceCredits)}
    </p>
  )
}

/** On a store that never deletes (Arweave): what goes up stays public and open to the kits, for ever. */
export function PermanentStoreNotice({ first }: { first: boolean }) {
  return (
    <div className="notice notice-warn" data-testid="upload-permanent">
      <p>{t.permanentStore}</p>
      {first && <p>{t.permanentFirst}</p>}
    </div>
  )
}

/** Files left out because the vault already holds their bytes, and the way to upload them anyway. */
function AlreadyStored({
  files,
  busy,
  forced,
  onUploadAgain,
}: {
  files: ReadonlyArray<{ path: string; at: string }>
  busy: boolean
  forced: boolean
  onUploadAgain(): void
}) {
  if (files.length === 0) return null
  const shown = files.slice(0, 3)
  return (
    <div data-testid="already-stored">
      <p>{t.alreadyStored(files.length)}</p>
      <ul className="small">
        {shown.map((file) => (
          <li key={file.path}>
            <bdi>{file.path}</bdi>: {t.alreadyOn(format.date(file.at))}
          </li>
        ))}
        {files.length > shown.length && <li>{t.alreadyMore(files.length - shown.length)}</li>}
      </ul>
      {!forced && (
        <p className="muted small">
          <button type="button" className="link-button" onClick={onUploadAgain} disabled={busy}>
            {t.uploadAgain}
          </button>{' '}
          {t.uploadAgainNote}
        </p>
      )}
    </div>
  )
}

/**
 * The estimated cost, confirmed before a large upload, one that would not fit the balance, or one
 * that would spend the credits kept for check-ins (then the owner must choose it explicitly).
 */
export function UploadConfirm() {
  const { pending, busy, confirm, cancel, uploadAgain, addCredits } = useUploadFlowStore()
  const permanent = useConnectionStore((s) => s.status?.service?.storage?.permanent === true)
  if (!pending) return null
  const e = pending.estimate
  const reserve = spendsReserve(pending)
  const after = Math.max(0, e.balanceCredits - e.credits)
  // Nothing fits: "upload what fits" would upload nothing, so the way forward is adding credits.
  const nothingFits = uploadFit(e) === 'none'
  const add = creditsToAdd(e)
  const alreadyStored = e.alreadyStored ?? []
  const already = (
    <AlreadyStored
      files={alreadyStored}
      busy={busy}
      forced={pending.force === true}
      onUploadAgain={() => void uploadAgain()}
    />
  )

  // Everything dropped is already there: nothing to pay, nothing to confirm.
  if (e.files === 0 && e.tooLarge.length === 0 && alreadyStored.length > 0) {
    return (
      <ConfirmDialog
        title={t.alreadyTitle}
        confirmLabel={t.close}
        cancelLabel={t.close}
        noConfirm
        busy={busy}
        opener={pending.opener}
        onConfirm={cancel}
        onCancel={cancel}
      >
        {already}
        {e.skipped.length > 0 && (
          <p className="muted small">{t.skipped(e.skipped.length, e.skipped[0]?.detail ?? '')}</p>
        )}
      </ConfirmDialog>
    )
  }

  if (nothingFits) {
    return (
      <ConfirmDialog
        title={t.nothingFitsTitle}
        confirmLabel={t.addCredits}
        cancelLabel={t.notNow}
        opener={pending.opener}
        onConfirm={addCredits}
        onCancel={cancel}
      >
        <Summary e={e} />
        {already}
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

  const title = reserve ? t.reserveTitle : e.enough ? t.confirmTitle : t.shortTitle
  const confirmLabel = reserve
    ? e.enough
      ? t.uploadAnyway
      : t.uploadWhatFitsReserve
    : e.enough
      ? t.encryptAndUpload(e.credits)
      : t.uploadWhatFits

  return (
    <ConfirmDialog
      title={title}
      confirmLabel={confirmLabel}
      cancelLabel={reserve ? t.cancel : t.notNow}
      danger={reserve}
      busy={busy}
      opener={pending.opener}
      onConfirm={() => void confirm()}
      onCancel={cancel}
    >
      <Summary e={e} />
      {already}
      {pending.force && <p data-testid="upload-again-note">{t.uploadAgainNote}</p>}
      {permanent && <PermanentStoreNotice first={pending.permanentFirst === true} />}
      {e.bundles > 0 && e.creditsWithoutBundles > e.credits && (
        // The totals are the whole upload's: large files in it cost the same either way.
        <p data-testid="upload-bundles">
          {t.bundlesStart(e.bundledFiles, e.bundles)} <strong>{format.credits(e.credits)}</strong>{' '}
          {t.bundlesEnd(e.creditsWithoutBundles)}
        </p>
      )}
      {e.reserveCredits > 0 && (
        <p data-testid="upload-reserve">{t.reserveKept(e.reserveCredits, e.reserveMonths, after)}</p>
      )}
      {reserve && (
        <div className="notice notice-error" data-testid="reserve-warning">
          <p>
            <strong>{t.reserveWarning}</strong> {t.reserveWhy}
          </p>
          <p>
            {t.safer}{' '}
            <button type="button" className="link-button" onClick={addCredits}>
              {t.addCredits}
            </button>
          </p>
        </div>
      )}
      {!e.enough && <p className="text-danger">{t.short(e.credits - e.balanceCredits)}</p>}
      {e.tooLarge.length > 0 && (
        <p className="text-danger">
          {t.tooLarge(LIMITS.maxFileBytes / 1e9, e.tooLarge.slice(0, 3), Math.max(0, e.tooLarge.length - 3))}
        </p>
      )}
      {e.skipped.length > 0 && (
        <p className="muted small">{t.skipped(e.skipped.length, e.skipped[0]?.detail ?? '')}</p>
      )}
      {pending.retryItemIds && <p data-testid="retry-note">{text.uploadCost.retryNote}</p>}
      <p className="muted small">{t.chargedOnly}</p>
    </ConfirmDialog>
  )
}
