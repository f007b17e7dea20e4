// The key store's part of a rotation: the next key is made once and kept, the switch moves it into
// place with its record and keeps the old key as retired, and a switch cut short at any step (the
// app gone between two writes to the key store) ends in the same place when run again.
import { describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src/main/core/storage/secret-store'
import {
  nextVaultKeyAccount,
  retiredVaultKeyAccount,
  VaultKeyStore,
  vaultKeyAccount,
} from '../../src/main/core/storage/vault-key-store'
import { vaultFingerprint } from '../../src/vault-format'

const VAULT = 'vlt_rotation-keys'
const b64 = (key: Uint8Array) => Buffer.from(key).toString('base64')

async function storeWithKey() {
  const secrets = new MemorySecretStore()
  const keys = new VaultKeyStore(secrets)
  await keys.create(VAULT)
  return { secrets, keys, old: (await keys.get(VAULT))! }
}

describe('the vault key store during a rotation', () => {
  it('makes the next key once, switches to it with its record, and keeps the old one as retired', async () => {
    const { keys, old } = await storeWithKey()
    const next = await keys.makeNextKey(VAULT)
    expect(await keys.makeNextKey(VAULT)).toEqual(next)
    expect(await keys.get(VAULT)).toEqual(old) // nothing changes for the vault before the switch
    await keys.switchToNextKey(VAULT)
    expect(await keys.get(VAULT)).toEqual(next)
    expect(keys.records.get(VAULT)).toMatchObject({ fingerprint: vaultFingerprint(next), origin: 'rotated' })
    expect((await keys.info(VAULT)).present).toBe(true)
    expect(await keys.retiredKey(VAULT)).toEqual(old)
    expect(await keys.nextKey(VAULT)).toBeNull()
    await keys.switchToNextKey(VAULT) // again: nothing left to do
    expect(await keys.get(VAULT)).toEqual(next)
    await keys.forgetRetiredKey(VAULT)
    expect(await keys.retiredKey(VAULT)).toBeNull()
  })

  it('a switch cut short after the key was written, before its record, is finished by running it again', async () => {
    const { secrets, keys, old } = await storeWithKey()
    const next = await keys.makeNextKey(VAULT)
    // The app stopped after writing the retired and the new current key, before recording it.
    await secrets.set(retiredVaultKeyAccount(VAULT), b64(old))
    await secrets.set(vaultKeyAccount(VAULT), b64(next))
    expect(await keys.switchUnfinished(VAULT)).toBe(true)
    await expect(keys.get(VAULT)).rejects.toMatchObject({
      userMessage: expect.stringMatching(/not the one it was made with/),
    })
    await keys.switchToNextKey(VAULT)
    expect(await keys.get(VAULT)).toEqual(next)
    expect(await keys.retiredKey(VAULT)).toEqual(old) // not overwritten with the new key
    expect(await keys.switchUnfinished(VAULT)).toBe(false)
  })

  it('abandoning drops the next key and leaves the vault key as it was; deleting the vault drops all three', async () => {
    const { secrets, keys, old } = await storeWithKey()
    await keys.makeNextKey(VAULT)
    await keys.dropNextKey(VAULT)
    expect(await keys.nextKey(VAULT)).toBeNull()
    expect(await keys.get(VAULT)).toEqual(old)
    await keys.makeNextKey(VAULT)
    await secrets.set(retiredVaultKeyAccount(VAULT), b64(old))
    await keys.delete(VAULT)
    for (const account of [vaultKeyAccount, nextVaultKeyAccount, retiredVaultKeyAccount]) {
      expect(await secrets.get(account(VAULT))).toBeNull()
    }
  })

  it('refuses to make a next key for a vault whose key is not here', async () => {
    const keys = new VaultKeyStore(new MemorySecretStore())
    await expect(keys.makeNextKey(VAULT)).rejects.toMatchObject({
      userMessage: expect.stringMatching(/does not hold the vault key/),
    })
  })
})
