// What the client accepts from a service before anyone uses it. A service can be wrong or hostile: ids
// reach URLs, local records and logs, sizes and credits reach arithmetic, states reach the owner's
// screen and the heir's report. An answer that breaks one of these rules is refused whole, with a
// message that says what was wrong, instead of being half used.
import {
  type Asset,
  type CheckInFrequency,
  type UploadedAsset,
  VAULT_STATES,
  type Vault,
} from '../shared/api'
import type { ApiOperation } from './errors'
import { VaultApiError } from './errors'
import type { Transport } from './transport'

/**
 * A vault as the local service reports it: the spec's fields plus release timing. Other services
 * may omit the extra fields; the app then keeps the deadline from check-in and configuration answers.
 */
export interface VaultDetails extends Vault {
  checkInFrequency?: CheckInFrequency | null
  nextCheckInDue?: string | null
  releaseStartedAt?: string | null
  contestationEndsAt?: string | null
  releasedAt?: string | null
  /** The owner's name for the vault (local service extension). */
  name?: string | null
  /** Reminder e-mails carry a one-step check-in link (local service extension 'check-in-links'). */
  checkInLinks?: boolean
}

/** An id a service may give (vault, asset): letters, digits, '_' and '-', as UUIDs and the local service's ids are. */
export const SERVICE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/

/** The most assets one vault listing may bring (1000 pages of 100): a service that pages on for ever is stopped. */
export const MAX_LISTED_ASSETS = 100_000

/** A refused answer; its words name the problem and what it means for the user. */
export function badAnswer(t: Transport, operation: ApiOperation, problem: string): VaultApiError {
  const safe = t.redact(problem)
  return new VaultApiError({
    code: 'BAD_RESPONSE',
    status: 200,
    operation,
    message: safe,
    userMessage: `The Vault Service at ${t.displayAddress} sent a wrong answer (${operation}): ${safe}. Nothing was used from it. If this keeps happening, the address may not be a genuine Vault Service.`,
  })
}

/** A value shown in a message: short, one line, quoted. */
export function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is hidden
  const line = text.replace(/[\u0000-\u001f\u007f]/g, '?')
  return `"${line.length > 60 ? `${line.slice(0, 60)}…` : line}"`
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** One vault; with `expectedId`, the one asked for. */
export function checkVault(
  t: Transport,
  operation: ApiOperation,
  value: unknown,
  expectedId?: string,
): VaultDetails {
  if (!isObject(value)) throw badAnswer(t, operation, 'a vault that is not an object')
  const { id, state } = value
  if (typeof id !== 'string' || !SERVICE_ID.test(id)) {
    throw badAnswer(t, operation, `a vault id ${shown(id)} that is not an id`)
  }
  if (expectedId !== undefined && id !== expectedId) {
    throw badAnswer(t, operation, `vault ${shown(id)} when vault ${shown(expectedId)} was asked for`)
  }
  if (!(VAULT_STATES as readonly unknown[]).includes(state)) {
    throw badAnswer(t, operation, `vault ${id} in a state ${shown(state)} that does not exist`)
  }
  for (const field of ['creditsBalance', 'assetCount', 'guardianCount', 'heirCount'] as const) {
    if (field in value && !isCount(value[field])) {
      throw badAnswer(t, operation, `vault ${id} with ${field} ${shown(value[field])}`)
    }
  }
  return value as unknown as VaultDetails
}

/** The vault list: each vault well formed, none twice. */
export function checkVaultList(t: Transport, value: unknown): VaultDetails[] {
  if (!Array.isArray(value)) throw badAnswer(t, 'list vaults', 'a vault list that is not a list')
  const seen = new Set<string>()
  return value.map((item) => {
    const vault = checkVault(t, 'list vaults', item)
    if (seen.has(vault.id)) throw badAnswer(t, 'list vaults', `vault ${vault.id} listed twice`)
    seen.add(vault.id)
    return vault
  })
}

function checkAsset(t: Transport, operation: ApiOperation, value: unknown): Asset {
  if (!isObject(value)) throw badAnswer(t, operation, 'an asset that is not an object')
  const { id, sizeBytes, filename } = value
  if (typeof id !== 'string' || !SERVICE_ID.test(id)) {
    throw badAnswer(t, operation, `an asset id ${shown(id)} that is not an id`)
  }
  if (!isCount(sizeBytes)) throw badAnswer(t, operation, `asset ${id} with a size of ${shown(sizeBytes)}`)
  if (typeof filename !== 'string') throw badAnswer(t, operation, `asset ${id} without a file name`)
  return value as unknown as Asset
}

/** One page of assets; `seen` collects its ids so that one listed twice is caught. */
export function checkAssetPage(t: Transport, value: unknown, total: unknown, seen: Set<string>): Asset[] {
  if (!Array.isArray(value)) throw badAnswer(t, 'list assets', 'an asset list that is not a list')
  if (total !== undefined && !isCount(total)) {
    throw badAnswer(t, 'list assets', `an asset count of ${shown(total)}`)
  }
  return value.map((item) => {
    const asset = checkAsset(t, 'list assets', item)
    if (seen.has(asset.id)) throw badAnswer(t, 'list assets', `asset ${asset.id} listed twice`)
    seen.add(asset.id)
    return asset
  })
}

/** The answer to an upload: the stored asset and a charge that is a whole, non-negative number of credits. */
export function checkUploadedAsset(t: Transport, value: unknown): UploadedAsset {
  const asset = checkAsset(t, 'upload asset', value)
  const consumed = (value as { creditsConsumed?: unknown }).creditsConsumed
  if (!isCount(consumed)) {
    throw badAnswer(t, 'upload asset', `asset ${asset.id} with a charge of ${shown(consumed)} credits`)
  }
  return asset as UploadedAsset
}
