// Request validation: zod schemas for every JSON body and query, with messages that name the field.
import { keccak_256 } from '@noble/hashes/sha3.js'
import { z } from 'zod'
import {
  ASSET_CATEGORIES,
  CHECK_IN_FREQUENCIES,
  EXTENSION_LIMITS,
  KIT_CHECK_LIMITS,
  LIMITS,
  RELEASE_TRIGGERS,
  SSS_PRESETS,
} from '../shared/api'
import { badRequest } from './errors'

const ETH_ADDRESS = /^0x[0-9a-fA-F]{40}$/

/**
 * An Ethereum address: 0x + 40 hex digits. All-lowercase or all-uppercase digits carry no checksum;
 * mixed case must match the EIP-55 checksum (keccak-256 of the lowercase hex).
 */
export function ethereumAddressProblem(address: string): string | null {
  if (!ETH_ADDRESS.test(address)) return 'must be an Ethereum address: 0x followed by 40 hexadecimal digits'
  const hex = address.slice(2)
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return null
  const hash = keccak_256(new TextEncoder().encode(hex.toLowerCase()))
  for (let i = 0; i < 40; i++) {
    const c = hex[i]!
    if (c >= '0' && c <= '9') continue
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f
    const wantUpper = nibble >= 8
    if (wantUpper !== (c === c.toUpperCase())) {
      return 'has mixed case but fails its EIP-55 checksum; check the address for a typo or send it all lowercase'
    }
  }
  return null
}

/** Control characters (C0, DEL, C1). */
const CONTROL = /\p{Cc}/u
/**
 * Bidirectional controls that reorder how a name is shown ("invoice\u202Egpj.exe" reads as "invoiceexe.jpg"):
 * embeddings and overrides U+202A-U+202E, isolates U+2066-U+2069, marks U+200E, U+200F and U+061C.
 */
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u
const BIDI_LIST = 'U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C'

/** Why a user-visible name cannot be stored, or null when it can. */
function nameCharProblem(label: string, name: string): string | null {
  if (CONTROL.test(name)) return `${label} must not contain control characters (line breaks, tabs, NUL ...)`
  if (BIDI_CONTROL.test(name)) {
    return `${label} must not contain bidirectional control characters (${BIDI_LIST}): they can disguise how the name reads`
  }
  return null
}

function requiredString(label: string, max: number) {
  return z
    .string({
      error: (issue) => (issue.input === undefined ? `${label} is required` : `${label} must be a string`),
    })
    .trim()
    .min(1, { error: `${label} must not be empty` })
    .max(max, { error: `${label} must be at most ${max} characters` })
}

function oneOf<T extends readonly [string, ...string[]]>(label: string, values: T, required: boolean) {
  const allowed = values.join(', ')
  return z.enum(values, {
    error: (issue) =>
      issue.input === undefined && required
        ? `${label} is required; one of: ${allowed}`
        : `${label} must be one of: ${allowed} (got ${JSON.stringify(issue.input)})`,
  })
}

const email = z
  .string({
    error: (issue) => (issue.input === undefined ? 'email is required' : 'email must be a string'),
  })
  .trim()
  .max(254, { error: 'email must be at most 254 characters' })
  .pipe(z.email({ error: (issue) => `email ${JSON.stringify(issue.input)} is not a valid e-mail address` }))

const walletAddress = z
  .string({ error: 'walletAddress must be a string holding an Ethereum address' })
  .trim()
  .superRefine((value, ctx) => {
    const problem = ethereumAddressProblem(value)
    if (problem) ctx.addIssue({ code: 'custom', message: `walletAddress ${problem}` })
  })
  .nullish()

export const personBody = z.object(
  {
    name: requiredString('name', 200).superRefine((name, ctx) => {
      const problem = nameCharProblem('name', name)
      if (problem) ctx.addIssue({ code: 'custom', message: problem })
    }),
    email,
    walletAddress,
  },
  { error: 'the body must be a JSON object with name, email and optional walletAddress' },
)
export type PersonBody = z.infer<typeof personBody>

export const releaseConfigBody = z
  .object(
    {
      trigger: oneOf('trigger', RELEASE_TRIGGERS, true),
      config: z
        .object(
          { checkInFrequency: oneOf('config.checkInFrequency', CHECK_IN_FREQUENCIES, false).optional() },
          { error: 'config must be a JSON object' },
        )
        .nullish(),
    },
    {
      error: 'the body must be a JSON object with trigger and, for dead_man_switch, config.checkInFrequency',
    },
  )
  .superRefine((body, ctx) => {
    if (body.trigger === 'dead_man_switch' && !body.config?.checkInFrequency) {
      ctx.addIssue({
        code: 'custom',
        path: ['config', 'checkInFrequency'],
        message: `config.checkInFrequency is required when trigger is dead_man_switch; one of: ${CHECK_IN_FREQUENCIES.join(', ')}`,
      })
    }
  })
export type ReleaseConfigBody = z.infer<typeof releaseConfigBody>

export const checkInBody = z
  .object(
    {
      note: z
        .string({ error: 'note must be a string' })
        .max(2000, { error: 'note must be at most 2000 characters' })
        .nullish(),
    },
    { error: 'the body, when given, must be a JSON object with an optional note' },
  )
  .nullish()

/** A vault name: trimmed; empty or null clears it; at most vaultNameMaxChars characters (code points). */
const vaultName = z
  .string({
    error: (issue) =>
      issue.input === undefined
        ? 'name is required: a string, or null (or "") to clear the name'
        : 'name must be a string, or null to clear the name',
  })
  .nullable()
  .transform((raw, ctx) => {
    if (raw === null) return null
    const name = raw.trim()
    if (name === '') return null
    const problem = nameCharProblem('name', name)
    if (problem) {
      ctx.addIssue({ code: 'custom', message: problem })
      return z.NEVER
    }
    const max = EXTENSION_LIMITS.vaultNameMaxChars
    if ([...name].length > max) {
      ctx.addIssue({ code: 'custom', message: `name must be at most ${max} characters` })
      return z.NEVER
    }
    return name
  })

/** A strict object: unknown fields are a 400 naming them. */
function strictObject<S extends z.ZodRawShape>(shape: S, what: string) {
  return z
    .object(shape, {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `unknown field(s) ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}; ${what}`
          : what,
    })
    .strict()
}

function hexString(label: string, length: number) {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined ? `${label} is required` : `${label} must be a string of hex digits`,
    })
    .regex(new RegExp(`^[0-9a-fA-F]{${length}}$`), {
      error: `${label} must be exactly ${length} hexadecimal characters`,
    })
    .transform((value) => value.toLowerCase())
}

export const createVaultBody = z
  .object(
    { preset: oneOf('preset', SSS_PRESETS, false).optional(), name: vaultName.optional() },
    { error: 'the body, when given, must be a JSON object with an optional preset and name' },
  )
  .nullish()

/** PATCH /vault/:id: the vault's name (extension 'vault-name') and its one-step check-in links ('check-in-links'). */
export const vaultSettingsBody = strictObject(
  {
    name: vaultName.optional(),
    checkInLinks: z.boolean({ error: 'checkInLinks must be true or false' }).optional(),
  },
  'the body must be a JSON object with "name" (null or "" clears it) and/or "checkInLinks" (true or false)',
).refine((body) => body.name !== undefined || body.checkInLinks !== undefined, {
  error: 'the body must set "name" (null or "" clears it), "checkInLinks" (true or false), or both',
})

/** Words of a practice kit: lowercase words and digits, as the app prints them. */
const practiceKitWords = z
  .string({ error: 'each practice kit needs its words, as a string' })
  .trim()
  .regex(/^[a-z0-9]+(?: [a-z0-9]+)*$/, {
    error: 'practice kit words must be lowercase words separated by single spaces, as the app writes them',
  })
  .max(2000, { error: 'practice kit words must be at most 2000 characters' })

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

const practiceSample = strictObject(
  {
    filename: requiredString('sample.filename', 255).superRefine((name, ctx) => {
      const problem = nameCharProblem('sample.filename', name)
      if (problem) ctx.addIssue({ code: 'custom', message: problem })
    }),
    content: z
      .string({ error: 'sample.content is required: the practice file, encrypted, as base64' })
      .regex(BASE64, { error: 'sample.content must be base64 (A-Z, a-z, 0-9, +, / and = padding)' })
      .transform((text) => Buffer.from(text, 'base64'))
      .refine((bytes) => bytes.length > 0 && bytes.length <= EXTENSION_LIMITS.rehearsalSampleMaxBytes, {
        error: `sample.content must hold 1 to ${EXTENSION_LIMITS.rehearsalSampleMaxBytes} bytes (the practice file, encrypted); choose a smaller practice file`,
      }),
    ownerFile: z.boolean({ error: 'sample.ownerFile must be true or false' }),
  },
  'sample must be a JSON object with filename, content (base64) and ownerFile',
)

export const rehearsalBody = strictObject(
  {
    heirId: requiredString('heirId', 100),
    practiceKits: z
      .array(
        strictObject(
          { guardianId: requiredString('guardianId', 100), words: practiceKitWords },
          'each practice kit must be a JSON object {"guardianId": "...", "words": "..."}',
        ),
        { error: 'practiceKits must be a list of {guardianId, words}, one per guardian' },
      )
      .min(1, { error: 'practiceKits must hold at least one practice kit' })
      .max(255, { error: 'practiceKits must hold at most 255 practice kits' }),
    sample: practiceSample,
    challenge: hexString('challenge', 32),
    proofHash: hexString('proofHash', 64),
  },
  'the body must be a JSON object with heirId, practiceKits, sample, challenge (32 hex) and proofHash (64 hex)',
)
export type RehearsalBody = z.infer<typeof rehearsalBody>

export const rehearsalReportBody = strictObject(
  { proof: hexString('proof', 64) },
  'the body must be a JSON object {"proof": "<64 hex characters>"}',
)

// Extension kit-check: a split's code hashes (owner), a typed or derived code (guardian token).
export const kitCheckRegistrationBody = strictObject(
  {
    split: requiredString('split', KIT_CHECK_LIMITS.splitMaxChars).superRefine((split, ctx) => {
      const problem = nameCharProblem('split', split)
      if (problem) ctx.addIssue({ code: 'custom', message: problem })
    }),
    guardians: z
      .array(
        strictObject(
          {
            guardianId: requiredString('guardianId', 100),
            codeHash: hexString('codeHash', 64).transform((hash) => hash.toLowerCase()),
          },
          'each entry of guardians must be a JSON object {"guardianId": "...", "codeHash": "<64 hex: kitCheckCodeHash(code, vaultId)>"}',
        ),
        { error: 'guardians must be a list of {guardianId, codeHash}, one per guardian kit of the split' },
      )
      .min(1, { error: 'guardians must hold at least one guardian' })
      .max(255, { error: 'guardians must hold at most 255 guardians' })
      .superRefine((list, ctx) => {
        const ids = new Set(list.map((g) => g.guardianId))
        const hashes = new Set(list.map((g) => g.codeHash))
        if (ids.size !== list.length) {
          ctx.addIssue({
            code: 'custom',
            message: 'guardians names a guardian twice; give each guardian once',
          })
        }
        if (hashes.size !== list.length) {
          ctx.addIssue({
            code: 'custom',
            message: 'guardians gives one codeHash to two guardians; every kit has its own check code',
          })
        }
      }),
  },
  'the body must be a JSON object {"split": "...", "guardians": [{"guardianId": "...", "codeHash": "..."}]}',
)
export type KitCheckRegistrationBody = z.infer<typeof kitCheckRegistrationBody>

export const kitCheckBody = strictObject(
  {
    guardianToken: requiredString('guardianToken', 200),
    code: z
      .string({ error: 'code is required: the check code printed on the kit, or derived from its words' })
      .max(100, { error: 'code must be at most 100 characters' }),
  },
  'the body must be a JSON object {"guardianToken": "...", "code": "XXXX-XXXX-X"}',
)

/**
 * A whole-number query parameter within [min, max]; max is at most Number.MAX_SAFE_INTEGER, so the value is
 * exact and SQLite binds it as an integer (a larger number becomes a float it refuses for LIMIT/OFFSET).
 */
function integerParam(label: string, min: number, max: number, fallback: number) {
  const range = `a whole number from ${min} to ${max}`
  return z
    .string({ error: `${label} must be given once, as ${range}` })
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return fallback
      const text = raw.trim()
      const value = /^-?\d{1,20}$/.test(text) ? Number(text) : Number.NaN
      if (!Number.isSafeInteger(value) || value < min || value > max) {
        const shown = JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}...` : raw)
        ctx.addIssue({ code: 'custom', message: `${label} must be ${range} (got ${shown})` })
        return z.NEVER
      }
      return value
    })
}

export const assetListQuery = z.object({
  category: oneOf('category', ASSET_CATEGORIES, false).optional(),
  limit: integerParam('limit', 1, LIMITS.assetPageMax, LIMITS.assetPageDefault),
  offset: integerParam('offset', 0, Number.MAX_SAFE_INTEGER, 0),
})

/** Parses input with a schema; the first problem becomes a 400 VALIDATION_ERROR naming the field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input)
  if (result.success) return result.data
  const messages = result.error.issues.slice(0, 3).map((issue) => issue.message)
  throw badRequest(messages.join('; '))
}

/** The multipart metadata field: a JSON object serialised to at most 4 KiB. */
export function parseMetadata(raw: string): Record<string, unknown> {
  if (Buffer.byteLength(raw, 'utf8') > LIMITS.metadataMaxBytes) {
    throw badRequest(`metadata must be at most ${LIMITS.metadataMaxBytes} bytes of JSON`)
  }
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    throw badRequest('metadata must be a string holding JSON, e.g. {"label":"passport"}; it did not parse')
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('metadata must be a JSON object (not an array, string, number or null)')
  }
  return value as Record<string, unknown>
}

/**
 * File names are stored as a base name: any directory part (after the last / or \) is stripped,
 * so "../../etc/passwd" is stored as "passwd". Names that are empty, "." or ".." after stripping,
 * or that hold control or bidirectional control characters, are rejected.
 */
export function cleanFilename(raw: string): string {
  const problem = nameCharProblem('filename', raw)
  if (problem) throw badRequest(problem)
  const base = raw.split(/[/\\]/).pop()!.trim()
  if (base === '' || base === '.' || base === '..') {
    throw badRequest(`filename ${JSON.stringify(raw)} has no file name after removing its directory part`)
  }
  if (Buffer.byteLength(base, 'utf8') > 255) throw badRequest('filename must be at most 255 bytes')
  return base
}

// A MIME type as RFC 6838 names it, with RFC 9110 parameters: type "/" subtype *( OWS ";" OWS name "=" value ).
// Printable ASCII only, so the stored value is always a valid header value (it is sent back on download).
const RESTRICTED_NAME = '[a-z0-9][a-z0-9!#$&^_.+-]{0,126}'
const TOKEN = "[!#$%&'*+.^_`|~0-9a-z-]+"
/** A quoted string of printable ASCII; backslash escapes one character. */
const QUOTED_STRING = String.raw`"(?:[ !#-\[\]-~]|\\[ -~])*"`
const PARAMETER = ` *; *(${TOKEN})=(${TOKEN}|${QUOTED_STRING})`
const MIME_TYPE = new RegExp(`^(${RESTRICTED_NAME})/(${RESTRICTED_NAME})((?:${PARAMETER})*)$`, 'i')
const PARAMETERS = new RegExp(PARAMETER, 'gi')
const MAX_CONTENT_TYPE = 255

/** Whether a stored content type is a well-formed MIME type that can be sent as a header. */
export function isValidContentType(value: string): boolean {
  return value.length <= MAX_CONTENT_TYPE && MIME_TYPE.test(value)
}

/**
 * The multipart contentType field: a MIME type ("application/pdf", "text/plain; charset=utf-8"), or null
 * when empty (the type then comes from the file name). Type, subtype and parameter names are lowercased.
 */
export function cleanContentType(raw: string): string | null {
  if (/[^ -~]/.test(raw)) {
    throw badRequest(
      `contentType ${JSON.stringify(raw)} holds a control character, line break or non-ASCII character; ` +
        'send a MIME type like "application/pdf" in plain ASCII',
    )
  }
  const value = raw.trim()
  if (value === '') return null
  const match = value.length <= MAX_CONTENT_TYPE ? MIME_TYPE.exec(value) : null
  if (!match) {
    throw badRequest(
      `contentType ${JSON.stringify(raw)} is not a MIME type like "application/pdf" or "text/plain; charset=utf-8"`,
    )
  }
  const [, type, subtype, parameters] = match
  let clean = `${type}/${subtype}`.toLowerCase()
  for (const [, name, parameterValue] of parameters!.matchAll(PARAMETERS)) {
    clean += `; ${name!.toLowerCase()}=${parameterValue}`
  }
  return clean
}
