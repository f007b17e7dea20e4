import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src/main/core/storage/secret-store'
import {
  VaultKeyError,
  VaultKeyRecords,
  VaultKeyStore,
  vaultKeyAccount,
} from '../../src/main/core/storage/vault-key-store'
import { AppError } from '../../src/shared/app-error'
import { generateVaultKey, vaultFingerprint } from '../../src/vault-format'

describe('vault key store', () => {
  it('creates one key per vault and never overwrites it silently', async () => {
    const keys = new VaultKeyStore(new MemorySecretStore())
    expect(await keys.get('vlt_a')).toBeNull()
    const info = await keys.create('vlt_a')
    expect(info).toMatchObject({ vaultId: 'vlt_a', present: true, store: 'memory' })
    expect(info.fingerprint).toBeTruthy()
    expect((await keys.get('vlt_a'))!.length).toBe(32)
    await expect(keys.create('vlt_a')).rejects.toBeInstanceOf(VaultKeyError)
    await keys.create('vlt_b')
    expect(Buffer.from((await keys.get('vlt_a'))!).equals(Buffer.from((await keys.get('vlt_b'))!))).toBe(
      false,
    )
  })

  it('exports the owner kit and imports it on another device', async () => {
    const laptop = new VaultKeyStore(new MemorySecretStore())
    await laptop.create('vlt_family')
    const kit = await laptop.exportOwnerKit('vlt_family', { ownerName: 'Ada', vaultName: 'Family papers' })
    expect(kit.words.split(' ').length).toBeGreaterThan(24)
    expect(kit.html).toContain(kit.fingerprint)
    // The kit names the vault as its owner knows it (issue 30, point 10).
    expect(kit.html).toContain('<span class="kit-vault-name"><bdi>Family papers</bdi></span>')

    const desktop = new VaultKeyStore(new MemorySecretStore())
    const imported = await desktop.importOwnerKit(kit.words, { expectedVaultId: 'vlt_family' })
    expect(imported).toMatchObject({ vaultId: 'vlt_family', present: true, fingerprint: kit.fingerprint })
    expect(Buffer.from((await desktop.get('vlt_family'))!)).toEqual(
      Buffer.from((await laptop.get('vlt_family'))!),
    )

    const other = await desktop
      .importOwnerKit(kit.words, { expectedVaultId: 'vlt_other' })
      .catch((e: unknown) => e)
    expect((other as VaultKeyError).userMessage).toMatch(/belongs to vault vlt_family/)

    // A different key for the same vault is refused unless replacing is asked for.
    const conflicting = new VaultKeyStore(new MemorySecretStore())
    await conflicting.create('vlt_family')
    await expect(conflicting.importOwnerKit(kit.words)).rejects.toThrow(/different key/)
    await conflicting.importOwnerKit(kit.words, { replace: true })
    expect((await conflicting.info('vlt_family')).fingerprint).toBe(kit.fingerprint)

    const words = kit.words.split(' ')
    words[3] = 'zzzz'
    const typo = await desktop.importOwnerKit(words.join(' ')).catch((e: unknown) => e)
    expect(typo).toBeInstanceOf(VaultKeyError)
    expect((typo as VaultKeyError).userMessage).toMatch(/4/)
  })
})

describe('vault key records (a key is made once)', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vault-key-records-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })
  const file = () => join(dir, 'vault-keys.json')

  it('remembers the store and fingerprint, and a key gone after a restart reads as lost, never as new', async () => {
    const before = new VaultKeyStore(new MemorySecretStore(), await VaultKeyRecords.open(file()))
    const made = await before.create('vlt_a')
    await before.records.flush()
    expect(JSON.parse(await readFile(file(), 'utf8')).vaults.vlt_a).toMatchObject({
      store: 'memory',
      fingerprint: made.fingerprint,
      origin: 'made',
    })
    expect((await stat(file())).mode & 0o777).toBe(0o600)
    const kit = await before.exportOwnerKit('vlt_a')

    // The next run: a fresh memory store holds nothing.
    const after = new VaultKeyStore(new MemorySecretStore(), await VaultKeyRecords.open(file()))
    expect(await after.info('vlt_a')).toMatchObject({
      present: false,
      lost: { keptIn: 'memory', fingerprint: made.fingerprint },
    })
    expect(await after.get('vlt_a')).toBeNull()
    const refused = await after.create('vlt_a').catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(VaultKeyError)
    expect((refused as VaultKeyError).userMessage).toMatch(
      /not on this computer any more: import the owner kit/,
    )
    expect(await after.get('vlt_a')).toBeNull()

    await after.importOwnerKit(kit.words, { expectedVaultId: 'vlt_a' })
    expect(await after.info('vlt_a')).toMatchObject({ present: true, fingerprint: made.fingerprint })
    expect((await after.info('vlt_a')).lost).toBeUndefined()
  })

  it('a key kept in the keychain and out of reach now is lost from the keychain', async () => {
    const keychain = new MemorySecretStore()
    Object.defineProperty(keychain, 'kind', { value: 'keychain' })
    const records = await VaultKeyRecords.open(file())
    const made = await new VaultKeyStore(keychain, records).create('vlt_k')
    const fallback = new VaultKeyStore(new MemorySecretStore(), records)
    expect((await fallback.info('vlt_k')).lost).toEqual({ keptIn: 'keychain', fingerprint: made.fingerprint })
    await expect(fallback.create('vlt_k')).rejects.toThrow(VaultKeyError)
  })

  it('refuses a stored key that is not the one recorded, for uploads and for the kit, until the right kit is imported', async () => {
    const secrets = new MemorySecretStore()
    const keys = new VaultKeyStore(secrets, await VaultKeyRecords.open(file()))
    const made = await keys.create('vlt_m')
    const kit = await keys.exportOwnerKit('vlt_m')
    // Something outside this class replaced the entry (another profile sharing the keychain).
    await secrets.set(vaultKeyAccount('vlt_m'), Buffer.from(generateVaultKey()).toString('base64'))
    expect(await keys.info('vlt_m')).toMatchObject({
      present: false,
      lost: { fingerprint: made.fingerprint },
    })
    await expect(keys.get('vlt_m')).rejects.toMatchObject({
      userMessage: expect.stringMatching(/not the one it was made with/),
    })
    await expect(keys.exportOwnerKit('vlt_m')).rejects.toThrow(VaultKeyError)
    // The vault's own kit replaces the stray key without being asked to.
    await keys.importOwnerKit(kit.words, { expectedVaultId: 'vlt_m' })
    expect(await keys.info('vlt_m')).toMatchObject({ present: true, fingerprint: made.fingerprint })
  })

  it('a secret the store cannot decrypt any more reads as lost', async () => {
    const secrets = new MemorySecretStore()
    const keys = new VaultKeyStore(secrets, await VaultKeyRecords.open(file()))
    const made = await keys.create('vlt_u')
    secrets.get = async () => {
      throw new AppError({ code: 'SECRET_UNREADABLE', userMessage: 'the OS encryption key changed' })
    }
    expect((await keys.info('vlt_u')).lost?.fingerprint).toBe(made.fingerprint)
  })

  it('records a key an earlier version stored without a record, and replaces a lost key only when asked', async () => {
    const secrets = new MemorySecretStore()
    const key = generateVaultKey()
    await secrets.set(vaultKeyAccount('vlt_old'), Buffer.from(key).toString('base64'))
    const keys = new VaultKeyStore(secrets, await VaultKeyRecords.open(file()))
    expect(await keys.info('vlt_old')).toMatchObject({ present: true, fingerprint: vaultFingerprint(key) })
    expect(keys.records.get('vlt_old')).toMatchObject({ origin: 'found', fingerprint: vaultFingerprint(key) })

    await expect(keys.replaceLost('vlt_old')).rejects.toMatchObject({
      userMessage: expect.stringMatching(/not lost/),
    })
    await secrets.delete(vaultKeyAccount('vlt_old'))
    const replaced = await keys.replaceLost('vlt_old')
    expect(replaced.present).toBe(true)
    expect(replaced.fingerprint).not.toBe(vaultFingerprint(key))
    expect(keys.records.get('vlt_old')?.fingerprint).toBe(replaced.fingerprint)

    await keys.delete('vlt_old')
    expect(keys.records.get('vlt_old')).toBeUndefined()
  })
})
