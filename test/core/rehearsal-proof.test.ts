// The practice proof, checked against an independent computation with node:crypto: the heir's client
// and the owner's app must agree (the key is a rehearsal's practice key, never the vault key) byte for byte, and the service only ever sees the proof's hash.
import { createHash, createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  newRehearsalChallenge,
  rehearsalProof,
  rehearsalProofHash,
} from '../../src/vault-format/rehearsal-proof'

const key = Uint8Array.from({ length: 32 }, (_, i) => i)
const challenge = '00112233445566778899aabbccddeeff'

function independentProof(practiceKey: Uint8Array, c: string): string {
  return createHmac('sha256', practiceKey).update(`vault-desktop rehearsal v2\n${c}`, 'utf8').digest('hex')
}

describe('rehearsal proof', () => {
  it('is HMAC-SHA-256 of the v2 label and challenge under the practice key, as lowercase hex', () => {
    const expected = independentProof(key, challenge)
    const proof = rehearsalProof(key, challenge)
    expect(proof).toBe(expected)
    expect(proof).toMatch(/^[0-9a-f]{64}$/)
  })

  it('the hash is SHA-256 of the proof text', () => {
    const proof = independentProof(key, challenge)
    expect(rehearsalProofHash(proof)).toBe(createHash('sha256').update(proof, 'ascii').digest('hex'))
  })

  it('changes with the key and with the challenge', () => {
    const other = Uint8Array.from({ length: 32 }, (_, i) => 255 - i)
    expect(rehearsalProof(other, challenge)).not.toBe(rehearsalProof(key, challenge))
    expect(rehearsalProof(key, 'ffffffffffffffffffffffffffffffff')).not.toBe(rehearsalProof(key, challenge))
  })

  it('refuses a challenge that is not 32 lowercase hex characters', () => {
    for (const bad of [
      '',
      'abc',
      `${challenge}0`,
      challenge.slice(1),
      challenge.toUpperCase(),
      `${challenge.slice(0, 31)}g`,
    ]) {
      expect(() => rehearsalProof(key, bad), bad).toThrow(RangeError)
    }
  })

  it('new challenges are 32 hex characters and differ each time', () => {
    const a = newRehearsalChallenge()
    const b = newRehearsalChallenge()
    expect(a).toMatch(/^[0-9a-f]{32}$/)
    expect(b).toMatch(/^[0-9a-f]{32}$/)
    expect(a).not.toBe(b)
    expect(() => rehearsalProof(key, a)).not.toThrow()
  })
})
