// Guardians (with their kits) and heirs. Services without list endpoints (the spec has none) get
// the people added from this device instead, and the window is told which it is seeing.
import { randomInt } from 'node:crypto'
import { VaultApiError } from '../../../service-client'
import type { Guardian, Heir } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import type { GuardianChange } from '../../../shared/ipc/vault-types'
import type { VaultSession } from '../vault-session'
import { kitFileName } from '../vaults/guardian-kits'
import { OwnerKitGate, type SystemConfirm } from '../vaults/owner-kit-gate'
import { asAppError, type HandlerTable } from './handler-table'

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

/**
 * The service's list, or (when it has no list endpoint: a 404 although the vault itself exists)
 * the people added from this device.
 */
async function listOrRecorded<T>(
  s: VaultSession,
  vaultId: string,
  fetch: () => Promise<T[]>,
  recorded: () => T[] | undefined,
): Promise<{ items: T[]; fromService: boolean }> {
  try {
    return { items: await fetch(), fromService: true }
  } catch (error) {
    if (!(error instanceof VaultApiError) || error.status !== 404) throw error
    await s.vaults.get(vaultId) // throws the real 404 when it is the vault that is gone
    return { items: recorded() ?? [], fromService: false }
  }
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

/** How many words of the owner kit the owner types back to confirm it was saved. */
const OWNER_KIT_CHECK_WORDS = 3

function pickPositions(count: number, of: number): number[] {
  const positions = new Set<number>()
  while (positions.size < Math.min(count, of)) positions.add(1 + randomInt(of))
  return [...positions].sort((a, b) => a - b)
}

export function createPeopleHandlers(deps: PeopleHandlerDeps): PeopleHandlers {
  const { session } = deps
  /** The positions last asked for, per vault: the answers must be for these. */
  const ownerKitChecks = new Map<string, number[]>()
  const gate = new OwnerKitGate(deps.now, deps.systemConfirm ?? null)

  const guardiansOf = async (s: VaultSession, vaultId: string) =>
    listOrRecorded<Guardian>(
      s,
      vaultId,
      () => s.vaults.listGuardians(vaultId),
      () => s.records.get(vaultId).guardians,
    )

  /** Re-splits the key for the guardians the vault has now, when this device holds the key. */
  async function regenerateKits(
    s: VaultSession,
    vaultId: string,
  ): Promise<Pick<GuardianChange, 'kits' | 'kitProblem'>> {
    const vault = await s.latestView(vaultId)
    const key = await s.vaultKey(vaultId)
    if (!key) {
      return {
        kits: [],
        kitProblem:
          'This device does not hold the vault key, so it cannot make guardian kits. Make the kits on the computer that created the vault.',
      }
    }
    const { items } = await guardiansOf(s, vaultId)
    try {
      const kits = await s.kits.regenerate(vaultId, key, vault.sssPreset, items)
      await s.registerKitChecks(vaultId, key)
      return { kits, kitProblem: null }
    } catch (error) {
      // The guardian change itself succeeded on the service; say what went wrong with the kits.
      return { kits: [], kitProblem: asAppError(error).userMessage }
    }
  }

  return {
    listGuardians: async ({ vaultId }) => {
      const s = await session()
      const list = await guardiansOf(s, vaultId)
      void s.facts.refresh(vaultId, false)
      // Kits made while the service could not be reached: their check codes go now.
      void s.registerKitChecks(vaultId)
      return list
    },

    addGuardian: async ({ vaultId, person }) => {
      const s = await session()
      const guardian = await s.vaults.addGuardian(vaultId, person)
      const kits = await regenerateKits(s, vaultId)
      await s.facts.refresh(vaultId)
      return { guardian, sharesRegenerated: true, ...kits }
    },

    removeGuardian: async ({ vaultId, guardianId }) => {
      const s = await session()
      const removed = await s.vaults.removeGuardian(vaultId, guardianId)
      const kits = await regenerateKits(s, vaultId)
      await s.facts.refresh(vaultId)
      return { guardian: null, sharesRegenerated: removed.sharesRegenerated, ...kits }
    },

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

    importOwnerKit: async ({ vaultId, words }) => {
      const s = await session()
      const info = await s.vaultKeys.importOwnerKit(words, { expectedVaultId: vaultId })
      // Typing the whole kit in proves it was saved as well as any check would.
      if (info.fingerprint) await s.ownerKitSaved(vaultId, info.fingerprint)
      return s.viewOf(await s.vaults.get(vaultId))
    },

    getOwnerKitCheck: async ({ vaultId }) => {
      const s = await session()
      const words = (await s.vaultKeys.exportOwnerKit(vaultId)).words.split(' ')
      const positions = pickPositions(OWNER_KIT_CHECK_WORDS, words.length)
      ownerKitChecks.set(vaultId, positions)
      return { vaultId, positions, wordCount: words.length }
    },

    confirmOwnerKit: async ({ vaultId, answers }) => {
      const s = await session()
      const asked = ownerKitChecks.get(vaultId)
      if (!asked || asked.join() !== answers.map((a) => a.position).join()) {
        throw new AppError({
          code: 'CHECK_EXPIRED',
          userMessage: 'These answers are not for the words asked. Start the check again.',
        })
      }
      const kit = await s.vaultKeys.exportOwnerKit(vaultId)
      const words = kit.words.split(' ')
      const wrong = answers.filter((a) => words[a.position - 1] !== a.word.trim().toLowerCase())
      if (wrong.length > 0) {
        throw new AppError({
          code: 'OWNER_KIT_MISMATCH',
          userMessage: `Word${wrong.length === 1 ? '' : 's'} ${wrong.map((a) => `#${a.position}`).join(', ')} ${wrong.length === 1 ? 'does' : 'do'} not match the kit of this vault. Read ${wrong.length === 1 ? 'it' : 'them'} again from the saved kit; if the kit is lost or unreadable, save it again.`,
          // The window marks these fields.
          details: { wrongPositions: wrong.map((a) => a.position) },
        })
      }
      ownerKitChecks.delete(vaultId)
      await s.ownerKitSaved(vaultId, kit.fingerprint)
      return s.latestView(vaultId)
    },

    setKitHandedOver: async ({ vaultId, guardianId, handedOver }) => {
      const s = await session()
      let kits: Awaited<ReturnType<typeof s.kits.setHandedOver>>
      try {
        kits = await s.kits.setHandedOver(vaultId, guardianId, handedOver)
      } catch (error) {
        throw new AppError({
          code: 'NO_KIT',
          userMessage:
            'This guardian has no kit of the current split on this device. Reload the guardians; kits are made again whenever a guardian is added or removed.',
          detail: error instanceof Error ? error.message : String(error),
          cause: error,
        })
      }
      await s.facts.refresh(vaultId)
      return kits
    },

    replaceLostVaultKey: async ({ vaultId }) => {
      const s = await session()
      const vault = await s.latestView(vaultId)
      if (vault.keyOnDevice) {
        throw new AppError({
          code: 'KEY_PRESENT',
          userMessage: 'This device holds the vault key; it is not lost, so it is not replaced.',
        })
      }
      if (vault.assetCount > 0) {
        throw new AppError({
          code: 'VAULT_NOT_EMPTY',
          userMessage: `This vault holds ${vault.assetCount} file${vault.assetCount === 1 ? '' : 's'} encrypted with the lost key; a new key could not open them. Import the owner kit, or recover the key from two guardians' kits in Recovery.`,
        })
      }
      await s.vaultKeys.replaceLost(vaultId)
      // Kits of the lost key would rebuild it, not this one: every guardian gets a new kit.
      await regenerateKits(s, vaultId)
      await s.facts.refresh(vaultId)
      return s.viewOf(await s.vaults.get(vaultId))
    },

    estimateKeyRotation: async ({ vaultId }) => (await session()).rotation.estimate(vaultId),
    startKeyRotation: async ({ vaultId, credits }) => (await session()).rotation.start(vaultId, credits),
    getKeyRotation: async ({ vaultId }) => (await session()).rotation.status(vaultId),
    pauseKeyRotation: async ({ vaultId }) => (await session()).rotation.pause(vaultId),
    resumeKeyRotation: async ({ vaultId }) => (await session()).rotation.resume(vaultId),
    abandonKeyRotation: async ({ vaultId }) => (await session()).rotation.abandon(vaultId),

    listHeirs: async ({ vaultId }) => {
      const s = await session()
      return listOrRecorded<Heir>(
        s,
        vaultId,
        () => s.vaults.listHeirs(vaultId),
        () => s.records.get(vaultId).heirs,
      )
    },

    addHeir: async ({ vaultId, person }) => {
      const s = await session()
      const heir = await s.vaults.addHeir(vaultId, person)
      await s.viewOf(await s.vaults.get(vaultId))
      return heir
    },

    removeHeir: async ({ vaultId, heirId }) => {
      const s = await session()
      const removed = await s.vaults.removeHeir(vaultId, heirId)
      await s.latestView(vaultId)
      return removed
    },
  }
}
