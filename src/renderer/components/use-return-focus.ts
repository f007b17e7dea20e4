// A modal <dialog> opened on mount and closed on unmount, with focus given back to what opened it.
// React removes the dialog node before a passive effect's cleanup runs, so the browser's own focus
// restoration has nothing to close and focus lands on <body>: close and refocus in a layout cleanup.
import { type RefObject, useLayoutEffect } from 'react'

/** Where focus goes back to: the element, else (when it is gone) its panel, which stays on the page. */
export interface FocusReturn {
  element: HTMLElement
  panel: HTMLElement | null
}

/** The focused element outside any dialog (the opener), to give focus back to later. */
export function currentOpener(): FocusReturn | null {
  const active = document.activeElement
  if (!(active instanceof HTMLElement) || active === document.body || active.closest('dialog')) return null
  return { element: active, panel: active.closest<HTMLElement>('.panel, section, main') }
}

export function returnFocus(target: FocusReturn | null): void {
  if (!target) return
  const { element, panel } = target
  if (element.isConnected) {
    element.focus()
    if (document.activeElement === element) return
    // Disabled meanwhile (a form emptied by what the dialog did): the nearest field before it.
    const fields = [
      ...(element.closest('form')?.querySelectorAll<HTMLElement>('input, select, textarea') ?? []),
    ].filter((f) => f.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING)
    for (const field of fields.reverse()) {
      field.focus()
      if (document.activeElement === field) return
    }
  }
  // The opener went with the change (a removed row): its panel is the nearest place that is left.
  if (panel?.isConnected) {
    if (!panel.hasAttribute('tabindex')) panel.setAttribute('tabindex', '-1')
    panel.focus()
  }
}

/**
 * Shows `ref`'s dialog as a modal while the component is mounted. `opener`: the element to return
 * to when the focused one at mount is not it (a flow opened by a button that is disabled meanwhile).
 */
export function useModalDialog(ref: RefObject<HTMLDialogElement | null>, opener?: FocusReturn | null): void {
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per opening; the opener is read at mount
  useLayoutEffect(() => {
    const target = opener ?? currentOpener()
    const dialog = ref.current
    if (dialog && !dialog.open) dialog.showModal()
    return () => {
      if (dialog?.open) dialog.close()
      returnFocus(target)
    }
  }, [])
}
