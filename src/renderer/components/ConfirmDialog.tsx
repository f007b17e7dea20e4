import { type ReactNode, useRef } from 'react'
import { text } from '../text'
import { type FocusReturn, useModalDialog } from './use-return-focus'

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
  const ref = useRef<HTMLDialogElement>(null)
  useModalDialog(ref, opener)
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="confirm-title"
      onCancel={(event) => {
        event.preventDefault()
        onCancel()
      }}
    >
      <h2 id="confirm-title">{title}</h2>
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
    </dialog>
  )
}
