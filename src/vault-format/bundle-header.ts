// The header of a bundle's plaintext (docs/FORMAT.md, 3.9), written in version 2 and read in both:
//   version 2: writtenAt: uint64 ms || count: uint32 || manifestLength: uint32 ||
//              count format-3 identity records || the embedded manifest blob (manifestLength bytes)
//   version 1: createdAt: uint64 ms || count: uint32 || count format-2 identity records
// then the files' contents, in record order. All records (and the manifest) are read and checked
// before anything of the bundle is released.
import type { BundleFormatVersion } from './file-context'
import {
  checkPathSet,
  decodeIdentity,
  encodeIdentity,
  type FileIdentity,
  identityFixedSize,
  MAX_IDENTITY_PATH_BYTES,
  MAX_IDENTITY_SIZE,
  stampWriteTime,
} from './file-identity'
import { FileCipherError } from './format-errors'
import type { PlaintextReader } from './plaintext-reader'
import type { VaultManifest } from './vault-manifest'

/** The format's limit: a bundle holds 1 to 65536 files. */
export const BUNDLE_FORMAT_MAX_FILES = 65536
/** Version 1: createdAt (uint64) and count (uint32). */
export const BUNDLE_HEADER_FIXED_SIZE = 12
/** Version 2: writtenAt (uint64), count (uint32) and manifestLength (uint32). */
export const BUNDLE_V2_HEADER_FIXED_SIZE = 16
/** The largest embedded manifest blob (the uint32 field); a larger manifest is stored alone. */
export const BUNDLE_MAX_MANIFEST_BYTES = 0xffff_ffff

function describedPath(identity: FileIdentity | undefined): string {
  return typeof identity?.path === 'string' ? `'${identity.path}'` : 'A file'
}

function refuse(what: string): never {
  throw new FileCipherError('invalid-input', `${what} The bundle was not encrypted.`)
}

/**
 * The version-2 header: writtenAt, count, manifestLength and the format-3 records (each file's write
 * time defaults to the bundle's), or FileCipherError('invalid-input') naming the file that cannot be
 * written: a bad path or size, a path listed twice or also a folder of another, no files or too many.
 */
export function encodeBundleHeader(
  writtenAtMs: number,
  files: readonly FileIdentity[],
  manifestLength = 0,
): Uint8Array {
  if (!Number.isSafeInteger(writtenAtMs) || writtenAtMs < 0) {
    refuse(
      `The bundle's date ${writtenAtMs} is not a whole number of milliseconds since 1970; pass Date.now().`,
    )
  }
  if (files.length === 0) refuse('A bundle needs at least one file.')
  if (files.length > BUNDLE_FORMAT_MAX_FILES) {
    refuse(
      `A bundle holds at most ${BUNDLE_FORMAT_MAX_FILES} files, not ${files.length}; split them over several bundles.`,
    )
  }
  if (
    !Number.isSafeInteger(manifestLength) ||
    manifestLength < 0 ||
    manifestLength > BUNDLE_MAX_MANIFEST_BYTES
  ) {
    refuse(`An embedded manifest of ${manifestLength} bytes does not fit a bundle; store it alone.`)
  }
  const records: Uint8Array[] = []
  let length = BUNDLE_V2_HEADER_FIXED_SIZE
  for (const identity of files) {
    let record: Uint8Array
    try {
      record = encodeIdentity(stampWriteTime(identity, writtenAtMs))
    } catch (error) {
      if (!(error instanceof FileCipherError)) throw error
      refuse(
        `${describedPath(identity)} cannot go into a bundle: ${error.message.replace(/ The file was not encrypted\.$/, '')}`,
      )
    }
    records.push(record)
    length += record.length
  }
  const clash = checkPathSet(files.map((file) => file.path))
  if (clash) refuse(`For one bundle: ${clash}`)
  const out = new Uint8Array(length)
  const view = new DataView(out.buffer)
  view.setBigUint64(0, BigInt(writtenAtMs))
  view.setUint32(8, files.length)
  view.setUint32(12, manifestLength)
  let at = BUNDLE_V2_HEADER_FIXED_SIZE
  for (const record of records) {
    out.set(record, at)
    at += record.length
  }
  return out
}

export function invalidBundle(what: string): FileCipherError {
  return new FileCipherError(
    'damaged',
    `The encrypted bundle is authentic but breaks the bundle rules: ${what} Vault Desktop never writes such a bundle, so no file of it is released. Get another copy of it, or report where it came from.`,
    0,
  )
}

export interface BundleHeader {
  /** Version 1: createdAt; version 2: writtenAt. */
  createdAtMs: number
  files: FileIdentity[]
  manifest: VaultManifest | null
}

/**
 * Reads and checks the header, every record and (version 2) the embedded manifest, which
 * `openManifest` decrypts and checks; throws invalidBundle(...) on anything that breaks the rules.
 */
export async function readBundleHeader(
  reader: PlaintextReader,
  version: BundleFormatVersion,
  openManifest: (blob: readonly Uint8Array[]) => Promise<VaultManifest>,
): Promise<BundleHeader> {
  const fixedSize = version === 2 ? BUNDLE_V2_HEADER_FIXED_SIZE : BUNDLE_HEADER_FIXED_SIZE
  const fixed = await reader.readExact(fixedSize)
  if (fixed.length < fixedSize) {
    throw invalidBundle(`its content is only ${fixed.length} bytes long, too short for its header.`)
  }
  const view = new DataView(fixed.buffer, fixed.byteOffset, fixed.byteLength)
  const createdAt = view.getBigUint64(0)
  const count = view.getUint32(8)
  const manifestLength = version === 2 ? view.getUint32(12) : 0
  if (createdAt > BigInt(MAX_IDENTITY_SIZE)) {
    throw invalidBundle(`its date field, ${createdAt}, is beyond 2^53-1.`)
  }
  if (count === 0 || count > BUNDLE_FORMAT_MAX_FILES) {
    throw invalidBundle(`it says it holds ${count} files; a bundle holds 1 to ${BUNDLE_FORMAT_MAX_FILES}.`)
  }
  const recordVersion = version === 2 ? 3 : 2
  const recordFixed = identityFixedSize(recordVersion)
  const files: FileIdentity[] = []
  const paths = new Set<string>()
  let total = 0
  for (let i = 0; i < count; i++) {
    const which = `the record of its file number ${i + 1} of ${count}`
    const fixedPart = await reader.readExact(recordFixed)
    if (fixedPart.length < recordFixed) throw invalidBundle(`its content ends inside ${which}.`)
    const pathLength = new DataView(fixedPart.buffer).getUint16(recordFixed - 2)
    const recordError = (what: string) => invalidBundle(`${which} is invalid: ${what}`)
    // Checked before reading on, so a bad length never makes the reader wait for bytes that are content.
    if (pathLength === 0 || pathLength > MAX_IDENTITY_PATH_BYTES)
      decodeIdentity(fixedPart, recordError, recordVersion)
    const path = await reader.readExact(pathLength)
    if (path.length < pathLength) throw invalidBundle(`its content ends inside ${which}.`)
    const record = new Uint8Array(recordFixed + pathLength)
    record.set(fixedPart)
    record.set(path, recordFixed)
    const { identity } = decodeIdentity(record, recordError, recordVersion)!
    if (paths.has(identity.path)) throw invalidBundle(`the path '${identity.path}' appears twice in it.`)
    paths.add(identity.path)
    total += identity.size
    if (total > MAX_IDENTITY_SIZE) throw invalidBundle('its files add up to more than 2^53-1 bytes.')
    files.push(identity)
  }
  // Version 1 bundles were written without this rule; they are read as they are (FORMAT.md 3.9).
  const clash = version === 2 ? checkPathSet(paths) : null
  if (clash) throw invalidBundle(clash)
  let manifest: VaultManifest | null = null
  if (manifestLength > 0) {
    // Taken as it comes, not allocated up front: a length field alone never reserves memory.
    const blob: Uint8Array[] = []
    for (let got = 0; got < manifestLength; ) {
      const piece = await reader.read(manifestLength - got)
      if (piece.length === 0) throw invalidBundle('its content ends inside its embedded manifest.')
      blob.push(piece.slice())
      got += piece.length
    }
    try {
      manifest = await openManifest(blob)
    } catch (error) {
      if (!(error instanceof FileCipherError)) throw error
      throw invalidBundle(`its embedded manifest does not open: ${error.message}`)
    }
  }
  return { createdAtMs: Number(createdAt), files, manifest }
}
