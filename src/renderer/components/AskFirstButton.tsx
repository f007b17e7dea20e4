import type { ReactNode } from 'react'
import { useWriteAccess } from '../stores/connection-store'
import { ConfirmDialog } from './ConfirmDialog'
import { ErrorNotice } from './ErrorNotice'
import { useConfirmedAction } from './use-confirmed-action'

/**
 * A button whose action asks first: it opens a ConfirmDialog (children are its body), confirming runs
 * the action, a failure shows under the button. Disabled, with the reason as its title, when the
 * connection may not write.
 */
export function AskFirstButton({
  label,
  className,
  action,
  dialog,
  afterButton,
  children,
}: {
  label: string
  className: string
  action(): Promise<unknown>
  dialog: { title: string; confirmLabel: string; danger?: boolean }
  /** Between the button and its error. */
  afterButton?: ReactNode
  children: ReactNode
}) {
  const { canWrite, reason } = useWriteAccess()
  const run = useConfirmedAction(action)
  return (
    <>
      <button
        type="button"
        className={className}
        onClick={run.ask}
        disabled={!canWrite}
        title={reason ?? undefined}
      >
        {label}
      </button>
      {afterButton}
      {run.error !== undefined && <ErrorNotice error={run.error} />}
      {run.confirming && (
        <ConfirmDialog
          title={dialog.title}
          confirmLabel={dialog.confirmLabel}
          danger={dialog.danger}
          busy={run.busy}
          onConfirm={() => void run.confirm()}
          onCancel={run.cancel}
        >
          {children}
        </ConfirmDialog>
      )}
    </>
  )
}
