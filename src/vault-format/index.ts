// The vault format as a portable library (README.md beside this file; the format: docs/FORMAT.md).
// Pure TypeScript on @noble, @scure/bip39 and shamir-secret-sharing: it runs in Node, the recovery
// CLI and a browser. A host may inject a faster AES-GCM and a batch runner (src/node-cipher).

export type { AeadBackend, ChunkAead } from './aead-backend'
export { nobleAeadBackend } from './aead-noble'
export { webCryptoBatchRunner, webCryptoOpen, webCryptoSeal } from './aead-webcrypto'
export { exactlyAnnounced, sizeChangedError } from './announced-size'
export { arweaveVaultRef, contentHash } from './arweave-ref'
export type { ByteSource } from './byte-queue'
export {
  BATCH_CHUNKS,
  BATCH_PLAIN,
  BATCH_SEALED,
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
  deriveMessageKeys,
  encryptedLength,
  HEADER_SIZE,
  MAX_CHUNKS,
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
  BUNDLE_MAX_MANIFEST_BYTES,
  type BundleEntry,
  type BundleSourceEntry,
  bundleContext,
  bundlePlaintextLength,
  type EmbeddedManifest,
  encryptBundleStream,
  encryptedBundleLength,
  type OpenedBundle,
} from './file-bundle'
export {
  checkIdentityPath,
  decryptManifest,
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
  type OpenedManifest,
  type OpenedVaultBlob,
  openEncryptedFile,
  openVaultBlob,
} from './file-cipher'
export { type BundleFormatVersion, fileSalt, manifestContext } from './file-context'
export { compareCodePoints, encodeIdentity, identityRecordLength, stampWriteTime } from './file-identity'
export {
  FileCipherError,
  type FileCipherErrorReason,
  ShareInputError,
  type ShareInputErrorReason,
  VaultFormatError,
} from './format-errors'
export {
  KIT_CHECK_INFO,
  type KitCheckCodeProblem,
  kitCheckCode,
  kitCheckCodeHash,
  kitCheckCodeOf,
  type NormalizedKitCheckCode,
  normalizeKitCheckCode,
} from './kit-check'
export { openKitWords, sealKitWords } from './kit-seal'
export {
  type CopyOutcome,
  type LeftOut,
  type ManifestUsed,
  type MissingFile,
  RecoveryPlan,
  type SurveyedBlob,
  type SurveyedCopy,
  shownTime,
  surveyOpened,
} from './recovery-plan'
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
/**
 * The vault manifest (docs/FORMAT.md 3.10): the encrypted, sequence-numbered list of the vault's
 * current files (path, size, content SHA-256, write time) that recovery trusts over anything a service
 * or a gateway says.
 * - Writing: after every change that adds or removes files, build a VaultManifest with the next
 *   sequence number (strictly increasing per vault; persist it before uploading) and every current
 *   file. `encryptedManifestLength(paths)` gives its exact blob length before any file is hashed; embed
 *   it in the change's bundle (encryptBundleStream's `manifest`, encryptedBundleLength's second
 *   argument: no extra upload, no extra credit) or, when the change uploads no bundle, upload
 *   `encryptManifest(...)` as a blob of its own. encodeManifest/encryptManifest throw
 *   FileCipherError('invalid-input') naming what breaks a rule (identity path rules, a path listed twice
 *   or also a folder of another, more than MANIFEST_MAX_ENTRIES files, a bad size, hash or time).
 * - Reading: openVaultBlob gives { kind: 'manifest', manifest } for a stored manifest and
 *   OpenedBundle.manifest for an embedded one (decryptManifest when the blob must be a manifest);
 *   anything malformed is rejected whole (FileCipherError('damaged')), nothing of it released.
 * - Choosing: newestManifest(found) picks the highest sequence number (then the latest write time)
 *   and names copies, rivals (same number, different list) and older ones.
 */
export {
  decodeManifest,
  encodeManifest,
  encryptedManifestLength,
  encryptManifest,
  MANIFEST_MAX_ENTRIES,
  type ManifestChoice,
  type ManifestEntry,
  manifestPlaintextLength,
  newestManifest,
  type VaultManifest,
} from './vault-manifest'
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
