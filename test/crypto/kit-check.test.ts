// Kit check codes (docs/FORMAT.md 5.5) against test/crypto/kit-check-vectors.json, both ways: the
// library makes every code and hash from the kit, an independent derivation on node:crypto agrees, and
// typed text is read as the vectors say. The check character must catch every single mistyped symbol.
import { createHash, hkdfSync } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fromHex } from '../../src/vault-format/bytes'
import {
  decodeShareWords,
  KIT_CHECK_INFO,
  kitCheckCode,
  kitCheckCodeHash,
  kitCheckCodeOf,
  normalizeKitCheckCode,
} from '../../src/vault-format/index'

interface KitVector {
  name: string
  vaultId: string
  splitId: string
  shareNumber: number
  shamirShare: string
  words: string
  code: string
  hash: string
}
interface TypedVector {
  typed: string
  code?: string
  problem?: string
  character?: string
}
const vectors = JSON.parse(readFileSync(new URL('./kit-check-vectors.json', import.meta.url), 'utf8')) as {
  info: string
  kits: KitVector[]
  typed: TypedVector[]
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/** FORMAT.md 5.5 written again from the text, on node:crypto. */
function independentCode(shareHex: string, vaultId: string): string {
  const okm = Buffer.from(hkdfSync('sha256', Buffer.from(shareHex, 'hex'), vaultId, vectors.info, 5))
  const bits = okm.reduce((acc, byte) => acc * 256 + byte, 0)
  const digits = Array.from({ length: 8 }, (_, i) => Math.floor(bits / 32 ** (7 - i)) % 32)
  // Luhn mod N, N = 32: double every second value from the right, starting with the rightmost.
  let sum = 0
  digits
    .slice()
    .reverse()
    .forEach((d, i) => {
      const addend = i % 2 === 0 ? 2 * d : d
      sum += Math.floor(addend / 32) + (addend % 32)
    })
  const symbols = [...digits, (32 - (sum % 32)) % 32].map((d) => CROCKFORD[d]).join('')
  return `${symbols.slice(0, 4)}-${symbols.slice(4, 8)}-${symbols.slice(8)}`
}

describe('kit check codes', () => {
  it('uses the info string the vectors name', () => {
    expect(vectors.info).toBe(KIT_CHECK_INFO)
    expect(vectors.kits.length).toBe(8)
  })

  it.each(vectors.kits)('$name: code and hash', (vector) => {
    const kit = decodeShareWords(vector.words)
    expect(kit.splitId).toBe(vector.splitId)
    expect(kitCheckCodeOf(kit)).toBe(vector.code)
    expect(kitCheckCode(fromHex(vector.shamirShare), vector.vaultId)).toBe(vector.code)
    expect(independentCode(vector.shamirShare, vector.vaultId)).toBe(vector.code)
    const hash = createHash('sha256').update(`${vector.vaultId}\0${vector.code}`).digest('hex')
    expect(kitCheckCodeHash(vector.code, vector.vaultId)).toBe(hash)
    expect(hash).toBe(vector.hash)
    expect(kitCheckCodeHash(vector.code.toLowerCase().replaceAll('-', ' '), vector.vaultId)).toBe(vector.hash)
  })

  it('gives every kit of a split its own code, and binds the code and the hash to the vault id', () => {
    const codes = new Set(vectors.kits.map((k) => k.code))
    expect(codes.size).toBe(vectors.kits.length)
    const first = vectors.kits[0]!
    expect(kitCheckCode(fromHex(first.shamirShare), 'another-vault')).not.toBe(first.code)
    expect(kitCheckCodeHash(first.code, 'another-vault')).not.toBe(first.hash)
  })

  it.each(vectors.typed)('reads typed "$typed"', (vector) => {
    const read = normalizeKitCheckCode(vector.typed)
    if (vector.code) expect(read).toEqual({ ok: true, code: vector.code })
    else
      expect(read).toEqual({
        ok: false,
        problem: vector.problem,
        ...(vector.character ? { character: vector.character } : {}),
      })
  })

  it('catches every single mistyped symbol of every vector code as a typo', () => {
    for (const { code } of vectors.kits) {
      const symbols = code.replaceAll('-', '')
      for (let position = 0; position < symbols.length; position++) {
        for (const other of CROCKFORD) {
          if (other === symbols[position]) continue
          const typo = symbols.slice(0, position) + other + symbols.slice(position + 1)
          expect(normalizeKitCheckCode(typo)).toEqual({ ok: false, problem: 'bad-check' })
        }
      }
    }
  })

  it('refuses to make a code from anything but a 33-byte share, and to hash what is not a code', () => {
    const kit = decodeShareWords(vectors.kits[0]!.words)
    expect(() => kitCheckCode(kit.share.subarray(0, 32), kit.vaultId)).toThrow(/33-byte Shamir share/)
    expect(() => kitCheckCodeHash('1QH4-0CZS-E', kit.vaultId)).toThrow(/bad-check/)
  })
})
