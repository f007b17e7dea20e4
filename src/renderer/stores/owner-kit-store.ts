// The owner kit's save-and-confirm flow, opened from the key panel, readiness and upload refusals.
import { create } from 'zustand'

export type OwnerKitStep = 'view' | 'check'

interface OwnerKitFlowState {
  vaultId: string | null
  step: OwnerKitStep
  open(vaultId: string, step?: OwnerKitStep): void
  setStep(step: OwnerKitStep): void
  close(): void
}

export const useOwnerKitFlow = create<OwnerKitFlowState>((set) => ({
  vaultId: null,
  step: 'view',
  open: (vaultId, step = 'view') => set({ vaultId, step }),
  setStep: (step) => set({ step }),
  close: () => set({ vaultId: null, step: 'view' }),
}))
