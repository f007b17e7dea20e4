// Writes format-1 blobs (no identity record), which Vault Desktop only reads now. For tests and
// the committed vectors alone: production code always writes format 2 through encryptStream.

import type { ByteSource } from '../../../src/vault-format/byte-queue'
import { encryptChunked } from '../../../src/vault-format/chunked-stream'
import { type FileEncryptOptions, fileContext, fileSalt } from '../../../src/vault-format/file-cipher'
import { deriveFilesKey } from '../../../src/vault-format/vault-key'

export function encryptStreamV1(
  source: ByteSource,
  opts: FileEncryptOptions,
): AsyncIterableIterator<Uint8Array> {
  const filesKey = deriveFilesKey(opts.vaultKey)
  return encryptChunked(source, {
    inputKey: filesKey,
    context: fileContext(opts.vaultId, 1),
    salt: fileSalt(filesKey, opts.saltPrefix),
    backend: opts.backend,
    batchRunner: opts.batchRunner,
  })
}
