// A closed board emits nothing more: the session closes its stores after the board, and an emit that
// still came (a batched one scheduled while the queue was put away) read a closed database (an
// uncaught "The database connection is not open" in CI).
import { describe, expect, it, vi } from 'vitest'
import { VaultBoard, type VaultBoardDeps } from '../../src/main/core/vaults/vault-board'

function board() {
  const emit = vi.fn()
  const deps = {
    watcher: { snapshot: () => [], error: () => null },
    window: { emit },
    tray: vi.fn(),
    activeConnectionId: () => undefined,
    now: () => 0,
    dueSoonDays: () => 7,
  } as unknown as VaultBoardDeps
  return { board: new VaultBoard(deps), emit }
}

describe('VaultBoard after close', () => {
  it('emits before close, and neither a batched nor an immediate emit after it', async () => {
    const { board: b, emit } = board()
    b.emitNow()
    expect(emit).toHaveBeenCalledTimes(1)
    b.close()
    b.scheduleEmit()
    b.emitNow()
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(emit).toHaveBeenCalledTimes(1)
  })
})
