// Guardians (with their kits), heirs and the owner kit, each call owning what it writes: the person on
// the service and in the device record (vault-operations.ts), the guardian kits made again for the
// guardians the vault has now, the readiness facts, and the owner's history line. Services without
// list endpoints (the spec has none) get the people added from this device instead, and the window is
// told which it is seeing.
import { randomInt } from 'node:crypto'
import { VaultApiError } from '../../../service-client'
import type { Guardian, Heir, PersonRequest } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import type {
  ActivityEntry,
  GuardianChange,
  GuardianKitInfo,
  VaultView,
} from '../../../shared/ipc/vault-types'
import { asAppError } from '../ipc/handler-table'
import type { VaultKeyStore } from '../storage/vault-key-store'
import type { ActivityInput } from './activity-log'
import type { DeviceRecords } from './device-records'
import type { GuardianKits } from './guardian-kits'
import type { ReadinessFacts } from './readiness-facts'
import type { VaultOperations } from './vault-operations'

/** The session's parts these calls use (the session itself, in the app). */
export interface PeopleDeps {
  vaults: VaultOperations
  records: DeviceRecords
  kits: Pick<GuardianKits, 'regenerate' | 'setHandedOver'>
  facts: Pick<ReadinessFacts, 'refresh' | 'noteGuardians'>
  vaultKeys: Pick<VaultKeyStore, 'replaceLost' | 'importOwnerKit' | 'exportOwnerKit'>
  vaultKey(vaultId: string): Promise<Uint8Array | null>
  registerKitChecks(vaultId: string, key?: Uint8Array): Promise<void>
  ownerKitSaved(vaultId: string, fingerprint: string): Promise<void>
  latestView(vaultId: string): Promise<VaultView>
  viewOf(vault: Awaited<ReturnType<VaultOperations['get']>>): Promise<VaultView>
  recordActivity(input: ActivityInput): ActivityEntry | undefined
}

/** How many words of the owner kit the owner types back to confirm it was saved. */
const OWNER_KIT_CHECK_WORDS = 3

function pickPositions(count: number, of: number): number[] {
  const positions = new Set<number>()
  while (positions.size < Math.min(count, of)) positions.add(1 + randomInt(of))
  return [...positions].sort((a, b) => a - b)
}

const personDetail = (person: { name?: string; email?: string } | undefined) =>
  person?.name ? { person: person.name, ...(person.email ? { email: person.email } : {}) } : {}

export type PeopleOperations = ReturnType<typeof peopleOperations>

export function peopleOperations(s: PeopleDeps) {
  /** The positions last asked for, per vault: the answers must be for these. */
  const ownerKitChecks = new Map<string, number[]>()

  /**
   * The service's list, or (when it has no list endpoint: a 404 although the vault itself exists)
   * the people added from this device.
   */
  async function listOrRecorded<T>(
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
  const guardiansOf = (vaultId: string) =>
    listOrRecorded<Guardian>(
      vaultId,
      () => s.vaults.listGuardians(vaultId),
      () => s.records.get(vaultId).guardians,
    )
  const heirsOf = (vaultId: string) =>
    listOrRecorded<Heir>(
      vaultId,
      () => s.vaults.listHeirs(vaultId),
      () => s.records.get(vaultId).heirs,
    )

  /** Re-splits the key for the guardians the vault has now, when this device holds the key. */
  async function regenerateKits(vaultId: string): Promise<Pick<GuardianChange, 'kits' | 'kitProblem'>> {
    const vault = await s.latestView(vaultId)
    const key = await s.vaultKey(vaultId)
    if (!key) {
      return {
        kits: [],
        kitProblem:
          'This device does not hold the vault key, so it cannot make guardian kits. Make the kits on the computer that created the vault.',
      }
    }
    const { items } = await guardiansOf(vaultId)
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
    async listGuardians(vaultId: string) {
      const list = await guardiansOf(vaultId)
      if (list.fromService) s.facts.noteGuardians(vaultId, list.items)
      void s.facts.refresh(vaultId, false)
      // Kits made while the service could not be reached: their check codes go now.
      void s.registerKitChecks(vaultId)
      return list
    },

    async addGuardian(vaultId: string, person: PersonRequest): Promise<GuardianChange> {
      const guardian = await s.vaults.addGuardian(vaultId, person)
      const kits = await regenerateKits(vaultId)
      await s.facts.refresh(vaultId)
      s.recordActivity({ vaultId, kind: 'guardian-added', source: 'window', detail: personDetail(person) })
      return { guardian, sharesRegenerated: true, ...kits }
    },

    async removeGuardian(vaultId: string, guardianId: string): Promise<GuardianChange> {
      // Who it was, for the history, read before they are gone.
      const before = await (async () =>
        s.records.get(vaultId).guardians?.find((g) => g.id === guardianId) ??
        (await s.vaults.listGuardians(vaultId)).find((g) => g.id === guardianId))().catch(() => undefined)
      const removed = await s.vaults.removeGuardian(vaultId, guardianId)
      const kits = await regenerateKits(vaultId)
      await s.facts.refresh(vaultId)
      s.recordActivity({ vaultId, kind: 'guardian-removed', source: 'window', detail: personDetail(before) })
      return { guardian: null, sharesRegenerated: removed.sharesRegenerated, ...kits }
    },

    async setKitHandedOver(
      vaultId: string,
      guardianId: string,
      handedOver: boolean,
    ): Promise<GuardianKitInfo[]> {
      let kits: GuardianKitInfo[]
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
      const kit = kits.find((k) => k.guardianId === guardianId)
      s.recordActivity({
        vaultId,
        kind: handedOver ? 'kit-handed-over' : 'kit-taken-back',
        source: 'window',
        detail: kit ? { person: kit.guardianName } : {},
      })
      return kits
    },

    async replaceLostVaultKey(vaultId: string): Promise<VaultView> {
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
      await regenerateKits(vaultId)
      await s.facts.refresh(vaultId)
      const view = await s.viewOf(await s.vaults.get(vaultId))
      s.recordActivity({ vaultId, kind: 'vault-key-replaced', source: 'window' })
      return view
    },

    async importOwnerKit(vaultId: string, words: string): Promise<VaultView> {
      const info = await s.vaultKeys.importOwnerKit(words, { expectedVaultId: vaultId })
      // Typing the whole kit in proves it was saved as well as any check would.
      if (info.fingerprint) await s.ownerKitSaved(vaultId, info.fingerprint)
      const view = await s.viewOf(await s.vaults.get(vaultId))
      s.recordActivity({ vaultId, kind: 'vault-key-imported', source: 'window' })
      return view
    },

    /** Asks for a few words of the saved owner kit, at positions chosen here. */
    async ownerKitCheck(vaultId: string) {
      const words = (await s.vaultKeys.exportOwnerKit(vaultId)).words.split(' ')
      const positions = pickPositions(OWNER_KIT_CHECK_WORDS, words.length)
      ownerKitChecks.set(vaultId, positions)
      return { vaultId, positions, wordCount: words.length }
    },

    async confirmOwnerKit(
      vaultId: string,
      answers: { position: number; word: string }[],
    ): Promise<VaultView> {
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
      const view = await s.latestView(vaultId)
      s.recordActivity({ vaultId, kind: 'owner-kit-confirmed', source: 'window' })
      return view
    },

    listHeirs: heirsOf,

    async addHeir(vaultId: string, person: PersonRequest): Promise<Heir> {
      const heir = await s.vaults.addHeir(vaultId, person)
      await s.viewOf(await s.vaults.get(vaultId))
      s.recordActivity({ vaultId, kind: 'heir-added', source: 'window', detail: personDetail(person) })
      return heir
    },

    async removeHeir(vaultId: string, heirId: string) {
      const before = await (async () =>
        s.records.get(vaultId).heirs?.find((h) => h.id === heirId) ??
        (await s.vaults.listHeirs(vaultId)).find((h) => h.id === heirId))().catch(() => undefined)
      const removed = await s.vaults.removeHeir(vaultId, heirId)
      await s.latestView(vaultId)
      s.recordActivity({ vaultId, kind: 'heir-removed', source: 'window', detail: personDetail(before) })
      return removed
    },
  }
}
