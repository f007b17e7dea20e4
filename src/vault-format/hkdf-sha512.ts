// HKDF-Expand (RFC 5869 section 2.3) with SHA-512, written on hmac(sha512) because
// @noble/hashes hkdf.expand refuses a PRK shorter than the hash output (64 bytes), while
// Cobblestone-256 and our own key derivations expand a 32-byte key.
import { hmac } from '@noble/hashes/hmac.js'
import { sha512 } from '@noble/hashes/sha2.js'

const HASH_LEN = 64

export function hkdfExpandSha512(prk: Uint8Array, info: Uint8Array, length: number): Uint8Array {
  if (!Number.isInteger(length) || length < 0 || length > 255 * HASH_LEN) {
    throw new RangeError(`HKDF-Expand length must be 0..${255 * HASH_LEN}, got ${length}`)
  }
  const out = new Uint8Array(length)
  let previous = new Uint8Array(0)
  for (let counter = 1, offset = 0; offset < length; counter++) {
    const mac = hmac.create(sha512, prk)
    mac.update(previous)
    mac.update(info)
    mac.update(Uint8Array.of(counter))
    previous.fill(0) // T(i-1), key material: consumed by the MAC above
    previous = mac.digest()
    out.set(previous.subarray(0, Math.min(HASH_LEN, length - offset)), offset)
    offset += HASH_LEN
  }
  previous.fill(0)
  return out
}
