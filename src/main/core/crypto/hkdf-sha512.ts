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
    previous = mac.digest()
    out.set(previous.subarray(0, Math.min(HASH_LEN, length - offset)), offset)
    offset += HASH_LEN
  }
  return out
}

export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text)
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let total = 0
  for (const part of parts) total += part.length
  const out = new Uint8Array(total)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

/** Constant-time comparison for MACs, commitments and check values. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!
  return diff === 0
}

export function toHex(bytes: Uint8Array): string {
  let hex = ''
  for (const b of bytes) hex += b.toString(16).padStart(2, '0')
  return hex
}

export function fromHex(hex: string): Uint8Array {
  const clean = hex.replace(/\s+/g, '')
  if (clean.length % 2 !== 0 || /[^0-9a-fA-F]/.test(clean)) throw new Error('not a hex string')
  const out = new Uint8Array(clean.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(clean.slice(2 * i, 2 * i + 2), 16)
  return out
}
