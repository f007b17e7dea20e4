// Guardians (with their kits) and heirs. Services without list endpoints (the spec has none) get
// the people added from this device instead, and the window is told which it is seeing.
import type { Guardian, Heir } from '../../../shared/api'
import { IpcError } from '../../../shared/ipc/contract-kit'
import type { GuardianChange } from '../../../shared/ipc/vault-types'
import { VaultApiError } from '../api-client'
import { type DesktopSession, vaultLabel } from './desktop-session'
import { kitFileName } from './guardian-kits'
import { type HandlerTable, toIpcErrorData } from './handler-table'

type PeopleHandlers = Pick<
  HandlerTable,
  | 'listGuardians'
  | 'addGuardian'
  | 'removeGuardian'
  | 'listGuardianKits'
  | 'getGuardianKit'
  | 'printGuardianKit'
  | 'getOwnerKit'
  | 'printOwnerKit'
  | 'importOwnerKit'
  | 'listHeirs'
  | 'addHeir'
  | 'removeHeir'
>

export interface PeopleHandlerDeps {
  session: () => Promise<DesktopSession>
  /** Print or save HTML as PDF; only the Electron shell can. Resolves with the saved path. */
  printHtml?: (html: string, as: 'print' | 'pdf', suggestedName: string) => Promise<string | null>
}

/**
 * The service's list, or (when it has no list endpoint: a 404 although the vault itself exists)
 * the people added from this device.
 */
async function listOrRecorded<T>(
  s: DesktopSession,
  vaultId: string,
  fetch: () => Promise<T[]>,
  recorded: () => T[] | undefined,
): Promise<{ items: T[]; fromService: boolean }> {
  try {
    return { items: await fetch(), fromService: true }
  } catch (error) {
    if (!(error instanceof VaultApiError) || error.status !== 404) throw error
    await s.core.vaults.get(vaultId) // throws the real 404 when it is the vault that is gone
    return { items: recorded() ?? [], fromService: false }
  }
}

async function renderKit(s: DesktopSession, vaultId: string, guardianId: string) {
  const key = await s.vaultKey(vaultId)
  const kit = key ? await s.kits.render(vaultId, guardianId, key) : null
  if (!kit) {
    throw new IpcError({
      code: 'NO_KIT',
      message:
        'There is no kit for this guardian on this device (kits are made and shown on the computer that holds the vault key). Import the owner recovery kit here, or remove and add the guardian again from that computer.',
    })
  }
  return kit
}

function unavailableInBrowser(): IpcError {
  return new IpcError({
    code: 'UNAVAILABLE_IN_BROWSER',
    message:
      'Printing and PDF export need the desktop app. In browser mode, download the kit page and print it from your browser (Ctrl+P or Cmd+P, then "Save as PDF").',
  })
}

export function createPeopleHandlers(deps: PeopleHandlerDeps): PeopleHandlers {
  const { session } = deps

  const guardiansOf = async (s: DesktopSession, vaultId: string) =>
    listOrRecorded<Guardian>(
      s,
      vaultId,
      () => s.core.vaults.listGuardians(vaultId),
      () => s.records.get(vaultId).guardians,
    )

  /** Re-splits the key for the guardians the vault has now, when this device holds the key. */
  async function regenerateKits(
    s: DesktopSession,
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
      return { kits, kitProblem: null }
    } catch (error) {
      // The guardian change itself succeeded on the service; say what went wrong with the kits.
      return { kits: [], kitProblem: toIpcErrorData(error).message }
    }
  }

  return {
    listGuardians: async ({ vaultId }) => guardiansOf(await session(), vaultId),

    addGuardian: async ({ vaultId, person }) => {
      const s = await session()
      const guardian = await s.core.vaults.addGuardian(vaultId, person)
      await s.records.update(vaultId, (r) => ({ ...r, guardians: [...(r.guardians ?? []), guardian] }))
      return { guardian, sharesRegenerated: true, ...(await regenerateKits(s, vaultId)) }
    },

    removeGuardian: async ({ vaultId, guardianId }) => {
      const s = await session()
      const removed = await s.core.vaults.removeGuardian(vaultId, guardianId)
      await s.records.update(vaultId, (r) => ({
        ...r,
        guardians: (r.guardians ?? []).filter((g) => g.id !== guardianId),
      }))
      return {
        guardian: null,
        sharesRegenerated: removed.sharesRegenerated,
        ...(await regenerateKits(s, vaultId)),
      }
    },

    listGuardianKits: async ({ vaultId }) => (await session()).kits.list(vaultId),

    getGuardianKit: async ({ vaultId, guardianId }) => {
      const kit = await renderKit(await session(), vaultId, guardianId)
      return {
        ...kit.info,
        html: kit.html,
        fileName: kitFileName(kit.info.guardianName, vaultLabel(vaultId)),
      }
    },

    printGuardianKit: async ({ vaultId, guardianId, as }) => {
      if (!deps.printHtml) throw unavailableInBrowser()
      const kit = await renderKit(await session(), vaultId, guardianId)
      const name = kitFileName(kit.info.guardianName, vaultLabel(vaultId)).replace(/\.html$/, '.pdf')
      return { saved: await deps.printHtml(kit.html, as, name) }
    },

    getOwnerKit: async ({ vaultId }) => {
      const kit = await (await session()).core.vaultKeys.exportOwnerKit(vaultId)
      return {
        vaultId,
        fingerprint: kit.fingerprint,
        html: kit.html,
        fileName: `${vaultLabel(vaultId)} - owner recovery kit.html`,
      }
    },

    printOwnerKit: async ({ vaultId, as }) => {
      if (!deps.printHtml) throw unavailableInBrowser()
      const kit = await (await session()).core.vaultKeys.exportOwnerKit(vaultId)
      return { saved: await deps.printHtml(kit.html, as, `${vaultLabel(vaultId)} - owner recovery kit.pdf`) }
    },

    importOwnerKit: async ({ vaultId, words }) => {
      const s = await session()
      await s.core.vaultKeys.importOwnerKit(words, { expectedVaultId: vaultId })
      return s.viewOf(await s.core.vaults.get(vaultId))
    },

    listHeirs: async ({ vaultId }) => {
      const s = await session()
      return listOrRecorded<Heir>(
        s,
        vaultId,
        () => s.core.vaults.listHeirs(vaultId),
        () => s.records.get(vaultId).heirs,
      )
    },

    addHeir: async ({ vaultId, person }) => {
      const s = await session()
      const heir = await s.core.vaults.addHeir(vaultId, person)
      await s.records.update(vaultId, (r) => ({ ...r, heirs: [...(r.heirs ?? []), heir] }))
      await s.latestView(vaultId)
      return heir
    },

    removeHeir: async ({ vaultId, heirId }) => {
      const s = await session()
      const removed = await s.core.vaults.removeHeir(vaultId, heirId)
      await s.records.update(vaultId, (r) => ({
        ...r,
        heirs: (r.heirs ?? []).filter((h) => h.id !== heirId),
      }))
      await s.latestView(vaultId)
      return removed
    },
  }
}
