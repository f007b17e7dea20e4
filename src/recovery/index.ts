// Heir recovery as a library (the app's recovery screen and the CLI share it).
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
