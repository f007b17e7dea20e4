// The guardian kit store's sealing (src/vault-format/kit-seal.ts) is byte-compatible with what the app
// wrote with node:crypto before: support/guardian-kit-store-v1.json is a split file written by that
// code (GuardianKits.regenerate, vault key below, two guardians of the standard preset).
import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { GuardianKits } from '../../src/main/core/vaults/guardian-kits'
import {
  combineShareWords,
  decodeShareWords,
  FileCipherError,
  generateVaultKey,
  openKitWords,
  sealKitWords,
} from '../../src/vault-format/index'

const fixture = JSON.parse(
  readFileSync(join(import.meta.dirname, 'support/guardian-kit-store-v1.json'), 'utf8'),
) as { vaultId: string; splitId: string; sealedShares: string; assignments: { guardianId: string }[] }
const vaultKey = Uint8Array.from(
  Buffer.from('8f3a0c5e1b7d9246a0e4c8b2f6d1a3957c0e2b4d6f8a1c3e5b7d9f0a2c4e6b8d', 'hex'),
)

/** The old code's sealing key and opening, with node:crypto, as an independent reference. */
const oldKey = (key: Uint8Array) =>
  Buffer.from(hkdfSync('sha256', key, 'vault-desktop', 'guardian kit store v1', 32))
function oldOpen(key: Uint8Array, aad: string, sealed: string): string {
  const bytes = Buffer.from(sealed, 'base64')
  const decipher = createDecipheriv('aes-256-gcm', oldKey(key), bytes.subarray(0, 12))
  decipher.setAAD(Buffer.from(aad))
  decipher.setAuthTag(bytes.subarray(bytes.length - 16))
  return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString()
}

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('kit sealing', () => {
  it('opens words sealed by the old node:crypto code, and they put the vault key back together', async () => {
    const words = openKitWords(vaultKey, fixture.vaultId, fixture.splitId, fixture.sealedShares)
    expect(words).toEqual(
      JSON.parse(oldOpen(vaultKey, `${fixture.vaultId}:${fixture.splitId}`, fixture.sealedShares)),
    )
    expect(words.map((w) => decodeShareWords(w).shareIndex)).toEqual([1, 2])
    const combined = await combineShareWords(words)
    expect(Buffer.from(combined.vaultKey).equals(Buffer.from(vaultKey))).toBe(true)
    expect(combined.vaultId).toBe(fixture.vaultId)
  })

  it('seals what the old code opens, with the same layout (iv, ciphertext, tag)', () => {
    const words = ['first kit words', 'second kit words']
    const sealed = sealKitWords(vaultKey, 'vault-1', 'split-1', words)
    expect(JSON.parse(oldOpen(vaultKey, 'vault-1:split-1', sealed))).toEqual(words)
    // And an old-style seal with a chosen IV is byte for byte what the format computes.
    const iv = Buffer.alloc(12, 7)
    const cipher = createCipheriv('aes-256-gcm', oldKey(vaultKey), iv)
    cipher.setAAD(Buffer.from('vault-1:split-1'))
    const body = Buffer.concat([cipher.update(JSON.stringify(words), 'utf8'), cipher.final()])
    const old = Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64')
    expect(openKitWords(vaultKey, 'vault-1', 'split-1', old)).toEqual(words)
    expect(Buffer.from(sealed, 'base64').length).toBe(Buffer.from(old, 'base64').length)
  })

  it('refuses another key, another split, or a changed byte, with a message that says what to do', () => {
    const sealed = sealKitWords(vaultKey, 'vault-1', 'split-1', ['words'])
    const flipped = Buffer.from(sealed, 'base64')
    flipped[20]! ^= 1
    for (const attempt of [
      () => openKitWords(generateVaultKey(), 'vault-1', 'split-1', sealed),
      () => openKitWords(vaultKey, 'vault-1', 'split-2', sealed),
      () => openKitWords(vaultKey, 'vault-1', 'split-1', flipped.toString('base64')),
      () => openKitWords(vaultKey, 'vault-1', 'split-1', 'not base64!'),
    ]) {
      expect(attempt).toThrow(FileCipherError)
      expect(attempt).toThrow(/make a new split/)
    }
  })

  it('GuardianKits renders a kit from a split file the old code wrote', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kit-store-'))
    dirs.push(dir)
    writeFileSync(
      join(dir, `${encodeURIComponent(fixture.vaultId)}.json`),
      readFileSync(join(import.meta.dirname, 'support/guardian-kit-store-v1.json')),
    )
    const kits = new GuardianKits(dir)
    const rendered = await kits.render(fixture.vaultId, fixture.assignments[1]!.guardianId, vaultKey)
    expect(rendered?.info.shareIndex).toBe(2)
    const words = openKitWords(vaultKey, fixture.vaultId, fixture.splitId, fixture.sealedShares)
    for (const word of words[1]!.split(/\s+/).slice(0, 5)) expect(rendered?.html).toContain(word)
  })
})
