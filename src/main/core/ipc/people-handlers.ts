// Guardians (with their kits), heirs and the owner kit: adapters over the session's people operations
// (vaults/people-operations.ts), which own every write and history line; here only what needs the
// shell (printing) and the owner kit's gate before its words are shown.
import { AppError } from '../../../shared/app-error'
import type { VaultSession } from '../vault-session'
import { kitFileName } from '../vaults/guardian-kits'
import { OwnerKitGate, type SystemConfirm } from '../vaults/owner-kit-gate'
import type { HandlerTable } from './handler-table'

type PeopleHandlers = Pick<
  HandlerTable,
  | 'listGuardians'
  | 'addGuardian'
  | 'removeGuardian'
  | 'listGuardianKits'
  | 'getGuardianKit'
  | 'printGuardianKit'
  | 'getOwnerKit'
  | 'getOwnerKitGate'
  | 'openOwnerKitGate'
  | 'closeOwnerKitGate'
  | 'printOwnerKit'
  | 'importOwnerKit'
  | 'getOwnerKitCheck'
  | 'confirmOwnerKit'
  | 'setKitHandedOver'
  | 'replaceLostVaultKey'
  | 'estimateKeyRotation'
  | 'startKeyRotation'
  | 'getKeyRotation'
  | 'pauseKeyRotation'
  | 'resumeKeyRotation'
  | 'abandonKeyRotation'
  | 'listHeirs'
  | 'addHeir'
  | 'removeHeir'
>

export interface PeopleHandlerDeps {
  session: () => Promise<VaultSession>
  /** Print or save HTML as PDF; only the Electron shell can. Resolves with the saved path. */
  printHtml?: (html: string, as: 'print' | 'pdf', suggestedName: string) => Promise<string | null>
  /** The operating system's own check before the owner kit is shown (Touch ID), where there is one. */
  systemConfirm?: SystemConfirm | null
  now?: () => number
}

async function renderKit(s: VaultSession, vaultId: string, guardianId: string) {
  const key = await s.vaultKey(vaultId)
  const kit = key ? await s.kits.render(vaultId, guardianId, key, s.labelOf(vaultId)) : null
  if (!kit) {
    throw new AppError({
      code: 'NO_KIT',
      userMessage:
        'There is no kit for this guardian on this device (kits are made and shown on the computer that holds the vault key). Import the owner recovery kit here, or remove and add the guardian again from that computer.',
    })
  }
  return kit
}

function unavailableInBrowser(): AppError {
  return new AppError({
    code: 'UNAVAILABLE_IN_BROWSER',
    userMessage:
      'Printing and PDF export need the desktop app. In browser mode, download the kit page and print it from your browser (Ctrl+P or Cmd+P, then "Save as PDF").',
  })
}

export function createPeopleHandlers(deps: PeopleHandlerDeps): PeopleHandlers {
  const { session } = deps
  const gate = new OwnerKitGate(deps.now, deps.systemConfirm ?? null)

  return {
    listGuardians: async ({ vaultId }) => (await session()).people.listGuardians(vaultId),
    addGuardian: async ({ vaultId, person }) => (await session()).people.addGuardian(vaultId, person),
    removeGuardian: async ({ vaultId, guardianId }) =>
      (await session()).people.removeGuardian(vaultId, guardianId),

    listGuardianKits: async ({ vaultId }) => (await session()).kits.list(vaultId),

    getGuardianKit: async ({ vaultId, guardianId }) => {
      const s = await session()
      const kit = await renderKit(s, vaultId, guardianId)
      return {
        ...kit.info,
        html: kit.html,
        // The vault's name as the owner knows it now (a renamed vault's kits are named by its new name).
        fileName: kitFileName(kit.info.guardianName, s.labelOf(vaultId)),
      }
    },

    printGuardianKit: async ({ vaultId, guardianId, as }) => {
      if (!deps.printHtml) throw unavailableInBrowser()
      const s = await session()
      const kit = await renderKit(s, vaultId, guardianId)
      const name = kitFileName(kit.info.guardianName, s.labelOf(vaultId)).replace(/\.html$/, '.pdf')
      return { saved: await deps.printHtml(kit.html, as, name) }
    },

    getOwnerKitGate: async ({ vaultId }) => gate.info(vaultId, (await session()).labelOf(vaultId)),
    openOwnerKitGate: async ({ vaultId, typed }) =>
      gate.open(vaultId, (await session()).labelOf(vaultId), typed),
    closeOwnerKitGate: async ({ vaultId }) => {
      gate.close(vaultId)
      return null
    },

    getOwnerKit: async ({ vaultId }) => {
      gate.assertOpen(vaultId)
      const s = await session()
      const vaultName = s.labelOf(vaultId)
      const kit = await s.vaultKeys.exportOwnerKit(vaultId, { vaultName })
      return {
        vaultId,
        fingerprint: kit.fingerprint,
        html: kit.html,
        fileName: `${vaultName} - owner recovery kit.html`,
      }
    },

    printOwnerKit: async ({ vaultId, as }) => {
      if (!deps.printHtml) throw unavailableInBrowser()
      gate.assertOpen(vaultId)
      const s = await session()
      const vaultName = s.labelOf(vaultId)
      const kit = await s.vaultKeys.exportOwnerKit(vaultId, { vaultName })
      return { saved: await deps.printHtml(kit.html, as, `${vaultName} - owner recovery kit.pdf`) }
    },

    importOwnerKit: async ({ vaultId, words }) => (await session()).people.importOwnerKit(vaultId, words),
    getOwnerKitCheck: async ({ vaultId }) => (await session()).people.ownerKitCheck(vaultId),
    confirmOwnerKit: async ({ vaultId, answers }) =>
      (await session()).people.confirmOwnerKit(vaultId, answers),

    setKitHandedOver: async ({ vaultId, guardianId, handedOver }) =>
      (await session()).people.setKitHandedOver(vaultId, guardianId, handedOver),
    replaceLostVaultKey: async ({ vaultId }) => (await session()).people.replaceLostVaultKey(vaultId),

    estimateKeyRotation: async ({ vaultId }) => (await session()).rotation.estimate(vaultId),
    startKeyRotation: async ({ vaultId, credits }) => (await session()).rotation.start(vaultId, credits),
    getKeyRotation: async ({ vaultId }) => (await session()).rotation.status(vaultId),
    pauseKeyRotation: async ({ vaultId }) => (await session()).rotation.pause(vaultId),
    resumeKeyRotation: async ({ vaultId }) => (await session()).rotation.resume(vaultId),
    abandonKeyRotation: async ({ vaultId }) => (await session()).rotation.abandon(vaultId),

    listHeirs: async ({ vaultId }) => (await session()).people.listHeirs(vaultId),
    addHeir: async ({ vaultId, person }) => (await session()).people.addHeir(vaultId, person),
    removeHeir: async ({ vaultId, heirId }) => (await session()).people.removeHeir(vaultId, heirId),
  }
}
