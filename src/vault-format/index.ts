// The vault format as a portable library (README.md beside this file; the format: docs/FORMAT.md).
// Pure TypeScript on @noble, @scure/bip39 and shamir-secret-sharing: it runs in Node, the recovery
// CLI and a browser. A host may inject a faster AES-GCM and a batch runner (src/node-cipher).

export type { AeadBackend, ChunkAead } from './aead-backend'
export { nobleAeadBackend } from './aead-noble'
export type { ByteSource } from './byte-queue'
export {
  BATCH_CHUNKS,
  type BatchJob,
  type BatchResult,
  type ChunkBatchRunner,
  type CipherImplementation,
  openBatch,
  sealBatch,
} from './chunk-batch'
export {
  CHUNK_SIZE,
  chunkNonce,
  encryptedLength,
  HEADER_SIZE,
  plaintextLength,
  SEALED_CHUNK_SIZE,
  TAG_SIZE,
} from './chunked-format'
export { collectBytes, decryptChunked, encryptChunked } from './chunked-stream'
export {
  BUNDLE_CONTEXT_PREFIX,
  BUNDLE_FILE_THRESHOLD,
  BUNDLE_FORMAT_MAX_FILES,
  BUNDLE_MAX_CONTENT_BYTES,
  BUNDLE_MAX_FILES,
  type BundleEntry,
  type BundleSourceEntry,
  bundleContext,
  bundlePlaintextLength,
  encryptBundleStream,
  encryptedBundleLength,
  type OpenedBundle,
} from './file-bundle'
export {
  checkIdentityPath,
  decryptStream,
  ENCRYPTED_FILE_SUFFIX,
  encryptedFileLength,
  encryptStream,
  type FileCipherOptions,
  type FileEncryptOptions,
  type FileFormatVersion,
  type FileIdentity,
  fileContext,
  type OpenedBlob,
  type OpenedFile,
  openEncryptedFile,
} from './file-cipher'
export {
  FileCipherError,
  type FileCipherErrorReason,
  ShareInputError,
  type ShareInputErrorReason,
  VaultFormatError,
} from './format-errors'
export { openKitWords, sealKitWords } from './kit-seal'
export { newRehearsalChallenge, rehearsalProof, rehearsalProofHash } from './rehearsal-proof'
export type {
  GuardianShare,
  KitEnvelope,
  OwnerKey,
  PracticeShare,
  RecoveryEnvelope,
} from './share-envelope'
export {
  decodeKitWords,
  decodeOwnerKitWords,
  decodePracticeShareWords,
  decodeRecoveryWords,
  decodeShareWords,
  encodeOwnerKitWords,
  encodePracticeShareWords,
  encodeShareWords,
  wordsFor,
} from './share-words'
export { deriveFilesKey, generateVaultKey, keyCheckValue, vaultFingerprint } from './vault-key'
export {
  type CombinedPracticeShares,
  type CombinedShares,
  combinePracticeShares,
  combinePracticeWords,
  combineShares,
  combineShareWords,
  type PracticeCombineOptions,
  type SplitShape,
  splitPracticeKey,
  splitVaultKey,
} from './vault-shares'
