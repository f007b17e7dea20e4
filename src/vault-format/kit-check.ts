// A guardian kit's check code (docs/FORMAT.md 5.5): a short code printed apart from the words that
// lets a guardian prove "I still have my kit" without sending the words anywhere. It is a one-way
// function of the whole Shamir share (HKDF-SHA-256, 40 bits), so it tells nothing about the share and
// cannot stand in for it; the service keeps only a hash of it, bound to the vault id.
//   code  = Crockford base32 of HKDF-SHA-256(ikm = share, salt = vault id, info = INFO, 5 bytes),
//           then one Luhn mod 32 check character, shown "XXXX-XXXX-X"
//   hash  = hex(SHA-256(vault id || 0x00 || code as "XXXX-XXXX-X"))
// The check character catches every single mistyped character, so a typo is told apart from a real
// code of another kit or of an older split.
import { hkdf } from '@noble/hashes/hkdf.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { concatBytes, toHex, utf8 } from './bytes'
import { type GuardianShare, SHAMIR_SHARE_SIZE } from './share-envelope'

export const KIT_CHECK_INFO = 'vault-desktop kit check v1'
/** Crockford's base32 alphabet: no I, L, O or U, so none is read as another. */
export const KIT_CHECK_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const CODE_BYTES = 5
const CODE_SYMBOLS = 8
const N = KIT_CHECK_ALPHABET.length

/** Why typed text is not a check code. */
export type KitCheckCodeProblem =
  /** Nothing but spaces and dashes. */
  | 'empty'
  /** A character no check code has (it is named in `character`). */
  | 'bad-character'
  /** Not 9 characters once spaces and dashes are gone. */
  | 'wrong-length'
  /** 9 good characters whose check character does not fit: a typo. */
  | 'bad-check'

export type NormalizedKitCheckCode =
  | { ok: true; code: string }
  | { ok: false; problem: KitCheckCodeProblem; character?: string }

function luhnCheckValue(values: number[]): number {
  let factor = 2
  let sum = 0
  for (let i = values.length - 1; i >= 0; i--) {
    const addend = factor * values[i]!
    sum += Math.floor(addend / N) + (addend % N)
    factor = factor === 2 ? 1 : 2
  }
  return (N - (sum % N)) % N
}

function display(symbols: string): string {
  return `${symbols.slice(0, 4)}-${symbols.slice(4, 8)}-${symbols.slice(8)}`
}

/**
 * The check code of a guardian kit, "XXXX-XXXX-X": `share` is the kit's 33-byte Shamir share
 * (GuardianShare.share, as carried in the words), `vaultId` the kit's vault id.
 */
export function kitCheckCode(share: Uint8Array, vaultId: string): string {
  if (!(share instanceof Uint8Array) || share.length !== SHAMIR_SHARE_SIZE) {
    throw new RangeError(
      `a kit check code is made from a kit's ${SHAMIR_SHARE_SIZE}-byte Shamir share (GuardianShare.share), not the whole envelope`,
    )
  }
  if (vaultId.length === 0) throw new RangeError('a kit check code needs the vault id')
  const bytes = hkdf(sha256, share, utf8(vaultId), utf8(KIT_CHECK_INFO), CODE_BYTES)
  let bits = 0n
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte)
  const values: number[] = []
  for (let i = CODE_SYMBOLS - 1; i >= 0; i--) values.push(Number((bits >> BigInt(5 * i)) & 31n))
  values.push(luhnCheckValue(values))
  return display(values.map((v) => KIT_CHECK_ALPHABET[v]).join(''))
}

/**
 * Typed text as a check code, forgiving what people do: any case, spaces and dashes anywhere, O for
 * 0, I or L for 1. Anything else is named: a character no code has, the wrong length, or a check
 * character that does not fit (a typo).
 */
export function normalizeKitCheckCode(typed: string): NormalizedKitCheckCode {
  const compact = typed
    .toUpperCase()
    .replace(/[\s\u2010-\u2015\u2212_.-]+/gu, '')
    .replaceAll('O', '0')
    .replace(/[IL]/g, '1')
  if (compact.length === 0) return { ok: false, problem: 'empty' }
  for (const character of compact) {
    if (!KIT_CHECK_ALPHABET.includes(character)) return { ok: false, problem: 'bad-character', character }
  }
  if (compact.length !== CODE_SYMBOLS + 1) return { ok: false, problem: 'wrong-length' }
  const values = [...compact].map((c) => KIT_CHECK_ALPHABET.indexOf(c))
  if (luhnCheckValue(values.slice(0, CODE_SYMBOLS)) !== values[CODE_SYMBOLS]) {
    return { ok: false, problem: 'bad-check' }
  }
  return { ok: true, code: display(compact) }
}

/**
 * What the service stores for a kit: hex SHA-256 of `vaultId || 0x00 || code` (code normalized,
 * "XXXX-XXXX-X"). Throws a RangeError when `code` is not a check code.
 */
export function kitCheckCodeHash(code: string, vaultId: string): string {
  const normalized = normalizeKitCheckCode(code)
  if (!normalized.ok) throw new RangeError(`not a kit check code (${normalized.problem})`)
  return toHex(sha256(concatBytes(utf8(vaultId), Uint8Array.of(0), utf8(normalized.code))))
}

/** The check code printed on a guardian kit (its share and vault id). */
export function kitCheckCodeOf(kit: GuardianShare): string {
  return kitCheckCode(kit.share, kit.vaultId)
}
