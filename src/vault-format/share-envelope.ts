// Binary envelopes for what goes on paper: a guardian's share of the vault key, or the owner's copy
// of the key itself. Layouts (docs/FORMAT.md, "Recovery words"):
//   guardian share: 0x01 0x01 splitId[4] threshold count index fingerprint[6] keyCheck[4] vaultId share[33] checksum[4]
//   owner key:      0x01 0x02 vaultKey[32] vaultId checksum[4]
//   practice share: 0x01 0x03 (as a guardian share, of a throwaway practice key) expiryDay[4] checksum[4]
//   vaultId:        len(1..200) UTF-8 bytes, or 0xFF + 16 bytes for a lowercase canonical UUID
//   checksum:       first 4 bytes of SHA-256 of everything before it
import { sha256 } from '@noble/hashes/sha2.js'
import { equalBytes, toHex, utf8 } from './bytes'
import { ShareInputError } from './format-errors'
import { FINGERPRINT_SIZE, formatFingerprint, KEY_CHECK_SIZE, VAULT_KEY_SIZE } from './vault-key'

export const ENVELOPE_VERSION = 1
export const KIND_GUARDIAN_SHARE = 1
export const KIND_OWNER_KEY = 2
/** A share of a throwaway practice key, for a rehearsal: worthless for the vault, and it expires. */
export const KIND_PRACTICE_SHARE = 3
export const SHAMIR_SHARE_SIZE = VAULT_KEY_SIZE + 1
export const SPLIT_ID_SIZE = 4
export const CHECKSUM_SIZE = 4
const EXPIRY_SIZE = 4
const DAY_MS = 86_400_000
/** 9999-12-31: dates stay four-digit years (a uint32 could count far beyond what Date can show). */
const LAST_DAY = 2_932_896
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

/**
 * A rehearsal's kit: a guardian share's fields, but of a practice key made for the rehearsal, with
 * the last day it may be used. It opens only the rehearsal's sample, never the vault.
 */
export interface PracticeShare extends Omit<GuardianShare, 'kind'> {
  kind: 'practice-share'
  /** The last day (UTC, "YYYY-MM-DD") on which the kit works; carried as a uint32 day number. */
  expiresOn: string
}

/** Everything a kit's words can hold: the real envelopes and the rehearsal's practice share. */
export type KitEnvelope = RecoveryEnvelope | PracticeShare

/** Days since 1970-01-01 (UTC) of "YYYY-MM-DD"; RangeError when it is not a real date. */
export function dayNumber(date: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date)
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN
  if (!match || Number.isNaN(ms) || dayDate(ms / DAY_MS) !== date || ms < 0) {
    throw new RangeError(`'${date}' is not a date from 1970-01-01 on, written YYYY-MM-DD`)
  }
  return ms / DAY_MS
}

/** "YYYY-MM-DD" of a day number (days since 1970-01-01, UTC). */
export function dayDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10)
}

/** The UTC day of an instant, as "YYYY-MM-DD". */
export function utcDay(instant: Date): string {
  return instant.toISOString().slice(0, 10)
}

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

export function encodeEnvelope(envelope: KitEnvelope): Uint8Array {
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
  const practice = s.kind === 'practice-share'
  const body = new Uint8Array(19 + vaultId.length + SHAMIR_SHARE_SIZE + (practice ? EXPIRY_SIZE : 0))
  body.set([ENVELOPE_VERSION, practice ? KIND_PRACTICE_SHARE : KIND_GUARDIAN_SHARE])
  body.set(hexBytes(s.splitId, SPLIT_ID_SIZE), 2)
  body.set([s.threshold, s.shareCount, s.shareIndex], 6)
  body.set(hexBytes(s.fingerprint.replaceAll('-', ''), FINGERPRINT_SIZE), 9)
  body.set(s.keyCheck.subarray(0, KEY_CHECK_SIZE), 15)
  body.set(vaultId, 19)
  body.set(s.share, 19 + vaultId.length)
  if (practice) {
    new DataView(body.buffer).setUint32(19 + vaultId.length + SHAMIR_SHARE_SIZE, dayNumber(s.expiresOn))
  }
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
  const expiry = bytes[1] === KIND_PRACTICE_SHARE ? EXPIRY_SIZE : 0
  return id ? id.end + SHAMIR_SHARE_SIZE + expiry + CHECKSUM_SIZE : null
}

export function checksumMatches(bytes: Uint8Array): boolean {
  const length = envelopeLength(bytes)
  if (length === null || length > bytes.length) return false
  const body = bytes.subarray(0, length - CHECKSUM_SIZE)
  return equalBytes(sha256(body).subarray(0, CHECKSUM_SIZE), bytes.subarray(length - CHECKSUM_SIZE, length))
}

/** Parses an envelope whose checksum was already verified. */
export function decodeEnvelope(bytes: Uint8Array): KitEnvelope {
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
  const kind = bytes[1]
  if (kind !== KIND_GUARDIAN_SHARE && kind !== KIND_PRACTICE_SHARE) throw malformed()
  const id = decodeVaultId(bytes, 19)
  if (!id) throw malformed()
  const [threshold, shareCount, shareIndex] = [bytes[6]!, bytes[7]!, bytes[8]!]
  // Checksummed but impossible: a kit maker never writes these, so the kit was forged or mis-made.
  const impossible = (what: string) =>
    new ShareInputError(
      'malformed',
      `These words check out but describe an impossible share (${what}), so the kit was not made by a working kit maker or was altered. Use another guardian's kit.`,
    )
  if (threshold < 2) throw impossible(`threshold ${threshold}`)
  if (shareCount < threshold) throw impossible(`${shareCount} shares, fewer than the ${threshold} needed`)
  if (shareIndex < 1 || shareIndex > shareCount) throw impossible(`share ${shareIndex} of ${shareCount}`)
  // x = 0 would carry the key itself in the clear as its "share" (Lagrange at 0 returns it).
  if (bytes[id.end + SHAMIR_SHARE_SIZE - 1] === 0) throw impossible('x-coordinate 0')
  const fields = {
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
  if (kind === KIND_GUARDIAN_SHARE) return { kind: 'guardian-share', ...fields }
  const day = new DataView(bytes.buffer, bytes.byteOffset).getUint32(id.end + SHAMIR_SHARE_SIZE)
  if (day > LAST_DAY) throw impossible(`an expiry ${day} days after 1970, beyond the year 9999`)
  return { kind: 'practice-share', ...fields, expiresOn: dayDate(day) }
}
