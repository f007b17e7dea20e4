// One action a screen runs: busy while it runs, its failure kept in `error` to show beside the button
// that started it. The work itself (a store's action) lives elsewhere; this only tracks its run.
import { useState } from 'react'

export interface Action<Args extends unknown[]> {
  busy: boolean
  error: unknown
  /** Runs the work; true when it succeeded (a failure is in `error`, never thrown). */
  run(...args: Args): Promise<boolean>
  /** Forgets the last failure (e.g. when the form it was about changes). */
  clearError(): void
}

export function useAction<Args extends unknown[]>(work: (...args: Args) => Promise<unknown>): Action<Args> {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  return {
    busy,
    error,
    run: async (...args) => {
      setBusy(true)
      setError(undefined)
      try {
        await work(...args)
        return true
      } catch (e) {
        setError(e)
        return false
      } finally {
        setBusy(false)
      }
    },
    clearError: () => setError(undefined),
  }
}
