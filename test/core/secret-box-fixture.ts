// A SecretBox like the one the Electron shell builds on safeStorage, with a fixed test key.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { SecretBox } from '../../src/main/core/storage/secret-store'

export function testSecretBox(available = true): SecretBox {
  const key = Buffer.alloc(32, 7)
  return {
    isAvailable: async () => available,
    async encrypt(plain) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return Buffer.concat([iv, cipher.getAuthTag(), body])
    },
    async decrypt(data) {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, 12))
      decipher.setAuthTag(data.subarray(12, 28))
      const text = Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]).toString('utf8')
      return { text, shouldReEncrypt: false }
    },
  }
}
