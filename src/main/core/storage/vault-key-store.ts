// Vault keys (32 random bytes per vault, made on this device, never sent to the service) kept in
// the same SecretStore as the API keys, one entry per vault id.
import { AppError } from '../../../shared/app-error'
import {
  decodeOwnerKitWords,
  encodeOwnerKitWords,
  generateVaultKey,
  ShareInputError,
  vaultFingerprint,
} from '../../../vault-format'
import { renderOwnerKitHtml } from '../printable/kit-pages'
import type { SecretStore, SecretStoreKind } from './secret-store'

export function vaultKeyAccount(vaultId: string): string {
  return `vault-key:${vaultId}`
}

export interface VaultKeyInfo {
  vaultId: string
  present: boolean
  /** Short fingerprint to compare with a printed kit (never the key itself). */
  fingerprint?: string
  store: SecretStoreKind
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

export class VaultKeyStore {
  constructor(private readonly secrets: SecretStore) {}

  async get(vaultId: string): Promise<Uint8Array | null> {
    const stored = await this.secrets.get(vaultKeyAccount(vaultId))
    if (!stored) return null
    const key = new Uint8Array(Buffer.from(stored, 'base64'))
    if (key.length !== 32) {
      throw new VaultKeyError(
        `stored key of vault ${vaultId} has ${key.length} bytes`,
        `The stored key of vault ${vaultId} is damaged. Import the owner recovery kit again.`,
      )
    }
    return key
  }

  async has(vaultId: string): Promise<boolean> {
    return (await this.secrets.get(vaultKeyAccount(vaultId))) !== null
  }

  async info(vaultId: string): Promise<VaultKeyInfo> {
    const key = await this.get(vaultId)
    return {
      vaultId,
      present: key !== null,
      ...(key ? { fingerprint: vaultFingerprint(key) } : {}),
      store: this.secrets.kind,
    }
  }

  /** Makes a new key for a vault that has none; refuses to overwrite (files encrypted under it would be lost). */
  async create(vaultId: string): Promise<VaultKeyInfo> {
    if (await this.has(vaultId)) {
      throw new VaultKeyError(
        `vault ${vaultId} already has a key`,
        'This vault already has a key on this device; replacing it would make its files unreadable.',
      )
    }
    await this.put(vaultId, generateVaultKey())
    return this.info(vaultId)
  }

  /** Stores a key (from an imported recovery kit); an existing different key is only replaced when asked. */
  async put(vaultId: string, key: Uint8Array, options: { replace?: boolean } = {}): Promise<void> {
    if (key.length !== 32) throw new VaultKeyError(`a vault key has 32 bytes, got ${key.length}`)
    const existing = await this.get(vaultId)
    if (existing && !options.replace && Buffer.compare(Buffer.from(existing), Buffer.from(key)) !== 0) {
      throw new VaultKeyError(
        `vault ${vaultId} already has a different key`,
        'This device already holds a different key for this vault. Make sure the kit belongs to this vault before replacing the key.',
      )
    }
    await this.secrets.set(vaultKeyAccount(vaultId), Buffer.from(key).toString('base64'))
  }

  async delete(vaultId: string): Promise<boolean> {
    return this.secrets.delete(vaultKeyAccount(vaultId))
  }

  /** The owner recovery kit of a vault whose key is on this device. */
  async exportOwnerKit(vaultId: string, ownerName?: string): Promise<OwnerKitExport> {
    const vaultKey = await this.get(vaultId)
    if (!vaultKey) {
      throw new VaultKeyError(
        `no key for vault ${vaultId}`,
        'This device has no key for this vault, so there is no kit to print. Import the kit on this device first.',
      )
    }
    return {
      vaultId,
      words: encodeOwnerKitWords({ vaultKey, vaultId }),
      html: renderOwnerKitHtml({ vaultKey, vaultId, ...(ownerName ? { ownerName } : {}) }),
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
