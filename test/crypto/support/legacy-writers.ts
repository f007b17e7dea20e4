// Writes format-2 file blobs and version-1 bundles, which Vault Desktop only reads now (format 3 and
// bundle version 2 are written). For tests and the committed vectors alone, from docs/FORMAT.md.
import type { ByteSource } from '../../../src/vault-format/byte-queue'
import { collectBytes, encryptChunked } from '../../../src/vault-format/chunked-stream'
import {
  bundleContext,
  type FileEncryptOptions,
  fileContext,
  fileSalt,
} from '../../../src/vault-format/file-context'
import { encodeIdentity, type FileIdentity } from '../../../src/vault-format/file-identity'
import { deriveFilesKey } from '../../../src/vault-format/vault-key'

function sealed(plaintext: ByteSource, context: Uint8Array, opts: FileEncryptOptions) {
  const filesKey = deriveFilesKey(opts.vaultKey)
  return encryptChunked(plaintext, {
    inputKey: filesKey,
    context,
    salt: fileSalt(filesKey, opts.saltPrefix),
    backend: opts.backend,
    batchRunner: opts.batchRunner,
  })
}

/** The format-2 record: size (uint64) || pathLength (uint16) || path. */
export function identityRecordV2(identity: FileIdentity): Uint8Array {
  return encodeIdentity(identity, 2)
}

/** A format-2 blob: the record without a write time, then the content (which must be `size` bytes). */
export async function encryptBlobV2(
  content: Uint8Array,
  opts: FileEncryptOptions & { path: string },
): Promise<Uint8Array> {
  const record = identityRecordV2({ path: opts.path, size: content.length })
  return collectBytes(sealed([record, content], fileContext(opts.vaultId, 2), opts))
}

/** The version-1 bundle header: createdAt (uint64) || count (uint32) || format-2 records. */
export function bundleHeaderV1(createdAtMs: number, files: readonly FileIdentity[]): Uint8Array {
  const records = files.map(identityRecordV2)
  const out = new Uint8Array(12 + records.reduce((n, r) => n + r.length, 0))
  const view = new DataView(out.buffer)
  view.setBigUint64(0, BigInt(createdAtMs))
  view.setUint32(8, files.length)
  let at = 12
  for (const record of records) {
    out.set(record, at)
    at += record.length
  }
  return out
}

/** A version-1 bundle of these files (no write times, no manifest). */
export async function encryptBundleV1(
  files: readonly { path: string; content: Uint8Array }[],
  opts: FileEncryptOptions & { createdAtMs: number },
): Promise<Uint8Array> {
  const header = bundleHeaderV1(
    opts.createdAtMs,
    files.map((f) => ({ path: f.path, size: f.content.length })),
  )
  return collectBytes(sealed([header, ...files.map((f) => f.content)], bundleContext(opts.vaultId, 1), opts))
}
