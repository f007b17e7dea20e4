// Bundles: many small files in one blob, so a folder of small files costs a few uploads, not one per
// file (docs/FORMAT.md, 3.9). A bundle is a plain Cobblestone-256 blob under the files key with its
// own context; its plaintext is a header (bundle-header.ts: the files' identity records with their
// write times, and optionally the vault manifest as an embedded blob, so a backup that uploads a
// bundle pays nothing extra for its manifest), then the files' contents in order, and nothing else.
// Version 2 is written; version 1 (no write times, no manifest) is read. Reading releases each file's
// bytes as their chunks authenticate, so the files before a damaged spot can still be recovered.

import { exactlyAnnounced } from './announced-size'
import {
  BUNDLE_FORMAT_MAX_FILES,
  BUNDLE_HEADER_FIXED_SIZE,
  BUNDLE_MAX_MANIFEST_BYTES,
  BUNDLE_V2_HEADER_FIXED_SIZE,
  encodeBundleHeader,
  readBundleHeader,
} from './bundle-header'
import type { ByteSource } from './byte-queue'
import { CHUNK_SIZE, encryptedLength, MAX_CHUNKS } from './chunked-format'
import { encryptChunked } from './chunked-stream'
import {
  type BundleFormatVersion,
  bundleContext,
  type FileCipherOptions,
  type FileEncryptOptions,
  fileSalt,
} from './file-context'
import type { FileIdentity } from './file-identity'
import { FileCipherError } from './format-errors'
import { PlaintextReader } from './plaintext-reader'
import { StickyIterator } from './sticky-iterator'
import { deriveFilesKey } from './vault-key'
import { decryptManifestBlob, type VaultManifest } from './vault-manifest'

export { BUNDLE_CONTEXT_PREFIX, BUNDLE_CONTEXT_PREFIX_V1, bundleContext } from './file-context'
export {
  BUNDLE_FORMAT_MAX_FILES,
  BUNDLE_HEADER_FIXED_SIZE,
  BUNDLE_MAX_MANIFEST_BYTES,
  BUNDLE_V2_HEADER_FIXED_SIZE,
  encodeBundleHeader,
}

/** Files below this size are bundled by the upload queue (a writer's choice, not a format rule). */
export const BUNDLE_FILE_THRESHOLD = 4 * 1024 * 1024
/** The most files the upload queue puts in one bundle (writer limit). */
export const BUNDLE_MAX_FILES = 4096
/** The most content bytes the upload queue puts in one bundle (writer limit). */
export const BUNDLE_MAX_CONTENT_BYTES = 64 * 1024 * 1024

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

/**
 * The vault manifest to embed in a bundle (version 2): its encrypted blob (encryptManifest), or its
 * exact length now (encryptedManifestLength, which needs only the paths) and the blob when the
 * bundle's stream starts, after the header: by then the files' SHA-256 must be known.
 */
export type EmbeddedManifest = Uint8Array | { length: number; blob: () => Uint8Array | Promise<Uint8Array> }

export interface OpenedBundle {
  kind: 'bundle'
  /** 2 (written now: each file dated, may embed the manifest) or 1 (older). */
  version: BundleFormatVersion
  /**
   * When the bundle was written (ms since the Unix epoch, from the authenticated header: version 1's
   * createdAt, version 2's writtenAt). Each file of version 2 also carries its own writtenAtMs.
   */
  createdAtMs: number
  /** Every file of the bundle, in order, from the authenticated records (checked before this resolves). */
  files: readonly FileIdentity[]
  /** The vault manifest embedded in it (version 2; checked before this resolves), or null. */
  manifest: VaultManifest | null
  /**
   * The files, in order. Asking for the next entry first reads (and authenticates) whatever is left
   * of the current one's body. Throws FileCipherError once the bundle failed, and keeps throwing; call
   * return() to stop early.
   */
  entries: AsyncIterableIterator<BundleEntry>
}

function contentBytes(files: readonly FileIdentity[]): number {
  let total = 0
  for (const file of files) total += file.size
  return total
}

function manifestLengthOf(manifest: EmbeddedManifest | number | undefined): number {
  if (manifest === undefined) return 0
  return typeof manifest === 'number' ? manifest : manifest.length
}

/**
 * Plaintext length P of a bundle (version 2): 16 + sum(18 + pathLength) + manifestLength + sum(size);
 * checks the files like the writer.
 */
export function bundlePlaintextLength(files: readonly FileIdentity[], manifestLength = 0): number {
  const plaintext = encodeBundleHeader(0, files, manifestLength).length + manifestLength + contentBytes(files)
  if (!Number.isSafeInteger(plaintext) || Math.floor(plaintext / CHUNK_SIZE) + 1 > MAX_CHUNKS) {
    throw new FileCipherError(
      'invalid-input',
      `A bundle of ${files.length} files and ${contentBytes(files)} bytes is beyond the format's limit of 4 PiB; split it.`,
    )
  }
  return plaintext
}

/**
 * Exact blob length of a bundle of these files, with an embedded manifest of `manifestLength` bytes
 * (encryptedManifestLength) or none.
 */
export function encryptedBundleLength(entries: readonly FileIdentity[], manifestLength = 0): number {
  return encryptedLength(bundlePlaintextLength(entries, manifestLength))
}

/** The embedded manifest's blob, checked: the announced length, and a manifest of this vault. */
async function manifestBlob(manifest: EmbeddedManifest, opts: FileCipherOptions): Promise<Uint8Array> {
  const blob = manifest instanceof Uint8Array ? manifest : await manifest.blob()
  const refuse = (what: string) =>
    new FileCipherError('invalid-input', `The manifest to embed ${what}; the bundle was not completed.`)
  if (!(blob instanceof Uint8Array) || blob.length !== manifestLengthOf(manifest)) {
    throw refuse(`is not the ${manifestLengthOf(manifest)} bytes announced`)
  }
  try {
    await decryptManifestBlob([blob], opts)
  } catch (error) {
    if (!(error instanceof FileCipherError)) throw error
    throw refuse(`is not a manifest of this vault under this key (${error.message})`)
  }
  return blob
}

/** The header, the embedded manifest, then every file's bytes in order, each exactly its announced size. */
async function* bundlePlaintext(
  header: Uint8Array,
  entries: readonly BundleSourceEntry[],
  manifest: (() => Promise<Uint8Array>) | undefined,
): AsyncGenerator<Uint8Array> {
  yield header
  if (manifest) yield await manifest()
  for (const { identity, content } of entries) {
    // Pieces are passed on at once, never kept: sources may reuse their buffers.
    for await (const piece of exactlyAnnounced(content(), identity, 'the bundle was not completed')) {
      if (piece.length > 0) yield piece
    }
  }
}

/**
 * Encrypts a bundle (version 2) of exactly encryptedBundleLength(identities, manifest length) bytes.
 * `createdAtMs` (default now) is the bundle's write time and that of every file without its own
 * `writtenAtMs`. The files are checked when this is called (FileCipherError('invalid-input') naming
 * the file); the manifest (if any) when the stream starts; each entry's content is opened in turn
 * and must yield exactly identity.size bytes, else the stream fails with
 * FileCipherError('invalid-input') naming the path, before the final chunk.
 */
export function encryptBundleStream(
  entries: readonly BundleSourceEntry[],
  opts: FileEncryptOptions & { createdAtMs?: number; manifest?: EmbeddedManifest },
): AsyncIterableIterator<Uint8Array> {
  const files = entries.map((entry) => entry.identity)
  const manifestLength = manifestLengthOf(opts.manifest)
  bundlePlaintextLength(files, manifestLength)
  const header = encodeBundleHeader(opts.createdAtMs ?? Date.now(), files, manifestLength)
  const filesKey = deriveFilesKey(opts.vaultKey)
  const { manifest } = opts
  const embed = manifest && manifestLength > 0 ? () => manifestBlob(manifest, opts) : undefined
  return encryptChunked(bundlePlaintext(header, [...entries], embed), {
    inputKey: filesKey,
    wipeInputKey: true,
    context: bundleContext(opts.vaultId, 2),
    salt: fileSalt(filesKey, opts.saltPrefix),
    backend: opts.backend,
    batchRunner: opts.batchRunner,
  })
}

function wrongLength(identity: FileIdentity, what: string): FileCipherError {
  return new FileCipherError(
    'damaged',
    `The encrypted bundle is authentic but ${what} while its records announce ${identity.size} bytes for '${identity.path}': it was not written by a correct Vault Desktop. '${identity.path}' and the files after it are not released; do not trust this copy, get another one.`,
  )
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
 * header, every record and the embedded manifest were read and checked; rejects with
 * FileCipherError('damaged') if they break the rules, having released nothing.
 */
export async function readBundle(
  plaintext: AsyncIterableIterator<Uint8Array>,
  version: BundleFormatVersion,
  opts: FileCipherOptions,
): Promise<OpenedBundle> {
  const reader = new PlaintextReader(plaintext)
  const { createdAtMs, files, manifest } = await readBundleHeader(reader, version, (blob) =>
    decryptManifestBlob(blob, opts),
  )
  return {
    kind: 'bundle',
    version,
    createdAtMs,
    files,
    manifest,
    entries: new StickyIterator(entryIterator(reader, files, async () => plaintext.return?.())),
  }
}
