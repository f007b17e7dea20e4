// safeStorage's basic_text backend (Linux without a keyring) encrypts with a fixed password: such a
// SecretBox is not used, keys stay in memory, and the reason is given. Each store says whether it
// keeps keys across restarts.
import { readdir } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import {
  describeSecretStore,
  openSecretStore,
  type SecretBox,
} from '../../src/main/core/storage/secret-store'
import { testSecretBox } from './secret-box-fixture'
import { tempDir } from './service-fixture'

const withBackend = (backend: string, available = true): SecretBox => ({
  ...testSecretBox(available),
  backend: () => backend,
})

describe('openSecretStore and the safeStorage backend', () => {
  it('refuses a box on basic_text and falls back to memory, saying why', async () => {
    const dir = await tempDir('vault-basic-text-')
    try {
      const opened = await openSecretStore({
        userDataDir: dir.path,
        secretBox: withBackend('basic_text'),
        loadKeytar: null,
      })
      expect(opened.store.kind).toBe('memory')
      expect(opened.fallbackReasons).toEqual([
        'OS keychain disabled',
        expect.stringMatching(/basic_text backend, a fixed password that protects nothing/),
      ])
      // Not "not available": the box claimed to be available and was refused for its backend.
      expect(opened.fallbackReasons.join(' ')).not.toMatch(/is not available/)
      await opened.store.set('api-key:1', 'sk_human_x')
      expect(await readdir(dir.path)).not.toContain('secrets.enc.json')
    } finally {
      await dir.remove()
    }
  })

  it('uses the encrypted file with a real backend (gnome_libsecret) or none reported', async () => {
    for (const box of [withBackend('gnome_libsecret'), testSecretBox()]) {
      const dir = await tempDir('vault-real-backend-')
      try {
        const opened = await openSecretStore({ userDataDir: dir.path, secretBox: box, loadKeytar: null })
        expect(opened.store.kind).toBe('encrypted-file')
        expect(opened.fallbackReasons).toEqual(['OS keychain disabled'])
      } finally {
        await dir.remove()
      }
    }
  })

  it('a real backend that is unavailable still falls back with the usual reason', async () => {
    const dir = await tempDir('vault-unavailable-')
    try {
      const opened = await openSecretStore({
        userDataDir: dir.path,
        secretBox: withBackend('kwallet5', false),
        loadKeytar: null,
      })
      expect(opened.store.kind).toBe('memory')
      expect(opened.fallbackReasons).toEqual([
        'OS keychain disabled',
        'OS encryption (safeStorage) is not available',
      ])
    } finally {
      await dir.remove()
    }
  })
})

describe('describeSecretStore', () => {
  it('keychain and encrypted file are durable; memory is not and says how keys come back', () => {
    expect(describeSecretStore('keychain')).toMatchObject({ durable: true })
    expect(describeSecretStore('encrypted-file')).toMatchObject({ durable: true })
    const memory = describeSecretStore('memory')
    expect(memory.durable).toBe(false)
    expect(memory.description).toMatch(/only while the app runs/)
    expect(memory.description).toMatch(/owner kits/)
    for (const kind of ['keychain', 'encrypted-file', 'memory'] as const) {
      expect(describeSecretStore(kind).description.length).toBeGreaterThan(20)
    }
  })
})
