// The identity record that opens the plaintext of a format-2 blob (docs/FORMAT.md, 3.7), and that
// each file of a bundle has (3.9):
//   size: uint64 big-endian || pathLength: uint16 big-endian || path: pathLength bytes of UTF-8
// followed by exactly `size` bytes of file content. It sits inside the authenticated stream, so a
// service cannot swap or rename two blobs of a vault: the name comes from the blob, not from outside.
import { utf8 } from './bytes'
import { FileCipherError } from './format-errors'

export interface FileIdentity {
  /** Relative path inside the vault, '/'-separated, NFC (see checkIdentityPath). */
  path: string
  /** The file's size in bytes. */
  size: number
}

export const MAX_IDENTITY_PATH_BYTES = 4096
/** size (8 bytes) + path length (2 bytes). */
export const IDENTITY_FIXED_SIZE = 10
/** JavaScript numbers are exact up to here; the format caps the size field at it. */
export const MAX_IDENTITY_SIZE = Number.MAX_SAFE_INTEGER

// With the u flag, only a surrogate without its pair is a code point of category Cs.
const LONE_SURROGATE = /\p{Cs}/u
// Category Cc: exactly the C0 controls, DEL and the C1 controls (U+0000-U+001F, U+007F-U+009F).
const CONTROL = /\p{Cc}/u
// Characters that reorder or hide text (bidi embeddings, overrides, isolates and marks): they can
// make 'evil\u202Efdp.exe' look like 'evilexe.pdf'.
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/u

function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
}

/**
 * Whether `path` may be recorded in a blob: null if so, else a sentence saying what is wrong and
 * what to do. Callers turn an OS path into this form first: '/' between folders and
 * `.normalize('NFC')` (macOS often hands out NFD names).
 */
export function checkIdentityPath(path: string): string | null {
  if (typeof path !== 'string' || path.length === 0) {
    return "The file's path is empty; give its path relative to the folder being backed up (e.g. 'Documents/will.pdf')."
  }
  if (LONE_SURROGATE.test(path)) {
    return "The file's path contains broken Unicode (an unpaired surrogate); rename the file."
  }
  const bytes = utf8(path).length
  if (bytes > MAX_IDENTITY_PATH_BYTES) {
    return `The file's path is ${bytes} bytes long in UTF-8; the limit is ${MAX_IDENTITY_PATH_BYTES}. Move the file to a shorter path or give it a shorter name.`
  }
  const control = path.match(CONTROL)
  if (control) {
    return `The file's path contains a control character (${codePoint(control[0])}); rename the file or folder.`
  }
  const bidi = path.match(BIDI)
  if (bidi) {
    return `The file's path contains an invisible text-direction character (${codePoint(bidi[0])}), which can disguise a file's real name; rename the file or folder.`
  }
  if (path.includes('\\')) {
    return "The file's path contains a backslash; separate folders with '/', and rename a file or folder whose name contains '\\'."
  }
  if (path.startsWith('/')) {
    return "The file's path starts with '/'; give it relative to the folder being backed up (e.g. 'Documents/will.pdf')."
  }
  for (const segment of path.split('/')) {
    if (segment === '') {
      return "The file's path has an empty folder name ('//' or a '/' at the end); give the path of a file."
    }
    if (segment === '.' || segment === '..') {
      return `The file's path contains a '${segment}' folder, which could point outside the recovery folder; give a plain relative path.`
    }
  }
  if (path.normalize('NFC') !== path) {
    return "The file's path is not in Unicode normal form C; pass path.normalize('NFC')."
  }
  return null
}

/** The record's bytes, or FileCipherError('invalid-input') saying why this identity cannot be written. */
export function encodeIdentity(identity: FileIdentity): Uint8Array {
  const problem = checkIdentityPath(identity?.path)
  if (problem) throw new FileCipherError('invalid-input', `${problem} The file was not encrypted.`)
  const { size } = identity
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new FileCipherError(
      'invalid-input',
      `The file size ${size} is not a whole number of bytes between 0 and 2^53-1; pass the size the file system reports.`,
    )
  }
  const path = utf8(identity.path)
  const out = new Uint8Array(IDENTITY_FIXED_SIZE + path.length)
  const view = new DataView(out.buffer)
  view.setBigUint64(0, BigInt(size))
  view.setUint16(8, path.length)
  out.set(path, IDENTITY_FIXED_SIZE)
  return out
}

/** Bytes the record takes in front of the file content. */
export function identityRecordLength(identity: FileIdentity): number {
  return encodeIdentity(identity).length
}

function invalidRecord(what: string): FileCipherError {
  return new FileCipherError(
    'damaged',
    `The encrypted file is authentic but its identity record (the file's name and size inside it) is invalid: ${what} Vault Desktop never writes such a file, so nothing of it is released. Get another copy of the file, or report where it came from.`,
    0,
  )
}

/**
 * Reads the record at the start of authenticated plaintext. Returns null when `bytes` is too short to
 * hold it yet (the caller reads on); throws FileCipherError('damaged') when it breaks the rules
 * (`invalidError` words it for where the record sits: a file blob, or a bundle).
 */
export function decodeIdentity(
  bytes: Uint8Array,
  invalidError: (what: string) => FileCipherError = invalidRecord,
): { identity: FileIdentity; length: number } | null {
  const invalid = (what: string): never => {
    throw invalidError(what)
  }
  if (bytes.length < IDENTITY_FIXED_SIZE) return null
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const size = view.getBigUint64(0)
  const pathLength = view.getUint16(8)
  if (size > BigInt(MAX_IDENTITY_SIZE)) invalid(`its size field, ${size}, is beyond 2^53-1.`)
  if (pathLength === 0 || pathLength > MAX_IDENTITY_PATH_BYTES) {
    invalid(`its path is ${pathLength} bytes long; it must be 1 to ${MAX_IDENTITY_PATH_BYTES}.`)
  }
  const length = IDENTITY_FIXED_SIZE + pathLength
  if (bytes.length < length) return null
  let path: string
  try {
    path = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(
      bytes.subarray(IDENTITY_FIXED_SIZE, length),
    )
  } catch {
    return invalid('its path is not valid UTF-8.')
  }
  const problem = checkIdentityPath(path)
  if (problem) invalid(problem)
  return { identity: { path, size: Number(size) }, length }
}

/** The plaintext ended before the record was complete. */
export function identityCutShort(have: number): FileCipherError {
  return invalidRecord(
    `the authenticated content is only ${have} bytes long, too short for the record it must begin with.`,
  )
}
