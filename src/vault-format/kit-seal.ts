// The app keeps each vault's current split (who holds which guardian share) on disk, with the shares'
// words sealed: a threshold of them is as good as the vault key. AES-256-GCM under
// HKDF-SHA256(vault key, salt "vault-desktop", info "guardian kit store v1"), the vault id and split
// id as associated data, stored as base64 of iv(12) || ciphertext || tag(16) over the JSON array of
// words. Byte-compatible with what the app wrote with node:crypto before this module existed.
import { gcm } from '@noble/ciphers/aes.js'
import { hkdf } from '@noble/hashes/hkdf.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { concatBytes, fromBase64, randomBytes, toBase64, utf8 } from './bytes'
import { assertKeySize, TAG_SIZE } from './chunked-format'
import { FileCipherError } from './format-errors'

const IV_SIZE = 12

function sealingKey(vaultKey: Uint8Array): Uint8Array {
  assertKeySize(vaultKey, 'vault key')
  return hkdf(sha256, vaultKey, utf8('vault-desktop'), utf8('guardian kit store v1'), 32)
}

const associatedData = (vaultId: string, splitId: string) => utf8(`${vaultId}:${splitId}`)

/** Seals the words of a split's shares (in assignment order) for the vault's kit store. */
export function sealKitWords(
  vaultKey: Uint8Array,
  vaultId: string,
  splitId: string,
  words: string[],
): string {
  const iv = randomBytes(IV_SIZE)
  const sealed = gcm(sealingKey(vaultKey), iv, associatedData(vaultId, splitId)).encrypt(
    utf8(JSON.stringify(words)),
  )
  return toBase64(concatBytes(iv, sealed))
}

/** The words sealKitWords sealed; FileCipherError('damaged') when they do not open under this key and split. */
export function openKitWords(
  vaultKey: Uint8Array,
  vaultId: string,
  splitId: string,
  sealed: string,
): string[] {
  const key = sealingKey(vaultKey)
  try {
    const bytes = fromBase64(sealed)
    if (bytes.length < IV_SIZE + TAG_SIZE) throw new Error('too short')
    const plain = gcm(key, bytes.subarray(0, IV_SIZE), associatedData(vaultId, splitId)).decrypt(
      bytes.subarray(IV_SIZE),
    )
    const words: unknown = JSON.parse(new TextDecoder().decode(plain))
    if (!Array.isArray(words) || !words.every((w) => typeof w === 'string')) throw new Error('not words')
    return words
  } catch {
    throw new FileCipherError(
      'damaged',
      'The saved guardian kits of this vault cannot be opened with its key: their file was changed or damaged. Kits already handed out still work. To print kits again, make a new split: add or remove a guardian, then hand out the new kits.',
    )
  }
}
