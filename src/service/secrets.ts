// Identifiers, bearer secrets (API keys, guardian and heir tokens) and how secrets are stored: hashed.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`
}

/** A bearer secret with 256 bits of entropy after its prefix. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`
}

/** Secrets are high-entropy, so a plain SHA-256 is enough to store them (no password stretching needed). */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest()
}

export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b)
}

export const HEIR_TOKEN_PREFIX = 'hk_'
export const GUARDIAN_TOKEN_PREFIX = 'gt_'
