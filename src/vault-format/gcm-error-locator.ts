// Tells "one byte was changed" apart from "the data was cut short" for a chunk that fails AES-GCM
// authentication. Knowing the key, the GHASH difference between the received tag and the tag of the
// received ciphertext is (error block) * H^k, so dividing by each H^k and finding a single non-zero
// byte pins the damaged byte. Truncated data leaves no such pattern (chance ~2^-100).
// Failure path only: BigInt arithmetic, ~100 ms for a 16 KiB chunk.
import { ecb } from '@noble/ciphers/aes.js'
import { NONCE_SIZE, TAG_SIZE } from './chunked-format'

const R = 0xe1n << 120n
const MASK = (1n << 128n) - 1n

function toBig(block: Uint8Array): bigint {
  let x = 0n
  for (let i = 0; i < 16; i++) x = (x << 8n) | BigInt(block[i] ?? 0)
  return x
}

/** GF(2^128) product in GCM's bit order (NIST SP 800-38D, algorithm 1). */
function gmul(x: bigint, y: bigint): bigint {
  let z = 0n
  let v = y
  for (let i = 127n; i >= 0n; i--) {
    if ((x >> i) & 1n) z ^= v
    v = v & 1n ? (v >> 1n) ^ R : v >> 1n
  }
  return z
}

function ginverse(h: bigint): bigint {
  // h^(2^128 - 2): square-and-multiply over the exponent's bits (127 ones then a zero).
  let result = 1n << 127n // the field's one in GCM bit order
  let base = h
  let e = MASK - 1n
  while (e > 0n) {
    if (e & 1n) result = gmul(result, base)
    base = gmul(base, base)
    e >>= 1n
  }
  return result
}

/** Byte position within `sealed` (ciphertext || tag) of a single damaged byte, or null. */
export function locateSingleByteError(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array): number | null {
  if (sealed.length < TAG_SIZE || nonce.length !== NONCE_SIZE) return null
  const body = sealed.subarray(0, sealed.length - TAG_SIZE)
  const tag = toBig(sealed.subarray(sealed.length - TAG_SIZE))
  const aes = () => ecb(key, { disablePadding: true }) // an instance encrypts once
  const h = toBig(aes().encrypt(new Uint8Array(16)))
  const j0 = new Uint8Array(16)
  j0.set(nonce)
  j0[15] = 1
  const ej0 = toBig(aes().encrypt(j0))

  const blocks = Math.ceil(body.length / 16)
  let ghash = 0n
  for (let b = 0; b < blocks; b++) ghash = gmul(ghash ^ toBig(body.subarray(b * 16, b * 16 + 16)), h)
  ghash = gmul(ghash ^ BigInt(body.length * 8), h)
  const diff = ghash ^ ej0 ^ tag
  if (diff === 0n) return null

  const singleByte = (x: bigint): number | null => {
    let found: number | null = null
    for (let j = 0; j < 16; j++) {
      if ((x >> BigInt(8 * (15 - j))) & 0xffn) {
        if (found !== null) return null
        found = j
      }
    }
    return found
  }
  const inTag = singleByte(diff)
  if (inTag !== null) return body.length + inTag
  // Block b (0-based) is multiplied by H^(blocks + 1 - b) in GHASH.
  const hinv = ginverse(h)
  let factor = gmul(hinv, hinv) // H^-2 belongs to the last block
  for (let b = blocks - 1; b >= 0; b--) {
    const j = singleByte(gmul(diff, factor))
    if (j !== null && b * 16 + j < body.length) return b * 16 + j
    factor = gmul(factor, hinv)
  }
  return null
}
