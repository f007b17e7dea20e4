// Where secrets (API keys, vault keys) live: the OS keychain through keytar first, a file encrypted
// by the shell's SecretBox (Electron safeStorage) second, process memory last. One interface; the
// chosen store's kind is reported so the UI can say where the key is kept.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { AppError } from '../../../shared/app-error'
import type { SecretStoreKind } from '../../../shared/ipc/vault-types'
import { writeFileAtomic } from './json-file'

export type { SecretStoreKind }

export interface SecretStore {
  readonly kind: SecretStoreKind
  get(account: string): Promise<string | null>
  set(account: string, secret: string): Promise<void>
  /** True when something was removed. */
  delete(account: string): Promise<boolean>
}

/** Injected by the Electron shell, backed by safeStorage's async API. Plain Node code never sees the OS key. */
export interface SecretBox {
  isAvailable(): Promise<boolean>
  encrypt(plain: string): Promise<Buffer>
  /** `shouldReEncrypt`: the OS key was rotated or improved; store the secret again. */
  decrypt(encrypted: Buffer): Promise<{ text: string; shouldReEncrypt: boolean }>
  /**
   * safeStorage's backend on Linux (getSelectedStorageBackend): 'basic_text' encrypts with a fixed
   * password, which protects nothing, so such a box is not used. Undefined elsewhere.
   */
  backend?(): string
}

/** Whether a store keeps secrets across restarts with real protection, in words for Settings. */
export function describeSecretStore(kind: SecretStoreKind): { durable: boolean; description: string } {
  switch (kind) {
    case 'keychain':
      return {
        durable: true,
        description: "Keys are kept in this computer's keychain, protected by your login.",
      }
    case 'encrypted-file':
      return {
        durable: true,
        description: "Keys are kept in a file encrypted with this computer's protected storage.",
      }
    case 'memory':
      return {
        durable: false,
        description:
          'This computer offers no keychain to this app, so keys are kept only while the app runs. Vault keys survive a restart only through their saved owner kits; the key of the local service is issued again by the app.',
      }
  }
}

/** The subset of keytar used here. */
export interface KeytarModule {
  getPassword(service: string, account: string): Promise<string | null>
  setPassword(service: string, account: string, password: string): Promise<void>
  deletePassword(service: string, account: string): Promise<boolean>
}

export type KeytarLoader = () => Promise<KeytarModule>

export const KEYCHAIN_SERVICE = 'Vault Desktop'

/** keytar is a native module: load it only when needed, and survive its absence. */
export const loadKeytar: KeytarLoader = async () => {
  const require = createRequire(import.meta.url)
  const loaded = require('keytar') as KeytarModule & { default?: KeytarModule }
  return loaded.default ?? loaded
}

export class KeytarSecretStore implements SecretStore {
  readonly kind = 'keychain' as const
  constructor(
    private readonly keytar: KeytarModule,
    private readonly service = KEYCHAIN_SERVICE,
  ) {}
  get(account: string): Promise<string | null> {
    return this.keytar.getPassword(this.service, account)
  }
  set(account: string, secret: string): Promise<void> {
    return this.keytar.setPassword(this.service, account, secret)
  }
  delete(account: string): Promise<boolean> {
    return this.keytar.deletePassword(this.service, account)
  }
}

/** secrets.enc.json: account -> base64 of SecretBox-encrypted secret. */
export class EncryptedFileSecretStore implements SecretStore {
  readonly kind = 'encrypted-file' as const
  #cache: Record<string, string> | undefined
  #writing: Promise<void> = Promise.resolve()

  constructor(
    private readonly file: string,
    private readonly box: SecretBox,
  ) {}

  async get(account: string): Promise<string | null> {
    const entries = await this.#load()
    const value = entries[account]
    if (value === undefined) return null
    let opened: { text: string; shouldReEncrypt: boolean }
    try {
      opened = await this.box.decrypt(Buffer.from(value, 'base64'))
    } catch (error) {
      throw new AppError({
        code: 'SECRET_UNREADABLE',
        userMessage: `The stored secret "${account}" cannot be decrypted on this device (the OS encryption key changed). Remove the connection and add it again.`,
        cause: error,
      })
    }
    if (opened.shouldReEncrypt) await this.set(account, opened.text)
    return opened.text
  }

  async set(account: string, secret: string): Promise<void> {
    const entries = await this.#load()
    entries[account] = (await this.box.encrypt(secret)).toString('base64')
    await this.#save(entries)
  }

  async delete(account: string): Promise<boolean> {
    const entries = await this.#load()
    if (!(account in entries)) return false
    delete entries[account]
    await this.#save(entries)
    return true
  }

  async #load(): Promise<Record<string, string>> {
    if (this.#cache) return this.#cache
    try {
      this.#cache = JSON.parse(await readFile(this.file, 'utf8')) as Record<string, string>
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      this.#cache = {}
    }
    return this.#cache
  }

  #save(entries: Record<string, string>): Promise<void> {
    this.#writing = this.#writing.then(() =>
      writeFileAtomic(this.file, JSON.stringify(entries, null, 2), 0o600),
    )
    return this.#writing
  }
}

export class MemorySecretStore implements SecretStore {
  readonly kind = 'memory' as const
  readonly #secrets = new Map<string, string>()
  async get(account: string): Promise<string | null> {
    return this.#secrets.get(account) ?? null
  }
  async set(account: string, secret: string): Promise<void> {
    this.#secrets.set(account, secret)
  }
  async delete(account: string): Promise<boolean> {
    return this.#secrets.delete(account)
  }
}

export interface OpenSecretStoreOptions {
  userDataDir: string
  secretBox?: SecretBox
  /** Replaceable for tests; defaults to requiring the keytar native module. */
  loadKeytar?: KeytarLoader | null
  /** Keychain service name (tests use their own). */
  keychainService?: string
  /** The encrypted file's name in the user-data folder (default secrets.enc.json). */
  fileName?: string
}

export interface OpenedSecretStore {
  store: SecretStore
  /** Why better stores were passed over, in order (for logs and the settings page). */
  fallbackReasons: string[]
}

/** Picks the best store that works right now: keychain, then encrypted file, then memory. */
export async function openSecretStore(options: OpenSecretStoreOptions): Promise<OpenedSecretStore> {
  const fallbackReasons: string[] = []
  const loader = options.loadKeytar === undefined ? loadKeytar : options.loadKeytar
  if (loader) {
    try {
      const keytar = await loader()
      const store = new KeytarSecretStore(keytar, options.keychainService)
      // A loaded module is not enough: the Secret Service (D-Bus) may be missing or locked.
      await withTimeout(store.get('__probe__'), 5000, 'the keychain did not answer within 5 s')
      return { store, fallbackReasons }
    } catch (error) {
      fallbackReasons.push(
        `OS keychain unavailable: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
  } else {
    fallbackReasons.push('OS keychain disabled')
  }
  // Asked first: the async encryptor picks its backend while it initialises.
  const available = (await options.secretBox?.isAvailable().catch(() => false)) ?? false
  const backend = options.secretBox?.backend?.()
  if (backend === 'basic_text') {
    fallbackReasons.push(
      'OS encryption (safeStorage) uses its basic_text backend, a fixed password that protects nothing',
    )
  } else if (available && options.secretBox) {
    return {
      store: new EncryptedFileSecretStore(
        join(options.userDataDir, options.fileName ?? 'secrets.enc.json'),
        options.secretBox,
      ),
      fallbackReasons,
    }
  }
  if (backend !== 'basic_text') {
    fallbackReasons.push(
      options.secretBox
        ? 'OS encryption (safeStorage) is not available'
        : 'no OS encryption provided (not running in Electron)',
    )
  }
  return { store: new MemorySecretStore(), fallbackReasons }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms)
    promise.then(
      (v) => {
        clearTimeout(timer)
        resolve(v)
      },
      (e) => {
        clearTimeout(timer)
        reject(e)
      },
    )
  })
}
