// The Vault Service wire format (vault-api-v2) and the decisions DESIGN.md makes for what it leaves open.
// Shared by the service, the main-process API client and the renderer: one source of truth.

export const API_PREFIXES = ['/api', '/v1'] as const
export type ApiPrefix = (typeof API_PREFIXES)[number]

export const VAULT_STATES = ['active', 'releasing', 'released'] as const
export type VaultState = (typeof VAULT_STATES)[number]

export const RELEASE_TRIGGERS = ['dead_man_switch', 'manual', 'guardian_claim'] as const
export type ReleaseTrigger = (typeof RELEASE_TRIGGERS)[number]

export const CHECK_IN_FREQUENCIES = ['weekly', 'biweekly', 'monthly', 'quarterly'] as const
export type CheckInFrequency = (typeof CHECK_IN_FREQUENCIES)[number]
export const CHECK_IN_FREQUENCY_DAYS: Record<CheckInFrequency, number> = {
  weekly: 7,
  biweekly: 14,
  monthly: 30,
  quarterly: 90,
}

export const SSS_PRESETS = ['standard', 'enhanced'] as const
export type SssPreset = (typeof SSS_PRESETS)[number]
/** Shamir threshold and share count per preset; the guardian maximum equals the share count. */
export const SSS_PRESET_SHAPE: Record<SssPreset, { threshold: number; shares: number }> = {
  standard: { threshold: 2, shares: 3 },
  enhanced: { threshold: 3, shares: 5 },
}

export const GUARDIAN_STATUSES = ['pending', 'accepted', 'declined'] as const
export type GuardianStatus = (typeof GUARDIAN_STATUSES)[number]

export const ASSET_CATEGORIES = ['document', 'image', 'video', 'audio', 'other'] as const
export type AssetCategory = (typeof ASSET_CATEGORIES)[number]

export const KEY_KINDS = ['human', 'agent'] as const
export type KeyKind = (typeof KEY_KINDS)[number]
export const KEY_PREFIX: Record<KeyKind, string> = { human: 'sk_human_', agent: 'sk_agent_' }

export const LIMITS = {
  maxFileBytes: 5_000_000_000,
  maxHeirs: 5,
  assetPageDefault: 50,
  assetPageMax: 100,
  contestationDays: 30,
  checkInCostCredits: 2,
  trialCredits: 100,
  metadataMaxBytes: 4096,
  /** Owner alerts during the contestation period, in days since the release started. */
  contestationAlertDays: [0, 3, 7, 14, 21, 28],
} as const

/** Credits per upload: max(1, ceil(ciphertextBytes * 4650 / 10^9)) ($46.50 per GB, 1 credit = $0.01). */
export function uploadCostCredits(ciphertextBytes: number): number {
  return Math.max(1, Math.ceil((ciphertextBytes * 4650) / 1e9))
}

export function creditsToDollars(credits: number): string {
  return `$${(credits / 100).toFixed(2)}`
}

/** Per-key, per-minute rate limits from the spec's table (plus 60/min for other POSTs). */
export const RATE_LIMITS_PER_MINUTE = {
  getVault: 120,
  postAsset: 60,
  postRelease: 10,
  postGuardian: 30,
  postHeir: 30,
  otherPost: 60,
} as const
export type RateLimitPattern = keyof typeof RATE_LIMITS_PER_MINUTE

export const ERROR_CODES = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  402: 'INSUFFICIENT_CREDITS',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  // Not in the spec's table: requests the HTTP layer refuses before any route (same envelope).
  408: 'REQUEST_TIMEOUT',
  414: 'URI_TOO_LONG',
  417: 'EXPECTATION_FAILED',
  431: 'HEADERS_TOO_LARGE',
  // The service's file storage (e.g. the Arweave network) cannot be reached just now.
  503: 'SERVICE_UNAVAILABLE',
  // A v1.0 endpoint that v2.0 removed (the spec's Versioning table); the message names its replacement.
  410: 'GONE',
} as const
export type ErrorStatus = keyof typeof ERROR_CODES
export type ErrorCode = (typeof ERROR_CODES)[ErrorStatus]

/** Methods a removed "any" endpoint is answered 410 for (the methods the interface uses). */
const ANY_METHOD = ['GET', 'POST', 'PATCH', 'DELETE'] as const

/**
 * The v1.0 endpoints v2.0 removed (the spec's Versioning table) and the replacement it names for each. The
 * service answers each 410 GONE in the error envelope under every prefix, the message naming the
 * replacement; `path` is below the prefix, `below` covers every path under it too (the spec's
 * "protection/*"), and `{prefix}` in a replacement stands for the prefix the client called.
 */
export const REMOVED_V1_ENDPOINTS: readonly {
  methods: readonly ('GET' | 'POST' | 'PATCH' | 'DELETE')[]
  path: string
  below?: true
  replacement: string
}[] = [
  { methods: ['POST'], path: '/vault/:id/lock', replacement: 'none: states simplified' },
  { methods: ['POST'], path: '/vault/:id/unlock', replacement: 'none: states simplified' },
  {
    methods: ANY_METHOD,
    path: '/vault/:id/protection',
    below: true,
    replacement:
      'merged into the guardian and heir endpoints ({prefix}/vault/:id/guardian, {prefix}/vault/:id/heir)',
  },
  {
    methods: ANY_METHOD,
    path: '/vault/:id/succession',
    below: true,
    replacement:
      'merged into the guardian and heir endpoints ({prefix}/vault/:id/guardian, {prefix}/vault/:id/heir)',
  },
  {
    methods: ['POST'],
    path: '/vault/:id/release/contest',
    replacement: 'POST {prefix}/vault/:id/release/cancel',
  },
  { methods: ANY_METHOD, path: '/vault/:id/verification', replacement: 'none: verification is automatic' },
  { methods: ANY_METHOD, path: '/vault/:id/certificate', replacement: 'none: removed' },
  { methods: ['GET'], path: '/verify/:hash', replacement: 'none: removed' },
]

export interface Vault {
  id: string
  state: VaultState
  createdAt: string
  /** Omitted by the list response. */
  updatedAt?: string
  creditsBalance: number
  assetCount: number
  guardianCount: number
  heirCount: number
  releaseTrigger: ReleaseTrigger | null
  sssPreset: SssPreset
}

/**
 * Guardian claims that count now on a guardian_claim vault (the owner's vault view): how many accepted
 * guardians claimed, how many start a release, and the latest claim. Null when nobody has claimed.
 */
export interface VaultClaims {
  count: number
  needed: number
  lastAt: string
  /** The name of the guardian who claimed last, as the owner entered it. */
  lastBy: string
}

export interface Guardian {
  id: string
  name: string
  email: string
  status: GuardianStatus
  walletAddress?: string
  invitedAt: string
  acceptedAt?: string
  /**
   * Extension kit-check: this guardian's kit check in the vault's current split, or null when the owner
   * registered no check code for them (absent from services without the extension).
   */
  kitCheck?: GuardianKitCheck | null
}

export interface Heir {
  id: string
  name: string
  email: string
  walletAddress?: string
  addedAt: string
}

export interface Asset {
  id: string
  filename: string
  contentType: string
  sizeBytes: number
  category: AssetCategory
  storageTxId: string
  createdAt: string
}

export interface UploadedAsset extends Asset {
  creditsConsumed: number
}

export interface ReleaseConfig {
  trigger: ReleaseTrigger
  checkInFrequency: CheckInFrequency
  contestationDays: number
  nextCheckInDue: string
}

export interface ReleaseConfigRequest {
  trigger: ReleaseTrigger
  config?: { checkInFrequency?: CheckInFrequency }
}

export interface PersonRequest {
  name: string
  email: string
  walletAddress?: string
}

export interface GuardianRemoved {
  removed: string
  remainingGuardians: number
  sharesRegenerated: boolean
}

export interface HeirRemoved {
  removed: string
  remainingHeirs: number
}

export interface CheckInResult {
  success: boolean
  nextCheckInDue: string
  daysRemaining: number
}

export interface CancelResult {
  cancelled: boolean
  vaultState: VaultState
  cancelledAt: string
}

export interface AssetListQuery {
  category?: AssetCategory
  limit?: number
  offset?: number
}

export interface ResponseMeta {
  timestamp: string
  requestId: string
}
export interface AssetListMeta extends ResponseMeta {
  total: number
  limit: number
  offset: number
}

export interface SuccessEnvelope<T, M extends ResponseMeta = ResponseMeta> {
  data: T
  meta: M
}

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; status: number }
}

// ---- Local Vault Service extensions (see src/service/README.md); other services answer 404 ----

/** Extension names a service lists in GET /service, so a client offers only what works. */
export const SERVICE_EXTENSIONS = [
  'vault-create',
  'vault-delete',
  'vault-name',
  'release-start',
  'mail-test',
  'rehearsal',
  'asset-delete',
  /** PATCH /vault/:id {checkInLinks}: reminder e-mails carry a one-step check-in link (off by default). */
  'check-in-links',
  /** DELETE /key: the key that authenticates the request revokes itself (an app giving up its agent key). */
  'key-revoke',
  /**
   * PUT /vault/:id/kit-checks, POST /kit-check and the guardian page's kit check: guardians confirm they
   * still hold their kit by its check code (FORMAT.md 5.5); Guardian.kitCheck says when they last did.
   */
  'kit-check',
] as const
export type ServiceExtension = (typeof SERVICE_EXTENSIONS)[number]

/** DELETE /key (extension key-revoke): the presented key no longer works. */
export interface KeyRevoked {
  revoked: true
  kind: 'human' | 'agent'
}

export const EXTENSION_LIMITS = {
  vaultNameMaxChars: 80,
  /** A practice heir access (and its practice file) expires by itself after this many days. */
  rehearsalDays: 7,
  /** The practice file as uploaded (encrypted under the practice key): it travels in one JSON body. */
  rehearsalSampleMaxBytes: 1024 * 1024,
  /** One of the owner's own files as a practice file, before encryption (it crosses the app's bridge). */
  rehearsalOwnFileMaxBytes: 500_000,
} as const

/** GET /service: what the service is and whether it can reach people. */
export interface ServiceInfo {
  /** 'vault-desktop-local' for this project's service. */
  service: string
  extensions: ServiceExtension[]
  /** The address heirs and guardians get in e-mails. */
  publicUrl: string
  mail: {
    /** An SMTP server is configured (without one, mail stays in the outbox, unsent). */
    configured: boolean
    /** The last test message sent for this account (POST /service/mail-test). */
    lastTest: MailTestResult | null
  }
  /**
   * Where the encrypted files are kept. `permanent`: the store keeps every blob for ever (Arweave), so
   * deleting a file removes only its record and anyone holding the old key can still read the blob.
   * Absent from services older than this field: nothing is known, and the app says so.
   */
  storage?: { kind: 'folder' | 'arweave'; permanent: boolean }
  /**
   * Who runs the service. `creditsUrl`: the operator's page where owners buy credits (the service's
   * --credits-url), or null when the operator gave none: then owners ask the operator. Absent from
   * services older than this field.
   */
  operator?: { creditsUrl: string | null }
}

/** POST /service/mail-test: a test message to the account's e-mail address, sent right away. */
export interface MailTestResult {
  to: string
  at: string
  delivered: boolean
  /** Why delivery failed, when it did. */
  error: string | null
  /**
   * How it travelled to the SMTP server: `tls` (required: a server without it got nothing), `loopback` (a
   * server on the service's own machine), `insecure-plaintext` (the operator opted out of required TLS, so
   * the password and links may have crossed the network in clear). Absent from older services and tests.
   */
  security?: SmtpSecurity
}

/** How a Vault Service reaches its SMTP server (see MailTestResult.security). */
export const SMTP_SECURITY = ['tls', 'loopback', 'insecure-plaintext'] as const
export type SmtpSecurity = (typeof SMTP_SECURITY)[number]

export const REHEARSAL_STATES = ['running', 'passed', 'expired', 'cancelled'] as const
export type RehearsalState = (typeof REHEARSAL_STATES)[number]

/**
 * A practice run of the release with throwaway material: a practice key split like the vault key,
 * one practice kit per guardian (in their practice e-mail), one heir and a practice file encrypted
 * under the practice key. The real vault key is never assembled; no release, no cost.
 */
export interface Rehearsal {
  id: string
  vaultId: string
  state: RehearsalState
  heir: { id: string; name: string; email: string }
  /** The practice file (not a vault asset; the service forgets its content when the practice ends). */
  sample: {
    filename: string
    /** Its encrypted size. */
    sizeBytes: number
    /** The owner chose one of their own files (the service, which mails the practice kits, could read it). */
    ownerFile: boolean
  }
  /** Guardians who got a practice kit in their practice e-mail. */
  guardiansNotified: number
  startedAt: string
  expiresAt: string
  /** The heir's practice access was first used (vault read). */
  openedAt: string | null
  /** The heir downloaded the practice file. */
  downloadedAt: string | null
  /** The heir proved the practice key was rebuilt from the practice kits (POST /rehearsal/report). */
  passedAt: string | null
  /** Reports whose proof did not match (kits of another practice, or real kits). */
  failedReports: number
}

/** POST /vault/:id/rehearsal. Everything in it is practice material: nothing opens the vault. */
export interface RehearsalRequest {
  heirId: string
  /** One practice kit (its words) per guardian taking part; the practice e-mail carries it. */
  practiceKits: { guardianId: string; words: string }[]
  /** The practice file, encrypted under the practice key: base64, at most rehearsalSampleMaxBytes. */
  sample: { filename: string; content: string; ownerFile: boolean }
  /** Random, hex, 32 characters: the heir's client proves over it that it rebuilt the practice key. */
  challenge: string
  /** hex SHA-256 of the expected proof (rehearsalProof in vault-format, under the practice key). */
  proofHash: string
}

/** GET /rehearsal with a practice heir token: the practice file and what the heir's client reports. */
export interface RehearsalTicket {
  rehearsalId: string
  vaultId: string
  challenge: string
  expiresAt: string
  /** The practice file, encrypted under the practice key (base64). */
  sample: { filename: string; sizeBytes: number; content: string }
}

// ---- Extension kit-check: a guardian shows they still hold their paper kit (FORMAT.md 5.5) ----

export const KIT_CHECK_LIMITS = {
  /** The app's name for a split (e.g. the vault fingerprint and a re-split counter). */
  splitMaxChars: 64,
  /** A guardian is asked to check their kit this long after their last check (or reminder). */
  reminderEveryDays: 365,
  /** A guardian who has not confirmed this long after a reminder is overdue: the owner is told, once. */
  confirmWithinDays: 30,
} as const

/** Guardian.kitCheck: the guardian's standing in the vault's current split. */
export interface GuardianKitCheck {
  /** The split the guardian's current kit belongs to (KitCheckRegistration.split). */
  split: string
  /** When the guardian last confirmed this split's kit; null: not yet. */
  confirmedAt: string | null
  /** When the service last asked the guardian to check their kit; null: not yet. */
  remindedAt: string | null
  /** Reminded more than confirmWithinDays ago and not confirmed since (the owner was told by e-mail). */
  overdue: boolean
}

/**
 * PUT /vault/:id/kit-checks (owner key): the check codes of a new split, as hashes only
 * (kitCheckCodeHash(code, vaultId) in vault-format: lowercase hex SHA-256). A split other than the
 * current one becomes current: the previous split's hashes are kept as superseded (so an old kit is
 * named as such) and every guardian of the new split is reminded to check their new kit. Sending the
 * current split again replaces its hashes (a confirmation stays where the hash did not change); sending
 * a superseded split is refused (409).
 */
export interface KitCheckRegistration {
  split: string
  /** Each guardian at most once, each hash at most once; guardians of this vault. */
  guardians: { guardianId: string; codeHash: string }[]
}

export interface KitCheckRegistered {
  split: string
  registeredAt: string
}

/**
 * POST /kit-check (no owner key: the guardian token of the guardian's e-mail links is the credential;
 * rate-limited like the token pages). `code` as typed or as derived from the words (any case, spaces
 * and dashes allowed); the words themselves never leave the guardian's computer.
 */
export interface KitCheckRequest {
  guardianToken: string
  code: string
}

export const KIT_CHECK_OUTCOMES = [
  /** The code of this guardian's kit in the current split: confirmedAt is recorded. */
  'confirmed',
  /** This guardian's kit of an older split: the owner made new kits on `newSplitAt`. */
  'older-split',
  /** Another guardian's kit of this vault (current or older split). */
  'other-guardian',
  /** Not a check code: a wrong check character, a character no code has, or the wrong length. */
  'typo',
  /** A check code, but of no kit this vault's owner registered (another vault's kit?). */
  'unknown',
  /** The owner has registered no check code for this guardian yet. */
  'not-registered',
] as const
export type KitCheckOutcome = (typeof KIT_CHECK_OUTCOMES)[number]

export interface KitCheckResult {
  outcome: KitCheckOutcome
  /** 'confirmed': when (now). */
  confirmedAt?: string
  /** 'older-split': when the owner registered the current split. */
  newSplitAt?: string
}
