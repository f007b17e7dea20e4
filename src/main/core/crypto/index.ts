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
  createDecryptTransform,
  createEncryptTransform,
  decryptStream,
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
export { FileCipherError, type FileCipherErrorReason } from './file-cipher-error'
export {
  ENCRYPTED_FILE_SUFFIX,
  type GuardianKitInput,
  type OwnerKitInput,
  renderGuardianKitHtml,
  renderOwnerKitHtml,
} from './recovery-kits'
export { newRehearsalChallenge, rehearsalProof, rehearsalProofHash } from './rehearsal-proof'
export type { GuardianShare, OwnerKey, RecoveryEnvelope } from './share-envelope'
export { ShareInputError, type ShareInputErrorReason } from './share-input-error'
export { qrSvg, recoveryQrText, shareQrPng, shareQrSvg } from './share-qr'
export {
  decodeOwnerKitWords,
  decodeRecoveryWords,
  decodeShareWords,
  encodeOwnerKitWords,
  encodeShareWords,
  wordsFor,
} from './share-words'
export { deriveFilesKey, generateVaultKey, keyCheckValue, vaultFingerprint } from './vault-key'
export { type CombinedShares, combineShares, combineShareWords, splitVaultKey } from './vault-shares'
