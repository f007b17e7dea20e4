// docs/FORMAT.md's worked example, parsed from the page itself and recomputed with the code: if the
// document and the implementation ever disagree, this fails.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fromHex, toHex } from '../../src/main/core/crypto/bytes'
import { chunkNonce, deriveMessageKeys } from '../../src/main/core/crypto/chunked-format'
import { fileSalt } from '../../src/main/core/crypto/file-cipher'
import {
  collectBytes,
  combineShares,
  decodeOwnerKitWords,
  decodeShareWords,
  decryptStream,
  deriveFilesKey,
  encodeOwnerKitWords,
  encryptedLength,
  encryptStream,
  fileContext,
  keyCheckValue,
  plaintextLength,
  vaultFingerprint,
} from '../../src/main/core/crypto/index'
import { encodeEnvelope } from '../../src/main/core/crypto/share-envelope'
import { saltCheck } from '../../src/main/core/crypto/vault-key'

const page = readFileSync(new URL('../../docs/FORMAT.md', import.meta.url), 'utf8')
const doc = page.slice(page.indexOf('## 6. Worked example'))

function value(label: string): string {
  const escaped = label.replace(/[()]/g, '\\$&')
  const match = doc.match(new RegExp(`^${escaped} {2,}(.+)$`, 'm'))
  if (!match) throw new Error(`FORMAT.md has no line '${label}'`)
  return match[1]!.trim()
}
const hex = (label: string) => fromHex(value(label))

describe('FORMAT.md worked example', () => {
  it('is on the page', () => {
    expect(page.indexOf('## 6. Worked example')).toBeGreaterThan(0)
  })

  const vaultKey = hex('vault key')
  const vaultId = value('vault id')
  const plaintext = hex('plaintext (hex)')
  const saltPrefix = hex('salt random part')

  it('key derivations', () => {
    expect(plaintext.length).toBe(40)
    const filesKey = deriveFilesKey(vaultKey)
    expect(toHex(filesKey)).toBe(value('files key'))
    expect(toHex(keyCheckValue(vaultKey))).toBe(value('key-check value'))
    expect(vaultFingerprint(vaultKey)).toBe(value('fingerprint'))
    expect(toHex(saltCheck(filesKey, saltPrefix))).toBe(value('salt check'))
    expect(toHex(fileSalt(filesKey, saltPrefix))).toBe(value('salt'))
    expect(toHex(fileContext(vaultId))).toBe(value('context'))
    const keys = deriveMessageKeys(filesKey, hex('salt'), hex('context'))
    expect(toHex(keys.key)).toBe(value('aead key'))
    expect(toHex(keys.baseNonce)).toBe(value('base nonce'))
    expect(toHex(keys.commitment)).toBe(value('commitment'))
    expect(toHex(chunkNonce(keys.baseNonce, 300))).toBe(value('chunk 300 nonce'))
  })

  it('the blob, both ways', async () => {
    const blob = hex('blob')
    expect(blob.length).toBe(encryptedLength(plaintext.length))
    expect(plaintextLength(blob.length)).toBe(40)
    for (const backend of ['node', 'noble'] as const) {
      const encrypted = await collectBytes(
        encryptStream([plaintext], { vaultKey, vaultId, saltPrefix, backend }),
      )
      expect(toHex(encrypted)).toBe(value('blob'))
      const decrypted = await collectBytes(decryptStream([blob], { vaultKey, vaultId, backend }))
      expect(toHex(decrypted)).toBe(value('plaintext (hex)'))
    }
  })

  it('owner kit envelope and words', () => {
    const envelope = encodeEnvelope({ kind: 'owner-key', version: 1, vaultKey, vaultId })
    expect(toHex(envelope)).toBe(value('owner envelope'))
    expect(encodeOwnerKitWords({ vaultKey, vaultId })).toBe(value('owner words'))
    expect(toHex(decodeOwnerKitWords(value('owner words')).vaultKey)).toBe(value('vault key'))
  })

  it('guardian shares: envelopes, words, and combining them', async () => {
    const one = decodeShareWords(value('share 1 words'))
    const three = decodeShareWords(value('share 3 words'))
    expect(toHex(encodeEnvelope(one))).toBe(value('share 1 envelope'))
    expect(toHex(encodeEnvelope(three))).toBe(value('share 3 envelope'))
    expect([one.splitId, one.threshold, one.shareCount, one.shareIndex, three.shareIndex]).toEqual([
      '4dfbdbd5',
      2,
      3,
      1,
      3,
    ])
    expect(one.fingerprint).toBe(value('fingerprint'))
    const { vaultKey: combined, vaultId: id } = await combineShares([one, three])
    expect(toHex(combined)).toBe(value('vault key'))
    expect(id).toBe(vaultId)
  })
})
