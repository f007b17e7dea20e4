// Rotating a vault's key: the cost, starting, pausing, resuming or abandoning it, and its progress as
// main reports it. The status a panel shows stays in that panel; these are the calls that move it.
import { create } from 'zustand'
import type { KeyRotationEstimate, KeyRotationStatus } from '../../shared/ipc/key-rotation'
import { vault } from '../bridge/vault-client'

export type KeyRotationControl = 'pause' | 'resume' | 'abandon'

interface KeyRotationActions {
  read(vaultId: string): Promise<KeyRotationStatus>
  /** Every status main reports (of any vault); call the returned function to stop. */
  watch(listener: (status: KeyRotationStatus) => void): () => void
  estimate(vaultId: string): Promise<KeyRotationEstimate>
  /** Starts at the cost shown: main refuses when it changed or the balance is short. */
  start(vaultId: string, credits: number): Promise<KeyRotationStatus>
  control(vaultId: string, what: KeyRotationControl): Promise<KeyRotationStatus>
}

export const useKeyRotationStore = create<KeyRotationActions>(() => ({
  read: (vaultId) => vault().getKeyRotation({ vaultId }),
  watch: (listener) => vault().on.keyRotation(listener),
  estimate: (vaultId) => vault().estimateKeyRotation({ vaultId }),
  start: (vaultId, credits) => vault().startKeyRotation({ vaultId, credits }),
  control: (vaultId, what) => {
    const bridge = vault()
    const call =
      what === 'pause'
        ? bridge.pauseKeyRotation
        : what === 'resume'
          ? bridge.resumeKeyRotation
          : bridge.abandonKeyRotation
    return call({ vaultId })
  },
}))
