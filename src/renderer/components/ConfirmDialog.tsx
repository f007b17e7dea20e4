import type { ReactNode } from 'react'
import { text } from '../text'
import { ModalDialog } from './ModalDialog'
import type { FocusReturn } from './use-return-focus'

interface Props {
  title: string
  children: ReactNode
  confirmLabel: string
  cancelLabel?: string
  danger?: boolean
  busy?: boolean
  /** What to focus when it closes, if not the element focused when it opened. */
  opener?: FocusReturn | null
  /** Hides the confirm button (a question with one way out). */
  noConfirm?: boolean
  onConfirm(): void
  onCancel(): void
}

/** A modal question (native <dialog>: focus trapped, Escape cancels, focus returns to the opener). */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  cancelLabel = text.dialog.keep,
  danger,
  busy,
  opener,
  noConfirm,
  onConfirm,
  onCancel,
}: Props) {
  return (
    <ModalDialog title={title} opener={opener} onClose={onCancel}>
      <div className="dialog-body">{children}</div>
      <div className="dialog-actions">
        <button type="button" className="button secondary" onClick={onCancel} disabled={busy}>
          {cancelLabel}
        </button>
        {!noConfirm && (
          <button
            type="button"
            className={danger ? 'button danger' : 'button'}
            onClick={onConfirm}
            disabled={busy}
          >
            {busy ? text.dialog.working : confirmLabel}
          </button>
        )}
      </div>
    </ModalDialog>
  )
}
