// Proof that a practice heir rebuilt a rehearsal's practice key from the guardians' practice kits,
// without the service learning the key: the owner gives the service only SHA-256 of the expected proof.
// The key is the throwaway practice key (splitPracticeKey), never the vault key: a rehearsal never
// assembles the vault key, so nothing here could prove it. Version 1 of this proof (over the vault
// key) is retired; the label changed with it, so a v1 proof never matches a v2 hash.
//   proof     = hex(HMAC-SHA-256(key = practice key, "vault-desktop rehearsal v2\n" || challenge))
//   proofHash = hex(SHA-256(proof as ASCII))
import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { randomBytes } from '@noble/hashes/utils.js'
import { toHex } from './bytes'

const LABEL = 'vault-desktop rehearsal v2\n'

export function newRehearsalChallenge(): string {
  return toHex(randomBytes(16))
}

export function rehearsalProof(practiceKey: Uint8Array, challenge: string): string {
  if (!/^[0-9a-f]{32}$/.test(challenge)) throw new RangeError('a rehearsal challenge is 32 hex characters')
  return toHex(hmac(sha256, practiceKey, new TextEncoder().encode(LABEL + challenge)))
}

export function rehearsalProofHash(proof: string): string {
  return toHex(sha256(new TextEncoder().encode(proof)))
}
