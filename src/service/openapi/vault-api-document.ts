// The OpenAPI 3.1 description of the whole interface this service answers: the spec's endpoints
// (vault-api-v2), the local extensions, the removed v1.0 endpoints, the guardian and check-in pages and
// /healthz. Served at /api/openapi.json and /v1/openapi.json; linted in `npm test` (redocly), and every
// answer the service tests receive is checked against it (test/service/openapi-response-check.ts).
// Request bodies come from the zod schemas the service validates with (validation.ts), so they cannot
// drift; answers from wire-schemas.ts, typed against src/shared/api.ts.
import { z } from 'zod'
import packageJson from '../../../package.json' with { type: 'json' }
import {
  ASSET_CATEGORIES,
  ERROR_CODES,
  type ErrorStatus,
  EXTENSION_LIMITS,
  LIMITS,
  RATE_LIMITS_PER_MINUTE,
  type RateLimitPattern,
  REMOVED_V1_ENDPOINTS,
  type ServiceExtension,
} from '../../shared/api'
import {
  checkInBody,
  createVaultBody,
  kitCheckBody,
  kitCheckRegistrationBody,
  personBody,
  rehearsalBody,
  rehearsalReportBody,
  releaseConfigBody,
  vaultSettingsBody,
} from '../validation'
import { type JsonSchema, ref, WIRE_SCHEMAS, type WireSchemaName } from './wire-schemas'

/** The JSON Schema of what a zod schema accepts (its input side); refinements it cannot say stay prose. */
function requestSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    unrepresentable: 'any',
  }) as JsonSchema
  return rest
}

const REQUEST_SCHEMAS = {
  PersonRequest: personBody,
  ReleaseConfigRequest: releaseConfigBody,
  CheckInRequest: checkInBody,
  CreateVaultRequest: createVaultBody,
  VaultSettingsRequest: vaultSettingsBody,
  RehearsalRequest: rehearsalBody,
  RehearsalReportRequest: rehearsalReportBody,
  KitCheckRegistration: kitCheckRegistrationBody,
  KitCheckRequest: kitCheckBody,
} as const
type RequestSchemaName = keyof typeof REQUEST_SCHEMAS

/** Who may call an operation; the same rules as the service's `authorize` (http-server.ts). */
type Caller = 'owner' | 'owner-read' | 'owner-or-heir' | 'owner-heir-or-practice' | 'practice'
const CALLERS: Record<Caller, string> = {
  owner: 'Keys: sk_human_ only (an sk_agent_ key gets 403).',
  'owner-read': "Keys: the owner's sk_human_ or sk_agent_.",
  'owner-or-heir':
    "Keys: the owner's sk_human_ or sk_agent_, or the heir access token of the released vault (hk_...).",
  'owner-heir-or-practice':
    "Keys: the owner's sk_human_ or sk_agent_, the heir access token of the released vault, or a practice heir token of its rehearsal.",
  practice: 'Keys: a practice heir token (hk_..., from a rehearsal e-mail) only.',
}

interface OperationSpec {
  operationId: string
  summary: string
  description?: string
  tag: Tag
  /** null: no key (the token in the path is the credential, or the answer is public). */
  caller: Caller | null
  rateLimit?: RateLimitPattern
  /** The extension that offers it (GET /service lists them); absent for the spec's own endpoints. */
  extension?: ServiceExtension
  pathParams?: PathParam[]
  query?: JsonSchema[]
  headers?: JsonSchema[]
  body?: { schema: RequestSchemaName; required: boolean } | { multipart: JsonSchema }
  /** Success answers: status -> response object. */
  success: Record<number, JsonSchema>
  /** Error answers, in the error envelope. */
  errors: ErrorStatus[]
}

type Tag = keyof typeof TAGS
const TAGS = {
  Service: 'What the service is, its e-mail test and its health.',
  Vaults: 'Vaults of the authenticated account.',
  Release: 'Release trigger, check-ins and the release itself.',
  People: 'Guardians and heirs.',
  Assets: 'Encrypted files (assets).',
  Rehearsal: 'Practice runs of the release with throwaway material (extension rehearsal).',
  Pages: 'HTML pages people open from their e-mails; no key, the token in the path is the credential.',
  'Removed in v2.0':
    'v1.0 endpoints the v2.0 interface removed: each answers 410 Gone naming its replacement.',
}

type PathParam = 'id' | 'gid' | 'hid' | 'aid' | 'token' | 'action' | 'hash' | 'subpath'
const PATH_PARAMS: Record<PathParam, string> = {
  id: 'vault identifier',
  gid: 'guardian identifier',
  hid: 'heir identifier',
  aid: 'asset identifier',
  token: 'the token from the e-mailed link',
  action: 'accept, decline or claim',
  hash: 'a content hash (v1.0)',
  subpath: 'any path below it',
}

/** The success envelope around data of the given schema. */
function envelope(data: JsonSchema, metaName: WireSchemaName = 'Meta'): JsonSchema {
  return { type: 'object', properties: { data, meta: ref(metaName) }, required: ['data', 'meta'] }
}
const json = (description: string, schema: JsonSchema, headers?: JsonSchema): JsonSchema => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema } },
})
const ok = (description: string, data: JsonSchema) => json(description, envelope(data))
const list = (description: string, name: WireSchemaName) =>
  ok(description, { type: 'array', items: ref(name) })
const htmlPage = (description: string, headers?: JsonSchema): JsonSchema => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'text/html': { schema: { type: 'string' } } },
})

const ERROR_MEANINGS: Record<ErrorStatus, string> = {
  400: 'The request failed validation (the message names the field), or its Host, Content-Type or JSON was refused.',
  401: 'The x-api-key header is missing, or the key is not valid or revoked.',
  402: 'Vault Credits balance too low; nothing was charged.',
  403: 'The key lacks permission for this operation (the message says which key would have it).',
  404: 'The vault, guardian, heir, asset or practice does not exist for this key, or there is no such route.',
  409: 'A state conflict (the vault is not active, the resource already exists, ...).',
  429: 'Too many requests for this key, or too many failed authentications from this address.',
  500: 'Internal error; retry after a short delay.',
  408: 'The request took too long to arrive.',
  414: 'A path segment is longer than any identifier.',
  417: 'An Expect header other than 100-continue.',
  431: 'The request headers are too large.',
  503: 'The file storage (e.g. the Arweave network) cannot be reached just now; nothing was changed.',
  410: 'A v1.0 endpoint that v2.0 removed; the message names its replacement (or says there is none).',
}

/** Statuses whose answer carries Retry-After (seconds). */
const RETRY_AFTER: readonly number[] = [429, 503]

function errorResponse(status: ErrorStatus): JsonSchema {
  return {
    description: ERROR_MEANINGS[status],
    headers: {
      'x-request-id': { $ref: '#/components/headers/RequestId' },
      ...(RETRY_AFTER.includes(status) ? { 'retry-after': { $ref: '#/components/headers/RetryAfter' } } : {}),
    },
    content: {
      'application/json': {
        schema: {
          type: 'object',
          properties: {
            error: {
              type: 'object',
              properties: {
                code: { const: ERROR_CODES[status] },
                message: { type: 'string', description: 'what happened and what to do' },
                status: { const: status },
              },
              required: ['code', 'message', 'status'],
            },
          },
          required: ['error'],
        },
      },
    },
  }
}

/** Errors any keyed API operation can answer. */
const KEYED: ErrorStatus[] = [400, 401, 403, 429, 500]
/** ... and one that names a vault. */
const ON_VAULT: ErrorStatus[] = [...KEYED, 404, 414]

const v = (path: string) => `/vault/{id}${path}`

const assetListQuery: JsonSchema[] = [
  {
    name: 'category',
    in: 'query',
    required: false,
    schema: { type: 'string', enum: [...ASSET_CATEGORIES] },
    description: 'only assets of this category (default: all)',
  },
  {
    name: 'limit',
    in: 'query',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: LIMITS.assetPageMax, default: LIMITS.assetPageDefault },
    description: 'results per page',
  },
  {
    name: 'offset',
    in: 'query',
    required: false,
    schema: { type: 'integer', minimum: 0, default: 0 },
    description: 'pagination offset',
  },
]

const uploadForm: JsonSchema = {
  type: 'object',
  properties: {
    file: {
      type: 'string',
      contentMediaType: 'application/octet-stream',
      description: 'the encrypted bytes',
    },
    filename: { type: 'string', maxLength: 255, description: 'file name; any directory part is removed' },
    contentType: {
      type: 'string',
      maxLength: 255,
      description: 'MIME type; derived from the file name when omitted or empty',
    },
    metadata: {
      type: 'string',
      contentMediaType: 'application/json',
      maxLength: LIMITS.metadataMaxBytes,
      description: `a JSON object, at most ${LIMITS.metadataMaxBytes} bytes`,
    },
  },
  required: ['file', 'filename'],
}

const download = {
  description: "The asset's encrypted bytes.",
  headers: {
    'x-request-id': { $ref: '#/components/headers/RequestId' },
    'accept-ranges': { schema: { const: 'bytes' } },
    'content-disposition': {
      schema: { type: 'string' },
      description: "attachment, with the asset's file name",
    },
    'x-asset-content-type': { schema: { type: 'string' }, description: "the asset's MIME type" },
    'x-storage-tx-id': { schema: { type: 'string' }, description: 'where the blob store keeps it' },
  },
  content: {
    'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
  },
}

const OPERATIONS: Record<
  string,
  Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', OperationSpec>>
> = {
  '/openapi.json': {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      description: 'The OpenAPI 3.1 description of the interface; no key needed.',
      tag: 'Service',
      caller: null,
      success: {
        200: {
          description: 'The document itself (not in the success envelope).',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { openapi: { type: 'string' }, paths: { type: 'object' } },
                required: ['openapi', 'paths'],
                additionalProperties: true,
              },
            },
          },
        },
      },
      errors: [400, 500],
    },
  },
  '/service': {
    get: {
      operationId: 'getService',
      summary: 'What this service is',
      description:
        'Which service, which extensions it offers, its public address, whether it can send e-mail and which blob store it keeps files in.',
      tag: 'Service',
      caller: 'owner-read',
      rateLimit: 'getVault',
      success: { 200: ok('The service.', ref('ServiceInfo')) },
      errors: KEYED,
    },
  },
  '/service/mail-test': {
    post: {
      operationId: 'sendMailTest',
      summary: "Send a test e-mail to the account's address",
      tag: 'Service',
      caller: 'owner',
      rateLimit: 'otherPost',
      extension: 'mail-test',
      success: { 200: ok('The outcome; delivered false says why in error.', ref('MailTestResult')) },
      errors: [...KEYED, 404, 409],
    },
  },
  '/key': {
    delete: {
      operationId: 'revokeOwnKey',
      summary: 'Revoke the key this request authenticates with',
      description:
        'The presented sk_human_ or sk_agent_ key stops working at once (an app giving up the agent key it kept for check-ins). Other keys of the account are untouched; revoking any other key stays with the operator.',
      tag: 'Service',
      caller: 'owner-read',
      rateLimit: 'otherPost',
      extension: 'key-revoke',
      success: { 200: ok('The key is revoked.', ref('KeyRevoked')) },
      errors: KEYED,
    },
  },
  '/vault': {
    get: {
      operationId: 'listVaults',
      summary: 'Vaults of the authenticated account',
      tag: 'Vaults',
      caller: 'owner-read',
      rateLimit: 'getVault',
      success: { 200: list('The vaults (updatedAt omitted).', 'Vault') },
      errors: KEYED,
    },
    post: {
      operationId: 'createVault',
      summary: 'Create a vault',
      tag: 'Vaults',
      caller: 'owner',
      rateLimit: 'otherPost',
      extension: 'vault-create',
      body: { schema: 'CreateVaultRequest', required: false },
      success: { 201: ok('The new vault.', ref('Vault')) },
      errors: [...KEYED, 404],
    },
  },
  '/vault/{id}': {
    get: {
      operationId: 'getVault',
      summary: 'One vault',
      description: 'Clients poll it to observe changes of vault state.',
      tag: 'Vaults',
      caller: 'owner-heir-or-practice',
      rateLimit: 'getVault',
      pathParams: ['id'],
      success: { 200: ok('The vault.', ref('Vault')) },
      errors: ON_VAULT,
    },
    patch: {
      operationId: 'updateVaultSettings',
      summary:
        "Set or clear the owner's name for a vault; turn one-step check-in links in reminders on or off",
      description:
        "checkInLinks is extension `check-in-links`: with it on, whoever can read the owner's mailbox can check in, so proof of life becomes access to that mailbox. Off by default.",
      tag: 'Vaults',
      caller: 'owner',
      rateLimit: 'otherPost',
      extension: 'vault-name',
      pathParams: ['id'],
      body: { schema: 'VaultSettingsRequest', required: true },
      success: { 200: ok('The vault.', ref('Vault')) },
      errors: [...ON_VAULT, 409],
    },
    delete: {
      operationId: 'deleteVault',
      summary: 'Delete a vault with its assets, guardians and heirs',
      description:
        'On a permanent store (GET /service: storage.permanent) the encrypted files stay on the network: anyone holding a threshold of kits can still open them.',
      tag: 'Vaults',
      caller: 'owner',
      rateLimit: 'otherPost',
      extension: 'vault-delete',
      pathParams: ['id'],
      success: { 200: ok('The deleted vault id.', ref('VaultDeleted')) },
      errors: [...ON_VAULT, 409, 503],
    },
  },
  [v('/release/config')]: {
    post: {
      operationId: 'configureRelease',
      summary: 'Set the release trigger',
      tag: 'Release',
      caller: 'owner',
      rateLimit: 'postRelease',
      pathParams: ['id'],
      body: { schema: 'ReleaseConfigRequest', required: true },
      success: { 200: ok('The release configuration.', ref('ReleaseConfig')) },
      errors: [...ON_VAULT, 409],
    },
  },
  [v('/release/checkin')]: {
    post: {
      operationId: 'checkIn',
      summary: 'Check in (resets the dead man switch; costs 2 credits)',
      tag: 'Release',
      caller: 'owner-read',
      rateLimit: 'postRelease',
      pathParams: ['id'],
      body: { schema: 'CheckInRequest', required: false },
      success: { 200: ok('The check-in.', ref('CheckInResult')) },
      errors: [...ON_VAULT, 402, 409],
    },
  },
  [v('/release/cancel')]: {
    post: {
      operationId: 'cancelRelease',
      summary: 'Cancel a release during its contestation period',
      tag: 'Release',
      caller: 'owner',
      rateLimit: 'postRelease',
      pathParams: ['id'],
      success: { 200: ok('The vault is active again.', ref('CancelResult')) },
      errors: [...ON_VAULT, 409],
    },
  },
  [v('/release/start')]: {
    post: {
      operationId: 'startRelease',
      summary: 'Start the release now (the contestation period follows)',
      tag: 'Release',
      caller: 'owner',
      rateLimit: 'postRelease',
      extension: 'release-start',
      pathParams: ['id'],
      success: { 200: ok('The vault, now releasing.', ref('Vault')) },
      errors: [...ON_VAULT, 409],
    },
  },
  [v('/guardian')]: {
    get: {
      operationId: 'listGuardians',
      summary: "A vault's guardians",
      tag: 'People',
      caller: 'owner-read',
      rateLimit: 'getVault',
      pathParams: ['id'],
      success: { 200: list('The guardians.', 'Guardian') },
      errors: ON_VAULT,
    },
    post: {
      operationId: 'addGuardian',
      summary: 'Add a guardian (sends the invitation e-mail)',
      tag: 'People',
      caller: 'owner',
      rateLimit: 'postGuardian',
      pathParams: ['id'],
      body: { schema: 'PersonRequest', required: true },
      success: { 201: ok('The guardian, pending.', ref('Guardian')) },
      errors: [...ON_VAULT, 409],
    },
  },
  [v('/guardian/{gid}')]: {
    delete: {
      operationId: 'removeGuardian',
      summary: 'Remove a guardian (the shares are regenerated)',
      tag: 'People',
      caller: 'owner',
      rateLimit: 'otherPost',
      pathParams: ['id', 'gid'],
      success: { 200: ok('The removal.', ref('GuardianRemoved')) },
      errors: [...ON_VAULT, 409],
    },
  },
  [v('/kit-checks')]: {
    put: {
      operationId: 'registerKitChecks',
      summary: "Register a split's kit check codes (as hashes)",
      description:
        "codeHash is hex SHA-256(vault id || 0x00 || the kit's check code), FORMAT.md 5.5: the service never sees a code it did not get from a guardian. A split other than the current one becomes current: the previous split's hashes are kept as superseded (to tell a guardian their kit is an older one) and every guardian of the new split is reminded to check their kit. Sending the current split again replaces its hashes (a confirmation stays where the hash is unchanged); a superseded split is refused with 409.",
      tag: 'People',
      caller: 'owner',
      rateLimit: 'otherPost',
      extension: 'kit-check',
      pathParams: ['id'],
      body: { schema: 'KitCheckRegistration', required: true },
      success: { 200: ok('The split, now current.', ref('KitCheckRegistered')) },
      errors: [...ON_VAULT, 409],
    },
  },
  '/kit-check': {
    post: {
      operationId: 'checkKit',
      summary: "A guardian's kit check: is this the check code of their current kit?",
      description:
        "No key: guardianToken is the guardian's token (the gt_... of their invitation links) or a kit-check link token (kc_..., from a reminder). The app and the CLI derive the code from the kit's words and send only the code. A token matching nothing counts as a failed authentication (404, then 429 past the limit per address); each token may check 60 codes a minute. A known token is always answered 200 with the outcome.",
      tag: 'People',
      caller: null,
      extension: 'kit-check',
      body: { schema: 'KitCheckRequest', required: true },
      success: { 200: ok('What the code turned out to be.', ref('KitCheckResult')) },
      errors: [400, 404, 429, 500],
    },
  },
  [v('/heir')]: {
    get: {
      operationId: 'listHeirs',
      summary: "A vault's heirs",
      tag: 'People',
      caller: 'owner-read',
      rateLimit: 'getVault',
      pathParams: ['id'],
      success: { 200: list('The heirs.', 'Heir') },
      errors: ON_VAULT,
    },
    post: {
      operationId: 'addHeir',
      summary: 'Add an heir',
      tag: 'People',
      caller: 'owner',
      rateLimit: 'postHeir',
      pathParams: ['id'],
      body: { schema: 'PersonRequest', required: true },
      success: { 201: ok('The heir.', ref('Heir')) },
      errors: [...ON_VAULT, 409],
    },
  },
  [v('/heir/{hid}')]: {
    delete: {
      operationId: 'removeHeir',
      summary: 'Remove an heir',
      tag: 'People',
      caller: 'owner',
      rateLimit: 'otherPost',
      pathParams: ['id', 'hid'],
      success: { 200: ok('The removal.', ref('HeirRemoved')) },
      errors: [...ON_VAULT, 409],
    },
  },
  [v('/asset')]: {
    get: {
      operationId: 'listAssets',
      summary: "A page of a vault's assets",
      tag: 'Assets',
      caller: 'owner-or-heir',
      rateLimit: 'getVault',
      pathParams: ['id'],
      query: assetListQuery,
      success: {
        200: json('The page.', {
          type: 'object',
          properties: { data: { type: 'array', items: ref('Asset') }, meta: ref('AssetListMeta') },
          required: ['data', 'meta'],
        }),
      },
      errors: ON_VAULT,
    },
    post: {
      operationId: 'uploadAsset',
      summary: 'Upload an encrypted file',
      description: `At most ${LIMITS.maxFileBytes} bytes. Credits: max(1, ceil(bytes * 4650 / 10^9)); a failed upload consumes none.`,
      tag: 'Assets',
      caller: 'owner',
      rateLimit: 'postAsset',
      pathParams: ['id'],
      body: { multipart: uploadForm },
      success: { 201: ok('The stored asset and its cost.', ref('UploadedAsset')) },
      errors: [...ON_VAULT, 402, 409, 503],
    },
  },
  [v('/asset/{aid}')]: {
    delete: {
      operationId: 'deleteAsset',
      summary: "Remove an asset's record (and its blob where the store deletes)",
      tag: 'Assets',
      caller: 'owner',
      rateLimit: 'otherPost',
      extension: 'asset-delete',
      pathParams: ['id', 'aid'],
      success: {
        200: ok('The removal; contentRemoved says whether the bytes went too.', ref('AssetDeleted')),
      },
      errors: [...ON_VAULT, 409, 503],
    },
  },
  [v('/asset/{aid}/content')]: {
    get: {
      operationId: 'downloadAsset',
      summary: "Download an asset's encrypted bytes",
      description:
        'One byte range (Range: bytes=start-end) resumes an interrupted download; anything else gets the whole content.',
      tag: 'Assets',
      caller: 'owner-or-heir',
      rateLimit: 'getVault',
      pathParams: ['id', 'aid'],
      headers: [
        {
          name: 'range',
          in: 'header',
          required: false,
          schema: { type: 'string', pattern: '^bytes=\\d*-\\d*$' },
          description: 'one byte range',
        },
      ],
      success: {
        200: download,
        206: {
          ...download,
          description: 'The requested byte range.',
          headers: {
            ...download.headers,
            'content-range': { schema: { type: 'string' }, description: 'bytes start-end/size' },
          },
        },
      },
      errors: [...ON_VAULT, 503],
    },
  },
  [v('/rehearsal')]: {
    get: {
      operationId: 'getRehearsal',
      summary: "The vault's latest practice, or null",
      tag: 'Rehearsal',
      caller: 'owner-read',
      rateLimit: 'getVault',
      extension: 'rehearsal',
      pathParams: ['id'],
      success: {
        200: ok('The practice, or null when none was started.', {
          oneOf: [ref('Rehearsal'), { type: 'null' }],
        }),
      },
      errors: ON_VAULT,
    },
    post: {
      operationId: 'startRehearsal',
      summary: 'Start a practice: mails practice kits to the guardians and a practice access to one heir',
      description: `Everything in the body is practice material: nothing opens the vault. The practice file is at most ${EXTENSION_LIMITS.rehearsalSampleMaxBytes} bytes (base64 in the body); the practice ends by itself after ${EXTENSION_LIMITS.rehearsalDays} days.`,
      tag: 'Rehearsal',
      caller: 'owner',
      rateLimit: 'otherPost',
      extension: 'rehearsal',
      pathParams: ['id'],
      body: { schema: 'RehearsalRequest', required: true },
      success: { 201: ok('The practice.', ref('Rehearsal')) },
      errors: [...ON_VAULT, 409],
    },
    delete: {
      operationId: 'cancelRehearsal',
      summary: 'Cancel the running practice',
      tag: 'Rehearsal',
      caller: 'owner',
      rateLimit: 'otherPost',
      extension: 'rehearsal',
      pathParams: ['id'],
      success: { 200: ok('The practice, cancelled.', ref('Rehearsal')) },
      errors: [...ON_VAULT, 409],
    },
  },
  '/rehearsal': {
    get: {
      operationId: 'getRehearsalTicket',
      summary: 'The practice file and the challenge (practice heir token)',
      tag: 'Rehearsal',
      caller: 'practice',
      rateLimit: 'getVault',
      extension: 'rehearsal',
      success: { 200: ok('The practice file, encrypted under the practice key.', ref('RehearsalTicket')) },
      errors: [...KEYED, 404, 409],
    },
  },
  '/rehearsal/report': {
    post: {
      operationId: 'reportRehearsal',
      summary: 'Report the proof that the practice key was rebuilt',
      description: 'A proof that does not match answers 400 and is counted in failedReports.',
      tag: 'Rehearsal',
      caller: 'practice',
      rateLimit: 'otherPost',
      extension: 'rehearsal',
      body: { schema: 'RehearsalReportRequest', required: true },
      success: { 200: ok('The practice passed.', ref('RehearsalPassed')) },
      errors: [...KEYED, 404, 409],
    },
  },
}

/** Pages outside the API prefixes: HTML for people, and /healthz for monitors. */
const PAGE_ERRORS_JSON: ErrorStatus[] = [400, 414, 500]

function operationObject(spec: OperationSpec): JsonSchema {
  const parameters: JsonSchema[] = [
    ...(spec.pathParams ?? []).map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
      description: PATH_PARAMS[name],
    })),
    ...(spec.query ?? []),
    ...(spec.headers ?? []),
  ]
  const description = [
    spec.description,
    spec.caller ? CALLERS[spec.caller] : null,
    spec.rateLimit
      ? `Rate limit: ${RATE_LIMITS_PER_MINUTE[spec.rateLimit]} requests per minute per key.`
      : null,
    spec.extension
      ? `Extension \`${spec.extension}\` of this service (listed by GET /service); other services answer 404.`
      : null,
  ]
    .filter(Boolean)
    .join('\n\n')
  const body = spec.body
    ? 'multipart' in spec.body
      ? { required: true, content: { 'multipart/form-data': { schema: spec.body.multipart } } }
      : {
          required: spec.body.required,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${spec.body.schema}` } } },
        }
    : undefined
  const responses: Record<string, JsonSchema> = {}
  for (const [status, response] of Object.entries(spec.success)) responses[status] = response
  for (const status of [...new Set(spec.errors)].sort((a, b) => a - b)) {
    responses[String(status)] = { $ref: `#/components/responses/Error${status}` }
  }
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(description ? { description } : {}),
    tags: [spec.tag],
    ...(spec.caller === null ? { security: [] } : {}),
    ...(spec.extension ? { 'x-vault-extension': spec.extension } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
  }
}

/**
 * v2.0's removed endpoints, from the table the service answers them by (REMOVED_V1_ENDPOINTS): each 410 Gone
 * in the envelope, no key needed. One with `below` answers for every path under it too.
 */
function removedOperations(): Record<string, JsonSchema> {
  const paths: Record<string, JsonSchema> = {}
  for (const removed of REMOVED_V1_ENDPOINTS) {
    const path = removed.path.replace(/:(\w+)/g, '{$1}')
    const replacement = removed.replacement.replaceAll('{prefix}', '/api')
    for (const documented of removed.below ? [path, `${path}/{subpath}`] : [path]) {
      const pathParams = [...documented.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as PathParam)
      const name = path
        .replace(/\{\w+\}/g, '')
        .split('/')
        .filter(Boolean)
        .map((part) => part[0]!.toUpperCase() + part.slice(1))
        .join('')
      const item: JsonSchema = {}
      for (const method of removed.methods) {
        const verb = method[0] + method.slice(1).toLowerCase()
        item[method.toLowerCase()] = {
          ...operationObject({
            operationId: `removed${verb}${name}${documented === path ? '' : 'Below'}`,
            summary: `Removed in v2.0 (replacement: ${replacement})`,
            description: `v1.0 had this endpoint; v2.0 removed it. The answer is 410 Gone in the error envelope, its message naming the replacement (under the prefix called): ${replacement}.`,
            tag: 'Removed in v2.0',
            caller: null,
            pathParams,
            success: {},
            errors: [400, 410, 414, 500],
          }),
          deprecated: true,
        }
      }
      paths[documented] = item
    }
  }
  return paths
}

const ROOT_SERVER = [{ url: '/', description: 'outside the API prefixes' }]

function pageOperations(): Record<string, JsonSchema> {
  const pageHeaders = {
    'content-security-policy': { schema: { type: 'string' } },
    'x-frame-options': { schema: { const: 'DENY' } },
  }
  const guardianPage: OperationSpec = {
    operationId: 'showGuardianPage',
    summary: "A guardian's page: accept or decline the invitation, or claim the release",
    description: 'GET changes nothing (mail scanners fetch links); its form POSTs to the same address.',
    tag: 'Pages',
    caller: null,
    pathParams: ['token', 'action'],
    success: {
      200: htmlPage('The page with its button.', pageHeaders),
      404: htmlPage('An unknown link or action.'),
      429: htmlPage('Too many unknown tokens from this address.', {
        'retry-after': { $ref: '#/components/headers/RetryAfter' },
      }),
    },
    errors: PAGE_ERRORS_JSON,
  }
  const checkInPage: OperationSpec = {
    operationId: 'showCheckInPage',
    summary: "The page behind a reminder's one-step check-in link",
    description: 'GET changes nothing; its form POSTs to the same address, which checks in.',
    tag: 'Pages',
    caller: null,
    pathParams: ['token'],
    success: {
      200: htmlPage('The page with its button.', pageHeaders),
      404: htmlPage('An unknown link.'),
      409: htmlPage('The vault is releasing.'),
      410: htmlPage(
        'The link was used, a check-in happened since, or the vault has no dead man switch any more.',
      ),
      429: htmlPage('Too many unknown tokens from this address.'),
    },
    errors: PAGE_ERRORS_JSON,
  }
  const posted = (
    spec: OperationSpec,
    operationId: string,
    summary: string,
    extra: Record<number, JsonSchema>,
  ) => ({
    ...spec,
    operationId,
    summary,
    description: "Sent by the page's form (Origin of another site: 403). No body is read.",
    success: { ...spec.success, ...extra },
  })
  const kitCheckPage: OperationSpec = {
    operationId: 'showKitCheckPage',
    summary: 'A guardian\'s "Check my kit" page (extension kit-check)',
    description:
      "At /guardian/{token}/check (the invitation's link) and /kit-check/{token} (a reminder's link). GET shows a form for the check code and changes nothing; the form POSTs the field `code` to the same address.",
    tag: 'Pages',
    caller: null,
    extension: 'kit-check',
    pathParams: ['token'],
    success: {
      200: htmlPage('The form.', pageHeaders),
      404: htmlPage('An unknown link.'),
      429: htmlPage('Too many unknown tokens from this address.'),
    },
    errors: PAGE_ERRORS_JSON,
  }
  const kitCheckAnswer = (operationId: string): OperationSpec => ({
    ...kitCheckPage,
    operationId,
    summary: 'Check the typed code',
    description:
      "Form field `code` (application/x-www-form-urlencoded). 200: confirmed, recorded. 422: a typo, another guardian's kit or no kit of this vault (the form again). 409: a kit of an older split, or no code registered for this guardian. 403: sent from another site. 429: too many codes with this link in a minute, or too many unknown tokens.",
    success: {
      ...kitCheckPage.success,
      200: htmlPage('Confirmed.', pageHeaders),
      422: htmlPage("Not this guardian's current kit: a typo, another guardian's kit, or an unknown code."),
      403: htmlPage('Sent from another site.'),
      409: htmlPage('A kit of an older split, or no code registered for this guardian.'),
    },
  })
  const healthz: OperationSpec = {
    operationId: 'getHealth',
    summary: 'Health for monitors (no key)',
    tag: 'Service',
    caller: null,
    success: {
      200: json('The service reads its database.', ref('HealthReport')),
      503: json('The database cannot be read.', ref('HealthReport')),
    },
    errors: [400, 500],
  }
  const recoveryPage: OperationSpec = {
    operationId: 'getRecoveryPage',
    summary: "The heir's recovery page (no key)",
    description:
      "One self-contained HTML page that recovers a released vault in the browser with the guardians' kits and the heir access code (or local .vault files, or Arweave). Its Content-Security-Policy lets it connect only to this service; `x-content-sha256` is the SHA-256 of the page served, the value printed in the heir e-mail, RECOVERY.md and on the kits, so an heir can check the copy in hand. `cache-control: no-cache`. 404: this service has no built page (the page says how its operator builds it).",
    tag: 'Pages',
    caller: null,
    success: {
      200: htmlPage('The page.', {
        ...pageHeaders,
        'x-content-sha256': { schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
        'cache-control': { schema: { const: 'no-cache' } },
      }),
      404: htmlPage('No recovery page was built for this service.', pageHeaders),
    },
    errors: PAGE_ERRORS_JSON,
  }
  return {
    '/recover': { servers: ROOT_SERVER, get: operationObject(recoveryPage) },
    '/healthz': { servers: ROOT_SERVER, get: operationObject(healthz) },
    '/guardian/{token}/{action}': {
      servers: ROOT_SERVER,
      get: operationObject(guardianPage),
      post: operationObject(
        posted(guardianPage, 'answerGuardianPage', 'Accept, decline or claim', {
          403: htmlPage('Sent from another site.'),
          409: htmlPage('Not possible now (already answered, not accepted, another trigger).'),
        }),
      ),
    },
    '/guardian/{token}/check': {
      servers: ROOT_SERVER,
      get: operationObject(kitCheckPage),
      post: operationObject(kitCheckAnswer('checkKitFromGuardianPage')),
    },
    '/kit-check/{token}': {
      servers: ROOT_SERVER,
      get: operationObject({ ...kitCheckPage, operationId: 'showKitCheckLinkPage' }),
      post: operationObject(kitCheckAnswer('checkKitFromReminderLink')),
    },
    '/check-in/{token}': {
      servers: ROOT_SERVER,
      get: operationObject(checkInPage),
      post: operationObject(
        posted(checkInPage, 'checkInFromPage', 'Check in', {
          402: htmlPage('Not enough credits for the check-in.'),
          403: htmlPage('Sent from another site.'),
        }),
      ),
    },
  }
}

/**
 * The CORS preflight of the three reads an heir's recovery page makes (a copy opened from file:// has
 * Origin "null"): any origin, GET only, the x-api-key and Range headers, no credentials. Those GETs
 * answer `access-control-allow-origin: *`; no other endpoint answers CORS.
 */
function addHeirPreflights(paths: Record<string, JsonSchema>): void {
  const names: Record<string, string> = {
    [v('')]: 'preflightGetVault',
    [v('/asset')]: 'preflightListAssets',
    [v('/asset/{aid}/content')]: 'preflightDownloadAsset',
  }
  for (const [path, operationId] of Object.entries(names)) {
    const item = paths[path] as JsonSchema
    item.options = operationObject({
      operationId,
      summary: "CORS preflight for the heir's recovery page",
      tag: 'Assets',
      caller: null,
      pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as PathParam),
      success: {
        204: {
          description:
            'Allowed: access-control-allow-origin *, access-control-allow-methods GET, access-control-allow-headers x-api-key, range.',
          headers: {
            'access-control-allow-origin': { schema: { const: '*' } },
            'access-control-allow-methods': { schema: { const: 'GET' } },
            'access-control-allow-headers': { schema: { const: 'x-api-key, range' } },
          },
        },
      },
      errors: [400, 500],
    })
  }
}

/** The whole document, built once. */
export function buildVaultApiDocument(): JsonSchema {
  const paths: Record<string, JsonSchema> = {}
  for (const [path, methods] of Object.entries(OPERATIONS)) {
    const item: JsonSchema = {}
    for (const [method, spec] of Object.entries(methods)) item[method] = operationObject(spec)
    paths[path] = item
  }
  Object.assign(paths, removedOperations(), pageOperations())
  addHeirPreflights(paths)

  // Only the error answers some operation names (408, 417 and 431 come from the HTTP parser, before any route).
  const responses: Record<string, JsonSchema> = {}
  const named = JSON.stringify(paths).matchAll(/#\/components\/responses\/Error(\d+)/g)
  for (const status of [...new Set([...named].map((match) => Number(match[1])))].sort() as ErrorStatus[]) {
    responses[`Error${status}`] = errorResponse(status)
  }
  const schemas: Record<string, JsonSchema> = { ...WIRE_SCHEMAS }
  for (const [name, schema] of Object.entries(REQUEST_SCHEMAS)) schemas[name] = requestSchema(schema)

  return {
    openapi: '3.1.1',
    info: {
      title: 'Vault Service',
      version: packageJson.version,
      summary: 'Digital-inheritance vaults: client-encrypted files, guardians, heirs and a release.',
      description: [
        'The Vault API v2.0 (vault-api-v2) as this service answers it, with its local extensions (`x-vault-extension` names the one offering an operation; GET /service lists those a service has).',
        'Paths are written without their prefix: the API answers under both /api and /v1 (the two servers). /healthz and the pages people open from e-mails are outside them.',
        'Every success is `{"data": ..., "meta": {"timestamp", "requestId"}}`; every error `{"error": {"code", "message", "status"}}`, also for routes that do not exist (404 NOT_FOUND) and for requests the HTTP layer refuses before any route (408 REQUEST_TIMEOUT, 414 URI_TOO_LONG, 417 EXPECTATION_FAILED, 431 HEADERS_TOO_LARGE). Every answer carries x-request-id.',
        'Request schemas say what the service checks that JSON Schema can say; the rest (EIP-55 checksums, trimmed lengths, e-mail syntax) is in the 400 message, which names the field.',
        'Answers may gain fields in later versions: clients should ignore fields they do not know.',
      ].join('\n\n'),
      license: { name: packageJson.license, identifier: packageJson.license },
    },
    servers: [
      { url: '/api', description: 'the prefix the spec writes' },
      { url: '/v1', description: "the same interface under the prefix of the spec's request examples" },
    ],
    security: [{ apiKey: [] }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description:
            'sk_human_... (full access), sk_agent_... (reads and check-in: it reads file names and guardian and heir e-mails, and downloads ciphertext), or an heir access token (hk_...).',
        },
      },
      headers: {
        RequestId: { description: 'identifies the request in the service log', schema: { type: 'string' } },
        RetryAfter: {
          description: 'seconds to wait before retrying',
          schema: { type: 'integer', minimum: 0 },
        },
      },
      responses,
      schemas,
    },
  }
}

let documentJson: string | undefined
/** The document as served: serialized once. */
export function vaultApiDocumentJson(): string {
  documentJson ??= JSON.stringify(buildVaultApiDocument())
  return documentJson
}
