// Request validation: zod schemas for every JSON body and query, with messages that name the field.
import { keccak_256 } from '@noble/hashes/sha3.js'
import { z } from 'zod'
import {
  ASSET_CATEGORIES,
  CHECK_IN_FREQUENCIES,
  EXTENSION_LIMITS,
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
    name: requiredString('name', 200),
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

/** Control characters and the bidirectional embeddings, overrides and isolates that could disguise a name. */
const CONTROL_OR_BIDI = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u

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
    if (CONTROL_OR_BIDI.test(name)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'name must not contain control characters or bidirectional controls (U+202A-U+202E, U+2066-U+2069)',
      })
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

export const renameVaultBody = strictObject(
  { name: vaultName },
  'the body must be a JSON object {"name": "..."}; null or "" clears the name',
)

export const rehearsalBody = strictObject(
  {
    heirId: requiredString('heirId', 100),
    assetId: requiredString('assetId', 100),
    challenge: hexString('challenge', 32),
    proofHash: hexString('proofHash', 64),
  },
  'the body must be a JSON object with heirId, assetId, challenge (32 hex) and proofHash (64 hex)',
)
export type RehearsalBody = z.infer<typeof rehearsalBody>

export const rehearsalReportBody = strictObject(
  { proof: hexString('proof', 64) },
  'the body must be a JSON object {"proof": "<64 hex characters>"}',
)

function integerParam(label: string, min: number, max: number | null, fallback: number) {
  const range = max === null ? `an integer >= ${min}` : `an integer from ${min} to ${max}`
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return fallback
      if (!/^-?\d+$/.test(raw.trim())) {
        ctx.addIssue({ code: 'custom', message: `${label} must be ${range} (got ${JSON.stringify(raw)})` })
        return z.NEVER
      }
      const value = Number(raw)
      if (value < min || (max !== null && value > max)) {
        ctx.addIssue({ code: 'custom', message: `${label} must be ${range} (got ${raw})` })
        return z.NEVER
      }
      return value
    })
}

export const assetListQuery = z.object({
  category: oneOf('category', ASSET_CATEGORIES, false).optional(),
  limit: integerParam('limit', 1, LIMITS.assetPageMax, LIMITS.assetPageDefault),
  offset: integerParam('offset', 0, null, 0),
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

const hasControlChars = (text: string) =>
  [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)

/**
 * File names are stored as a base name: any directory part (after the last / or \) is stripped,
 * so "../../etc/passwd" is stored as "passwd". Names that are empty, "." or ".." after stripping,
 * or that hold control characters, are rejected.
 */
export function cleanFilename(raw: string): string {
  if (hasControlChars(raw)) throw badRequest('filename must not contain control characters')
  const base = raw.split(/[/\\]/).pop()!.trim()
  if (base === '' || base === '.' || base === '..') {
    throw badRequest(`filename ${JSON.stringify(raw)} has no file name after removing its directory part`)
  }
  if (Buffer.byteLength(base, 'utf8') > 255) throw badRequest('filename must be at most 255 bytes')
  return base
}

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(\s*;.*)?$/i

export function cleanContentType(raw: string): string {
  const value = raw.trim()
  if (value.length > 255 || !MIME.test(value)) {
    throw badRequest(`contentType ${JSON.stringify(raw)} is not a MIME type like "application/pdf"`)
  }
  return value.toLowerCase()
}
