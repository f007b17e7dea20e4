// The SecretBox the shell hands to core: Electron's safeStorage through its async API only (the sync
// calls are deprecated in Electron 45 and block on the keychain). Takes safeStorage as a parameter so
// the choice of calls is unit tested without Electron.
import type { SafeStorage } from 'electron'
import type { SecretBox } from '../core/storage/secret-store'

export type AsyncSafeStorage = Pick<
  SafeStorage,
  'isAsyncEncryptionAvailable' | 'encryptStringAsync' | 'decryptStringAsync' | 'getSelectedStorageBackend'
>

export function safeStorageSecretBox(safeStorage: AsyncSafeStorage, platform: NodeJS.Platform): SecretBox {
  return {
    isAvailable: () => safeStorage.isAsyncEncryptionAvailable(),
    encrypt: (plain) => safeStorage.encryptStringAsync(plain),
    decrypt: async (encrypted) => {
      const { result, shouldReEncrypt } = await safeStorage.decryptStringAsync(encrypted)
      return { text: result, shouldReEncrypt }
    },
    // Only Linux can fall back to basic_text (a fixed password); openSecretStore refuses it.
    ...(platform === 'linux' ? { backend: () => safeStorage.getSelectedStorageBackend() } : {}),
  }
}
