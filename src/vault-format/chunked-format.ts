// Cobblestone-256 (c2sp.org/chunked-encryption with AES-256-GCM and HKDF-Expand-SHA-512):
// sizes, per-message key derivation, chunk nonces and the exact length arithmetic.

import { concatBytes, utf8 } from './bytes'
import { FileCipherError } from './format-errors'
import { hkdfExpandSha512 } from './hkdf-sha512'

export const AEAD_NAME = 'AEAD_AES_256_GCM'
export const KEY_SIZE = 32
export const NONCE_SIZE = 12
export const TAG_SIZE = 16
export const SALT_SIZE = 24
export const COMMITMENT_SIZE = 32
export const HEADER_SIZE = SALT_SIZE + COMMITMENT_SIZE
export const CHUNK_SIZE = 16384
export const SEALED_CHUNK_SIZE = CHUNK_SIZE + TAG_SIZE
/** The spec caps a message at 2^38 chunks. */
export const MAX_CHUNKS = 2 ** 38

const INFO_PREFIX = utf8(`c2sp.org/chunked-encryption@v1+${AEAD_NAME}\u0000`)

export interface MessageKeys {
  key: Uint8Array
  baseNonce: Uint8Array
  commitment: Uint8Array
}

export function assertKeySize(inputKey: Uint8Array, what = 'key'): void {
  if (!(inputKey instanceof Uint8Array) || inputKey.length !== KEY_SIZE) {
    const got = inputKey instanceof Uint8Array ? `${inputKey.length} bytes` : typeof inputKey
    throw new FileCipherError('invalid-key', `The ${what} must be ${KEY_SIZE} bytes (got ${got}).`)
  }
}

/** key || base nonce || commitment = HKDF-Expand(input key, prefix || aead || 0x00 || salt || context). */
export function deriveMessageKeys(inputKey: Uint8Array, salt: Uint8Array, context: Uint8Array): MessageKeys {
  assertKeySize(inputKey, 'input key')
  if (salt.length !== SALT_SIZE) throw new RangeError(`salt must be ${SALT_SIZE} bytes`)
  const okm = hkdfExpandSha512(
    inputKey,
    concatBytes(INFO_PREFIX, salt, context),
    KEY_SIZE + NONCE_SIZE + COMMITMENT_SIZE,
  )
  const keys = {
    key: okm.slice(0, KEY_SIZE),
    baseNonce: okm.slice(KEY_SIZE, KEY_SIZE + NONCE_SIZE),
    commitment: okm.slice(KEY_SIZE + NONCE_SIZE),
  }
  okm.fill(0) // the copies above are the ones handed out
  return keys
}

/** Base nonce XOR the chunk counter as a big-endian integer (it fits in the last 5 bytes). */
export function chunkNonce(
  baseNonce: Uint8Array,
  index: number,
  out = new Uint8Array(NONCE_SIZE),
): Uint8Array {
  if (!Number.isInteger(index) || index < 0 || index >= MAX_CHUNKS) {
    throw new FileCipherError(
      'invalid-input',
      `Chunk counter ${index} is outside the format's limit of 2^38.`,
    )
  }
  out.set(baseNonce)
  let rest = index
  for (let i = NONCE_SIZE - 1; i >= NONCE_SIZE - 5; i--) {
    out[i]! ^= rest % 256
    rest = Math.floor(rest / 256)
  }
  return out
}

/** Exact ciphertext size: 56 + P + 16 * (floor(P / 16384) + 1). */
export function encryptedLength(plaintextBytes: number): number {
  if (!Number.isSafeInteger(plaintextBytes) || plaintextBytes < 0) {
    throw new RangeError(`Plaintext length must be a non-negative integer, got ${plaintextBytes}`)
  }
  return HEADER_SIZE + plaintextBytes + TAG_SIZE * (Math.floor(plaintextBytes / CHUNK_SIZE) + 1)
}

/** Inverse of encryptedLength; throws FileCipherError('truncated') for lengths no message can have. */
export function plaintextLength(ciphertextBytes: number): number {
  if (!Number.isSafeInteger(ciphertextBytes) || ciphertextBytes < 0) {
    throw new RangeError(`Ciphertext length must be a non-negative integer, got ${ciphertextBytes}`)
  }
  const body = ciphertextBytes - HEADER_SIZE
  if (body < TAG_SIZE) {
    throw new FileCipherError(
      'truncated',
      `${ciphertextBytes} bytes is too short for an encrypted file (the smallest is ${HEADER_SIZE + TAG_SIZE}); the file was cut short.`,
    )
  }
  const fullChunks = Math.floor(body / SEALED_CHUNK_SIZE)
  const last = body % SEALED_CHUNK_SIZE
  if (last < TAG_SIZE) {
    throw new FileCipherError(
      'truncated',
      `${ciphertextBytes} bytes cannot be a complete encrypted file: it ends without its final short chunk; the file was cut short.`,
    )
  }
  return fullChunks * CHUNK_SIZE + last - TAG_SIZE
}
