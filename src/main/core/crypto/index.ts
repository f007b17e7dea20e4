// Public surface of the client-side cryptography. Format: docs/FORMAT.md.
export type { AeadBackendName } from './aead-backend'
export { ChunkWorkerPool, sharedChunkWorkerPool } from './chunk-worker-pool'
export {
  CHUNK_SIZE,
  encryptedLength,
  HEADER_SIZE,
  plaintextLength,
  SEALED_CHUNK_SIZE,
  TAG_SIZE,
} from './chunked-format'
export { collectBytes, decryptChunked, encryptChunked } from './chunked-stream'
export {
  createDecryptTransform,
  createEncryptTransform,
  decryptStream,
  encryptStream,
  type FileCipherOptions,
  type FileEncryptOptions,
  fileContext,
} from './file-cipher'
export { FileCipherError, type FileCipherErrorReason } from './file-cipher-error'
export { deriveFilesKey, generateVaultKey, keyCheckValue, vaultFingerprint } from './vault-key'
