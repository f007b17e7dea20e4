import { useFileActionsStore } from '../stores/file-actions-store'
import { format, text } from '../text'
import { ConfirmDialog } from './ConfirmDialog'
import { ErrorNotice } from './ErrorNotice'
import { UntrustedName } from './UntrustedName'

const t = text.fileRemoval

/** "Delete…" from the file library: what the heirs lose and what stays where, then the outcome. */
export function FileRemovalDialog() {
  const removal = useFileActionsStore((s) => s.removal)
  const { confirmRemoval, closeRemoval } = useFileActionsStore.getState()
  if (!removal) return null
  const { chosen, plan, report, running, error } = removal

  if (report) {
    return (
      <ConfirmDialog
        title={t.title(chosen.kind)}
        confirmLabel={t.close}
        cancelLabel={t.close}
        noConfirm
        onConfirm={closeRemoval}
        onCancel={closeRemoval}
      >
        <div role="status" data-testid="file-removal-done">
          <p>{t.done(report.removed)}</p>
          {report.contentKept > 0 && <p>{t.contentKept(report.contentKept)}</p>}
        </div>
      </ConfirmDialog>
    )
  }

  return (
    <ConfirmDialog
      title={t.title(chosen.kind)}
      confirmLabel={t.confirm}
      danger
      busy={running || !plan}
      onConfirm={() => void confirmRemoval()}
      onCancel={closeRemoval}
    >
      <div data-testid="file-removal">
        {!plan && !error && <p className="muted">{t.reading}</p>}
        {plan && (
          <>
            <p>{t.heirsLose(plan.files, format.bytes(plan.bytes))}</p>
            <ul className="small removal-sample">
              {plan.sample.map((path) => (
                <li key={path}>
                  <UntrustedName name={path} />
                </li>
              ))}
              {plan.files > plan.sample.length && <li>{t.more(plan.files - plan.sample.length)}</li>}
            </ul>
            {plan.permanentStore ? (
              <p className="notice notice-warn">{t.permanent}</p>
            ) : (
              <>
                {plan.permanentStore === null && <p className="notice notice-warn">{t.unknownStore}</p>}
                {plan.blobsDeleted > 0 && <p className="muted small">{t.blobs(plan.blobsDeleted)}</p>}
                {plan.bundlesRepacked > 0 && <p className="muted small">{t.repack(plan.bundlesRepacked)}</p>}
              </>
            )}
            {plan.repackCredits + plan.manifestCredits > 0 && (
              <p className="muted small">
                {t.cost(format.credits(plan.repackCredits + plan.manifestCredits))}
              </p>
            )}
          </>
        )}
        {error !== undefined && <ErrorNotice error={error} />}
      </div>
    </ConfirmDialog>
  )
}
