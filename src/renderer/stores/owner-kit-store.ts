// The owner kit's save-and-confirm flow, opened from the key panel, readiness and upload refusals.
// The kit is the vault key in words: it is shown only once the owner confirmed it is them (the
// system's check, or the vault's name typed; main enforces it), and goes back behind it on close.
import { create } from 'zustand'
import type { OwnerKitGateInfo } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'

export type OwnerKitStep = 'view' | 'check'

interface OwnerKitFlowState {
  vaultId: string | null
  step: OwnerKitStep
  /** How the owner confirms, and whether they did (null until read). */
  gate: OwnerKitGateInfo | null
  /** How this opening was confirmed, to say so beside the kit. */
  confirmedBy: 'system' | 'typed' | null
  gateBusy: boolean
  gateError: unknown
  open(vaultId: string, step?: OwnerKitStep): void
  setStep(step: OwnerKitStep): void
  /** Runs the check: the system's, or the typed name. */
  confirm(typed?: string): Promise<void>
  close(): void
}

export const useOwnerKitFlow = create<OwnerKitFlowState>((set, get) => ({
  vaultId: null,
  step: 'view',
  gate: null,
  confirmedBy: null,
  gateBusy: false,
  gateError: undefined,
  open: (vaultId, step = 'view') => {
    set({ vaultId, step, gate: null, confirmedBy: null, gateError: undefined })
    vault()
      .getOwnerKitGate({ vaultId })
      .then(
        (gate) => {
          if (get().vaultId === vaultId) set({ gate })
        },
        (gateError) => set({ gateError }),
      )
  },
  setStep: (step) => set({ step }),
  confirm: async (typed) => {
    const vaultId = get().vaultId
    if (!vaultId || get().gateBusy) return
    set({ gateBusy: true, gateError: undefined })
    try {
      const gate = await vault().openOwnerKitGate({ vaultId, ...(typed !== undefined ? { typed } : {}) })
      if (get().vaultId === vaultId) set({ gate, confirmedBy: gate.method })
    } catch (gateError) {
      set({ gateError })
    } finally {
      set({ gateBusy: false })
    }
  },
  close: () => {
    const vaultId = get().vaultId
    if (vaultId)
      void vault()
        .closeOwnerKitGate({ vaultId })
        .catch(() => undefined)
    set({ vaultId: null, step: 'view', gate: null, confirmedBy: null, gateError: undefined })
  },
}))
