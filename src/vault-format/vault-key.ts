// The vault key and everything derived from it. Each use gets its own HKDF-Expand-SHA-512 label, so
// the files key, the check value and the fingerprint reveal nothing about each other or the key.

import { concatBytes, randomBytes, toHex, utf8 } from './bytes'
import { assertKeySize, KEY_SIZE } from './chunked-format'
import { hkdfExpandSha512 } from './hkdf-sha512'

export const VAULT_KEY_SIZE = KEY_SIZE
export const KEY_CHECK_SIZE = 4
export const FINGERPRINT_SIZE = 6

export const LABELS = {
  filesKey: 'vault-desktop/v1/files-key',
  keyCheck: 'vault-desktop/v1/key-check',
  fingerprint: 'vault-desktop/v1/fingerprint',
  saltCheck: 'vault-desktop/v1/salt-check',
} as const

export function generateVaultKey(): Uint8Array {
  return randomBytes(VAULT_KEY_SIZE)
}

function derive(vaultKey: Uint8Array, label: string, length: number): Uint8Array {
  assertKeySize(vaultKey, 'vault key')
  return hkdfExpandSha512(vaultKey, utf8(label), length)
}

/** The Cobblestone input key for file content. */
export function deriveFilesKey(vaultKey: Uint8Array): Uint8Array {
  return derive(vaultKey, LABELS.filesKey, KEY_SIZE)
}

/** 4 bytes that confirm a recovered key is the right one (stored in every share envelope). */
export function keyCheckValue(vaultKey: Uint8Array): Uint8Array {
  return derive(vaultKey, LABELS.keyCheck, KEY_CHECK_SIZE)
}

export function fingerprintBytes(vaultKey: Uint8Array): Uint8Array {
  return derive(vaultKey, LABELS.fingerprint, FINGERPRINT_SIZE)
}

/** Short, human-comparable: "7F3A-91C2-0B4E". Printed on every kit of the vault. */
export function vaultFingerprint(vaultKey: Uint8Array): string {
  return formatFingerprint(fingerprintBytes(vaultKey))
}

export function formatFingerprint(bytes: Uint8Array): string {
  return (
    toHex(bytes)
      .toUpperCase()
      .match(/.{1,4}/g) ?? []
  ).join('-')
}

/**
 * The last 8 bytes of a file's salt: a MAC of its first 16 under the files key. It lets a decryptor
 * tell "wrong vault key" from "right key, wrong vault id" when the commitment fails.
 */
export function saltCheck(filesKey: Uint8Array, saltPrefix: Uint8Array): Uint8Array {
  return hkdfExpandSha512(filesKey, concatBytes(utf8(LABELS.saltCheck), Uint8Array.of(0), saltPrefix), 8)
}
