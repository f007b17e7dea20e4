// What crosses the bridge about connections, vaults, uploads, kits and recovery. Plain data only:
// the API key never appears here (only its kind, last four characters and the store holding it).
import type {
  Asset,
  AssetCategory,
  CheckInFrequency,
  Guardian,
  Heir,
  KeyKind,
  KitCheckResult,
  MailTestResult,
  ReleaseTrigger,
  ServiceExtension,
  UploadedAsset,
  Vault,
  VaultClaims,
} from '../api'
import type { AppErrorData } from '../app-error'

/** Where the app keeps API keys and vault keys. */
export type SecretStoreKind = 'keychain' | 'encrypted-file' | 'memory'

export interface ConnectionInfo {
  id: string
  serviceUrl: string
  label: string
  keyKind: KeyKind | 'unknown'
  keyLast4: string
  keyStore: SecretStoreKind
  addedAt: string
  active: boolean
  /** True for the service this app runs on this computer ("start locally"). */
  local: boolean
  /** The key is no longer in its store (kept in memory, and the app restarted): it must be entered again. */
  keyMissing: boolean
}

export interface ConnectionStatus {
  connections: ConnectionInfo[]
  active: ConnectionInfo | null
  /** Where a newly entered key would be kept. */
  secretStore: SecretStoreKind
  localService: { running: boolean; url: string | null }
  /** Whether the store above keeps keys across restarts with real protection. */
  keyStorage: KeyStorageInfo
  /** What the active connection's service can do and whom it can reach; null when none is active. */
  service: ServiceSummary | null
}

/**
 * The key this computer made or imported for a vault, which the store it was given to cannot give
 * back now (a memory store after a restart, a keychain out of reach, an entry removed or replaced).
 */
export interface LostVaultKey {
  /** The store the key was written to. */
  keptIn: SecretStoreKind
  /** The key's fingerprint, to compare with the owner kit that brings it back. */
  fingerprint: string
}

export interface KeyStorageInfo {
  kind: SecretStoreKind
  /** False for memory and for safeStorage's Linux basic_text backend (a fixed password). */
  durable: boolean
  /** A sentence for Settings: where keys are kept and what that means. */
  description: string
}

/** The active service as readiness sees it. */
export interface ServiceSummary {
  /** The Vault Service this app runs on this computer ("start locally"): a trial. */
  trial: boolean
  /** The address heirs and guardians get (the service's public URL when it reports one). */
  publicUrl: string
  /** publicUrl is neither loopback nor a private address. */
  reachableByOthers: boolean
  /** null: the service does not say (a remote service is taken at its word). */
  mailConfigured: boolean | null
  lastMailTest: MailTestResult | null
  extensions: ServiceExtension[]
  /**
   * How credits are added: here in Settings (local service), or on the operator's page the service
   * names (GET /service operator.creditsUrl); buyAt null: the service names none, ask its operator.
   */
  credits: { addHere: boolean; buyAt: string | null }
  /**
   * The service's blob store (GET /service storage). permanent: nothing uploaded is ever deleted
   * (Arweave), so a delete removes only the record. null: the service does not say.
   */
  storage: { kind: 'folder' | 'arweave'; permanent: boolean } | null
}

export const READINESS_ITEM_IDS = [
  'reachable',
  'mail',
  'trigger',
  'guardians',
  'kits',
  'owner-kit',
  'heir',
  'runway',
  'key-storage',
  'rehearsal',
] as const
export type ReadinessItemId = (typeof READINESS_ITEM_IDS)[number]

export type VaultTabId = 'overview' | 'assets' | 'guardians' | 'heirs' | 'release'

/** The one action that fixes an unmet readiness item. */
export type ReadinessFix =
  | { kind: 'open-tab'; tab: VaultTabId }
  | { kind: 'open-settings' }
  | { kind: 'send-test-mail' }
  | { kind: 'save-owner-kit' }
  | { kind: 'add-credits' }
  | { kind: 'start-rehearsal' }

export interface ReadinessItem {
  id: ReadinessItemId
  met: boolean
  title: string
  /** What holds or what is missing, in one sentence. */
  detail: string
  /** One line per person where it matters (each guardian's kit check). */
  lines?: string[]
  fix: { label: string; action: ReadinessFix } | null
}

/** Which conditions for a release that really reaches the heirs hold for one vault. */
export interface VaultReadiness {
  ready: boolean
  stepsLeft: number
  /** "Ready" or "3 steps left". */
  summary: string
  items: ReadinessItem[]
}

/** A vault as the app shows it: the service's fields plus what this device knows. */
export interface VaultView extends Vault {
  /** The owner's name for the vault (on the service, or kept on this device); null when unnamed. */
  name: string | null
  /** The name, or a short form of the id. */
  label: string
  checkInFrequency: CheckInFrequency | null
  nextCheckInDue: string | null
  releaseStartedAt: string | null
  contestationEndsAt: string | null
  releasedAt: string | null
  /** Last check-in made from this device (the service does not report it). */
  lastCheckIn: { at: string; note: string | null } | null
  /** Whether this device holds the vault key (needed to upload and to make guardian kits). */
  keyOnDevice: boolean
  /** Where this device keeps the vault key, and whether that survives a restart. */
  keyStorage: KeyStorageInfo
  /** Set when the key this vault was made with is no longer here: only its owner kit brings it back. */
  keyLost: LostVaultKey | null
  /** When the owner confirmed that the owner kit is saved (typing words back from it). */
  ownerKitConfirmedAt: string | null
  /** Reminder e-mails carry a one-step check-in link; null: the service does not say (no such choice). */
  checkInLinks: boolean | null
  /**
   * Files this computer knows the vault holds (its uploads and the manifest read here), where
   * assetCount counts the service's blobs (a bundle of 300 files is one); null when none are known here.
   */
  fileCount: number | null
  /** Guardian claims that count now (the service's, when well formed); null when none. */
  claims: VaultClaims | null
  readiness: VaultReadiness
}

export interface VaultsSnapshot {
  connectionId: string | null
  vaults: VaultView[]
  /** When the list was fetched (ISO). */
  fetchedAt: string | null
  /** Why the last refresh failed, if it did (the list above is then the last good one). */
  error: AppErrorData | null
}

export interface StartLocallyResult {
  connection: ConnectionInfo
  vault: VaultView
}

export interface CheckInOutcome {
  success: boolean
  nextCheckInDue: string
  daysRemaining: number
  checkedInAt: string
}

export interface ReleaseSettings {
  trigger: ReleaseTrigger
  checkInFrequency: CheckInFrequency
  contestationDays: number
  nextCheckInDue: string
}

export interface PeopleList<T> {
  items: T[]
  /** False when the service offers no list endpoint; the items are then the ones added from this device. */
  fromService: boolean
}

export type GuardianList = PeopleList<Guardian>
export type HeirList = PeopleList<Heir>

export interface GuardianKitInfo {
  guardianId: string
  guardianName: string
  shareIndex: number
  threshold: number
  shares: number
  splitId: string
  createdAt: string
  /** The owner confirmed giving this kit (of this split) to the guardian. */
  handedOver: boolean
}

export interface GuardianKit extends GuardianKitInfo {
  html: string
  fileName: string
}

export interface OwnerKit {
  vaultId: string
  fingerprint: string
  html: string
  fileName: string
}

export interface GuardianChange {
  guardian: Guardian | null
  /** Kits now valid (one per guardian); earlier kits no longer combine with these. */
  kits: GuardianKitInfo[]
  sharesRegenerated: boolean
  /** Why kits could not be made, e.g. no vault key on this device. */
  kitProblem: string | null
}

/** A stored file as the owner's app shows it. */
export interface AssetView extends Asset {
  /** The service's name, or for a file uploaded with its name hidden, the name this computer recorded. */
  displayName: string
  /** Uploaded under a neutral name; the real one is sealed inside the encrypted file. */
  nameHidden: boolean
  /**
   * Where the shown name comes from: the service's record, this computer's list of its uploads, or
   * nowhere yet (a hidden name uploaded from another computer: it is read from the vault's manifest
   * and the file itself once downloaded).
   */
  nameFrom: 'service' | 'this-computer' | 'sealed'
  /** The original file's size, when the upload said it or this computer recorded it. */
  originalBytes?: number
  /**
   * A bundle of small files (docs/FORMAT.md, section 3.9): how many files it holds (from the upload's
   * metadata or this computer's index), and those this computer's index still points at it (a file
   * changed and uploaded again in a newer bundle is superseded and not listed).
   */
  bundle?: {
    fileCount: number
    files: Array<{ relativePath: string; sizeBytes: number }>
  }
}

export interface AssetPage {
  assets: AssetView[]
  total: number
  limit: number
  offset: number
}

export type UploadState = 'queued' | 'checking' | 'uploading' | 'done' | 'skipped' | 'failed' | 'cancelled'

export interface UploadItemView {
  id: string
  batchId: string
  vaultId: string
  relativePath: string
  state: UploadState
  sizeBytes?: number
  encryptedBytes?: number
  estimatedCredits?: number
  sentBytes: number
  totalBytes?: number
  /** Set when the file travels in a bundle with other small files (same id for the whole bundle). */
  bundleId?: string
  error?: { code: string; message: string }
  note?: string
  asset?: UploadedAsset
  creditsConsumed?: number
  createdAt: string
  updatedAt: string
}

export interface UploadProgressView {
  itemId: string
  vaultId: string
  sentBytes: number
  totalBytes: number
  bytesPerSecond: number
  etaSeconds: number | null
}

export interface UploadEstimateView {
  vaultId: string
  files: number
  plaintextBytes: number
  encryptedBytes: number
  credits: number
  dollars: string
  balanceCredits: number
  enough: boolean
  /** Credits kept for check-ins (months of check-ins at the vault's frequency; 0 without a DMS). */
  reserveCredits: number
  reserveMonths: number
  /** The upload would leave less than the reserve: it needs the owner's explicit choice. */
  eatsReserve: boolean
  tooLarge: string[]
  skipped: Array<{ path: string; detail: string }>
  /**
   * Files whose bytes the vault already holds (same content hash, whatever the name): left out and not
   * charged unless the owner asks to upload them again. `at` is when that copy was stored (ISO date).
   */
  alreadyStored?: Array<{ path: string; at: string }>
  /** Small files packed together: how many uploads (bundles) carry how many of the files. */
  bundles: number
  bundledFiles: number
  /** What the same files would cost uploaded one by one (each upload costs at least 1 credit). */
  creditsWithoutBundles: number
  /** The cheapest single upload (one file or one bundle); 0 when there is nothing to upload. */
  cheapestUploadCredits?: number
}

export interface QueuedUploads {
  batchId: string
  queued: number
  skipped: Array<{ path: string; detail: string }>
  /** Left out because the vault already holds their bytes (see UploadEstimateView). */
  alreadyStored?: Array<{ path: string; at: string }>
}

export type PickKind = 'files' | 'folder' | 'output-folder' | 'share-image'

export interface ShareCheck {
  ok: boolean
  /** Sentence for the user: what the share is, or what is wrong with it. */
  message: string
  splitId?: string
  shareIndex?: number
  threshold?: number
  shares?: number
  vaultFingerprint?: string
  /** The vault the share belongs to (the heir screen fills in the vault id from it). */
  vaultId?: string
  /** A practice kit of a rehearsal (worthless for the vault): the last day it works, "YYYY-MM-DD". */
  practiceUntil?: string
}

/** A guardian's kit check in the app: the code derived here from the words, and the service's answer. */
export interface KitCheckView {
  /** The kit's check code, "XXXX-XXXX-X" (FORMAT.md 5.5). */
  code: string
  shareIndex: number
  shares: number
  vaultFingerprint: string
  /** With a guardian link: what the service said of the code (only the code and the link's token went). */
  result?: KitCheckResult
}

export interface RecoveryFileResult {
  input: string
  output?: string
  ok: boolean
  message: string
  /**
   * Recovered now, kept from an earlier run, superseded (an older copy of a file whose newer copy was
   * recovered: not a failure), failed, or (from the vault service) not reached yet.
   */
  status?: 'recovered' | 'kept' | 'superseded' | 'failed' | 'not-reached'
}

export interface RecoveryProgress {
  runId: string
  input: string
  doneBytes: number
  totalBytes: number
  filesDone: number
  filesTotal: number
}

export interface RecoveryReport {
  runId: string
  outputDir: string
  results: RecoveryFileResult[]
  /** Set when a run from the vault service had to stop early; starting again resumes it. */
  stopped?: { code: string; message: string }
  /** A practice run (practice kits, practice file): whether the service accepted the practice kits' proof. */
  rehearsal?: { passed: boolean; message: string }
  /** Kits left out because the others were enough and these did not fit, each with its reason. */
  kitsSetAside?: string[]
  /** Which list of the vault's files (manifest) the run went by, or that none was found. */
  manifestNote?: string
  /** The note is a warning: no list was found, or rival lists were set aside. */
  manifestWarning?: boolean
}

/** What an heir's access code opens: the released vault's files, before anything is downloaded. */
export interface HeirVaultFiles {
  vaultId: string
  state: string
  /** A practice access code: it opens only the practice file listed, never the vault's files. */
  practice?: boolean
  files: Array<{
    assetId: string
    name: string
    plaintextBytes: number
    contentType: string
    /** A bundle of small files: how many it holds, when the upload said so. */
    fileCount?: number
  }>
  totalBytes: number
}

export interface AppNotice {
  /** claimed: a guardian claimed a release of the vault, short of the threshold. */
  kind: 'reminder' | 'releasing' | 'claimed' | 'upload-done' | 'upload-failed' | 'credits-low'
  title: string
  body: string
  vaultId?: string
  /** The language of title and body when it is not the page's English (the system's language). */
  lang?: string
}

export interface TrayView {
  level: 'ok' | 'due-soon' | 'overdue' | 'releasing'
  text: string
  nextCheckIn: { vaultId: string; label: string; dueAt: string; text: string } | null
  /** Per vault: "ready" or "N steps left" (the tray menu lists them). */
  readiness: Array<{ vaultId: string; label: string; summary: string; ready: boolean }>
}

/** How the owner confirms before the owner kit (the vault key in words) is shown. */
export interface OwnerKitGateInfo {
  vaultId: string
  /** 'system': the operating system's own check (Touch ID); 'typed': the vault's name typed. */
  method: 'system' | 'typed'
  systemName: string | null
  /** The vault's name, as it is to be typed. */
  typeThis: string
  /** Confirmed a moment ago: shown without asking again for a few minutes. */
  open: boolean
}

export interface OwnerKitCheck {
  vaultId: string
  /** 1-based positions of the words the owner types back from the saved kit. */
  positions: number[]
  wordCount: number
}

/** What the activity history of a vault records (kept on this device, append-only). */
export const ACTIVITY_KINDS = [
  'vault-created',
  'vault-renamed',
  'credits-added',
  'practice-started',
  'practice-passed',
  'check-in',
  'check-in-failed',
  'upload',
  'files-deleted',
  'guardian-added',
  'guardian-removed',
  'heir-added',
  'heir-removed',
  'kit-handed-over',
  'kit-taken-back',
  'release-configured',
  'release-started',
  'release-cancelled',
  'released',
  'owner-kit-confirmed',
  'vault-key-imported',
  'vault-key-replaced',
] as const
export type ActivityKind = (typeof ACTIVITY_KINDS)[number]

/**
 * Where an entry came from: the window, the tray menu, a reminder, the unlock check-in, or a change
 * this device saw on the service (a release started by the schedule, guardians' claims...).
 */
export const ACTIVITY_SOURCES = ['window', 'tray', 'reminder', 'unlock', 'service'] as const
export type ActivitySource = (typeof ACTIVITY_SOURCES)[number]

/** The short structured detail of an entry; which fields are set depends on the kind. */
export interface ActivityDetail {
  note?: string
  nextCheckInDue?: string
  /** Uploads: files stored and failed in the batch, credits spent, the first few names. */
  files?: number
  failed?: number
  credits?: number
  names?: string[]
  /** Guardian and heir changes, kit hand-overs. */
  person?: string
  email?: string
  trigger?: string
  checkInFrequency?: string
  /** Why a check-in did not go through. */
  error?: string
}

export interface ActivityEntry {
  id: number
  vaultId: string
  /** ISO time the app recorded it (for changes seen on the service: when this device saw them). */
  at: string
  kind: ActivityKind
  source: ActivitySource
  detail: ActivityDetail
}

export interface ActivityPage {
  items: ActivityEntry[]
  /** Entries matching the filter, all pages. */
  total: number
  /** Set when the history could not be read or kept on disk: a sentence for the owner. */
  problem: string | null
}

export interface ActivityExport {
  fileName: string
  mimeType: string
  text: string
}

/** The unlock check-in as Settings shows it. */
export interface UnlockCheckInStatus {
  enabled: boolean
  /** The active connection is the Vault Service on this computer (the app makes the agent key). */
  local: boolean
  connectionLabel: string | null
  /** The read-and-check-in key of the active connection, if this device holds one. */
  agentKey: {
    last4: string
    origin: 'created' | 'pasted'
    addedAt: string
    storedIn: SecretStoreKind
    /** False when the store forgets it at restart (no keychain). */
    durable: boolean
  } | null
  /**
   * Set by turning it off: the key taken off this device, and whether the service revoked it too (the
   * service on this computer does; the spec gives a remote one no way, so its key stays valid there).
   */
  removedKey?: { last4: string; revokedOnService: boolean }
}

/** One file the vault holds, as the owner's file library lists it (not the blob that holds it). */
export interface VaultFileView {
  /** '/'-separated path below the backed-up folder, as sealed in the blob and listed in the manifest. */
  path: string
  sizeBytes: number
  category: AssetCategory
  /** When this copy went up (this computer's upload) or was written (another computer's manifest). */
  addedAt: string
  /** The blob holding it; absent when another computer's manifest lists it and no blob says its name. */
  blob?: {
    assetId: string
    storageTxId: string
    bundle: boolean
    /** The name the service knows the blob by (a neutral file-….vault when names are hidden). */
    serviceName: string
    nameHidden: boolean
  }
  /** Where the name comes from: this computer's upload index, the vault manifest, or the service. */
  from: 'this-computer' | 'manifest' | 'service'
}

export interface VaultFileList {
  files: VaultFileView[]
  /** Blobs whose files no name here accounts for (uploaded elsewhere with names sealed inside). */
  unnamedBlobs: number
  /** The vault manifest could not be read just now: files from other computers may be missing. */
  manifestUnread: boolean
}

/**
 * What the owner chose in the file library: files by path, and folders (every file below them; the
 * folder '' is the whole vault).
 */
export interface LibrarySelection {
  files: string[]
  folders: string[]
}

/** A save of decrypted files under way (a few times a second). */
export interface FileSaveProgress {
  saveId: string
  vaultId: string
  /** The file being downloaded or decrypted ('/'-separated path in the vault), when one is. */
  path?: string
  fileNumber: number
  fileCount: number
  /** Encrypted bytes read over the whole save (a download cut off and resumed counts once). */
  doneBytes: number
  totalBytes: number
}

/** A save of decrypted files, finished, stopped by the owner, or cut off (then it can be resumed). */
export interface FileSaveReport {
  saveId: string
  folder: string
  /** Files written now. */
  saved: number
  /** Files already there with the same content (an earlier run of the same save): left as they are. */
  kept: number
  bytes: number
  /** Files not written, each with what happened and what to do. */
  failed: Array<{ path: string; message: string }>
  /** The owner cancelled, or the service stopped answering: saving again into the same folder resumes. */
  stopped?: { reason: 'cancelled' | 'interrupted'; message: string }
}

/** A file opened: with the system's default app (desktop), or offered as a download (browser mode). */
export type FileOpenResult =
  | { opened: 'default-app'; name: string }
  | { opened: 'download'; name: string; url: string }

/** What deleting files from the vault would do, for the confirmation (nothing is changed yet). */
export interface FileRemovalPlan {
  vaultId: string
  /** Files the heirs will no longer get. */
  files: number
  bytes: number
  /** Up to 20 of their paths, for the confirmation. */
  sample: string[]
  /** Blobs that hold only files being deleted: taken off the service. */
  blobsDeleted: number
  /** Bundles that hold other files too: re-packed without the deleted ones (a new blob), then taken off. */
  bundlesRepacked: number
  /**
   * On a permanent store, bundles that hold other files too are left as they are (re-packing would not
   * take the bytes off the store, and would cost credits): the deleted files stay in them, encrypted,
   * but the vault's list no longer names them, so heirs do not get them.
   */
  bundlesKept: number
  /** Credits the re-packed bundles cost to store (0 when none). */
  repackCredits: number
  /** Credits the vault's new list of files (its manifest, what heirs recover by) costs to store. */
  manifestCredits: number
  /**
   * The service keeps every blob for good (Arweave): the encrypted bytes stay public whatever is
   * deleted. null: the service does not say (older than that field), so it may keep them.
   */
  permanentStore: boolean | null
}

/** Files deleted from the vault. */
export interface FileRemovalReport {
  vaultId: string
  removed: number
  blobsDeleted: number
  bundlesRepacked: number
  /** Credits the re-packed bundles cost (the manifest's, as planned, apart). */
  creditsSpent: number
  /**
   * Blobs whose bytes stay on the service (a permanent store: those taken off and the bundles left as
   * they are); the heirs' list no longer names the deleted files.
   */
  contentKept: number
}
