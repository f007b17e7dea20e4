// A window shown again reads the vault list, at most once a minute: in the tray, main reads a quiet
// vault only every 5 minutes (vault-watcher.ts), and the owner coming back should see what changed.
import { describe, expect, it } from 'vitest'

// Loaded at run time, like the other renderer modules the Node tests use (no DOM types in test/).
const renderer = '../../src/renderer'
const { refreshOnReturn, useVaultsStore, REFRESH_ON_RETURN_MS } = await import(
  `${renderer}/stores/vaults-store.ts`
)

/** A page whose visibility the test turns, as a window hidden to the tray and shown again. */
class FakePage extends EventTarget {
  visibilityState: 'visible' | 'hidden' = 'visible'
  turn(state: 'visible' | 'hidden'): void {
    this.visibilityState = state
    this.dispatchEvent(new Event('visibilitychange'))
  }
}

describe('the vault list when the window is shown again', () => {
  it('is read again once a minute has passed since the last read, never while hidden', async () => {
    let clock = 1_000_000
    const reads: number[] = []
    useVaultsStore.setState({
      readAt: clock,
      refresh: async () => {
        reads.push(clock)
        useVaultsStore.setState({ readAt: clock })
      },
    })
    const page = new FakePage()
    refreshOnReturn(page as unknown as Document, () => clock)

    // Hidden and shown within the minute: the list shown is fresh enough.
    page.turn('hidden')
    clock += REFRESH_ON_RETURN_MS - 1
    page.turn('visible')
    expect(reads).toEqual([])

    // Hidden for longer: read again as the window is shown, not as it is hidden.
    page.turn('hidden')
    clock += 5 * 60_000
    expect(reads).toEqual([])
    page.turn('visible')
    expect(reads).toEqual([clock])

    // Shown again at once: that read is recent.
    page.turn('hidden')
    page.turn('visible')
    expect(reads).toHaveLength(1)
  })

  it('a failed read changes nothing shown and throws nowhere', async () => {
    const snapshot = { vaults: [] }
    useVaultsStore.setState({
      snapshot: snapshot as never,
      readAt: Number.NEGATIVE_INFINITY,
      refresh: async () => {
        throw new Error('the service is unreachable')
      },
    })
    const page = new FakePage()
    refreshOnReturn(page as unknown as Document)
    page.turn('hidden')
    page.turn('visible')
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(useVaultsStore.getState().snapshot).toBe(snapshot)
  })
})
