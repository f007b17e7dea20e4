// An action that asks first: a button opens the confirmation, confirming runs the action (busy
// meanwhile) and closes it whatever happened; a failure stays in `error`, shown beside the button.
import { useState } from 'react'
import { useAction } from './use-action'

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
  const { busy, error, run } = useAction(action)
  return {
    confirming,
    busy,
    error,
    ask: () => setConfirming(true),
    cancel: () => setConfirming(false),
    confirm: async () => {
      await run()
      setConfirming(false)
    },
  }
}
