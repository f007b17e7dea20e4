// The IPC contract: every channel between the UI and the main process, in one table.
import { z } from 'zod'
import {
  ASSET_CATEGORIES,
  type CancelResult,
  CHECK_IN_FREQUENCIES,
  EXTENSION_LIMITS,
  type Heir,
  type HeirRemoved,
  LIMITS,
  type MailTestResult,
  RELEASE_TRIGGERS,
  type Rehearsal,
  SSS_PRESETS,
} from '../api'
import { event, invoke } from './contract-kit'
import type { KeyRotationEstimate, KeyRotationStatus } from './key-rotation'
import type { LocalMailbox } from './local-mail'
import { type Settings, SettingsPatchSchema } from './settings'
import type {
  ActivityEntry,
  ActivityExport,
  ActivityPage,
  AppNotice,
  AssetPage,
  CheckInOutcome,
  ConnectionInfo,
  ConnectionStatus,
  FileOpenResult,
  FileRemovalPlan,
  FileRemovalReport,
  FileSaveProgress,
  FileSaveReport,
  GuardianChange,
  GuardianKit,
  GuardianKitInfo,
  GuardianList,
  HeirList,
  HeirVaultFiles,
  KitCheckView,
  OwnerKit,
  OwnerKitCheck,
  OwnerKitGateInfo,
  PickKind,
  QueuedUploads,
  RecoveryProgress,
  RecoveryReport,
  ReleaseSettings,
  SecretStoreKind,
  ShareCheck,
  StartLocallyResult,
  UnlockCheckInStatus,
  UploadEstimateView,
  UploadItemView,
  UploadProgressView,
  VaultFileList,
  VaultsSnapshot,
  VaultView,
} from './vault-types'
import { ACTIVITY_KINDS } from './vault-types'

export interface AppInfo {
  name: string
  version: string
  platform: string
  /** 'electron' in the desktop app; 'browser' when the UI is served over the loopback bridge. */
  mode: 'electron' | 'browser'
  secretStore: SecretStoreKind
}

const none = z.undefined()
const id = z.string().min(1).max(200)
const vaultRef = z.object({ vaultId: id }).strict()
const vaultName = z
  .string()
  .trim()
  .max(
    EXTENSION_LIMITS.vaultNameMaxChars,
    `Keep the name under ${EXTENSION_LIMITS.vaultNameMaxChars} characters`,
  )
  // Control and bidirectional characters could disguise the name.
  .regex(/^[^\p{Cc}\u202a-\u202e\u2066-\u2069]*$/u, 'The name contains characters that cannot be shown')
/** Local file paths; main checks each one again before reading. */
const paths = z.array(z.string().min(1).max(4096)).min(1).max(10_000)
/** Files and folders chosen in the file library ('/'-separated vault paths; the folder '' is the whole vault). */
const librarySelection = z
  .object({
    files: z.array(z.string().min(1).max(4096)).max(100_000),
    folders: z.array(z.string().max(4096)).max(1_000),
  })
  .strict()
  .refine((s) => s.files.length + s.folders.length > 0, 'Choose at least one file or folder')
/** An e-mail address as the service takes it (a browser's type=email also lets `owner@example` by). */
export const EmailSchema = z.email('Enter a valid e-mail address, like name@example.com')
/** Names and addresses as the service validates them; the renderer shows these rules inline. */
export const PersonSchema = z
  .object({
    name: z.string().trim().min(1, 'Enter a name').max(200, 'Keep the name under 200 characters'),
    email: EmailSchema,
    walletAddress: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, 'A wallet address is 0x followed by 40 hexadecimal characters')
      .optional(),
  })
  .strict()

export const invokeChannels = {
  getAppInfo: invoke<AppInfo>()('app:get-info', none),
  getSettings: invoke<Settings>()('settings:get', none),
  updateSettings: invoke<Settings>()('settings:update', SettingsPatchSchema),

  getConnectionStatus: invoke<ConnectionStatus>()('connection:status', none),
  connectService: invoke<ConnectionInfo>()(
    'connection:add',
    z
      .object({
        serviceUrl: z.string().min(1).max(2000),
        apiKey: z.string().min(1).max(500),
        label: z.string().max(100).optional(),
      })
      .strict(),
  ),
  startLocally: invoke<StartLocallyResult>()(
    'connection:start-locally',
    z.object({ email: EmailSchema }).strict(),
  ),
  switchConnection: invoke<ConnectionInfo>()('connection:switch', z.object({ connectionId: id }).strict()),
  replaceApiKey: invoke<ConnectionInfo>()(
    'connection:replace-key',
    z.object({ connectionId: id, apiKey: z.string().min(1).max(500) }).strict(),
  ),
  forgetConnection: invoke<ConnectionStatus>()('connection:forget', z.object({ connectionId: id }).strict()),
  /** Sends a test e-mail to the account's address through the active service. */
  sendTestMail: invoke<MailTestResult>()('service:mail-test', none),
  /** The local service only: adds credits to the owner's account on this computer. */
  addLocalCredits: invoke<{ creditsBalance: number }>()(
    'service:add-credits',
    z.object({ credits: z.number().int().min(1).max(1_000_000) }).strict(),
  ),
  /**
   * The local service only: what it would have e-mailed, newest first, read in-process (the messages
   * hold guardians' and heirs' personal links; no service ever offers them over the wire).
   */
  listLocalMail: invoke<LocalMailbox>()('local-mail:list', none),

  getVaults: invoke<VaultsSnapshot>()('vaults:get', none),
  refreshVaults: invoke<VaultsSnapshot>()('vaults:refresh', none),
  refreshVault: invoke<VaultView>()('vault:refresh', vaultRef),
  createVault: invoke<VaultView>()(
    'vault:create',
    z.object({ preset: z.enum(SSS_PRESETS), name: vaultName.optional() }).strict(),
  ),
  /** On the service when it offers names, else kept on this device. An empty name clears it. */
  renameVault: invoke<VaultView>()('vault:rename', z.object({ vaultId: id, name: vaultName }).strict()),
  /**
   * One-step check-in links in the vault's reminder e-mails (off by default): anyone who can read the
   * owner's mail can then check in. Only on a service with the extension 'check-in-links'.
   */
  setCheckInLinks: invoke<VaultView>()(
    'vault:check-in-links',
    z.object({ vaultId: id, on: z.boolean() }).strict(),
  ),
  /** Only while active; removes its files, guardians and heirs from the service. */
  deleteVault: invoke<{ deleted: string }>()('vault:delete', vaultRef),
  /** Manual trigger: starts the release (30 days to cancel) where the service offers it. */
  startRelease: invoke<VaultView>()('vault:start-release', vaultRef),
  configureRelease: invoke<ReleaseSettings>()(
    'vault:configure-release',
    z
      .object({
        vaultId: id,
        trigger: z.enum(RELEASE_TRIGGERS),
        checkInFrequency: z.enum(CHECK_IN_FREQUENCIES).optional(),
      })
      .strict(),
  ),
  checkIn: invoke<CheckInOutcome>()(
    'vault:check-in',
    z
      .object({
        vaultId: id,
        note: z.string().max(1000).optional(),
        /** Where the owner checked in from, for the activity history (the window when left out). */
        source: z.enum(['window', 'tray', 'reminder']).optional(),
      })
      .strict(),
  ),
  cancelRelease: invoke<CancelResult>()('vault:cancel-release', vaultRef),

  listGuardians: invoke<GuardianList>()('guardians:list', vaultRef),
  addGuardian: invoke<GuardianChange>()(
    'guardians:add',
    z.object({ vaultId: id, person: PersonSchema }).strict(),
  ),
  removeGuardian: invoke<GuardianChange>()(
    'guardians:remove',
    z.object({ vaultId: id, guardianId: id }).strict(),
  ),
  listGuardianKits: invoke<GuardianKitInfo[]>()('kits:list', vaultRef),
  getGuardianKit: invoke<GuardianKit>()('kits:get', z.object({ vaultId: id, guardianId: id }).strict()),
  /** Electron only: print dialog, or a PDF written where the owner chooses. */
  printGuardianKit: invoke<{ saved: string | null }>()(
    'kits:print',
    z.object({ vaultId: id, guardianId: id, as: z.enum(['print', 'pdf']) }).strict(),
  ),

  /** The owner's recovery kit: the vault key itself as words and QR, to print and keep safe. */
  /** How the owner confirms before the owner kit is shown, and whether they just did. */
  getOwnerKitGate: invoke<OwnerKitGateInfo>()('kits:owner-gate', vaultRef),
  /** The owner confirms (the system's check, or the vault's name typed): the kit opens for a few minutes. */
  openOwnerKitGate: invoke<OwnerKitGateInfo>()(
    'kits:owner-gate-open',
    z.object({ vaultId: id, typed: z.string().max(400).optional() }).strict(),
  ),
  /** The kit goes back behind the check (its dialog closed). */
  closeOwnerKitGate: invoke<null>()('kits:owner-gate-close', vaultRef),
  getOwnerKit: invoke<OwnerKit>()('kits:owner', vaultRef),
  printOwnerKit: invoke<{ saved: string | null }>()(
    'kits:owner-print',
    z.object({ vaultId: id, as: z.enum(['print', 'pdf']) }).strict(),
  ),
  /** Which words of the owner kit to type back, to confirm the kit was saved. */
  getOwnerKitCheck: invoke<OwnerKitCheck>()('kits:owner-check', vaultRef),
  confirmOwnerKit: invoke<VaultView>()(
    'kits:owner-confirm',
    z
      .object({
        vaultId: id,
        answers: z
          .array(z.object({ position: z.number().int().min(1).max(200), word: z.string().max(100) }).strict())
          .min(1)
          .max(10),
      })
      .strict(),
  ),
  /** The owner confirms (or takes back) handing a guardian the kit of the current split. */
  setKitHandedOver: invoke<GuardianKitInfo[]>()(
    'kits:handed-over',
    z.object({ vaultId: id, guardianId: id, handedOver: z.boolean() }).strict(),
  ),
  /** A new key for a vault with no files whose key was lost (no kit was saved); kits are re-made. */
  replaceLostVaultKey: invoke<VaultView>()('kits:replace-lost-key', vaultRef),
  /** Rotating the vault key (every file re-encrypted under a new key, new kits, old blobs deleted). */
  estimateKeyRotation: invoke<KeyRotationEstimate>()('keys:rotation-estimate', vaultRef),
  /** Starts at the cost shown (`credits`): refused when it changed or the balance is short. */
  startKeyRotation: invoke<KeyRotationStatus>()(
    'keys:rotation-start',
    z.object({ vaultId: id, credits: z.number().int().min(0) }).strict(),
  ),
  getKeyRotation: invoke<KeyRotationStatus>()('keys:rotation-status', vaultRef),
  pauseKeyRotation: invoke<KeyRotationStatus>()('keys:rotation-pause', vaultRef),
  resumeKeyRotation: invoke<KeyRotationStatus>()('keys:rotation-resume', vaultRef),
  /** Before the switch only: the new copies are deleted and the vault stays under its old key. */
  abandonKeyRotation: invoke<KeyRotationStatus>()('keys:rotation-abandon', vaultRef),
  /** Puts a vault key on this device from the owner's kit words (to upload or make kits here). */
  importOwnerKit: invoke<VaultView>()(
    'kits:owner-import',
    z.object({ vaultId: id, words: z.string().min(1).max(20_000) }).strict(),
  ),

  listHeirs: invoke<HeirList>()('heirs:list', vaultRef),
  addHeir: invoke<Heir>()('heirs:add', z.object({ vaultId: id, person: PersonSchema }).strict()),
  removeHeir: invoke<HeirRemoved>()('heirs:remove', z.object({ vaultId: id, heirId: id }).strict()),

  listAssets: invoke<AssetPage>()(
    'assets:list',
    z
      .object({
        vaultId: id,
        category: z.enum(ASSET_CATEGORIES).optional(),
        limit: z.number().int().min(1).max(LIMITS.assetPageMax),
        offset: z.number().int().min(0),
      })
      .strict(),
  ),

  /** Every file the vault holds (not blobs): this computer's uploads, then the vault manifest. */
  listVaultFiles: invoke<VaultFileList>()('files:list', vaultRef),
  /**
   * Downloads, checks and decrypts the chosen files into a folder (new files only; an identical file
   * already there is kept, so saving again resumes). Progress on fileSaveProgress under saveId.
   */
  saveVaultFiles: invoke<FileSaveReport>()(
    'files:save',
    z
      .object({ vaultId: id, selection: librarySelection, folder: z.string().min(1).max(4096), saveId: id })
      .strict(),
  ),
  /** Stops a save (what was written stays; saving again resumes). False when none runs under that id. */
  cancelFileSave: invoke<boolean>()('files:save-cancel', z.object({ saveId: id }).strict()),
  /** Decrypts one file into a private temporary folder and opens it (desktop) or offers it as a download (browser). */
  openVaultFile: invoke<FileOpenResult>()(
    'files:open',
    z.object({ vaultId: id, path: z.string().min(1).max(4096) }).strict(),
  ),
  /** What deleting these files would do (counts, blobs, credits); changes nothing. */
  planFileRemoval: invoke<FileRemovalPlan>()(
    'files:remove-plan',
    z.object({ vaultId: id, selection: librarySelection }).strict(),
  ),
  /** Deletes these files from the vault: blobs taken off, bundles re-packed, the manifest written without them. */
  removeVaultFiles: invoke<FileRemovalReport>()(
    'files:remove',
    z.object({ vaultId: id, selection: librarySelection }).strict(),
  ),

  estimateUpload: invoke<UploadEstimateView>()(
    'uploads:estimate',
    z.object({ vaultId: id, paths, force: z.boolean().optional() }).strict(),
  ),
  queueUpload: invoke<QueuedUploads>()(
    'uploads:queue',
    z
      .object({ vaultId: id, paths, force: z.boolean().optional(), spendReserve: z.boolean().optional() })
      .strict(),
  ),
  listUploads: invoke<UploadItemView[]>()('uploads:list', none),
  cancelUpload: invoke<boolean>()('uploads:cancel', z.object({ itemId: id }).strict()),
  retryUpload: invoke<boolean>()('uploads:retry', z.object({ itemId: id }).strict()),
  clearFinishedUploads: invoke<number>()(
    'uploads:clear',
    z.object({ only: z.enum(['failed', 'finished']) }).strict(),
  ),

  /** The vault's latest practice run, or null. */
  getRehearsal: invoke<Rehearsal | null>()('rehearsal:get', vaultRef),
  /**
   * A practice release with throwaway material: practice kits for the guardians, a practice file for
   * one heir (the app's practice letter, or a copy of one of the owner's files, as base64).
   */
  startRehearsal: invoke<Rehearsal>()(
    'rehearsal:start',
    z
      .object({
        vaultId: id,
        heirId: id,
        sample: z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('letter') }).strict(),
          z
            .object({
              kind: z.literal('file'),
              name: z.string().min(1).max(1024),
              contentBase64: z
                .string()
                .min(1)
                .max(Math.ceil((EXTENSION_LIMITS.rehearsalOwnFileMaxBytes * 4) / 3) + 4),
            })
            .strict(),
        ]),
      })
      .strict(),
  ),
  endRehearsal: invoke<Rehearsal>()('rehearsal:end', vaultRef),

  /** The vault's activity history on this device, newest first. */
  listActivity: invoke<ActivityPage>()(
    'activity:list',
    z
      .object({
        vaultId: id,
        kinds: z.array(z.enum(ACTIVITY_KINDS)).max(ACTIVITY_KINDS.length).optional(),
        limit: z.number().int().min(1).max(500),
        offset: z.number().int().min(0),
      })
      .strict(),
  ),
  /** The whole history of a vault as a file's text, for the window to offer as a download. */
  exportActivity: invoke<ActivityExport>()(
    'activity:export',
    z.object({ vaultId: id, format: z.enum(['csv', 'json']) }).strict(),
  ),
  getUnlockCheckIn: invoke<UnlockCheckInStatus>()('unlock-check-in:get', none),
  /**
   * Turns on the check-in when the computer is unlocked, with a read-and-check-in (sk_agent_) key: made
   * by the app for the service on this computer, pasted by the owner for another service.
   */
  enableUnlockCheckIn: invoke<UnlockCheckInStatus>()(
    'unlock-check-in:enable',
    z.object({ agentKey: z.string().min(1).max(500).optional() }).strict(),
  ),
  /** Turns it off and removes the agent key from this device. */
  disableUnlockCheckIn: invoke<UnlockCheckInStatus>()('unlock-check-in:disable', none),

  /** Native file/folder picker (Electron only; browser mode has no access to local paths). */
  pickPaths: invoke<string[]>()(
    'dialog:pick',
    z
      .object({ kind: z.enum(['files', 'folder', 'output-folder', 'share-image'] satisfies PickKind[]) })
      .strict(),
  ),

  checkShare: invoke<ShareCheck>()(
    'recovery:check-share',
    z.object({ text: z.string().min(1).max(20_000) }).strict(),
  ),
  /**
   * A guardian's kit check: the check code derived here from one kit's words; with the guardian page
   * link from their e-mail, confirmed with the service (only the code and the link's token are sent).
   */
  checkKit: invoke<KitCheckView>()(
    'recovery:kit-check',
    z
      .object({ text: z.string().min(1).max(20_000), guardianLink: z.string().min(1).max(2048).optional() })
      .strict(),
  ),
  recoverFiles: invoke<RecoveryReport>()(
    'recovery:recover',
    z
      .object({
        shares: z.array(z.string().min(1).max(20_000)).min(1).max(10),
        inputs: paths,
        outputDir: z.string().min(1).max(4096),
      })
      .strict(),
  ),
  /**
   * The vault's encrypted files, as the service holds them, with the heirs' guide and tool, into a new
   * or empty folder (never decrypted; no key needed). Progress on encryptedExportProgress.
   */
  exportEncryptedCopy: invoke<EncryptedExportReport>()(
    'vault:export-encrypted',
    z.object({ vaultId: id, folder: z.string().min(1).max(4096) }).strict(),
  ),
  /** Heir access: the files of a released vault, with the access code from the heir e-mail. */
  listHeirFiles: invoke<HeirVaultFiles>()(
    'recovery:heir-files',
    z
      .object({
        serviceUrl: z.string().min(1).max(2048),
        accessToken: z.string().min(1).max(512),
        vaultId: z.string().min(1).max(200),
      })
      .strict(),
  ),
  /** Heir access: download, check and decrypt every file of the vault (resumes an earlier run). */
  recoverFromService: invoke<RecoveryReport>()(
    'recovery:from-service',
    z
      .object({
        serviceUrl: z.string().min(1).max(2048),
        accessToken: z.string().min(1).max(512),
        vaultId: z.string().max(200).optional(),
        shares: z.array(z.string().min(1).max(20_000)).min(1).max(10),
        outputDir: z.string().min(1).max(4096),
      })
      .strict(),
  ),
} as const

export const eventChannels = {
  settingsChanged: event<Settings>('settings:changed'),
  connectionChanged: event<ConnectionStatus>('connection:changed'),
  vaultsChanged: event<VaultsSnapshot>('vaults:changed'),
  /** Upload items that changed since the last batch (latest state of each, at most ~10 batches a second). */
  uploadItems: event<UploadItemView[]>('uploads:items'),
  /** Progress of running uploads since the last batch (latest of each item). */
  uploadProgress: event<UploadProgressView[]>('uploads:progress'),
  uploadsCleared: event<UploadItemView[]>('uploads:cleared'),
  recoveryProgress: event<RecoveryProgress>('recovery:progress'),
  /** An encrypted copy being exported (a few times a second). */
  encryptedExportProgress: event<EncryptedExportProgress>('vault:export-progress'),
  /** Decrypted files being saved (a few times a second). */
  fileSaveProgress: event<FileSaveProgress>('files:save-progress'),
  notice: event<AppNotice>('app:notice'),
  /** The client is waiting out a rate limit or a failure before retrying by itself. */
  retrying: event<{ text: string; waitSeconds: number }>('app:retrying'),
  /** An entry just added to a vault's activity history. */
  activityAdded: event<ActivityEntry>('activity:added'),
  /** A key rotation moved on (phases at once, progress a few times a second). */
  keyRotation: event<KeyRotationStatus>('keys:rotation'),
  /** Main asks the window to show a vault (notification or tray click). */
  openVault: event<{ vaultId: string }>('app:open-vault'),
} as const

/** What an encrypted copy carries for the heirs beside the files: RECOVERY.md, FORMAT.md, the recovery page, the tool. */
export type ExportMaterial = 'recovery-guide' | 'format-spec' | 'recovery-page' | 'recovery-tool'

/** An encrypted copy written: where, how much, and which of the heirs' files could not be included. */
export interface EncryptedExportReport {
  folder: string
  blobCount: number
  bytes: number
  missing: ExportMaterial[]
}

export interface EncryptedExportProgress {
  vaultId: string
  fileNumber: number
  fileCount: number
  doneBytes: number
  totalBytes: number
}

export type InvokeChannels = typeof invokeChannels
export type EventChannels = typeof eventChannels
export type InvokeName = keyof InvokeChannels
export type EventName = keyof EventChannels
