// JSON Schemas (OpenAPI 3.1 dialect) of what the service answers, typed against the wire types in
// src/shared/api.ts and the service's own views: a field added to a type and not here fails the typecheck,
// and the test harness checks every answer the service tests receive against these (test/service).
import {
  ASSET_CATEGORIES,
  type AssetListMeta,
  type CancelResult,
  CHECK_IN_FREQUENCIES,
  type CheckInResult,
  GUARDIAN_STATUSES,
  type Guardian,
  type GuardianKitCheck,
  type GuardianRemoved,
  type Heir,
  type HeirRemoved,
  type KeyRevoked,
  KIT_CHECK_LIMITS,
  KIT_CHECK_OUTCOMES,
  type KitCheckRegistered,
  type KitCheckResult,
  type MailTestResult,
  REHEARSAL_STATES,
  RELEASE_TRIGGERS,
  type Rehearsal,
  type RehearsalTicket,
  type ReleaseConfig,
  type ResponseMeta,
  SERVICE_EXTENSIONS,
  type ServiceInfo,
  SMTP_SECURITY,
  SSS_PRESETS,
  VAULT_STATES,
  type VaultClaims,
} from '../../shared/api'
import type { AssetView } from '../assets'
import type { HealthReport } from '../health'
import type { VaultView } from '../vaults'

/** A JSON Schema as OpenAPI 3.1 takes it (draft 2020-12). */
export type JsonSchema = { [keyword: string]: unknown }

/** The fields of T that may be absent. */
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T]

/**
 * An object schema with exactly T's fields: every field of T needs a schema here (the compiler says which
 * is missing or extra), and all but the `optional` ones are required.
 */
function objectOf<T>(
  description: string,
  properties: { [K in keyof T]-?: JsonSchema },
  optional: readonly OptionalKeys<T>[] = [],
): JsonSchema {
  const names = Object.keys(properties)
  return {
    type: 'object',
    description,
    properties,
    required: names.filter((name) => !(optional as readonly string[]).includes(name)),
  }
}

const text = (description?: string): JsonSchema => ({
  type: 'string',
  ...(description ? { description } : {}),
})
const count = (description?: string): JsonSchema => ({
  type: 'integer',
  minimum: 0,
  ...(description ? { description } : {}),
})
const flag = (description?: string): JsonSchema => ({
  type: 'boolean',
  ...(description ? { description } : {}),
})
const timestamp = (description = 'ISO 8601 timestamp'): JsonSchema => ({
  type: 'string',
  format: 'date-time',
  description,
})
const oneOfValues = (values: readonly string[], description?: string): JsonSchema => ({
  type: 'string',
  enum: [...values],
  ...(description ? { description } : {}),
})
/** The schema, or null. */
const orNull = (schema: JsonSchema): JsonSchema => {
  const { description, ...rest } = schema
  return {
    ...(description ? { description } : {}),
    oneOf: [rest, { type: 'null' }],
  }
}
/** The component schemas' names. */
export type WireSchemaName =
  | 'Vault'
  | 'Guardian'
  | 'GuardianKitCheck'
  | 'KitCheckRegistered'
  | 'KitCheckResult'
  | 'Heir'
  | 'Asset'
  | 'UploadedAsset'
  | 'ReleaseConfig'
  | 'GuardianRemoved'
  | 'HeirRemoved'
  | 'CheckInResult'
  | 'CancelResult'
  | 'ServiceInfo'
  | 'MailTestResult'
  | 'Rehearsal'
  | 'RehearsalTicket'
  | 'VaultDeleted'
  | 'AssetDeleted'
  | 'KeyRevoked'
  | 'RehearsalPassed'
  | 'HealthReport'
  | 'Meta'
  | 'AssetListMeta'

export const ref = (name: WireSchemaName): JsonSchema => ({ $ref: `#/components/schemas/${name}` })

const vault = objectOf<VaultView>(
  "The spec's Vault, plus the local service's release timing and the owner's name for it.",
  {
    id: text('vault identifier'),
    name: orNull(text("the owner's name for the vault (extension vault-name), or null")),
    checkInLinks: flag(
      'reminder e-mails carry a one-step check-in link (extension check-in-links); false by default, set with PATCH',
    ),
    state: oneOfValues(VAULT_STATES),
    createdAt: timestamp(),
    updatedAt: timestamp('ISO 8601 timestamp; the list response omits it'),
    creditsBalance: { type: 'integer', description: 'Vault Credits of the owning account (1 = $0.01)' },
    assetCount: count(),
    guardianCount: count(),
    heirCount: count(),
    releaseTrigger: orNull(oneOfValues(RELEASE_TRIGGERS)),
    sssPreset: oneOfValues(SSS_PRESETS, 'standard: 2-of-3; enhanced: 3-of-5'),
    checkInFrequency: orNull(oneOfValues(CHECK_IN_FREQUENCIES, 'set while the trigger is dead_man_switch')),
    nextCheckInDue: orNull(timestamp('when the next check-in is due (dead_man_switch, vault active)')),
    releaseStartedAt: orNull(timestamp('when the release started (vault releasing or released)')),
    contestationEndsAt: orNull(timestamp('when the contestation period ends (vault releasing or released)')),
    releasedAt: orNull(timestamp('when the vault was released')),
    claims: orNull(
      objectOf<VaultClaims>(
        "guardian claims that count now (guardian_claim vaults); null when nobody has claimed, and always null to an heir's or a practice access code. A claim short of `needed` starts nothing: the owner's app raises an alarm",
        {
          count: count('accepted guardians who claimed'),
          needed: count('claims that start a release (the split threshold)'),
          lastAt: timestamp('when the latest claim was made'),
          lastBy: text('the name of the guardian who claimed last'),
        },
      ),
    ),
  },
  ['updatedAt'],
)

const ETHEREUM_ADDRESS: JsonSchema = {
  type: 'string',
  pattern: '^0x[0-9a-fA-F]{40}$',
  description: 'Ethereum address',
}

const guardian = objectOf<Guardian>(
  'A guardian: holds one share of the vault key.',
  {
    id: text('guardian identifier'),
    name: text('display name'),
    email: text('e-mail address'),
    status: oneOfValues(GUARDIAN_STATUSES),
    walletAddress: ETHEREUM_ADDRESS,
    invitedAt: timestamp(),
    acceptedAt: timestamp(),
    kitCheck: orNull(ref('GuardianKitCheck')),
  },
  ['walletAddress', 'acceptedAt', 'kitCheck'],
)

const splitName = (description: string): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: KIT_CHECK_LIMITS.splitMaxChars,
  description,
})

const guardianKitCheck = objectOf<GuardianKitCheck>(
  "The guardian's kit check in the vault's current split (extension kit-check); null on a guardian when the owner registered no check code for them.",
  {
    split: splitName("the split the guardian's current kit belongs to"),
    confirmedAt: orNull(timestamp('when the guardian last confirmed they hold this kit')),
    remindedAt: orNull(timestamp('when the service last asked the guardian to check their kit')),
    overdue: flag(
      `reminded more than ${KIT_CHECK_LIMITS.confirmWithinDays} days ago and not confirmed since (the owner was told)`,
    ),
  },
)

const kitCheckRegistered = objectOf<KitCheckRegistered>(
  "A split's check codes registered: it is the vault's current split.",
  { split: splitName('the split as registered'), registeredAt: timestamp() },
)

const kitCheckResult = objectOf<KitCheckResult>(
  'What a typed or derived check code turned out to be.',
  {
    outcome: oneOfValues(
      KIT_CHECK_OUTCOMES,
      "confirmed: this guardian's current kit (recorded); older-split: their kit of a split the owner replaced; other-guardian: another guardian's kit of this vault; typo: not a check code; unknown: a code of no kit of this vault; not-registered: the owner registered no code for this guardian",
    ),
    confirmedAt: timestamp('when the confirmation was recorded (outcome confirmed)'),
    newSplitAt: timestamp('when the owner made the new kits (outcome older-split)'),
  },
  ['confirmedAt', 'newSplitAt'],
)

const heir = objectOf<Heir>(
  'An heir: receives access to the vault contents after a release.',
  {
    id: text('heir identifier'),
    name: text('display name'),
    email: text('e-mail address'),
    walletAddress: ETHEREUM_ADDRESS,
    addedAt: timestamp(),
  },
  ['walletAddress'],
)

const assetFields = {
  id: text('asset identifier'),
  filename: text('file name as uploaded (directory part removed)'),
  contentType: text('MIME type'),
  sizeBytes: count('encrypted size in bytes'),
  category: oneOfValues(ASSET_CATEGORIES, "derived from the file name's type"),
  storageTxId: text('where the blob store keeps it (an Arweave transaction id, or a content hash)'),
  createdAt: timestamp(),
  metadata: {
    type: 'object',
    description: 'the metadata object given at upload, when one was',
    additionalProperties: true,
  },
}

const asset = objectOf<AssetView>('An encrypted file in a vault.', assetFields, ['metadata'])

const uploadedAsset = objectOf<AssetView & { creditsConsumed: number }>(
  'The stored asset and what the upload cost.',
  { ...assetFields, creditsConsumed: count('Vault Credits this upload used') },
  ['metadata'],
)

const releaseConfig = objectOf<ReleaseConfig>('The release configuration after the change.', {
  trigger: oneOfValues(RELEASE_TRIGGERS),
  checkInFrequency: oneOfValues(CHECK_IN_FREQUENCIES),
  contestationDays: count(),
  nextCheckInDue: timestamp(),
})

const guardianRemoved = objectOf<GuardianRemoved>('A guardian removed.', {
  removed: text('the removed guardian id'),
  remainingGuardians: count(),
  sharesRegenerated: flag(),
})

const heirRemoved = objectOf<HeirRemoved>('An heir removed.', {
  removed: text('the removed heir id'),
  remainingHeirs: count(),
})

const checkInResult = objectOf<CheckInResult>('A check-in recorded (it costs 2 credits).', {
  success: flag(),
  nextCheckInDue: timestamp(),
  daysRemaining: count(),
})

const cancelResult = objectOf<CancelResult>('A release cancelled during the contestation period.', {
  cancelled: flag(),
  vaultState: oneOfValues(VAULT_STATES),
  cancelledAt: timestamp(),
})

const mailTestResult = objectOf<MailTestResult>(
  'The last test message sent for this account.',
  {
    to: text('the account e-mail address it was sent to'),
    at: timestamp(),
    delivered: flag(),
    error: orNull(text('why delivery failed, when it did')),
    security: oneOfValues(
      SMTP_SECURITY,
      'how it travelled to the SMTP server: tls (required), loopback (a server on the same machine), insecure-plaintext (the operator opted out of required TLS); absent from older services',
    ),
  },
  ['security'],
)

const serviceInfo = objectOf<ServiceInfo>(
  'What the service is, which extensions it offers, and whether it can reach people.',
  {
    service: text("'vault-desktop-local' for this project's service"),
    extensions: {
      type: 'array',
      items: oneOfValues(SERVICE_EXTENSIONS),
      description: 'the extensions this service offers; a client offers only what works',
    },
    publicUrl: {
      type: 'string',
      format: 'uri',
      description: 'the address heirs and guardians get in e-mails',
    },
    mail: objectOf<ServiceInfo['mail']>('E-mail delivery.', {
      configured: flag('an SMTP server is configured (without one, mail stays unsent in the outbox)'),
      lastTest: orNull(ref('MailTestResult')),
    }),
    storage: objectOf<NonNullable<ServiceInfo['storage']>>(
      'Where the encrypted files are kept. permanent: the store keeps every blob for ever (Arweave), so deleting a file removes only its record. Absent from older services.',
      { kind: oneOfValues(['folder', 'arweave']), permanent: flag() },
    ),
    operator: objectOf<NonNullable<ServiceInfo['operator']>>(
      'Who runs the service. Absent from older services.',
      {
        creditsUrl: orNull({
          type: 'string',
          format: 'uri',
          description:
            "the operator's page where owners buy credits (--credits-url); null: none given, owners ask the operator",
        }),
      },
    ),
  },
  ['storage', 'operator'],
)

const rehearsal = objectOf<Rehearsal>(
  'A practice run of the release with throwaway material; the real vault key is never assembled.',
  {
    id: text('rehearsal identifier'),
    vaultId: text(),
    state: oneOfValues(REHEARSAL_STATES),
    heir: objectOf<Rehearsal['heir']>('The heir taking part.', { id: text(), name: text(), email: text() }),
    sample: objectOf<Rehearsal['sample']>('The practice file (not a vault asset).', {
      filename: text(),
      sizeBytes: count('its encrypted size'),
      ownerFile: flag('the owner chose one of their own files'),
    }),
    guardiansNotified: count('guardians who got a practice kit in their practice e-mail'),
    startedAt: timestamp(),
    expiresAt: timestamp(),
    openedAt: orNull(timestamp('the heir first used the practice access')),
    downloadedAt: orNull(timestamp('the heir downloaded the practice file')),
    passedAt: orNull(timestamp('the heir proved the practice key was rebuilt')),
    failedReports: count('reports whose proof did not match'),
  },
)

const rehearsalTicket = objectOf<RehearsalTicket>(
  "The practice file and the challenge the heir's client proves over.",
  {
    rehearsalId: text(),
    vaultId: text(),
    challenge: { type: 'string', pattern: '^[0-9a-f]{32}$' },
    expiresAt: timestamp(),
    sample: objectOf<RehearsalTicket['sample']>('The practice file, encrypted under the practice key.', {
      filename: text(),
      sizeBytes: count(),
      content: { type: 'string', contentEncoding: 'base64' },
    }),
  },
)

const vaultDeleted = objectOf<{ deleted: string }>('A vault deleted with its assets, guardians and heirs.', {
  deleted: text('the deleted vault id'),
})

const assetDeleted = objectOf<{ deleted: string; contentRemoved: boolean }>("An asset's record removed.", {
  deleted: text('the deleted asset id'),
  contentRemoved: flag(
    'the blob was deleted too; false on a permanent store (Arweave keeps it) or when another asset holds the same bytes',
  ),
})

const keyRevoked = objectOf<KeyRevoked>('The key that authenticated the request no longer works.', {
  revoked: { const: true },
  kind: { enum: ['human', 'agent'], description: 'which kind of key was revoked' },
})

const rehearsalPassed = objectOf<{ passed: true }>('The proof matched: the practice passed.', {
  passed: { const: true },
})

const healthReport = objectOf<HealthReport>(
  'For monitors: whether the service reads its database and how e-mail delivery goes; never an address, a body or a token.',
  {
    status: oneOfValues(['ok', 'failing']),
    version: text('the service version'),
    database: oneOfValues(['ok', 'unreadable']),
    mail: objectOf<HealthReport['mail']>('Outbox delivery.', {
      state: oneOfValues(['not_configured', 'ok', 'retrying', 'unknown']),
      pending: count('messages not delivered yet'),
      gaveUp: count('messages that failed every attempt and are no longer retried'),
      lastDeliveredAt: orNull(timestamp()),
    }),
    storage: objectOf<NonNullable<HealthReport['storage']>>(
      'Only for a store whose blobs become permanent after a confirmation (Arweave).',
      {
        kind: { const: 'arweave' },
        unconfirmed: count('assets not confirmed yet'),
        oldestUnconfirmedSince: orNull(timestamp()),
        resends: count('blobs sent again (paid anew) because the network dropped them'),
        atResendCap: count(
          'assets dropped again after the most re-sends the service pays for (3), flagged for the operator',
        ),
      },
    ),
  },
  ['storage'],
)

const meta = objectOf<ResponseMeta>('Present on every success.', {
  timestamp: timestamp(),
  requestId: text('also sent as the x-request-id header'),
})

const assetListMeta = objectOf<AssetListMeta>('The asset list page.', {
  timestamp: timestamp(),
  requestId: text(),
  total: count('assets matching the filter'),
  limit: count(),
  offset: count(),
})

export const WIRE_SCHEMAS: Record<WireSchemaName, JsonSchema> = {
  Vault: vault,
  Guardian: guardian,
  GuardianKitCheck: guardianKitCheck,
  KitCheckRegistered: kitCheckRegistered,
  KitCheckResult: kitCheckResult,
  Heir: heir,
  Asset: asset,
  UploadedAsset: uploadedAsset,
  ReleaseConfig: releaseConfig,
  GuardianRemoved: guardianRemoved,
  HeirRemoved: heirRemoved,
  CheckInResult: checkInResult,
  CancelResult: cancelResult,
  ServiceInfo: serviceInfo,
  MailTestResult: mailTestResult,
  Rehearsal: rehearsal,
  RehearsalTicket: rehearsalTicket,
  VaultDeleted: vaultDeleted,
  AssetDeleted: assetDeleted,
  KeyRevoked: keyRevoked,
  RehearsalPassed: rehearsalPassed,
  HealthReport: healthReport,
  Meta: meta,
  AssetListMeta: assetListMeta,
}
