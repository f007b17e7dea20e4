// Public surface of the client-side cryptography. Format: docs/FORMAT.md.

export {
  ENCRYPTED_FILE_SUFFIX,
  type GuardianKitInput,
  type OwnerKitInput,
  renderGuardianKitHtml,
  renderOwnerKitHtml,
} from '../main/core/printable/kit-pages'
export { qrSvg, recoveryQrText, shareQrPng, shareQrSvg } from '../main/core/printable/share-qr'
export { ChunkWorkerPool, sharedChunkWorkerPool } from '../node-cipher/chunk-worker-pool'
export type { AeadBackendName } from './aead-backend'
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
export { newRehearsalChallenge, rehearsalProof, rehearsalProofHash } from './rehearsal-proof'
export type { GuardianShare, OwnerKey, RecoveryEnvelope } from './share-envelope'
export { ShareInputError, type ShareInputErrorReason } from './share-input-error'
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
