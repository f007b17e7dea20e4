// Bundles: many small files in one blob, so a folder of small files costs a few uploads, not one per
// file (docs/FORMAT.md, 3.9). A bundle is a plain Cobblestone-256 blob under the files key with its
// own context; its plaintext is
//   createdAt: uint64 ms || count: uint32 || count identity records (3.7) || the contents, in order
// and nothing else. Reading releases each file's bytes as their chunks authenticate, so the files
// before a damaged spot can still be recovered; the records are all read and checked first.
import { asBytes, type ByteSource } from './byte-queue'
import { CHUNK_SIZE, encryptedLength, MAX_CHUNKS } from './chunked-format'
import { encryptChunked } from './chunked-stream'
import { bundleContext, type FileEncryptOptions, fileSalt } from './file-context'
import {
  decodeIdentity,
  encodeIdentity,
  type FileIdentity,
  IDENTITY_FIXED_SIZE,
  MAX_IDENTITY_PATH_BYTES,
  MAX_IDENTITY_SIZE,
} from './file-identity'
import { FileCipherError } from './format-errors'
import { StickyIterator } from './sticky-iterator'
import { deriveFilesKey } from './vault-key'

export { BUNDLE_CONTEXT_PREFIX, bundleContext } from './file-context'

/** Files below this size are bundled by the upload queue (a writer's choice, not a format rule). */
export const BUNDLE_FILE_THRESHOLD = 4 * 1024 * 1024
/** The most files the upload queue puts in one bundle (writer limit). */
export const BUNDLE_MAX_FILES = 4096
/** The most content bytes the upload queue puts in one bundle (writer limit). */
export const BUNDLE_MAX_CONTENT_BYTES = 64 * 1024 * 1024
/** The format's limit: a bundle holds 1 to 65536 files. */
export const BUNDLE_FORMAT_MAX_FILES = 65536
/** createdAt (uint64) and count (uint32). */
export const BUNDLE_HEADER_FIXED_SIZE = 12

export interface BundleSourceEntry {
  identity: FileIdentity
  /** Opened when the bundle reaches this file (in order), not before; must yield exactly identity.size bytes. */
  content: () => ByteSource
}

export interface BundleEntry {
  /** Position in the bundle, 0-based (the order of OpenedBundle.files). */
  index: number
  identity: FileIdentity
  /**
   * Exactly identity.size bytes, each released only after its chunk authenticated; ends cleanly only
   * when all of them came (for the last file: and the bundle ended right after it). Throws
   * FileCipherError on any failure, and keeps throwing. A piece is valid until the next is read.
   */
  body: AsyncIterableIterator<Uint8Array>
}

export interface OpenedBundle {
  kind: 'bundle'
  /** When the bundle was written (ms since the Unix epoch, from the authenticated header). */
  createdAtMs: number
  /** Every file of the bundle, in order, from the authenticated records (checked before this resolves). */
  files: readonly FileIdentity[]
  /**
   * The files, in order. Asking for the next entry first reads (and authenticates) whatever is left
   * of the current one's body. Throws FileCipherError once the bundle failed, and keeps throwing; call
   * return() to stop early.
   */
  entries: AsyncIterableIterator<BundleEntry>
}

function describedPath(identity: FileIdentity | undefined): string {
  return typeof identity?.path === 'string' ? `'${identity.path}'` : 'A file'
}

/**
 * The bundle's header (createdAt, count and the records), or FileCipherError('invalid-input') naming
 * the file that cannot be written: a bad path or size, a repeated path, no files or too many.
 */
export function encodeBundleHeader(createdAtMs: number, files: readonly FileIdentity[]): Uint8Array {
  if (!Number.isSafeInteger(createdAtMs) || createdAtMs < 0) {
    throw new FileCipherError(
      'invalid-input',
      `The bundle's date ${createdAtMs} is not a whole number of milliseconds since 1970; pass Date.now().`,
    )
  }
  if (files.length === 0) {
    throw new FileCipherError('invalid-input', 'A bundle needs at least one file; nothing was encrypted.')
  }
  if (files.length > BUNDLE_FORMAT_MAX_FILES) {
    throw new FileCipherError(
      'invalid-input',
      `A bundle holds at most ${BUNDLE_FORMAT_MAX_FILES} files, not ${files.length}; split them over several bundles.`,
    )
  }
  const records: Uint8Array[] = []
  const seen = new Set<string>()
  let length = BUNDLE_HEADER_FIXED_SIZE
  for (const identity of files) {
    let record: Uint8Array
    try {
      record = encodeIdentity(identity)
    } catch (error) {
      if (!(error instanceof FileCipherError)) throw error
      throw new FileCipherError(
        'invalid-input',
        `${describedPath(identity)} cannot go into a bundle: ${error.message.replace(/ The file was not encrypted\.$/, '')} The bundle was not encrypted.`,
      )
    }
    if (seen.has(identity.path)) {
      throw new FileCipherError(
        'invalid-input',
        `'${identity.path}' is listed twice for one bundle; a path may appear only once in a bundle. The bundle was not encrypted.`,
      )
    }
    seen.add(identity.path)
    records.push(record)
    length += record.length
  }
  const out = new Uint8Array(length)
  const view = new DataView(out.buffer)
  view.setBigUint64(0, BigInt(createdAtMs))
  view.setUint32(8, files.length)
  let at = BUNDLE_HEADER_FIXED_SIZE
  for (const record of records) {
    out.set(record, at)
    at += record.length
  }
  return out
}

function contentBytes(files: readonly FileIdentity[]): number {
  let total = 0
  for (const file of files) total += file.size
  return total
}

/** Plaintext length P of a bundle: 12 + sum(10 + pathLength) + sum(size); checks the files like the writer. */
export function bundlePlaintextLength(files: readonly FileIdentity[]): number {
  const plaintext = encodeBundleHeader(0, files).length + contentBytes(files)
  if (!Number.isSafeInteger(plaintext) || Math.floor(plaintext / CHUNK_SIZE) + 1 > MAX_CHUNKS) {
    throw new FileCipherError(
      'invalid-input',
      `A bundle of ${files.length} files and ${contentBytes(files)} bytes is beyond the format's limit of 4 PiB; split it.`,
    )
  }
  return plaintext
}

/** Exact blob length of a bundle of these files. */
export function encryptedBundleLength(entries: readonly FileIdentity[]): number {
  return encryptedLength(bundlePlaintextLength(entries))
}

/** The header, then every file's bytes in order, each exactly its announced size. */
async function* bundlePlaintext(
  header: Uint8Array,
  entries: readonly BundleSourceEntry[],
): AsyncGenerator<Uint8Array> {
  yield header
  for (const { identity, content } of entries) {
    let seen = 0
    // Pieces are passed on at once, never kept: sources may reuse their buffers.
    for await (const raw of content()) {
      const piece = asBytes(raw)
      seen += piece.length
      if (seen > identity.size) {
        throw new FileCipherError(
          'invalid-input',
          `'${identity.path}' has more than the ${identity.size} bytes announced (it grew while being read?); the bundle was not completed. Try again once the file is no longer changing.`,
        )
      }
      if (piece.length > 0) yield piece
    }
    // Thrown before the final chunk is sealed, so no complete bundle with a wrong size ever exists.
    if (seen !== identity.size) {
      throw new FileCipherError(
        'invalid-input',
        `'${identity.path}' ended after ${seen} of the ${identity.size} bytes announced (it shrank while being read?); the bundle was not completed. Try again once the file is no longer changing.`,
      )
    }
  }
}

/**
 * Encrypts a bundle of exactly encryptedBundleLength(identities) bytes. The files are checked when
 * this is called (FileCipherError('invalid-input') naming the file); each entry's content is opened
 * in turn and must yield exactly identity.size bytes, else the stream fails with
 * FileCipherError('invalid-input') naming the path, before the final chunk.
 */
export function encryptBundleStream(
  entries: readonly BundleSourceEntry[],
  opts: FileEncryptOptions & { createdAtMs?: number },
): AsyncIterableIterator<Uint8Array> {
  const files = entries.map((entry) => entry.identity)
  bundlePlaintextLength(files)
  const header = encodeBundleHeader(opts.createdAtMs ?? Date.now(), files)
  const filesKey = deriveFilesKey(opts.vaultKey)
  return encryptChunked(bundlePlaintext(header, [...entries]), {
    inputKey: filesKey,
    context: bundleContext(opts.vaultId),
    salt: fileSalt(filesKey, opts.saltPrefix),
    backend: opts.backend,
    batchRunner: opts.batchRunner,
  })
}

const EMPTY = new Uint8Array(0)

/** Reads authenticated plaintext by the byte count, whatever the pieces it comes in. */
class PlaintextReader {
  private piece: Uint8Array = EMPTY
  private at = 0
  private ended = false

  constructor(private readonly inner: AsyncIterator<Uint8Array>) {}

  /** Whether the plaintext ended (reads on if nothing is buffered). */
  async atEnd(): Promise<boolean> {
    while (this.at >= this.piece.length && !this.ended) {
      const step = await this.inner.next()
      if (step.done) this.ended = true
      else {
        this.piece = step.value
        this.at = 0
      }
    }
    return this.at >= this.piece.length
  }

  /** Up to `max` bytes as a view, valid until the next read; empty only at the end. */
  async read(max: number): Promise<Uint8Array> {
    if (await this.atEnd()) return EMPTY
    const n = Math.min(max, this.piece.length - this.at)
    const view = this.piece.subarray(this.at, this.at + n)
    this.at += n
    return view
  }

  /** Exactly n bytes in a buffer of their own, or fewer if the plaintext ends first. */
  async readExact(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n)
    let filled = 0
    while (filled < n) {
      const view = await this.read(n - filled)
      if (view.length === 0) return out.subarray(0, filled)
      out.set(view, filled)
      filled += view.length
    }
    return out
  }
}

function invalidBundle(what: string): FileCipherError {
  return new FileCipherError(
    'damaged',
    `The encrypted bundle is authentic but breaks the bundle rules: ${what} Vault Desktop never writes such a bundle, so no file of it is released. Get another copy of it, or report where it came from.`,
    0,
  )
}

function wrongLength(identity: FileIdentity, what: string): FileCipherError {
  return new FileCipherError(
    'damaged',
    `The encrypted bundle is authentic but ${what} while its records announce ${identity.size} bytes for '${identity.path}': it was not written by a correct Vault Desktop. '${identity.path}' and the files after it are not released; do not trust this copy, get another one.`,
  )
}

async function readHeader(reader: PlaintextReader): Promise<{ createdAtMs: number; files: FileIdentity[] }> {
  const fixed = await reader.readExact(BUNDLE_HEADER_FIXED_SIZE)
  if (fixed.length < BUNDLE_HEADER_FIXED_SIZE) {
    throw invalidBundle(`its content is only ${fixed.length} bytes long, too short for its header.`)
  }
  const view = new DataView(fixed.buffer, fixed.byteOffset, fixed.byteLength)
  const createdAt = view.getBigUint64(0)
  const count = view.getUint32(8)
  if (createdAt > BigInt(MAX_IDENTITY_SIZE)) {
    throw invalidBundle(`its date field, ${createdAt}, is beyond 2^53-1.`)
  }
  if (count === 0 || count > BUNDLE_FORMAT_MAX_FILES) {
    throw invalidBundle(`it says it holds ${count} files; a bundle holds 1 to ${BUNDLE_FORMAT_MAX_FILES}.`)
  }
  const files: FileIdentity[] = []
  const paths = new Set<string>()
  let total = 0
  for (let i = 0; i < count; i++) {
    const which = `the record of its file number ${i + 1} of ${count}`
    const fixedPart = await reader.readExact(IDENTITY_FIXED_SIZE)
    if (fixedPart.length < IDENTITY_FIXED_SIZE) throw invalidBundle(`its content ends inside ${which}.`)
    const pathLength = new DataView(fixedPart.buffer).getUint16(8)
    const recordError = (what: string) => invalidBundle(`${which} is invalid: ${what}`)
    // Checked before reading on, so a bad length never makes the reader wait for bytes that are content.
    if (pathLength === 0 || pathLength > MAX_IDENTITY_PATH_BYTES) decodeIdentity(fixedPart, recordError)
    const path = await reader.readExact(pathLength)
    if (path.length < pathLength) throw invalidBundle(`its content ends inside ${which}.`)
    const record = new Uint8Array(IDENTITY_FIXED_SIZE + pathLength)
    record.set(fixedPart)
    record.set(path, IDENTITY_FIXED_SIZE)
    const { identity } = decodeIdentity(record, recordError)!
    if (paths.has(identity.path)) throw invalidBundle(`the path '${identity.path}' appears twice in it.`)
    paths.add(identity.path)
    total += identity.size
    if (total > MAX_IDENTITY_SIZE) throw invalidBundle('its files add up to more than 2^53-1 bytes.')
    files.push(identity)
  }
  return { createdAtMs: Number(createdAt), files }
}

/** One file's bytes: exactly its size, then (for the last file) the end of the bundle. */
async function* entryBody(
  reader: PlaintextReader,
  identity: FileIdentity,
  last: boolean,
): AsyncGenerator<Uint8Array> {
  let left = identity.size
  while (left > 0) {
    let piece = await reader.read(left)
    if (piece.length === 0) {
      throw wrongLength(identity, `its content ends ${left} bytes before the end of '${identity.path}'`)
    }
    left -= piece.length
    if (last && left === 0) {
      // The last file's final piece waits for the bundle's end to authenticate; copied, because
      // reading on may reuse the buffer it lies in.
      piece = piece.slice()
      if (!(await reader.atEnd())) throw wrongLength(identity, 'more bytes follow its last file')
    }
    yield piece
  }
  if (last && identity.size === 0 && !(await reader.atEnd())) {
    throw wrongLength(identity, 'more bytes follow its last file')
  }
}

async function* entryIterator(
  reader: PlaintextReader,
  files: readonly FileIdentity[],
  release: () => Promise<unknown>,
): AsyncGenerator<BundleEntry> {
  try {
    for (const [index, identity] of files.entries()) {
      const body = new StickyIterator(entryBody(reader, identity, index === files.length - 1))
      yield { index, identity, body }
      // Whatever the caller left unread is read now: the next file starts after it.
      for (;;) if ((await body.next()).done) break
    }
  } finally {
    await release()
  }
}

/**
 * Reads a bundle from its authenticated plaintext (as decryptChunked releases it). Resolves once the
 * header and every record were read and checked; rejects with FileCipherError('damaged') if they
 * break the rules, having released nothing.
 */
export async function readBundle(plaintext: AsyncIterableIterator<Uint8Array>): Promise<OpenedBundle> {
  const reader = new PlaintextReader(plaintext)
  const { createdAtMs, files } = await readHeader(reader)
  return {
    kind: 'bundle',
    createdAtMs,
    files,
    entries: new StickyIterator(entryIterator(reader, files, async () => plaintext.return?.())),
  }
}
