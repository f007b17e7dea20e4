import { type ReactNode, useId, useRef } from 'react'
import { type FocusReturn, useModalDialog } from './use-return-focus'

/**
 * A native modal <dialog> under its title: focus trapped, Escape calls onClose (the owner decides
 * what closing means), focus returns to the opener. Every dialog of the app is one of these.
 */
export function ModalDialog({
  title,
  className = 'dialog',
  opener,
  onClose,
  children,
}: {
  title: string
  className?: string
  /** What to focus when it closes, if not the element focused when it opened. */
  opener?: FocusReturn | null
  onClose(): void
  children: ReactNode
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  useModalDialog(ref, opener)
  return (
    <dialog
      ref={ref}
      className={className}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault()
        onClose()
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  )
}
