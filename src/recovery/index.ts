// Heir recovery as a library (the app's recovery screen and the CLI share it).
export {
  ARWEAVE_DOWNLOADS_FOLDER,
  type ArweaveBlob,
  ArweaveRecoveryError,
  type ArweaveRecoveryReport,
  arweaveVaultRef,
  findVaultBlobs,
  recoverFromArweave,
} from './arweave-recovery'
export {
  type FileRecoveryResult,
  type FileRecoveryStatus,
  plaintextName,
  type RecoverFilesOptions,
  type RecoveryProgress,
  recoverFiles,
} from './recover-files'
export {
  type RecoveredKey,
  RecoveryInputError,
  type RecoveryKeySources,
  readQrImage,
  recoverVaultKey,
} from './recovery-key'
