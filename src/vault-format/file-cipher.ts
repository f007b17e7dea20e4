// File encryption for a vault: Cobblestone-256 under the vault's files key, with a context that binds
// every blob to a format version and to the vault id. No extra header: the blob is a plain Cobblestone
// ciphertext. Format 3 (written now) starts its plaintext with the file's identity record (size, the
// owner's write time and path), so the blob also says which file it is and when it was written;
// format 2 (no write time) and format 1 (no record) still decrypt. Bundles (many small files in one
// blob, file-bundle.ts) and vault manifests (vault-manifest.ts) are opened here too. The version and
// kind are told by which context's commitment matches (docs/FORMAT.md, 3.6).
import { exactlyAnnounced } from './announced-size'
import type { ByteSource } from './byte-queue'
import { concatBytes, equalBytes } from './bytes'
import { CHUNK_SIZE, encryptedLength, MAX_CHUNKS, SALT_SIZE } from './chunked-format'
import { collectBytes, decryptChunked, encryptChunked } from './chunked-stream'
import { type OpenedBundle, readBundle } from './file-bundle'
import {
  bundleContext,
  type FileCipherOptions,
  type FileEncryptOptions,
  type FileFormatVersion,
  fileContext,
  fileSalt,
  manifestContext,
} from './file-context'
import {
  checkIdentityPath,
  decodeIdentity,
  encodeIdentity,
  type FileIdentity,
  identityCutShort,
  identityRecordLength,
  stampWriteTime,
} from './file-identity'
import { FileCipherError } from './format-errors'
import { StickyIterator } from './sticky-iterator'
import { deriveFilesKey, saltCheck } from './vault-key'
import { decodeManifest, type VaultManifest } from './vault-manifest'

export {
  BUNDLE_CONTEXT_PREFIX,
  ENCRYPTED_FILE_SUFFIX,
  FILE_CONTEXT_PREFIX,
  FILE_CONTEXT_PREFIX_V1,
  FILE_CONTEXT_PREFIX_V2,
  type FileCipherOptions,
  type FileEncryptOptions,
  type FileFormatVersion,
  fileContext,
  fileSalt,
  MANIFEST_CONTEXT_PREFIX,
  MAX_VAULT_ID_BYTES,
  vaultIdBytes,
} from './file-context'
export { checkIdentityPath, type FileIdentity, type OpenedBundle }

/** A blob holding one file. */
export interface OpenedFile {
  kind: 'file'
  version: FileFormatVersion
  /**
   * From the authenticated record (format 3 with writtenAtMs, format 2 without); null for a format-1
   * blob, which carries none.
   */
  identity: FileIdentity | null
  /**
   * The file's bytes, each piece released only after its chunk authenticated; throws FileCipherError
   * on any failure, and keeps throwing. Call return() if you stop reading early.
   */
  body: AsyncIterableIterator<Uint8Array>
}

/** A vault manifest stored as a blob of its own (checked in full before it is returned). */
export interface OpenedManifest {
  kind: 'manifest'
  manifest: VaultManifest
}

/** What a blob of the vault turned out to be: one file, or a bundle of files (FORMAT.md 3.6). */
export type OpenedBlob = OpenedFile | OpenedBundle

/** Any blob of the vault: a file, a bundle, or the vault manifest (FORMAT.md 3.6). */
export type OpenedVaultBlob = OpenedBlob | OpenedManifest

/** Exact length of the format-3 blob for this file: the record and the content, encrypted. */
export function encryptedFileLength(identity: FileIdentity): number {
  const plaintext = identityRecordLength(identity) + identity.size
  if (Math.floor(plaintext / CHUNK_SIZE) + 1 > MAX_CHUNKS) {
    throw new FileCipherError(
      'invalid-input',
      `A file of ${identity.size} bytes is beyond the format's limit of 4 PiB; it cannot be encrypted.`,
    )
  }
  return encryptedLength(plaintext)
}

/** The record, then the source's bytes, refusing to end unless exactly `size` bytes came. */
async function* withIdentity(
  record: Uint8Array,
  source: ByteSource,
  identity: FileIdentity,
): AsyncGenerator<Uint8Array> {
  yield record
  yield* exactlyAnnounced(source, identity, 'encryption stopped')
}

/**
 * Encrypts one file as a format-3 blob of exactly encryptedFileLength(identity) bytes, sealing
 * `identity.writtenAtMs` (default: now) as the owner's write time.
 */
export function encryptStream(
  source: ByteSource,
  opts: FileEncryptOptions & { identity: FileIdentity },
): AsyncIterableIterator<Uint8Array> {
  const record = encodeIdentity(stampWriteTime(opts.identity, Date.now()))
  const filesKey = deriveFilesKey(opts.vaultKey)
  return encryptChunked(withIdentity(record, source, opts.identity), {
    inputKey: filesKey,
    wipeInputKey: true,
    context: fileContext(opts.vaultId, 3),
    salt: fileSalt(filesKey, opts.saltPrefix),
    backend: opts.backend,
    batchRunner: opts.batchRunner,
  })
}

function sizeMismatch(identity: FileIdentity, got: string): FileCipherError {
  return new FileCipherError(
    'damaged',
    `The encrypted file '${identity.path}' is authentic but holds ${got} bytes of content while its record announces ${identity.size}: it was not written by a correct Vault Desktop. Do not trust this copy; get another one.`,
  )
}

/** Releases exactly `identity.size` bytes: `first`, then the rest of `inner`. */
async function* exactBody(
  first: Uint8Array,
  inner: AsyncIterableIterator<Uint8Array>,
  identity: FileIdentity,
): AsyncGenerator<Uint8Array> {
  let seen = first.length
  if (seen > identity.size) throw sizeMismatch(identity, `more than ${identity.size}`)
  if (first.length > 0) yield first
  for await (const piece of inner) {
    seen += piece.length
    if (seen > identity.size) throw sizeMismatch(identity, `more than ${identity.size}`)
    yield piece
  }
  if (seen !== identity.size) throw sizeMismatch(identity, String(seen))
}

async function* prepend(
  first: Uint8Array | undefined,
  inner: AsyncIterableIterator<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  try {
    if (first) yield first
    yield* inner
  } finally {
    // Stopping early (return()) must close the ciphertext source too.
    await inner.return?.()
  }
}

// Which context's commitment matched tells the kind, tried in this order (FORMAT.md 3.6).
const KINDS = ['file-v3', 'bundle-v2', 'file-v2', 'bundle-v1', 'manifest', 'file-v1'] as const

function contextOf(kind: (typeof KINDS)[number], vaultId: string): Uint8Array {
  if (kind === 'bundle-v2') return bundleContext(vaultId, 2)
  if (kind === 'bundle-v1') return bundleContext(vaultId, 1)
  if (kind === 'manifest') return manifestContext(vaultId)
  return fileContext(vaultId, kind === 'file-v3' ? 3 : kind === 'file-v2' ? 2 : 1)
}

/**
 * Opens any blob of the vault: a file (format 3, 2 or 1), a bundle of files (version 2 or 1), or a
 * vault manifest. Resolves once the header matched and the first plaintext authenticated: for a
 * format-3 or -2 file its identity record, for a bundle its header, every record and its embedded
 * manifest, for a manifest the whole of it (all checked against the rules); rejects with
 * FileCipherError when the header, those first chunks or the records fail. Everything after that is
 * checked while the body (or a bundle's entries) is read, which throws FileCipherError on failure.
 */
export async function openVaultBlob(source: ByteSource, opts: FileCipherOptions): Promise<OpenedVaultBlob> {
  const filesKey = deriveFilesKey(opts.vaultKey)
  let kind: (typeof KINDS)[number] | undefined
  const [first, ...fallbacks] = KINDS.map((k) => contextOf(k, opts.vaultId))
  const inner = decryptChunked(source, {
    inputKey: filesKey,
    wipeInputKey: true,
    context: first!,
    fallbackContexts: fallbacks,
    backend: opts.backend,
    batchRunner: opts.batchRunner,
    onContextMatched: (index) => {
      kind = KINDS[index]
    },
    onCommitmentMismatch: (header) => explainHeaderMismatch(filesKey, opts.vaultId, header),
  })
  try {
    let step = await inner.next()
    if (kind === 'bundle-v2' || kind === 'bundle-v1') {
      const plaintext = prepend(step.done ? undefined : step.value, inner)
      return await readBundle(plaintext, kind === 'bundle-v2' ? 2 : 1, opts)
    }
    if (kind === 'manifest') {
      const plaintext = await collectBytes(prepend(step.done ? undefined : step.value, inner))
      return { kind: 'manifest', manifest: decodeManifest(plaintext) }
    }
    if (kind === 'file-v1') {
      const first = step.done ? undefined : step.value
      return { kind: 'file', version: 1, identity: null, body: new StickyIterator(prepend(first, inner)) }
    }
    // Formats 3 and 2: the record lies in chunk 0, so it is normally all in the first piece.
    const version = kind === 'file-v3' ? 3 : 2
    let buffered: Uint8Array = new Uint8Array(0)
    for (;;) {
      if (!step.done) buffered = buffered.length === 0 ? step.value : concatBytes(buffered, step.value)
      const record = decodeIdentity(buffered, undefined, version)
      if (record) {
        const body = exactBody(buffered.subarray(record.length), inner, record.identity)
        return { kind: 'file', version, identity: record.identity, body: new StickyIterator(body) }
      }
      if (step.done) throw identityCutShort(buffered.length)
      step = await inner.next()
    }
  } catch (error) {
    await inner.return?.()
    throw error
  }
}

/**
 * Opens a blob that holds files: a file (format 3, 2 or 1) or a bundle, as openVaultBlob does. A
 * vault manifest holds no file: it fails with FileCipherError('not-a-file'), whose message says so
 * (open it with openVaultBlob or decryptManifest).
 */
export async function openEncryptedFile(source: ByteSource, opts: FileCipherOptions): Promise<OpenedBlob> {
  const opened = await openVaultBlob(source, opts)
  if (opened.kind !== 'manifest') return opened
  throw new FileCipherError(
    'not-a-file',
    `This encrypted file is the vault's manifest (its list of ${opened.manifest.entries.length} files, number ${opened.manifest.sequence}), not a file: it holds no file content. Recovery uses it to tell which copy of each file is the newest and which files are missing.`,
  )
}

/**
 * The vault manifest in a blob of its own, checked in full (FORMAT.md 3.10). Throws FileCipherError:
 * 'not-a-file' would be wrong here, so a blob that is a file or a bundle fails with 'invalid-input';
 * a damaged or foreign blob as any blob does. A bundle's embedded manifest is OpenedBundle.manifest.
 */
export async function decryptManifest(source: ByteSource, opts: FileCipherOptions): Promise<VaultManifest> {
  const opened = await openVaultBlob(source, opts)
  if (opened.kind === 'manifest') return opened.manifest
  if (opened.kind === 'bundle') await opened.entries.return?.()
  else await opened.body.return?.()
  throw new FileCipherError(
    'invalid-input',
    `This encrypted file is a ${opened.kind} of the vault, not its manifest. Its manifest is stored alone or inside a bundle.`,
  )
}

/**
 * The file's bytes, from a file blob of either format (the identity record, if any, is checked and
 * dropped). A bundle holds many files, so it fails here with FileCipherError('invalid-input').
 */
export function decryptStream(
  source: ByteSource,
  opts: FileCipherOptions,
): AsyncIterableIterator<Uint8Array> {
  return new StickyIterator(
    (async function* () {
      const opened = await openEncryptedFile(source, opts)
      if (opened.kind === 'bundle') {
        await opened.entries.return?.()
        throw new FileCipherError(
          'invalid-input',
          `This encrypted file is a bundle of ${opened.files.length} files, not a single file, so it cannot be decrypted as one. Recover it with the recovery tool (npm run recover, or Recovery in the app), which unpacks every file of the bundle; in code, use openEncryptedFile and read its entries.`,
        )
      }
      yield* opened.body
    })(),
  )
}

function differingBytes(a: Uint8Array, b: Uint8Array): number[] {
  const at: number[] = []
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) at.push(i)
  return at
}

/**
 * The commitment matched none of the contexts (files, bundles, manifests): wrong key, wrong vault id, or a damaged header.
 * One changed byte in the commitment or the salt is recognisable (the salt carries its own check, see
 * FORMAT.md 3.2).
 */
function explainHeaderMismatch(
  filesKey: Uint8Array,
  vaultId: string,
  header: { salt: Uint8Array; commitment: Uint8Array; expected: Uint8Array[] },
): FileCipherError {
  const damaged = (offset: number) =>
    new FileCipherError(
      'damaged',
      `The header of the encrypted file is damaged (byte ${offset} was altered), so the file cannot be checked or opened. Get another copy of the encrypted file.`,
    )
  for (const expected of header.expected) {
    const inCommitment = differingBytes(expected, header.commitment)
    if (inCommitment.length === 1) return damaged(SALT_SIZE + inCommitment[0]!)
  }

  const prefix = header.salt.subarray(0, 16)
  const check = header.salt.subarray(16)
  const inCheck = differingBytes(saltCheck(filesKey, prefix), check)
  if (inCheck.length === 0) {
    // S matches R: the key is right. No context's commitment is one byte off, so either the blob is of
    // another vault or its commitment was altered in more than one byte; nothing tells them apart.
    return new FileCipherError(
      'wrong-vault',
      `This file was encrypted with this vault key, but either for a different vault than '${vaultId}' or its header check (bytes 24 to 55) was altered. Check the vault id you entered (the recovery words name the right one); if it is right, the file is damaged: get another copy of it.`,
    )
  }
  if (inCheck.length === 1) return damaged(16 + inCheck[0]!)
  // One changed byte in the salt's random part: the check then fits a neighbouring prefix.
  const candidate = prefix.slice()
  for (let i = 0; i < 16; i++) {
    for (let v = 0; v < 256; v++) {
      if (v === prefix[i]) continue
      candidate[i] = v
      if (equalBytes(saltCheck(filesKey, candidate), check)) return damaged(i)
    }
    candidate[i] = prefix[i]!
  }
  return new FileCipherError(
    'wrong-key',
    "This file was not encrypted with this vault's key. Use the guardian shares or recovery kit of the vault this file came from.",
  )
}
