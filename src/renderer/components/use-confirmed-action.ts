// An action that asks first: a button opens the confirmation, confirming runs the action (busy
// meanwhile) and closes it whatever happened; a failure stays in `error`, shown beside the button.
import { useState } from 'react'

export interface ConfirmedAction {
  confirming: boolean
  busy: boolean
  error: unknown
  ask(): void
  cancel(): void
  confirm(): Promise<void>
}

export function useConfirmedAction(action: () => Promise<unknown>): ConfirmedAction {
  const [confirming, setConfirming] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  return {
    confirming,
    busy,
    error,
    ask: () => setConfirming(true),
    cancel: () => setConfirming(false),
    confirm: async () => {
      setBusy(true)
      setError(undefined)
      try {
        await action()
      } catch (e) {
        setError(e)
      } finally {
        setBusy(false)
        setConfirming(false)
      }
    },
  }
}
