// The owner kit's save-and-confirm flow, opened from the key panel, readiness and upload refusals.
// The kit is the vault key in words: it is shown only once the owner confirmed it is them (the
// system's check, or the vault's name typed; main enforces it), and goes back behind it on close.
import { create } from 'zustand'
import type { OwnerKit, OwnerKitCheck, OwnerKitGateInfo, VaultView } from '../../shared/ipc/vault-types'
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
  /** The kit itself (main shows it only once the owner confirmed it is them). */
  readKit(vaultId: string): Promise<OwnerKit>
  printKit(vaultId: string, as: KitPrintAs): Promise<{ saved: string | null }>
  /** Which of the kit's words to type back. */
  readCheck(vaultId: string): Promise<OwnerKitCheck>
  /** The words typed back; the vault as it stands after (confirmed, or a refusal naming wrong words). */
  confirmWords(vaultId: string, answers: { position: number; word: string }[]): Promise<VaultView>
  /** Puts the vault key on this device from the kit's words. */
  importKit(vaultId: string, words: string): Promise<void>
  /** A new key for a vault with no files whose key (and kit) was lost. */
  replaceLostKey(vaultId: string): Promise<void>
}

/** Through the print dialog, or as a PDF where the owner chooses. */
export type KitPrintAs = 'print' | 'pdf'

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
  readKit: (vaultId) => vault().getOwnerKit({ vaultId }),
  printKit: (vaultId, as) => vault().printOwnerKit({ vaultId, as }),
  readCheck: (vaultId) => vault().getOwnerKitCheck({ vaultId }),
  confirmWords: (vaultId, answers) => vault().confirmOwnerKit({ vaultId, answers }),
  importKit: async (vaultId, words) => {
    await vault().importOwnerKit({ vaultId, words })
  },
  replaceLostKey: async (vaultId) => {
    await vault().replaceLostVaultKey({ vaultId })
  },
}))
