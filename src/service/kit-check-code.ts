// Reading a typed kit check code and hashing it, as docs/FORMAT.md 5.5 says. The service may not import
// the vault format (it never handles keys or shares), so it follows the documented rule itself; the
// format's own vectors (test/crypto/kit-check-vectors.json) check that both read every code alike.
import { createHash } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const SYMBOLS = 9

/** Luhn mod 32 over the values, doubling every other one from the rightmost. */
function luhnSum(values: number[], doubleRightmost: boolean): number {
  let sum = 0
  let double = doubleRightmost
  for (let i = values.length - 1; i >= 0; i--) {
    const addend = double ? 2 * values[i]! : values[i]!
    sum += Math.floor(addend / 32) + (addend % 32)
    double = !double
  }
  return sum % 32
}

/** The code as "XXXX-XXXX-X", or null when the text is not a check code (a typo, most often). */
export function readKitCheckCode(typed: string): string | null {
  const compact = typed
    .toUpperCase()
    .replace(/[\s\u2010-\u2015\u2212_.-]+/gu, '')
    .replaceAll('O', '0')
    .replace(/[IL]/g, '1')
  if (compact.length !== SYMBOLS || [...compact].some((c) => !ALPHABET.includes(c))) return null
  const values = [...compact].map((c) => ALPHABET.indexOf(c))
  // With the check character included, the rightmost value is not doubled and the sum is 0 mod 32.
  if (luhnSum(values, false) !== 0) return null
  return `${compact.slice(0, 4)}-${compact.slice(4, 8)}-${compact.slice(8)}`
}

/** What the owner registered for a kit: hex SHA-256 of vaultId || 0x00 || code ("XXXX-XXXX-X"). */
export function kitCheckHash(code: string, vaultId: string): string {
  return createHash('sha256').update(vaultId, 'utf8').update('\0').update(code, 'utf8').digest('hex')
}
