// Vault keys (32 random bytes per vault, made on this device with the vault, never sent to the
// service) kept in the same SecretStore as the API keys, one entry per vault id, each with a record
// of where it was put and its fingerprint (VaultKeyRecords).
import { AppError } from '../../../shared/app-error'
import type { LostVaultKey } from '../../../shared/ipc/vault-types'
import {
  decodeOwnerKitWords,
  encodeOwnerKitWords,
  generateVaultKey,
  ShareInputError,
  vaultFingerprint,
} from '../../../vault-format'
import { JsonFileWriter, readJsonFile } from './json-file'
import type { SecretStore, SecretStoreKind } from './secret-store'

export function vaultKeyAccount(vaultId: string): string {
  return `vault-key:${vaultId}`
}

/** The key a rotation re-encrypts the vault under, kept until the switch (vaults/key-rotation.ts). */
export function nextVaultKeyAccount(vaultId: string): string {
  return `vault-key-next:${vaultId}`
}

/** The key a rotation replaced, kept until every blob under it is re-encrypted and deleted. */
export function retiredVaultKeyAccount(vaultId: string): string {
  return `vault-key-retired:${vaultId}`
}

export interface VaultKeyInfo {
  vaultId: string
  present: boolean
  /** Short fingerprint to compare with a printed kit (never the key itself). */
  fingerprint?: string
  store: SecretStoreKind
  /** The key recorded for this vault, which the store cannot give back now (see VaultKeyRecords). */
  lost?: LostVaultKey
}

/** A vault key that cannot be stored, read or imported: `detail` says what failed, `userMessage` what to do. */
export class VaultKeyError extends AppError {
  override readonly name = 'VaultKeyError'
  constructor(detail: string, userMessage: string = detail) {
    super({ code: 'VAULT_KEY_PROBLEM', userMessage, detail })
  }
}

export interface OwnerKitExport {
  vaultId: string
  /** The recovery words (the vault key itself: whoever holds them can open the vault). */
  words: string
  /** A printable page with the words and a QR code. */
  html: string
  fingerprint: string
}

/**
 * Which store this computer gave each vault's key to, and the key's fingerprint: written when the
 * key is made with its vault or brought in by an owner kit (as Element Desktop records which
 * backend wrote its data). With it a key that is missing later reads as lost, never as "no key
 * yet", so nothing makes a second key for a vault whose files and kits belong to the first. Not
 * secret (the fingerprint is printed on the kit); vault-keys.json in the user-data folder.
 */
export interface VaultKeyRecord {
  store: SecretStoreKind
  fingerprint: string
  /**
   * made: with the vault, on this computer; imported: from its owner kit; found: already in the
   * store; rotated: the new key of a key rotation, made here.
   */
  origin: 'made' | 'imported' | 'found' | 'rotated'
  at: string
}

interface VaultKeyRecordsFile {
  version: 1
  vaults: Record<string, VaultKeyRecord>
}

export class VaultKeyRecords {
  readonly #writer: JsonFileWriter<VaultKeyRecordsFile> | undefined
  #state: VaultKeyRecordsFile

  /** Without a file the records last as long as the process (tests, benchmarks). */
  constructor(file?: string, state: VaultKeyRecordsFile = { version: 1, vaults: {} }) {
    this.#writer = file ? new JsonFileWriter(file, 0o600) : undefined
    this.#state = state
  }

  static async open(file: string): Promise<VaultKeyRecords> {
    const read = await readJsonFile<Partial<VaultKeyRecordsFile>>(file, {})
    const vaults: Record<string, VaultKeyRecord> = {}
    for (const [vaultId, r] of Object.entries(read.vaults ?? {})) {
      if (r && typeof r.fingerprint === 'string' && STORE_KINDS.includes(r.store)) vaults[vaultId] = r
    }
    return new VaultKeyRecords(file, { version: 1, vaults })
  }

  get(vaultId: string): VaultKeyRecord | undefined {
    return this.#state.vaults[vaultId]
  }

  async set(vaultId: string, record: VaultKeyRecord): Promise<void> {
    this.#state = { version: 1, vaults: { ...this.#state.vaults, [vaultId]: record } }
    await this.#writer?.write(this.#state)
  }

  async delete(vaultId: string): Promise<void> {
    if (!(vaultId in this.#state.vaults)) return
    const { [vaultId]: _gone, ...rest } = this.#state.vaults
    this.#state = { version: 1, vaults: rest }
    await this.#writer?.write(this.#state)
  }

  flush(): Promise<void> {
    return this.#writer?.flush() ?? Promise.resolve()
  }
}

const STORE_KINDS: readonly SecretStoreKind[] = ['keychain', 'encrypted-file', 'memory']

/** What the store holds for a vault, read without judging it. */
type StoredKey = { key: Uint8Array } | { key: null; unreadable?: AppError }

/**
 * Vault keys in the secret store, each checked against its record. A key is made only by
 * `create`, for a vault the app has just created on the service, or by `replaceLost`, the owner's
 * explicit choice for an empty vault; every write (create, put, an import, a replacement) records
 * the key's store and fingerprint, so a method added here keeps the record by going through put.
 */
export class VaultKeyStore {
  constructor(
    private readonly secrets: SecretStore,
    readonly records: VaultKeyRecords = new VaultKeyRecords(),
  ) {}

  /** The vault's key; null when this computer has none; refused when it is not the key recorded. */
  async get(vaultId: string): Promise<Uint8Array | null> {
    const stored = await this.#read(vaultId)
    if (stored.key === null) {
      if (stored.unreadable) throw stored.unreadable
      return null
    }
    const record = this.records.get(vaultId)
    if (record && vaultFingerprint(stored.key) !== record.fingerprint) {
      throw new VaultKeyError(
        `the stored key of vault ${vaultId} has fingerprint ${vaultFingerprint(stored.key)}, recorded ${record.fingerprint}`,
        `The key stored for this vault is not the one it was made with (fingerprint ${record.fingerprint}). Import the owner kit of this vault to bring its key back.`,
      )
    }
    return stored.key
  }

  async has(vaultId: string): Promise<boolean> {
    return (await this.info(vaultId)).present
  }

  async info(vaultId: string): Promise<VaultKeyInfo> {
    const stored = await this.#read(vaultId)
    const record = this.records.get(vaultId)
    const base = { vaultId, store: this.secrets.kind }
    if (stored.key) {
      const fingerprint = vaultFingerprint(stored.key)
      if (!record) {
        // A key stored by an earlier version, which kept no record: it is the vault's key.
        await this.#remember(vaultId, fingerprint, 'found')
        return { ...base, present: true, fingerprint }
      }
      if (record.fingerprint === fingerprint) {
        if (record.store !== this.secrets.kind) await this.#remember(vaultId, fingerprint, record.origin)
        return { ...base, present: true, fingerprint }
      }
    }
    if (!record) return { ...base, present: false }
    return { ...base, present: false, lost: { keptIn: record.store, fingerprint: record.fingerprint } }
  }

  /**
   * Makes the key of a vault this app has just created on the service. Refused when the vault has a
   * key here or had one (its record): files and kits made with that key would open with no other.
   */
  async create(vaultId: string): Promise<VaultKeyInfo> {
    const info = await this.info(vaultId)
    if (info.present) {
      throw new VaultKeyError(
        `vault ${vaultId} already has a key`,
        'This vault already has a key on this device; replacing it would make its files unreadable.',
      )
    }
    if (info.lost) {
      throw new VaultKeyError(
        `vault ${vaultId} had a key here (fingerprint ${info.lost.fingerprint}); no second one is made`,
        `The key of this vault is not on this computer any more: import the owner kit (fingerprint ${info.lost.fingerprint}). A new key would open none of its files and none of its guardian kits.`,
      )
    }
    return this.#write(vaultId, generateVaultKey(), 'made')
  }

  /**
   * A new key for a vault whose key is lost with its owner kit: the owner's explicit choice, taken
   * only for a vault with no files (the caller checks that and makes new guardian kits).
   */
  async replaceLost(vaultId: string): Promise<VaultKeyInfo> {
    const info = await this.info(vaultId)
    if (info.present) {
      throw new VaultKeyError(
        `vault ${vaultId} has its key here`,
        'This device holds the vault key; it is not lost, so it is not replaced.',
      )
    }
    return this.#write(vaultId, generateVaultKey(), 'made')
  }

  /**
   * Stores a key (from an imported recovery kit); an existing different key is only replaced when
   * asked, or when the new key is the one recorded for the vault (its own kit brings it back).
   */
  async put(vaultId: string, key: Uint8Array, options: { replace?: boolean } = {}): Promise<void> {
    if (key.length !== 32) throw new VaultKeyError(`a vault key has 32 bytes, got ${key.length}`)
    const fingerprint = vaultFingerprint(key)
    const existing = (await this.#read(vaultId)).key
    const isRecorded = this.records.get(vaultId)?.fingerprint === fingerprint
    if (
      existing &&
      !options.replace &&
      !isRecorded &&
      Buffer.compare(Buffer.from(existing), Buffer.from(key)) !== 0
    ) {
      throw new VaultKeyError(
        `vault ${vaultId} already has a different key`,
        'This device already holds a different key for this vault. Make sure the kit belongs to this vault before replacing the key.',
      )
    }
    await this.#write(vaultId, key, 'imported')
  }

  async delete(vaultId: string): Promise<boolean> {
    await this.records.delete(vaultId)
    await this.secrets.delete(nextVaultKeyAccount(vaultId))
    await this.secrets.delete(retiredVaultKeyAccount(vaultId))
    return this.secrets.delete(vaultKeyAccount(vaultId))
  }

  // ---- replacing the key by a rotation: next -> current (recorded) -> retired; each step safe to repeat ----

  async #readAccount(account: string, what: string): Promise<Uint8Array | null> {
    const stored = await this.secrets.get(account)
    if (!stored) return null
    const key = new Uint8Array(Buffer.from(stored, 'base64'))
    if (key.length !== 32) throw new VaultKeyError(`${what} has ${key.length} bytes`)
    return key
  }

  /** The key a rotation under way re-encrypts under, or null when none is. */
  nextKey(vaultId: string): Promise<Uint8Array | null> {
    return this.#readAccount(nextVaultKeyAccount(vaultId), `the next key of vault ${vaultId}`)
  }

  /** The next key, made now when there is none; stored before any file is encrypted under it. */
  async makeNextKey(vaultId: string): Promise<Uint8Array> {
    if (!(await this.get(vaultId))) {
      throw new VaultKeyError(
        `no key for vault ${vaultId}`,
        'This device does not hold the vault key, so it cannot re-encrypt the files. Import the owner kit first.',
      )
    }
    const existing = await this.nextKey(vaultId)
    if (existing) return existing
    const key = generateVaultKey()
    await this.secrets.set(nextVaultKeyAccount(vaultId), Buffer.from(key).toString('base64'))
    return key
  }

  /** The switch began (the next key is stored as the vault's key) but its last steps did not run. */
  async switchUnfinished(vaultId: string): Promise<boolean> {
    const next = await this.nextKey(vaultId)
    const current = (await this.#read(vaultId)).key
    return !!next && !!current && Buffer.compare(Buffer.from(current), Buffer.from(next)) === 0
  }

  /**
   * Makes the next key the vault's key (and its record), keeping the one it replaces as retired.
   * Repeating it after a crash at any step ends in the same place: the retired key is written before
   * the current one changes, and once the current key is the next one only the record and the next
   * entry are left to settle.
   */
  async switchToNextKey(vaultId: string): Promise<void> {
    const next = await this.nextKey(vaultId)
    if (!next) {
      if (await this.get(vaultId)) return // switched already
      throw new VaultKeyError(`vault ${vaultId} has neither a key nor a next key`)
    }
    const current = (await this.#read(vaultId)).key
    if (!current || Buffer.compare(Buffer.from(current), Buffer.from(next)) !== 0) {
      if (current) {
        await this.secrets.set(retiredVaultKeyAccount(vaultId), Buffer.from(current).toString('base64'))
      }
    }
    await this.#write(vaultId, next, 'rotated')
    await this.secrets.delete(nextVaultKeyAccount(vaultId))
  }

  /** The key the last switch replaced, while its blobs are still being dealt with. */
  retiredKey(vaultId: string): Promise<Uint8Array | null> {
    return this.#readAccount(retiredVaultKeyAccount(vaultId), `the retired key of vault ${vaultId}`)
  }

  async forgetRetiredKey(vaultId: string): Promise<void> {
    await this.secrets.delete(retiredVaultKeyAccount(vaultId))
  }

  /** A rotation abandoned before its switch: the next key goes, the vault key stays as it was. */
  async dropNextKey(vaultId: string): Promise<void> {
    await this.secrets.delete(nextVaultKeyAccount(vaultId))
  }

  async #write(vaultId: string, key: Uint8Array, origin: VaultKeyRecord['origin']): Promise<VaultKeyInfo> {
    await this.secrets.set(vaultKeyAccount(vaultId), Buffer.from(key).toString('base64'))
    await this.#remember(vaultId, vaultFingerprint(key), origin)
    return this.info(vaultId)
  }

  #remember(vaultId: string, fingerprint: string, origin: VaultKeyRecord['origin']): Promise<void> {
    return this.records.set(vaultId, {
      store: this.secrets.kind,
      fingerprint,
      origin,
      at: new Date().toISOString(),
    })
  }

  /** The stored key as it is; a secret the store cannot decrypt counts as no key, with its error. */
  async #read(vaultId: string): Promise<StoredKey> {
    let stored: string | null
    try {
      stored = await this.secrets.get(vaultKeyAccount(vaultId))
    } catch (error) {
      if (error instanceof AppError && error.code === 'SECRET_UNREADABLE')
        return { key: null, unreadable: error }
      throw error
    }
    if (!stored) return { key: null }
    const key = new Uint8Array(Buffer.from(stored, 'base64'))
    if (key.length !== 32) {
      throw new VaultKeyError(
        `stored key of vault ${vaultId} has ${key.length} bytes`,
        `The stored key of vault ${vaultId} is damaged. Import the owner recovery kit again.`,
      )
    }
    return { key }
  }

  /** The owner recovery kit of a vault whose key is on this device. */
  async exportOwnerKit(
    vaultId: string,
    names: { ownerName?: string; vaultName?: string } = {},
  ): Promise<OwnerKitExport> {
    const vaultKey = await this.get(vaultId)
    if (!vaultKey) {
      throw new VaultKeyError(
        `no key for vault ${vaultId}`,
        'This device has no key for this vault, so there is no kit to print. Import the kit on this device first.',
      )
    }
    // Loaded when a kit is printed: the QR code library is memory an upload does not need.
    const { renderOwnerKitHtml } = await import('../printable/kit-pages')
    return {
      vaultId,
      words: encodeOwnerKitWords({ vaultKey, vaultId }),
      html: renderOwnerKitHtml({ vaultKey, vaultId, ...names }),
      fingerprint: vaultFingerprint(vaultKey),
    }
  }

  /**
   * Reads the words of an owner kit and stores the key for the vault they name. With
   * `expectedVaultId`, a kit of another vault is refused.
   */
  async importOwnerKit(
    words: string,
    options: { expectedVaultId?: string; replace?: boolean } = {},
  ): Promise<VaultKeyInfo> {
    let owner: ReturnType<typeof decodeOwnerKitWords>
    try {
      owner = decodeOwnerKitWords(words)
    } catch (error) {
      if (error instanceof ShareInputError) throw new VaultKeyError(error.message, error.message)
      throw error
    }
    if (options.expectedVaultId && owner.vaultId !== options.expectedVaultId) {
      throw new VaultKeyError(
        `kit of vault ${owner.vaultId}, expected ${options.expectedVaultId}`,
        `This kit belongs to vault ${owner.vaultId}, not to the vault you chose (${options.expectedVaultId}). Use the kit printed for that vault.`,
      )
    }
    await this.put(owner.vaultId, owner.vaultKey, { replace: options.replace })
    return this.info(owner.vaultId)
  }
}
