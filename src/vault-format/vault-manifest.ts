// The vault manifest (docs/FORMAT.md, 3.10): an encrypted, sequence-numbered list of the vault's
// current files (path, size, content SHA-256, write time), so that recovery knows which copy of each
// file is the current one and which files are missing, whatever a service or a gateway hands over.
// It is a Cobblestone-256 blob under the files key with its own context, so its commitment tells it
// from a file or a bundle; it is stored alone, or embedded in a bundle of version 2 (file-bundle.ts).
// Plaintext (integers big-endian):
//   sequence: uint64 || writtenAt: uint64 ms || count: uint32 || count entries, paths ascending:
//   size: uint64 || writtenAt: uint64 || sha256: 32 bytes || shared: uint16 || suffixLength: uint16 || suffix
// where a path is the previous path's first `shared` bytes (their longest common prefix) then the suffix.

import type { ByteSource } from './byte-queue'
import { encryptedLength } from './chunked-format'
import { collectBytes, decryptChunked, encryptChunked } from './chunked-stream'
import { type FileCipherOptions, type FileEncryptOptions, fileSalt, manifestContext } from './file-context'
import {
  checkIdentityPath,
  checkPathWritable,
  checkSortedPathSet,
  checkWriteTime,
  compareCodePoints,
  decodePathBytes,
  MAX_IDENTITY_PATH_BYTES,
} from './file-identity'
import { FileCipherError } from './format-errors'
import { deriveFilesKey } from './vault-key'

/** The most files one manifest lists (a format rule: a decryptor rejects more). */
export const MANIFEST_MAX_ENTRIES = 1_000_000
/** sequence (8), writtenAt (8), count (4). */
export const MANIFEST_HEADER_SIZE = 20
/** size (8), writtenAt (8), sha256 (32), shared (2), suffixLength (2); the suffix follows. */
export const MANIFEST_ENTRY_FIXED_SIZE = 52

/** One file the vault holds now. */
export interface ManifestEntry {
  /** Relative path, under the identity record's path rules (FORMAT.md 3.7). */
  path: string
  /** Size in bytes. */
  size: number
  /** SHA-256 of the file's content, 64 lowercase hex digits. */
  sha256: string
  /**
   * The write time sealed in the copy this entry stands for (ms since the Unix epoch), at most the
   * manifest's own.
   */
  writtenAtMs: number
}

/** The list of a vault's current files at one moment. */
export interface VaultManifest {
  /** 1 .. 2^53-1, strictly increasing per vault: the highest one is the current list. */
  sequence: number
  /** When the owner's app wrote this manifest (ms since the Unix epoch). */
  writtenAtMs: number
  /** The files, in ascending order of their paths' UTF-8 bytes (decoding gives them so). */
  entries: readonly ManifestEntry[]
}

const SHA256_HEX = /^[0-9a-f]{64}$/
const ENCODER = new TextEncoder()
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'))

/** The 32 bytes at `at` as 64 lowercase hex digits. */
function hexAt(bytes: Uint8Array, at: number): string {
  let out = ''
  for (let i = at; i < at + 32; i++) out += HEX[bytes[i]!]
  return out
}

// uint64 fields without a BigInt per field (a manifest may hold a million entries).
/** The uint64 at `at` as a number, or -1 when it is beyond 2^53-1 (the format's limit). */
function readU64(view: DataView, at: number): number {
  const high = view.getUint32(at)
  return high >= 0x20_0000 ? -1 : high * 2 ** 32 + view.getUint32(at + 4)
}

function writeU64(view: DataView, at: number, value: number): void {
  view.setUint32(at, Math.floor(value / 2 ** 32))
  view.setUint32(at + 4, value >>> 0)
}

function hexDigit(code: number): number {
  return code <= 0x39 ? code - 0x30 : code - 0x57
}

function commonPrefix(a: Uint8Array, b: Uint8Array, aLength = a.length, bLength = b.length): number {
  const n = Math.min(aLength, bLength)
  let i = 0
  while (i < n && a[i] === b[i]) i++
  return i
}

function refuse(what: string): never {
  throw new FileCipherError('invalid-input', `${what} The manifest was not written.`)
}

/** The paths as UTF-8, in the manifest's order (ascending bytes), each checked like an identity path. */
function sortedPaths(paths: readonly string[]): { path: string; bytes: Uint8Array; at: number }[] {
  if (paths.length > MANIFEST_MAX_ENTRIES) {
    refuse(`A manifest lists at most ${MANIFEST_MAX_ENTRIES} files, not ${paths.length}.`)
  }
  for (const path of paths) {
    const wrong = checkIdentityPath(path) ?? checkPathWritable(path)
    if (wrong) refuse(`'${String(path)}': ${wrong}`)
  }
  const order = paths.map((path, at) => ({ path, at })).sort((a, b) => compareCodePoints(a.path, b.path))
  const problem = checkSortedPathSet(order.map((o) => o.path))
  if (problem) refuse(problem)
  return order.map(({ path, at }) => ({ path, bytes: ENCODER.encode(path), at }))
}

function lengthOf(sorted: readonly { bytes: Uint8Array }[]): number {
  let length = MANIFEST_HEADER_SIZE
  let previous: Uint8Array = new Uint8Array(0)
  for (const { bytes } of sorted) {
    length += MANIFEST_ENTRY_FIXED_SIZE + bytes.length - commonPrefix(previous, bytes)
    previous = bytes
  }
  return length
}

/** Plaintext length of a manifest of these paths (sizes, hashes and times do not change it). */
export function manifestPlaintextLength(paths: readonly string[]): number {
  return lengthOf(sortedPaths(paths))
}

/**
 * Exact length of the manifest blob for these paths: what it costs to store alone, and the
 * `manifest.length` to give encryptBundleStream for one embedded in a bundle. Known before any
 * file is hashed.
 */
export function encryptedManifestLength(paths: readonly string[]): number {
  return encryptedLength(manifestPlaintextLength(paths))
}

/**
 * The manifest's plaintext (FORMAT.md 3.10), entries sorted by path. Throws
 * FileCipherError('invalid-input') naming what cannot be written: a sequence or time out of range,
 * a path breaking the identity rules, listed twice or also a folder of another path, a bad size or
 * hash, more than MANIFEST_MAX_ENTRIES files.
 */
export function encodeManifest(manifest: VaultManifest): Uint8Array {
  const { sequence, writtenAtMs, entries } = manifest
  if (!Number.isSafeInteger(sequence) || sequence < 1) {
    refuse(`The manifest's sequence number ${sequence} is not a whole number from 1 to 2^53-1.`)
  }
  const timeProblem = checkWriteTime(writtenAtMs)
  if (timeProblem) refuse(timeProblem)
  const sorted = sortedPaths(entries.map((entry) => entry.path))
  const out = new Uint8Array(lengthOf(sorted))
  const view = new DataView(out.buffer)
  writeU64(view, 0, sequence)
  writeU64(view, 8, writtenAtMs)
  view.setUint32(16, sorted.length)
  let at = MANIFEST_HEADER_SIZE
  let previous: Uint8Array = new Uint8Array(0)
  for (const { path, bytes, at: index } of sorted) {
    const entry = entries[index]!
    if (!Number.isSafeInteger(entry.size) || entry.size < 0) {
      refuse(`'${path}' has the size ${entry.size}, not a whole number of bytes from 0 to 2^53-1.`)
    }
    const entryTime = checkWriteTime(entry.writtenAtMs)
    if (entryTime) refuse(`'${path}': ${entryTime}`)
    if (entry.writtenAtMs > writtenAtMs) {
      refuse(`'${path}' was written at ${entry.writtenAtMs}, after the manifest itself (${writtenAtMs}).`)
    }
    if (typeof entry.sha256 !== 'string' || !SHA256_HEX.test(entry.sha256)) {
      refuse(`'${path}' has no SHA-256 of 64 lowercase hex digits.`)
    }
    const shared = commonPrefix(previous, bytes)
    writeU64(view, at, entry.size)
    writeU64(view, at + 8, entry.writtenAtMs)
    const hex = entry.sha256
    for (let i = 0; i < 32; i++) {
      out[at + 16 + i] = (hexDigit(hex.charCodeAt(2 * i)) << 4) | hexDigit(hex.charCodeAt(2 * i + 1))
    }
    view.setUint16(at + 48, shared)
    view.setUint16(at + 50, bytes.length - shared)
    out.set(bytes.subarray(shared), at + MANIFEST_ENTRY_FIXED_SIZE)
    at += MANIFEST_ENTRY_FIXED_SIZE + bytes.length - shared
    previous = bytes
  }
  return out
}

function invalidManifest(what: string): FileCipherError {
  return new FileCipherError(
    'damaged',
    `The vault's manifest (its list of files) is authentic but breaks the manifest rules: ${what} Vault Desktop never writes such a manifest, so none of it is used. Recover with the other manifests or without one, and report where this copy came from.`,
    0,
  )
}

/**
 * Reads a manifest's authenticated plaintext; throws FileCipherError('damaged') if it breaks any rule
 * of FORMAT.md 3.10 (then nothing of it may be used).
 */
export function decodeManifest(plaintext: Uint8Array): VaultManifest {
  if (plaintext.length < MANIFEST_HEADER_SIZE) {
    throw invalidManifest(`it is ${plaintext.length} bytes long, too short for its header.`)
  }
  const view = new DataView(plaintext.buffer, plaintext.byteOffset, plaintext.byteLength)
  const sequence = readU64(view, 0)
  const writtenAt = readU64(view, 8)
  const count = view.getUint32(16)
  if (sequence < 1) throw invalidManifest(`its sequence number ${view.getBigUint64(0)} is not 1 to 2^53-1.`)
  if (writtenAt < 0) throw invalidManifest(`its write time ${view.getBigUint64(8)} is beyond 2^53-1.`)
  if (count > MANIFEST_MAX_ENTRIES) {
    throw invalidManifest(`it says it lists ${count} files; the limit is ${MANIFEST_MAX_ENTRIES}.`)
  }
  const entries: ManifestEntry[] = []
  let at = MANIFEST_HEADER_SIZE
  // The previous and the current path's bytes, in two buffers that trade places (no garbage per entry).
  let previous = new Uint8Array(MAX_IDENTITY_PATH_BYTES)
  let current = new Uint8Array(MAX_IDENTITY_PATH_BYTES)
  let previousLength = 0
  for (let i = 0; i < count; i++) {
    // Worded only when something is wrong: no string per entry otherwise.
    const which = () => `entry ${i + 1} of ${count}`
    if (plaintext.length - at < MANIFEST_ENTRY_FIXED_SIZE) throw invalidManifest(`it ends inside ${which()}.`)
    const size = readU64(view, at)
    const entryTime = readU64(view, at + 8)
    if (size < 0) throw invalidManifest(`${which()} has the size ${view.getBigUint64(at)}, beyond 2^53-1.`)
    if (entryTime < 0 || entryTime > writtenAt) {
      throw invalidManifest(
        `${which()} has the write time ${view.getBigUint64(at + 8)}, after the manifest's own (${writtenAt}).`,
      )
    }
    const sha256 = hexAt(plaintext, at + 16)
    const shared = view.getUint16(at + 48)
    const suffixLength = view.getUint16(at + 50)
    at += MANIFEST_ENTRY_FIXED_SIZE
    if (shared > previousLength || suffixLength === 0 || shared + suffixLength > MAX_IDENTITY_PATH_BYTES) {
      throw invalidManifest(
        `${which()} shares ${shared} bytes with a ${previousLength}-byte path and adds ${suffixLength}; a path is 1 to ${MAX_IDENTITY_PATH_BYTES} bytes and longer than what it shares.`,
      )
    }
    if (plaintext.length - at < suffixLength) throw invalidManifest(`it ends inside ${which()}.`)
    const length = shared + suffixLength
    for (let k = 0; k < shared; k++) current[k] = previous[k]!
    for (let k = 0; k < suffixLength; k++) current[shared + k] = plaintext[at + k]!
    at += suffixLength
    const common = commonPrefix(previous, current, previousLength, length)
    if (common !== shared) {
      throw invalidManifest(
        `${which()} says it shares ${shared} bytes with the path before it, which is not their common prefix.`,
      )
    }
    // Past the common prefix, the next byte decides; a path equal to or a prefix of the previous one is out of order.
    if (i > 0 && (common === length || (common < previousLength && current[common]! < previous[common]!))) {
      throw invalidManifest(`${which()} is not in ascending order of paths.`)
    }
    const path = decodePathBytes(current.subarray(0, length))
    if (path === null) throw invalidManifest(`the path of ${which()} is not valid UTF-8.`)
    const problem = checkIdentityPath(path)
    if (problem) throw invalidManifest(`the path of ${which()} is invalid: ${problem}`)
    entries.push({ path, size: Number(size), sha256, writtenAtMs: Number(entryTime) })
    ;[previous, current] = [current, previous]
    previousLength = length
  }
  if (at !== plaintext.length) {
    throw invalidManifest(`${plaintext.length - at} bytes follow its last entry.`)
  }
  const folders = checkSortedPathSet(entries.map((entry) => entry.path))
  if (folders) throw invalidManifest(folders)
  return { sequence: Number(sequence), writtenAtMs: Number(writtenAt), entries }
}

/**
 * Encrypts a manifest as a blob of its own (context "vault-desktop/manifest/v1" || 0x00 || vault id,
 * under the files key): stored alone, or embedded in a bundle (encryptBundleStream's `manifest`).
 * Throws what encodeManifest throws.
 */
export async function encryptManifest(
  manifest: VaultManifest,
  opts: FileEncryptOptions,
): Promise<Uint8Array> {
  const plaintext = encodeManifest(manifest)
  const filesKey = deriveFilesKey(opts.vaultKey)
  return collectBytes(
    encryptChunked([plaintext], {
      inputKey: filesKey,
      wipeInputKey: true,
      context: manifestContext(opts.vaultId),
      salt: fileSalt(filesKey, opts.saltPrefix),
      backend: opts.backend,
      batchRunner: opts.batchRunner,
    }),
  )
}

/**
 * Decrypts a blob that must be a manifest (an embedded one: the bundle said so); throws
 * FileCipherError when it does not authenticate under the manifest context or breaks the rules.
 * To open a blob of unknown kind, use openVaultBlob (file-cipher.ts).
 */
export async function decryptManifestBlob(blob: ByteSource, opts: FileCipherOptions): Promise<VaultManifest> {
  const plaintext = await collectBytes(
    decryptChunked(blob, {
      inputKey: deriveFilesKey(opts.vaultKey),
      wipeInputKey: true,
      context: manifestContext(opts.vaultId),
      backend: opts.backend,
      batchRunner: opts.batchRunner,
    }),
  )
  return decodeManifest(plaintext)
}

function sameManifest(a: VaultManifest, b: VaultManifest): boolean {
  if (a.sequence !== b.sequence || a.writtenAtMs !== b.writtenAtMs || a.entries.length !== b.entries.length) {
    return false
  }
  return a.entries.every((entry, i) => {
    const other = b.entries[i]!
    return (
      entry.path === other.path &&
      entry.size === other.size &&
      entry.sha256 === other.sha256 &&
      entry.writtenAtMs === other.writtenAtMs
    )
  })
}

/** Which of the manifests found is the vault's current list (newestManifest). */
export interface ManifestChoice<T> {
  /** The manifest to recover by; null when none was found. */
  chosen: T | null
  /** Other copies of exactly the chosen manifest (stored alone and embedded, say). */
  copies: T[]
  /**
   * Different manifests with the chosen one's sequence number (two devices, or a faulty writer): the
   * report must name them, since the choice among them rests on their write times alone.
   */
  rivals: T[]
  /** Manifests with a lower sequence number: superseded, not errors. */
  older: T[]
}

/**
 * Given the manifests that decrypted (from blobs whose commitment said "manifest", and from bundles
 * of version 2 that embed one), picks the one recovery trusts (FORMAT.md 3.10, "Choosing"): the
 * highest sequence number; among different manifests with that number, the latest write time; then
 * the first given. The order given matters only in that last case.
 */
export function newestManifest<T extends { manifest: VaultManifest }>(
  found: readonly T[],
): ManifestChoice<T> {
  let chosen: T | null = null
  for (const item of found) {
    const { sequence, writtenAtMs } = item.manifest
    if (
      !chosen ||
      sequence > chosen.manifest.sequence ||
      (sequence === chosen.manifest.sequence && writtenAtMs > chosen.manifest.writtenAtMs)
    ) {
      chosen = item
    }
  }
  const choice: ManifestChoice<T> = { chosen, copies: [], rivals: [], older: [] }
  if (!chosen) return choice
  for (const item of found) {
    if (item === chosen) continue
    if (item.manifest.sequence < chosen.manifest.sequence) choice.older.push(item)
    else if (sameManifest(item.manifest, chosen.manifest)) choice.copies.push(item)
    else choice.rivals.push(item)
  }
  return choice
}
