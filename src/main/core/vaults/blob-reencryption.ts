// One blob of the vault moved from the old key to the new one, as a stream: download -> open and
// authenticate under the old key (node-cipher) -> encrypt under the new key in the same shape (a file
// as a file of the same format, a bundle as a bundle with its authenticated date) -> the upload
// queue's multipart body with its exact length -> upload. Nothing is held whole in memory: at most a
// few chunks of each side are in flight. A blob that fails authentication half-way aborts the upload,
// which the service discards without charging.
import type { Readable } from 'node:stream'
import { type VaultApiClient, VaultApiError } from '../../../service-client'
import type { Asset, UploadedAsset } from '../../../shared/api'
import {
  type CipherImplementation,
  deriveFilesKey,
  encryptBundleStream,
  encryptChunked,
  encryptedBundleLength,
  encryptedFileLength,
  encryptedLength,
  encryptStream,
  FileCipherError,
  fileContext,
  type OpenedBlob,
  openEncryptedFile,
  plaintextLength,
} from '../../../vault-format'
import type { BundleEntry } from '../../../vault-format/file-bundle'
import { fileSalt } from '../../../vault-format/file-context'
import { buildMultipartBody, type MultipartBody } from '../uploads/multipart-body'

/** An asset as listed, with the metadata object the service keeps beside it. */
export type ListedAsset = Asset & { metadata?: Record<string, unknown> }

export interface BlobKeys {
  vaultId: string
  cipher: CipherImplementation
}

/** What opening a blob under a key gave: the new blob's exact length and its bytes, or why not. */
interface Reencrypted {
  length: number
  content: AsyncIterable<Uint8Array>
  close: () => void
}

/** Counts the blob's bytes as they are read (progress), without copying them. */
async function* counted(stream: Readable, onBytes: (n: number) => void): AsyncIterable<Uint8Array> {
  for await (const piece of stream as AsyncIterable<Buffer>) {
    onBytes(piece.length)
    yield piece
  }
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

/** The same content under the new key, in the shape it had. */
function reencrypt(
  opened: OpenedBlob,
  blobBytes: number,
  newKey: Uint8Array,
  { vaultId, cipher }: BlobKeys,
): { length: number; content: AsyncIterable<Uint8Array> } {
  if (opened.kind === 'bundle') {
    const entries = opened.entries
    return {
      length: encryptedBundleLength(opened.files),
      content: encryptBundleStream(
        opened.files.map((identity) => ({ identity, content: () => bodyOfNext(entries) })),
        { vaultKey: newKey, vaultId, createdAtMs: opened.createdAtMs, ...cipher },
      ),
    }
  }
  if (opened.identity === null) {
    // Format 1 carries no record (no path, no size inside): it stays format 1, the same bytes' length.
    const filesKey = deriveFilesKey(newKey)
    return {
      length: encryptedLength(plaintextLength(blobBytes)),
      content: encryptChunked(opened.body, {
        inputKey: filesKey,
        context: fileContext(vaultId, 1),
        salt: fileSalt(filesKey),
        ...cipher,
      }),
    }
  }
  return {
    length: encryptedFileLength(opened.identity),
    content: encryptStream(opened.body, { vaultKey: newKey, vaultId, identity: opened.identity, ...cipher }),
  }
}

/** Downloads the blob and opens it under `key`; rejects with FileCipherError when it does not open. */
async function openBlob(
  client: VaultApiClient,
  asset: ListedAsset,
  key: Uint8Array,
  keys: BlobKeys,
  signal: AbortSignal,
  onBytes: (n: number) => void,
): Promise<{ opened: OpenedBlob; stream: Readable }> {
  const stream = await client.downloadAsset(keys.vaultId, asset.id, signal)
  try {
    const opened = await openEncryptedFile(counted(stream, onBytes), {
      vaultKey: key,
      vaultId: keys.vaultId,
      ...keys.cipher,
    })
    return { opened, stream }
  } catch (error) {
    stream.destroy()
    throw error
  }
}

function closeOpened(opened: OpenedBlob, stream: Readable): void {
  if (opened.kind === 'bundle') void opened.entries.return?.()
  else void opened.body.return?.()
  stream.destroy()
}

async function openForReencryption(
  client: VaultApiClient,
  asset: ListedAsset,
  oldKey: Uint8Array,
  newKey: Uint8Array,
  keys: BlobKeys,
  signal: AbortSignal,
  onBytes: (n: number) => void,
): Promise<Reencrypted> {
  const { opened, stream } = await openBlob(client, asset, oldKey, keys, signal, onBytes)
  const { length, content } = reencrypt(opened, asset.sizeBytes, newKey, keys)
  return { length, content, close: () => closeOpened(opened, stream) }
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
    try {
      const { opened, stream } = await openBlob(client, asset, key, keys, signal, () => undefined)
      closeOpened(opened, stream)
      return which
    } catch (error) {
      if (!(error instanceof FileCipherError)) throw error
      if (error.reason !== 'wrong-key') reason = error.message
    }
  }
  return { unreadable: reason }
}

/** The upload's form: the same name, type and metadata the service recorded for the old blob. */
function bodyFor(
  asset: ListedAsset,
  length: number,
  content: () => AsyncIterable<Uint8Array>,
): MultipartBody {
  const fields: Array<[string, string]> = [
    ['filename', asset.filename],
    ['contentType', asset.contentType],
  ]
  if (asset.metadata) fields.push(['metadata', JSON.stringify(asset.metadata)])
  return buildMultipartBody(fields, {
    fieldName: 'file',
    filename: 'blob.c2sp',
    contentType: 'application/octet-stream',
    length,
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
  // Opened once before the upload to learn the new blob's exact length; a retry opens it again.
  let first: Reencrypted | undefined = await openForReencryption(
    client,
    asset,
    oldKey,
    newKey,
    keys,
    signal,
    onBytes,
  )
  const length = first.length
  const body = bodyFor(asset, length, () => {
    const ready = first
    first = undefined
    if (ready) return ready.content
    return (async function* () {
      const again = await openForReencryption(client, asset, oldKey, newKey, keys, signal, onBytes)
      if (again.length !== length) {
        again.close()
        throw new Error(`the blob of asset ${asset.id} changed on the service while it was re-encrypted`)
      }
      yield* again.content
    })()
  })
  try {
    const uploaded = await client.uploadAsset({
      vaultId: keys.vaultId,
      body: body.stream,
      contentType: body.contentType,
      contentLength: body.contentLength,
      signal,
      ...(request.credits
        ? { creditsNeeded: request.credits.needed, creditsBalance: request.credits.balance }
        : {}),
    })
    if (uploaded.sizeBytes !== length) {
      throw new VaultApiError({
        code: 'BAD_RESPONSE',
        status: 0,
        operation: 'upload asset',
        message: `the service recorded ${uploaded.sizeBytes} bytes for a re-encrypted blob of ${length}`,
      })
    }
    return uploaded
  } finally {
    first?.close()
  }
}
