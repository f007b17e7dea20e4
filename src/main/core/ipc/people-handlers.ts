// Guardians (with their kits) and heirs. Services without list endpoints (the spec has none) get
// the people added from this device instead, and the window is told which it is seeing.
import type { Guardian, Heir } from '../../../shared/api'
import { IpcError } from '../../../shared/ipc/contract-kit'
import type { GuardianChange } from '../../../shared/ipc/vault-types'
import { type VaultApiClient, VaultApiError } from '../api-client'
import { type DesktopSession, vaultLabel } from './desktop-session'
import { type GuardianKits, kitFileName } from './guardian-kits'
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
  kits: (session: DesktopSession) => GuardianKits
  /** Print or save HTML as PDF; only the Electron shell can. Resolves with the saved path. */
  printHtml?: (html: string, as: 'print' | 'pdf', suggestedName: string) => Promise<string | null>
}

/**
 * The service's list, or (when it has no list endpoint: a 404 although the vault itself exists)
 * the people added from this device.
 */
async function listOrRecorded<T>(
  client: VaultApiClient,
  vaultId: string,
  fetch: () => Promise<T[]>,
  recorded: () => T[] | undefined,
): Promise<{ items: T[]; fromService: boolean }> {
  try {
    return { items: await fetch(), fromService: true }
  } catch (error) {
    if (!(error instanceof VaultApiError) || error.status !== 404) throw error
    await client.getVault(vaultId) // throws the real 404 when it is the vault that is gone
    return { items: recorded() ?? [], fromService: false }
  }
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

  const guardiansOf = async (s: DesktopSession, client: VaultApiClient, vaultId: string) =>
    listOrRecorded<Guardian>(
      client,
      vaultId,
      () => client.listGuardians(vaultId),
      () => s.records.get(vaultId).guardians,
    )

  /** Re-splits the key for the guardians the vault has now, when this device holds the key. */
  async function regenerateKits(
    s: DesktopSession,
    client: VaultApiClient,
    vaultId: string,
  ): Promise<Pick<GuardianChange, 'kits' | 'kitProblem'>> {
    const vault = await client.getVault(vaultId)
    await s.observe(vault)
    const key = await s.keyring.get(vaultId)
    if (!key) {
      return {
        kits: [],
        kitProblem:
          'This device does not hold the vault key, so it cannot make guardian kits. Make the kits on the computer that created the vault.',
      }
    }
    const { items } = await guardiansOf(s, client, vaultId)
    try {
      const kits = await deps.kits(s).regenerate(vaultId, key, vault.sssPreset, items)
      return { kits, kitProblem: null }
    } catch (error) {
      // The guardian change itself succeeded on the service; say what went wrong with the kits.
      return { kits: [], kitProblem: toIpcErrorData(error).message }
    }
  }

  return {
    listGuardians: async ({ vaultId }) => {
      const s = await session()
      return guardiansOf(s, await s.connections.client(), vaultId)
    },

    addGuardian: async ({ vaultId, person }) => {
      const s = await session()
      const client = await s.connections.client()
      const guardian = await client.addGuardian(vaultId, person)
      await s.records.update(vaultId, (r) => ({ ...r, guardians: [...(r.guardians ?? []), guardian] }))
      return { guardian, sharesRegenerated: true, ...(await regenerateKits(s, client, vaultId)) }
    },

    removeGuardian: async ({ vaultId, guardianId }) => {
      const s = await session()
      const client = await s.connections.client()
      const removed = await client.removeGuardian(vaultId, guardianId)
      await s.records.update(vaultId, (r) => ({
        ...r,
        guardians: (r.guardians ?? []).filter((g) => g.id !== guardianId),
      }))
      return {
        guardian: null,
        sharesRegenerated: removed.sharesRegenerated,
        ...(await regenerateKits(s, client, vaultId)),
      }
    },

    listGuardianKits: async ({ vaultId }) => deps.kits(await session()).list(vaultId),

    getGuardianKit: async ({ vaultId, guardianId }) => {
      const kit = await deps.kits(await session()).render(vaultId, guardianId)
      if (!kit) {
        throw new IpcError({
          code: 'NO_KIT',
          message:
            'There is no kit for this guardian on this device (kits are made on the computer that holds the vault key). Remove and add the guardian again from that computer to make a new kit.',
        })
      }
      return {
        ...kit.info,
        html: kit.html,
        fileName: kitFileName(kit.info.guardianName, vaultLabel(vaultId)),
      }
    },

    printGuardianKit: async ({ vaultId, guardianId, as }) => {
      if (!deps.printHtml) throw unavailableInBrowser()
      const kit = await deps.kits(await session()).render(vaultId, guardianId)
      if (!kit)
        throw new IpcError({ code: 'NO_KIT', message: 'There is no kit for this guardian on this device.' })
      const name = kitFileName(kit.info.guardianName, vaultLabel(vaultId)).replace(/\.html$/, '.pdf')
      return { saved: await deps.printHtml(kit.html, as, name) }
    },

    getOwnerKit: async ({ vaultId }) => {
      const kit = await (await session()).keyring.exportOwnerKit(vaultId)
      return {
        vaultId,
        fingerprint: kit.fingerprint,
        html: kit.html,
        fileName: `${vaultLabel(vaultId)} - owner recovery kit.html`,
      }
    },

    printOwnerKit: async ({ vaultId, as }) => {
      if (!deps.printHtml) throw unavailableInBrowser()
      const kit = await (await session()).keyring.exportOwnerKit(vaultId)
      return { saved: await deps.printHtml(kit.html, as, `${vaultLabel(vaultId)} - owner recovery kit.pdf`) }
    },

    importOwnerKit: async ({ vaultId, words }) => {
      const s = await session()
      await s.keyring.importOwnerKit(words, { expectedVaultId: vaultId })
      return s.observe(await (await s.connections.client()).getVault(vaultId))
    },

    listHeirs: async ({ vaultId }) => {
      const s = await session()
      const client = await s.connections.client()
      return listOrRecorded<Heir>(
        client,
        vaultId,
        () => client.listHeirs(vaultId),
        () => s.records.get(vaultId).heirs,
      )
    },

    addHeir: async ({ vaultId, person }) => {
      const s = await session()
      const client = await s.connections.client()
      const heir = await client.addHeir(vaultId, person)
      await s.records.update(vaultId, (r) => ({ ...r, heirs: [...(r.heirs ?? []), heir] }))
      await s.observe(await client.getVault(vaultId))
      return heir
    },

    removeHeir: async ({ vaultId, heirId }) => {
      const s = await session()
      const client = await s.connections.client()
      const removed = await client.removeHeir(vaultId, heirId)
      await s.records.update(vaultId, (r) => ({
        ...r,
        heirs: (r.heirs ?? []).filter((h) => h.id !== heirId),
      }))
      await s.observe(await client.getVault(vaultId))
      return removed
    },
  }
}
