import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConnectionError, ConnectionRegistry } from '../../src/main/core/connections'
import {
  EncryptedFileSecretStore,
  type KeytarModule,
  MemorySecretStore,
  openSecretStore,
} from '../../src/main/core/storage/secret-store'
import { VaultApiError } from '../../src/service-client'
import { testSecretBox } from './secret-box-fixture'
import { type ServiceFixture, startServiceFixture, tempDir } from './service-fixture'

const failingLoader = async (): Promise<KeytarModule> => {
  throw new Error("Cannot find module 'keytar'")
}
// keytar loads but the Secret Service is missing (a headless Linux session).
const noSecretServiceLoader = async (): Promise<KeytarModule> => ({
  getPassword: async () => {
    throw new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')
  },
  setPassword: async () => undefined,
  deletePassword: async () => false,
})

describe('secret store fallback', () => {
  it('uses the encrypted file when keytar cannot load', async () => {
    const dir = await tempDir('vault-secrets-')
    try {
      const opened = await openSecretStore({
        userDataDir: dir.path,
        secretBox: testSecretBox(),
        loadKeytar: failingLoader,
      })
      expect(opened.store.kind).toBe('encrypted-file')
      expect(opened.fallbackReasons[0]).toMatch(/OS keychain unavailable: Cannot find module 'keytar'/)
      await opened.store.set('api-key:1', 'sk_human_secret-value-1234')
      expect(await opened.store.get('api-key:1')).toBe('sk_human_secret-value-1234')
      const onDisk = await readFile(join(dir.path, 'secrets.enc.json'), 'utf8')
      expect(onDisk).not.toContain('secret-value')
      // A new process reads it back.
      const again = new EncryptedFileSecretStore(join(dir.path, 'secrets.enc.json'), testSecretBox())
      expect(await again.get('api-key:1')).toBe('sk_human_secret-value-1234')
      expect(await again.delete('api-key:1')).toBe(true)
      expect(await again.get('api-key:1')).toBeNull()
      expect(await again.delete('api-key:1')).toBe(false)
    } finally {
      await dir.remove()
    }
  })

  it('uses the encrypted file when keytar loads but no Secret Service answers', async () => {
    const dir = await tempDir('vault-secrets-')
    try {
      const opened = await openSecretStore({
        userDataDir: dir.path,
        secretBox: testSecretBox(),
        loadKeytar: noSecretServiceLoader,
      })
      expect(opened.store.kind).toBe('encrypted-file')
      expect(opened.fallbackReasons[0]).toMatch(/D-Bus/)
    } finally {
      await dir.remove()
    }
  })

  it('falls back to memory without OS encryption', async () => {
    const dir = await tempDir('vault-secrets-')
    try {
      const none = await openSecretStore({ userDataDir: dir.path, loadKeytar: failingLoader })
      expect(none.store.kind).toBe('memory')
      expect(none.fallbackReasons).toHaveLength(2)
      const unavailable = await openSecretStore({
        userDataDir: dir.path,
        loadKeytar: null,
        secretBox: testSecretBox(false),
      })
      expect(unavailable.store.kind).toBe('memory')
      expect(unavailable.fallbackReasons.join(' ')).toMatch(/safeStorage/)
    } finally {
      await dir.remove()
    }
  })

  it('reports a file written under another OS key as unreadable with a way out', async () => {
    const dir = await tempDir('vault-secrets-')
    try {
      const file = join(dir.path, 'secrets.enc.json')
      await new EncryptedFileSecretStore(file, testSecretBox()).set('a', 'b')
      const otherBox = {
        ...testSecretBox(),
        decrypt: async () => ({ text: JSON.parse('not json') as string, shouldReEncrypt: false }),
      }
      await expect(new EncryptedFileSecretStore(file, otherBox).get('a')).rejects.toThrow(/add it again/)
    } finally {
      await dir.remove()
    }
  })
})

describe('encrypted file store and key rotation', () => {
  it('stores a secret again when the OS reports its key rotated (shouldReEncrypt)', async () => {
    const dir = await tempDir('vault-secrets-')
    try {
      const file = join(dir.path, 'secrets.enc.json')
      await new EncryptedFileSecretStore(file, testSecretBox()).set('a', 'secret-a')
      const before = await readFile(file, 'utf8')
      const rotating = {
        ...testSecretBox(),
        decrypt: async (data: Buffer) => ({
          text: (await testSecretBox().decrypt(data)).text,
          shouldReEncrypt: true,
        }),
      }
      expect(await new EncryptedFileSecretStore(file, rotating).get('a')).toBe('secret-a')
      const after = await readFile(file, 'utf8')
      expect(after).not.toBe(before)
      expect(await new EncryptedFileSecretStore(file, testSecretBox()).get('a')).toBe('secret-a')
    } finally {
      await dir.remove()
    }
  })
})

describe('connections', () => {
  let svc: ServiceFixture
  beforeAll(async () => {
    svc = await startServiceFixture()
  })
  afterAll(async () => {
    await svc?.close()
  })

  it('adds, switches, replaces and removes connections; the file holds no secret', async () => {
    const dir = await tempDir('vault-conn-')
    try {
      const secrets = new MemorySecretStore()
      const registry = await ConnectionRegistry.open({ userDataDir: dir.path, secrets })
      const human = await registry.add({ serviceUrl: `${svc.url}/`, apiKey: svc.humanKey, label: 'Home' })
      expect(human).toMatchObject({
        serviceUrl: svc.url,
        label: 'Home',
        keyKind: 'human',
        keyLast4: svc.humanKey.slice(-4),
        keyStore: 'memory',
        prefix: '/api',
        active: true,
      })
      const agent = await registry.add({ serviceUrl: svc.url, apiKey: svc.agentKey })
      expect(agent.keyKind).toBe('agent')
      expect(registry.active()?.id).toBe(agent.id)
      await registry.switchTo(human.id)
      expect(registry.active()?.id).toBe(human.id)
      expect((await registry.client()).keyKind).toBe('human')

      const { apiKey: newKey } = await svc.service.admin.createKey({ account: svc.accountId, kind: 'human' })
      const replaced = await registry.replaceKey(human.id, newKey)
      expect(replaced.keyLast4).toBe(newKey.slice(-4))
      expect(await secrets.get(`api-key:${human.id}`)).toBe(newKey)

      await registry.flush()
      const file = await readFile(join(dir.path, 'connections.json'), 'utf8')
      for (const key of [svc.humanKey, svc.agentKey, newKey]) {
        expect(file).not.toContain(key)
        expect(file).not.toContain(key.slice(9, -4))
      }

      await registry.remove(human.id)
      expect(await secrets.get(`api-key:${human.id}`)).toBeNull()
      expect(registry.list().map((c) => c.id)).toEqual([agent.id])
      expect(registry.active()?.id).toBe(agent.id)

      // After a restart with a memory store the key is gone: a clear message, not a crash.
      const restarted = await ConnectionRegistry.open({
        userDataDir: dir.path,
        secrets: new MemorySecretStore(),
      })
      expect(restarted.list().map((c) => c.id)).toEqual([agent.id])
      const error = await restarted.client().catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ConnectionError)
      expect((error as ConnectionError).userMessage).toMatch(/kept in memory only.*Enter the key again/)
    } finally {
      await dir.remove()
    }
  })

  it('refuses a wrong key or address before storing anything', async () => {
    const dir = await tempDir('vault-conn-')
    try {
      const secrets = new MemorySecretStore()
      const registry = await ConnectionRegistry.open({ userDataDir: dir.path, secrets })
      const wrong = await registry
        .add({ serviceUrl: svc.url, apiKey: 'sk_human_wrong-wrong-wrong-1234' })
        .catch((e: unknown) => e)
      expect(wrong).toBeInstanceOf(VaultApiError)
      expect((wrong as VaultApiError).status).toBe(401)
      expect(registry.list()).toEqual([])
      const malformed = await registry
        .add({ serviceUrl: svc.url, apiKey: 'hunter2' })
        .catch((e: unknown) => e)
      expect((malformed as ConnectionError).userMessage).toMatch(/sk_human_/)
      // The right start but too short: said as such, not "keys start with sk_human_" (issue 30, point 16).
      const short = await registry
        .add({ serviceUrl: svc.url, apiKey: 'sk_human_wrong' })
        .catch((e: unknown) => e)
      expect((short as ConnectionError).userMessage).toMatch(
        /^This key is too short .*only its start was copied/,
      )
      const spaced = await registry
        .add({ serviceUrl: svc.url, apiKey: 'sk_human_abcdefghij klmnopqrstu' })
        .catch((e: unknown) => e)
      expect((spaced as ConnectionError).userMessage).toMatch(/a space or a line break inside it/)
      const remoteHttp = await registry
        .add({ serviceUrl: 'http://vault.example.com', apiKey: svc.humanKey })
        .catch((e: unknown) => e)
      expect((remoteHttp as ConnectionError).userMessage).toMatch(/https/)
      expect(registry.list()).toEqual([])
    } finally {
      await dir.remove()
    }
  })
})
