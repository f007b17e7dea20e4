// Binary envelopes for what goes on paper: a guardian's share of the vault key, or the owner's copy
// of the key itself. Layouts (docs/FORMAT.md, "Recovery words"):
//   guardian share: 0x01 0x01 splitId[4] threshold count index fingerprint[6] keyCheck[4] vaultId share[33] checksum[4]
//   owner key:      0x01 0x02 vaultKey[32] vaultId checksum[4]
//   vaultId:        len(1..200) UTF-8 bytes, or 0xFF + 16 bytes for a lowercase canonical UUID
//   checksum:       first 4 bytes of SHA-256 of everything before it
import { sha256 } from '@noble/hashes/sha2.js'
import { equalBytes, toHex, utf8 } from './bytes'
import { ShareInputError } from './format-errors'
import { FINGERPRINT_SIZE, formatFingerprint, KEY_CHECK_SIZE, VAULT_KEY_SIZE } from './vault-key'

export const ENVELOPE_VERSION = 1
export const KIND_GUARDIAN_SHARE = 1
export const KIND_OWNER_KEY = 2
export const SHAMIR_SHARE_SIZE = VAULT_KEY_SIZE + 1
export const SPLIT_ID_SIZE = 4
export const CHECKSUM_SIZE = 4
const UUID_TAG = 0xff
const MAX_VAULT_ID_BYTES = 200
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export interface GuardianShare {
  kind: 'guardian-share'
  version: number
  /** 8 hex digits, fresh at every split: shares of different splits never combine. */
  splitId: string
  threshold: number
  shareCount: number
  /** 1-based number of this share within its split. */
  shareIndex: number
  /** "7F3A-91C2-0B4E", the vault fingerprint printed on every kit. */
  fingerprint: string
  keyCheck: Uint8Array
  vaultId: string
  /** The Shamir share (33 bytes: 32 y-values and the x-coordinate). */
  share: Uint8Array
}

export interface OwnerKey {
  kind: 'owner-key'
  version: number
  vaultKey: Uint8Array
  vaultId: string
}

export type RecoveryEnvelope = GuardianShare | OwnerKey

export function encodeVaultId(vaultId: string): Uint8Array {
  if (UUID_PATTERN.test(vaultId)) {
    const hex = vaultId.replaceAll('-', '')
    const out = new Uint8Array(17)
    out[0] = UUID_TAG
    for (let i = 0; i < 16; i++) out[i + 1] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16)
    return out
  }
  const bytes = utf8(vaultId)
  if (bytes.length === 0 || bytes.length > MAX_VAULT_ID_BYTES) {
    throw new RangeError(`A vault id must be 1..${MAX_VAULT_ID_BYTES} bytes of UTF-8`)
  }
  const out = new Uint8Array(bytes.length + 1)
  out[0] = bytes.length
  out.set(bytes, 1)
  return out
}

/** Reads a vault id at `offset`; returns it and the offset after it, or null if the bytes end first. */
function decodeVaultId(bytes: Uint8Array, offset: number): { vaultId: string; end: number } | null {
  const tag = bytes[offset]
  if (tag === undefined) return null
  if (tag === UUID_TAG) {
    if (bytes.length < offset + 17) return null
    const h = toHex(bytes.subarray(offset + 1, offset + 17))
    return {
      vaultId: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
      end: offset + 17,
    }
  }
  if (tag === 0 || tag > MAX_VAULT_ID_BYTES || bytes.length < offset + 1 + tag) return null
  const text = new TextDecoder('utf-8', { fatal: true })
  try {
    return { vaultId: text.decode(bytes.subarray(offset + 1, offset + 1 + tag)), end: offset + 1 + tag }
  } catch {
    return null
  }
}

function withChecksum(body: Uint8Array): Uint8Array {
  const out = new Uint8Array(body.length + CHECKSUM_SIZE)
  out.set(body)
  out.set(sha256(body).subarray(0, CHECKSUM_SIZE), body.length)
  return out
}

export function encodeEnvelope(envelope: RecoveryEnvelope): Uint8Array {
  const vaultId = encodeVaultId(envelope.vaultId)
  if (envelope.kind === 'owner-key') {
    if (envelope.vaultKey.length !== VAULT_KEY_SIZE) throw new RangeError('vault key must be 32 bytes')
    const body = new Uint8Array(2 + VAULT_KEY_SIZE + vaultId.length)
    body.set([ENVELOPE_VERSION, KIND_OWNER_KEY])
    body.set(envelope.vaultKey, 2)
    body.set(vaultId, 2 + VAULT_KEY_SIZE)
    return withChecksum(body)
  }
  const s = envelope
  if (s.share.length !== SHAMIR_SHARE_SIZE) throw new RangeError('Shamir share must be 33 bytes')
  const body = new Uint8Array(19 + vaultId.length + SHAMIR_SHARE_SIZE)
  body.set([ENVELOPE_VERSION, KIND_GUARDIAN_SHARE])
  body.set(hexBytes(s.splitId, SPLIT_ID_SIZE), 2)
  body.set([s.threshold, s.shareCount, s.shareIndex], 6)
  body.set(hexBytes(s.fingerprint.replaceAll('-', ''), FINGERPRINT_SIZE), 9)
  body.set(s.keyCheck.subarray(0, KEY_CHECK_SIZE), 15)
  body.set(vaultId, 19)
  body.set(s.share, 19 + vaultId.length)
  return withChecksum(body)
}

function hexBytes(hex: string, size: number): Uint8Array {
  if (!new RegExp(`^[0-9a-fA-F]{${2 * size}}$`).test(hex))
    throw new RangeError(`expected ${size} bytes of hex`)
  const out = new Uint8Array(size)
  for (let i = 0; i < size; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16)
  return out
}

/**
 * The envelope's length as announced by its own header, or null when the bytes are too short to
 * tell. Word decoding uses it to know where the zero padding starts.
 */
export function envelopeLength(bytes: Uint8Array): number | null {
  if (bytes.length < 2) return null
  if (bytes[1] === KIND_OWNER_KEY) {
    const id = decodeVaultId(bytes, 2 + VAULT_KEY_SIZE)
    return id ? id.end + CHECKSUM_SIZE : null
  }
  const id = decodeVaultId(bytes, 19)
  return id ? id.end + SHAMIR_SHARE_SIZE + CHECKSUM_SIZE : null
}

export function checksumMatches(bytes: Uint8Array): boolean {
  const length = envelopeLength(bytes)
  if (length === null || length > bytes.length) return false
  const body = bytes.subarray(0, length - CHECKSUM_SIZE)
  return equalBytes(sha256(body).subarray(0, CHECKSUM_SIZE), bytes.subarray(length - CHECKSUM_SIZE, length))
}

/** Parses an envelope whose checksum was already verified. */
export function decodeEnvelope(bytes: Uint8Array): RecoveryEnvelope {
  if (bytes[0] !== ENVELOPE_VERSION) {
    throw new ShareInputError(
      'unsupported-version',
      `These words use recovery format version ${bytes[0]}, which this tool does not know (it reads version ${ENVELOPE_VERSION}). Use a newer version of the recovery tool.`,
    )
  }
  const malformed = () =>
    new ShareInputError(
      'malformed',
      'These words are well-formed but do not describe a share or key this tool can use.',
    )
  // Exactly one envelope: a cut or extended one would otherwise parse into a short share.
  if (envelopeLength(bytes) !== bytes.length) throw malformed()
  if (bytes[1] === KIND_OWNER_KEY) {
    const id = decodeVaultId(bytes, 2 + VAULT_KEY_SIZE)
    if (!id) throw malformed()
    return {
      kind: 'owner-key',
      version: bytes[0]!,
      vaultKey: bytes.slice(2, 2 + VAULT_KEY_SIZE),
      vaultId: id.vaultId,
    }
  }
  if (bytes[1] !== KIND_GUARDIAN_SHARE) throw malformed()
  const id = decodeVaultId(bytes, 19)
  if (!id) throw malformed()
  const [threshold, shareCount, shareIndex] = [bytes[6]!, bytes[7]!, bytes[8]!]
  if (threshold < 2 || shareCount < threshold || shareIndex < 1 || shareIndex > shareCount) throw malformed()
  return {
    kind: 'guardian-share',
    version: bytes[0]!,
    splitId: toHex(bytes.subarray(2, 6)),
    threshold,
    shareCount,
    shareIndex,
    fingerprint: formatFingerprint(bytes.subarray(9, 15)),
    keyCheck: bytes.slice(15, 19),
    vaultId: id.vaultId,
    share: bytes.slice(id.end, id.end + SHAMIR_SHARE_SIZE),
  }
}
