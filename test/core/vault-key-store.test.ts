import { describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src/main/core/storage/secret-store'
import { VaultKeyError, VaultKeyStore } from '../../src/main/core/storage/vault-key-store'

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
    const kit = await laptop.exportOwnerKit('vlt_family', 'Ada')
    expect(kit.words.split(' ').length).toBeGreaterThan(24)
    expect(kit.html).toContain(kit.fingerprint)

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
