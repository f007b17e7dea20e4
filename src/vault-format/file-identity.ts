// The identity record that opens the plaintext of a format-3 (and format-2) blob (docs/FORMAT.md,
// 3.7), and that each file of a bundle has (3.9):
//   format 3: size: uint64 || writtenAt: uint64 ms || pathLength: uint16 || path: pathLength bytes of UTF-8
//   format 2: size: uint64 || pathLength: uint16 || path (no write time)
// followed by exactly `size` bytes of file content (integers big-endian). It sits inside the
// authenticated stream, so a service cannot swap or rename two blobs of a vault, nor pass an old copy
// off as new: the name and the owner's write time come from the blob, not from outside.
import { utf8 } from './bytes'
import { FileCipherError } from './format-errors'

export interface FileIdentity {
  /** Relative path inside the vault, '/'-separated, NFC (see checkIdentityPath). */
  path: string
  /** The file's size in bytes. */
  size: number
  /**
   * When the owner's app encrypted this copy (ms since the Unix epoch), sealed in format 3 and bundle
   * version 2. Writers default it to the time of writing; absent in what format 2 and bundle 1 held.
   */
  writtenAtMs?: number
}

/** The identity record's layout: 2 = size, path; 3 = size, write time, path. */
export type IdentityRecordVersion = 2 | 3

export const MAX_IDENTITY_PATH_BYTES = 4096
/** Format 2: size (8 bytes) + path length (2 bytes). */
export const IDENTITY_FIXED_SIZE = 10
/** Format 3: size (8 bytes) + write time (8 bytes) + path length (2 bytes). */
export const IDENTITY_V3_FIXED_SIZE = 18
/** JavaScript numbers are exact up to here; the format caps the size and time fields at it. */
export const MAX_IDENTITY_SIZE = Number.MAX_SAFE_INTEGER

export function identityFixedSize(version: IdentityRecordVersion): number {
  return version === 3 ? IDENTITY_V3_FIXED_SIZE : IDENTITY_FIXED_SIZE
}

/** Null if `ms` can be sealed as a write time (a whole number of ms, 0 .. 2^53-1), else what is wrong. */
export function checkWriteTime(ms: unknown): string | null {
  return Number.isSafeInteger(ms) && (ms as number) >= 0
    ? null
    : `The write time ${String(ms)} is not a whole number of milliseconds since 1970 between 0 and 2^53-1; pass Date.now().`
}

/** The identity with its write time set: its own if it has one, else `now`. */
export function stampWriteTime(identity: FileIdentity, now: number): FileIdentity {
  return identity.writtenAtMs === undefined ? { ...identity, writtenAtMs: now } : identity
}

/**
 * Orders strings as their UTF-8 bytes (that is, by code point), without encoding them: UTF-16 order
 * differs only where a surrogate (U+D800-DFFF, half of a code point above U+FFFF) meets U+E000-FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    if (x === y) continue
    if (x >= 0xd800 && y >= 0xd800) {
      x += x < 0xe000 ? 0x2000 : -0x800
      y += y < 0xe000 ? 0x2000 : -0x800
    }
    return x - y
  }
  return a.length - b.length
}

/**
 * Null if these paths, already in ascending code-point order (compareCodePoints), may be listed
 * together, else why not: a path listed twice, or a path that is also a folder of another path ('a'
 * and 'a/b'). The paths that start with a given path follow it in one run, so a stack of the paths
 * the current one starts with finds a folder in one pass.
 */
export function checkSortedPathSet(sorted: readonly string[]): string | null {
  const within: string[] = []
  for (const path of sorted) {
    while (within.length > 0 && !path.startsWith(within[within.length - 1]!)) within.pop()
    const top = within[within.length - 1]
    if (top === path) return `'${path}' is listed twice; a path may appear only once.`
    if (top !== undefined && path.charCodeAt(top.length) === 0x2f) {
      return `'${top}' is listed as a file and also as a folder of '${path}'; a path cannot be both.`
    }
    within.push(path)
  }
  return null
}

/**
 * Null if these paths may be listed together (in one bundle of version 2, or one manifest), else the
 * sentence saying why not: a path listed twice, or a path that is also a folder of another path
 * ('a' and 'a/b'), which no file system can hold at once. Paths are compared byte for byte.
 */
export function checkPathSet(paths: Iterable<string>): string | null {
  return checkSortedPathSet([...paths].sort(compareCodePoints))
}

// With the u flag, only a surrogate without its pair is a code point of category Cs.
const LONE_SURROGATE = /\p{Cs}/u
// Category Cc: exactly the C0 controls, DEL and the C1 controls (U+0000-U+001F, U+007F-U+009F).
const CONTROL = /\p{Cc}/u
// Category Cn: code points this runtime's Unicode version does not assign. Writers refuse them, so that
// a path's NFC check gives the same answer under every later Unicode version (FORMAT.md 1, NFC).
const UNASSIGNED = /\p{Cn}/u
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

/**
 * The writer's rule beyond checkIdentityPath: no code point unassigned in this runtime's Unicode
 * version. A decryptor does not apply it (its Unicode may be older than the writer's).
 */
export function checkPathWritable(path: string): string | null {
  const unassigned = path.match(UNASSIGNED)
  return unassigned
    ? `The file's path contains ${codePoint(unassigned[0])}, which is not an assigned Unicode character; rename the file or folder.`
    : null
}

/**
 * The record's bytes (format 3 unless told), or FileCipherError('invalid-input') saying why this
 * identity cannot be written. Format 3 needs `writtenAtMs` (see stampWriteTime).
 */
export function encodeIdentity(identity: FileIdentity, version: IdentityRecordVersion = 3): Uint8Array {
  const problem = checkIdentityPath(identity?.path) ?? checkPathWritable(identity.path)
  if (problem) throw new FileCipherError('invalid-input', `${problem} The file was not encrypted.`)
  const { size } = identity
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new FileCipherError(
      'invalid-input',
      `The file size ${size} is not a whole number of bytes between 0 and 2^53-1; pass the size the file system reports.`,
    )
  }
  const timeProblem = version === 3 ? checkWriteTime(identity.writtenAtMs) : null
  if (timeProblem) throw new FileCipherError('invalid-input', `${timeProblem} The file was not encrypted.`)
  const path = utf8(identity.path)
  const fixed = identityFixedSize(version)
  const out = new Uint8Array(fixed + path.length)
  const view = new DataView(out.buffer)
  view.setBigUint64(0, BigInt(size))
  if (version === 3) view.setBigUint64(8, BigInt(identity.writtenAtMs!))
  view.setUint16(fixed - 2, path.length)
  out.set(path, fixed)
  return out
}

/** Bytes the format-3 record takes in front of the file content (the write time does not change it). */
export function identityRecordLength(identity: FileIdentity): number {
  return encodeIdentity({ ...identity, writtenAtMs: identity?.writtenAtMs ?? 0 }).length
}

function invalidRecord(what: string): FileCipherError {
  return new FileCipherError(
    'damaged',
    `The encrypted file is authentic but its identity record (the file's name and size inside it) is invalid: ${what} Vault Desktop never writes such a file, so nothing of it is released. Get another copy of the file, or report where it came from.`,
    0,
  )
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** The path's UTF-8 bytes as text, or null when they are not valid UTF-8. */
export function decodePathBytes(bytes: Uint8Array): string | null {
  try {
    return STRICT_UTF8.decode(bytes)
  } catch {
    return null
  }
}

/**
 * Reads the record (format 3 unless told) at the start of authenticated plaintext. Returns null when
 * `bytes` is too short to hold it yet (the caller reads on); throws FileCipherError('damaged') when it
 * breaks the rules (`invalidError` words it for where the record sits: a file blob, or a bundle).
 */
export function decodeIdentity(
  bytes: Uint8Array,
  invalidError: (what: string) => FileCipherError = invalidRecord,
  version: IdentityRecordVersion = 3,
): { identity: FileIdentity; length: number } | null {
  const invalid = (what: string): never => {
    throw invalidError(what)
  }
  const fixed = identityFixedSize(version)
  if (bytes.length < fixed) return null
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const size = view.getBigUint64(0)
  const writtenAt = version === 3 ? view.getBigUint64(8) : undefined
  const pathLength = view.getUint16(fixed - 2)
  if (size > BigInt(MAX_IDENTITY_SIZE)) invalid(`its size field, ${size}, is beyond 2^53-1.`)
  if (writtenAt !== undefined && writtenAt > BigInt(MAX_IDENTITY_SIZE)) {
    invalid(`its write time, ${writtenAt}, is beyond 2^53-1.`)
  }
  if (pathLength === 0 || pathLength > MAX_IDENTITY_PATH_BYTES) {
    invalid(`its path is ${pathLength} bytes long; it must be 1 to ${MAX_IDENTITY_PATH_BYTES}.`)
  }
  const length = fixed + pathLength
  if (bytes.length < length) return null
  const path = decodePathBytes(bytes.subarray(fixed, length))
  if (path === null) return invalid('its path is not valid UTF-8.')
  const problem = checkIdentityPath(path)
  if (problem) invalid(problem)
  const identity: FileIdentity = { path, size: Number(size) }
  if (writtenAt !== undefined) identity.writtenAtMs = Number(writtenAt)
  return { identity, length }
}

/** The plaintext ended before the record was complete. */
export function identityCutShort(have: number): FileCipherError {
  return invalidRecord(
    `the authenticated content is only ${have} bytes long, too short for the record it must begin with.`,
  )
}
