// Proof that a practice heir rebuilt the vault key from guardians' kits, without the service ever
// learning the key: the owner gives the service only SHA-256 of the expected proof.
//   proof     = hex(HMAC-SHA-256(key = vault key, "vault-desktop rehearsal v1\n" || challenge))
//   proofHash = hex(SHA-256(proof as ASCII))
import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { randomBytes } from '@noble/hashes/utils.js'
import { toHex } from './bytes'

const LABEL = 'vault-desktop rehearsal v1\n'

export function newRehearsalChallenge(): string {
  return toHex(randomBytes(16))
}

export function rehearsalProof(vaultKey: Uint8Array, challenge: string): string {
  if (!/^[0-9a-f]{32}$/.test(challenge)) throw new RangeError('a rehearsal challenge is 32 hex characters')
  return toHex(hmac(sha256, vaultKey, new TextEncoder().encode(LABEL + challenge)))
}

export function rehearsalProofHash(proof: string): string {
  return toHex(sha256(new TextEncoder().encode(proof)))
}
