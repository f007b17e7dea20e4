// One blob of the vault moved from the old key to the new one, as a stream: download -> the
// Cobblestone layer opens it under the old key (node-cipher), releasing each chunk's plaintext only
// once it authenticated -> the very same plaintext sealed again under the new key with the same
// context -> the upload queue's multipart body -> upload. A file of format 1, 2 or 3, a version-1
// bundle and a stored manifest carry their plaintext over byte for byte (identity records,
// authenticated write times, dates, the manifest's sequence), so recovery sees the same copy, as old
// as it was. A version-2 bundle is opened and written again with the same files and dates, because
// the manifest it may embed is itself sealed under the vault key and must be sealed under the new
// one. Either way the new blob has exactly the old one's length. Nothing is held whole in memory: a few chunks of each side are in flight. A blob that fails
// authentication part-way aborts the upload, which the service discards without charging.
import type { Readable } from 'node:stream'
import { type VaultApiClient, VaultApiError } from '../../../service-client'
import type { Asset, UploadedAsset } from '../../../shared/api'
import {
  type BundleEntry,
  bundleContext,
  type CipherImplementation,
  decryptChunked,
  deriveFilesKey,
  encryptBundleStream,
  encryptChunked,
  encryptManifest,
  FileCipherError,
  fileContext,
  fileSalt,
  manifestContext,
  openVaultBlob,
} from '../../../vault-format'
import { buildMultipartBody, type MultipartBody } from '../uploads/multipart-body'

/** An asset as listed, with the metadata object the service keeps beside it. */
export type ListedAsset = Asset & { metadata?: Record<string, unknown> }

export interface BlobKeys {
  vaultId: string
  cipher: CipherImplementation
}

/**
 * Every context a blob of the vault is sealed in (docs/FORMAT.md 3): the commitment in the header says
 * which, so the re-sealed blob takes the same one. A blob in none of them opens under no key here and
 * is reported, never guessed at.
 */
function contextsOf(vaultId: string): Uint8Array[] {
  return [
    fileContext(vaultId, 3),
    bundleContext(vaultId, 2),
    manifestContext(vaultId),
    fileContext(vaultId, 2),
    bundleContext(vaultId, 1),
    fileContext(vaultId, 1),
  ]
}

/** Counts the blob's bytes as they are read (progress), without copying them. */
async function* counted(stream: Readable, onBytes: (n: number) => void): AsyncIterable<Uint8Array> {
  for await (const piece of stream as AsyncIterable<Buffer>) {
    onBytes(piece.length)
    yield piece
  }
}

/** The blob's authenticated plaintext under `key`, and (once its header was read) the context it matched. */
function openedUnder(
  source: AsyncIterable<Uint8Array>,
  key: Uint8Array,
  { vaultId, cipher }: BlobKeys,
): { plaintext: AsyncIterableIterator<Uint8Array>; context: () => Uint8Array | undefined } {
  const [first, ...fallbacks] = contextsOf(vaultId)
  let matched: number | undefined
  const plaintext = decryptChunked(source, {
    inputKey: deriveFilesKey(key),
    context: first!,
    fallbackContexts: fallbacks,
    onContextMatched: (index) => {
      matched = index
    },
    ...cipher,
  })
  return { plaintext, context: () => (matched === undefined ? undefined : contextsOf(vaultId)[matched]) }
}

/** The next entry's body: the bundle hands them out in order, each after the previous one was read. */
function bodyOfNext(entries: AsyncIterator<BundleEntry>): AsyncIterable<Uint8Array> {
  return (async function* () {
    const step = await entries.next()
    if (step.done) {
      throw new FileCipherError('truncated', 'The bundle ended before all the files its records announce.')
    }
    yield* step.value.body
  })()
}

/** A version-2 bundle written again under the new key: its files and dates, its manifest sealed anew. */
async function* rebundled(
  client: VaultApiClient,
  asset: ListedAsset,
  oldKey: Uint8Array,
  newKey: Uint8Array,
  { vaultId, cipher }: BlobKeys,
  signal: AbortSignal,
  onBytes: (n: number) => void,
): AsyncGenerator<Uint8Array> {
  const stream = await client.downloadAsset(vaultId, asset.id, signal)
  try {
    const opened = await openVaultBlob(counted(stream, onBytes), { vaultKey: oldKey, vaultId, ...cipher })
    if (opened.kind !== 'bundle') {
      throw new FileCipherError('damaged', 'The blob changed on the service while it was re-encrypted.')
    }
    const manifest = opened.manifest
      ? await encryptManifest(opened.manifest, { vaultKey: newKey, vaultId, ...cipher })
      : undefined
    const entries = opened.entries
    yield* encryptBundleStream(
      opened.files.map((identity) => ({ identity, content: () => bodyOfNext(entries) })),
      {
        vaultKey: newKey,
        vaultId,
        createdAtMs: opened.createdAtMs,
        ...(manifest ? { manifest } : {}),
        ...cipher,
      },
    )
  } finally {
    stream.destroy()
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i])
}

/** The old blob's plaintext sealed again under the new key, in the context the old blob was in. */
async function* resealed(
  client: VaultApiClient,
  asset: ListedAsset,
  oldKey: Uint8Array,
  newKey: Uint8Array,
  keys: BlobKeys,
  signal: AbortSignal,
  onBytes: (n: number) => void,
): AsyncGenerator<Uint8Array> {
  const stream = await client.downloadAsset(keys.vaultId, asset.id, signal)
  try {
    const opened = openedUnder(counted(stream, onBytes), oldKey, keys)
    // The first piece comes once the header's commitment matched (and the first chunk authenticated).
    const head = await opened.plaintext.next()
    const context = opened.context()
    if (!context) throw new FileCipherError('wrong-key', 'The blob matched no context of this vault.')
    if (sameBytes(context, bundleContext(keys.vaultId, 2))) {
      await opened.plaintext.return?.()
      stream.destroy()
      yield* rebundled(client, asset, oldKey, newKey, keys, signal, onBytes)
      return
    }
    const filesKey = deriveFilesKey(newKey)
    yield* encryptChunked(
      (async function* () {
        if (!head.done) yield head.value
        yield* opened.plaintext
      })(),
      { inputKey: filesKey, context, salt: fileSalt(filesKey), ...keys.cipher },
    )
  } finally {
    stream.destroy()
  }
}

/** Which of the two keys opens a blob: 'old', 'new', or the reason neither does. */
export async function keyOfBlob(
  client: VaultApiClient,
  asset: ListedAsset,
  candidates: { old: Uint8Array | null; new: Uint8Array },
  keys: BlobKeys,
  signal: AbortSignal,
): Promise<'old' | 'new' | { unreadable: string }> {
  let reason = 'it opens under neither the old nor the new key'
  for (const which of ['new', 'old'] as const) {
    const key = candidates[which]
    if (!key) continue
    const stream = await client.downloadAsset(keys.vaultId, asset.id, signal)
    try {
      const opened = openedUnder(
        counted(stream, () => undefined),
        key,
        keys,
      )
      await opened.plaintext.next()
      await opened.plaintext.return?.()
      return which
    } catch (error) {
      if (!(error instanceof FileCipherError)) throw error
      if (error.reason !== 'wrong-key') reason = error.message
    } finally {
      stream.destroy()
    }
  }
  return { unreadable: reason }
}

/** The upload's form: the same name, type and metadata the service recorded for the old blob. */
function bodyFor(asset: ListedAsset, content: () => AsyncIterable<Uint8Array>): MultipartBody {
  const fields: Array<[string, string]> = [
    ['filename', asset.filename],
    ['contentType', asset.contentType],
  ]
  if (asset.metadata) fields.push(['metadata', JSON.stringify(asset.metadata)])
  return buildMultipartBody(fields, {
    fieldName: 'file',
    filename: 'blob.c2sp',
    contentType: 'application/octet-stream',
    // Same plaintext, same chunking: the new blob is exactly as long as the old one.
    length: asset.sizeBytes,
    content,
  })
}

export interface BlobReencryption {
  client: VaultApiClient
  asset: ListedAsset
  oldKey: Uint8Array
  newKey: Uint8Array
  keys: BlobKeys
  signal: AbortSignal
  /** Bytes of the old blob read so far (a retry reads them again). */
  onBytes: (n: number) => void
  /** For a 402's message: what the upload costs and the balance seen. */
  credits?: { needed: number; balance: number }
}

/**
 * Re-encrypts one blob and uploads it as a new asset; the old asset is left as it is. Rejects with
 * FileCipherError when the blob does not open under the old key or fails authentication part-way,
 * and with VaultApiError when the service refuses (402: too few credits).
 */
export async function reencryptBlob(request: BlobReencryption): Promise<UploadedAsset> {
  const { client, asset, oldKey, newKey, keys, signal, onBytes } = request
  // Each attempt (a retry starts over) downloads and opens the blob again.
  const body = bodyFor(asset, () => resealed(client, asset, oldKey, newKey, keys, signal, onBytes))
  let failure: unknown
  let uploaded: UploadedAsset
  try {
    uploaded = await client.uploadAsset({
      vaultId: keys.vaultId,
      body: () => {
        const stream = body.stream()
        // The cipher's own error (wrong key, damaged blob) is what the owner needs, not "request failed".
        stream.once('error', (error) => {
          failure = error
        })
        return stream
      },
      contentType: body.contentType,
      contentLength: body.contentLength,
      signal,
      // A blob that does not open fails the same way every time: no point sending it again.
      retry: false,
      ...(request.credits
        ? { creditsNeeded: request.credits.needed, creditsBalance: request.credits.balance }
        : {}),
    })
  } catch (error) {
    if (failure instanceof FileCipherError) throw failure
    throw error
  }
  if (uploaded.sizeBytes !== asset.sizeBytes) {
    throw new VaultApiError({
      code: 'BAD_RESPONSE',
      status: 0,
      operation: 'upload asset',
      message: `the service recorded ${uploaded.sizeBytes} bytes for a re-encrypted blob of ${asset.sizeBytes}`,
    })
  }
  return uploaded
}

/**
 * Reads a new copy back whole from the service and authenticates every chunk under the new key (the
 * plaintext is dropped as it comes). Only a copy that passed may replace its old one: the service's
 * answer to the upload says it stored the bytes, this says they are all there and open. Rejects with
 * FileCipherError when it does not open or is cut short, VaultApiError when the service fails.
 */
export async function verifyReencrypted(
  client: VaultApiClient,
  assetId: string,
  sizeBytes: number,
  newKey: Uint8Array,
  keys: BlobKeys,
  signal: AbortSignal,
): Promise<void> {
  const stream = await client.downloadAsset(keys.vaultId, assetId, signal)
  let read = 0
  try {
    const opened = openedUnder(
      counted(stream, (n) => {
        read += n
      }),
      newKey,
      keys,
    )
    for await (const _ of opened.plaintext) signal.throwIfAborted()
  } finally {
    stream.destroy()
  }
  if (read !== sizeBytes) {
    throw new FileCipherError(
      'damaged',
      `The service gave back ${read} bytes of a re-encrypted copy of ${sizeBytes} bytes.`,
    )
  }
}
