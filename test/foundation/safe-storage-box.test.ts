// The shell's SecretBox over safeStorage: async calls only (the sync ones are deprecated in Electron
// 45), basic_text on Linux refused as no protection, and a rotated OS key leads to re-encryption.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { openSecretStore } from '../../src/main/core/storage/secret-store'
import { type AsyncSafeStorage, safeStorageSecretBox } from '../../src/main/electron/safe-storage-box'
import { tempDir } from '../core/service-fixture'

type Backend = ReturnType<AsyncSafeStorage['getSelectedStorageBackend']>

/** A safeStorage whose deprecated sync calls throw, as they will once removed. */
function fakeSafeStorage(backend: Backend, available = true) {
  const key = randomBytes(32)
  let initialised = false
  const deprecated = () => {
    throw new Error('the synchronous safeStorage API was called')
  }
  return {
    isEncryptionAvailable: deprecated,
    encryptString: deprecated,
    decryptString: deprecated,
    // Like Electron: the async encryptor chooses its backend when it first initialises.
    getSelectedStorageBackend: (): Backend => (initialised ? backend : 'unknown'),
    async isAsyncEncryptionAvailable() {
      initialised = true
      return available
    },
    async encryptStringAsync(plain: string) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return Buffer.concat([iv, cipher.getAuthTag(), body])
    },
    async decryptStringAsync(data: Buffer) {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, 12))
      decipher.setAuthTag(data.subarray(12, 28))
      const result = Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]).toString('utf8')
      return { result, shouldReEncrypt: false }
    },
  }
}

async function open(safeStorage: AsyncSafeStorage, platform: NodeJS.Platform = 'linux') {
  const dir = await tempDir('vault-safe-storage-')
  const opened = await openSecretStore({
    userDataDir: dir.path,
    loadKeytar: null,
    secretBox: safeStorageSecretBox(safeStorage, platform),
  })
  return { dir, ...opened }
}

describe('safeStorage secret box', () => {
  it('keeps secrets in the encrypted file with the async API only', async () => {
    const { dir, store } = await open(fakeSafeStorage('gnome_libsecret'))
    try {
      expect(store.kind).toBe('encrypted-file')
      await store.set('api-key', 'sk_human_secret')
      expect(await store.get('api-key')).toBe('sk_human_secret')
    } finally {
      await dir.remove()
    }
  })

  it('refuses basic_text on Linux, even though encryption reports available', async () => {
    const { dir, store, fallbackReasons } = await open(fakeSafeStorage('basic_text'))
    try {
      expect(store.kind).toBe('memory')
      expect(fallbackReasons.join(' ')).toMatch(/basic_text/)
    } finally {
      await dir.remove()
    }
  })

  it('asks no Linux backend elsewhere, and uses memory when encryption is unavailable', async () => {
    const mac = await open(fakeSafeStorage('unknown'), 'darwin')
    const none = await open(fakeSafeStorage('gnome_libsecret', false))
    try {
      expect(mac.store.kind).toBe('encrypted-file')
      expect(none.store.kind).toBe('memory')
    } finally {
      await mac.dir.remove()
      await none.dir.remove()
    }
  })
})
