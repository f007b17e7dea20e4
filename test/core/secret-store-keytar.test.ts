// Real OS keychain through keytar. On Linux run it inside scripts/with-keyring.sh (a private D-Bus
// session with an unlocked gnome-keyring); it skips, saying why, only when no Secret Service answers.
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { KeytarSecretStore, loadKeytar, openSecretStore } from '../../src/main/core/storage/secret-store'
import { tempDir } from './service-fixture'

const SERVICE = `Vault Desktop test ${randomUUID()}`

async function secretServiceProblem(): Promise<string | null> {
  try {
    const keytar = await loadKeytar()
    await keytar.getPassword(SERVICE, 'probe')
    return null
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

const problem = await secretServiceProblem()
if (problem) {
  console.warn(
    `SKIPPED keytar tests: no Secret Service reachable (${problem}). Run them with: scripts/with-keyring.sh npx vitest run test/core/secret-store-keytar.test.ts`,
  )
}

describe.skipIf(problem !== null)('keytar secret store (real Secret Service)', () => {
  it('is chosen first and stores, reads and deletes secrets', async () => {
    const dir = await tempDir('vault-keytar-')
    try {
      const opened = await openSecretStore({ userDataDir: dir.path, keychainService: SERVICE })
      expect(opened.store.kind).toBe('keychain')
      expect(opened.fallbackReasons).toEqual([])
      const store = opened.store
      await store.set('api-key:test', 'sk_human_from-the-keychain-0001')
      expect(await store.get('api-key:test')).toBe('sk_human_from-the-keychain-0001')
      // Another store instance (a restarted app) sees it.
      const again = new KeytarSecretStore(await loadKeytar(), SERVICE)
      expect(await again.get('api-key:test')).toBe('sk_human_from-the-keychain-0001')
      await store.set('api-key:test', 'sk_human_replaced-key-0002')
      expect(await again.get('api-key:test')).toBe('sk_human_replaced-key-0002')
      expect(await store.delete('api-key:test')).toBe(true)
      expect(await store.get('api-key:test')).toBeNull()
      expect(await store.delete('api-key:test')).toBe(false)
    } finally {
      await dir.remove()
    }
  })
})
