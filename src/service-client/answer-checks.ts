// What the client accepts from a service before anyone uses it. A service can be wrong or hostile: ids
// reach URLs, local records and logs, sizes and credits reach arithmetic, states reach the owner's
// screen and the heir's report. An answer that breaks one of these rules is refused whole, with a
// message that says what was wrong, instead of being half used.
import type { Asset, CheckInFrequency, UploadedAsset, Vault, VaultClaims } from '../shared/api'
import { HEIR_SOURCE_TEXT } from '../shared/heir-source-text'
import {
  assetPageProblem,
  assetProblem,
  isCount,
  MAX_LISTED_ASSETS,
  SERVICE_ID,
  shown,
  vaultProblem,
} from '../shared/service-answers'
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
  /** Guardian claims that count now, null when none (local service); read only after checking its shape. */
  claims?: VaultClaims | null
}

// The checks themselves are pure and shared with the heir's recovery page (shared/service-answers.ts).
export { MAX_LISTED_ASSETS, SERVICE_ID, shown }

/** A refused answer; its words name the problem and what it means for the user. */
export function badAnswer(t: Transport, operation: ApiOperation, problem: string): VaultApiError {
  const safe = t.redact(problem)
  return new VaultApiError({
    code: 'BAD_RESPONSE',
    status: 200,
    operation,
    message: safe,
    userMessage: HEIR_SOURCE_TEXT.en.badAnswer(t.displayAddress, operation, safe),
  })
}

/** One vault; with `expectedId`, the one asked for. */
export function checkVault(
  t: Transport,
  operation: ApiOperation,
  value: unknown,
  expectedId?: string,
): VaultDetails {
  const problem = vaultProblem(value, expectedId)
  if (problem) throw badAnswer(t, operation, problem)
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
  const problem = assetProblem(value)
  if (problem) throw badAnswer(t, operation, problem)
  return value as unknown as Asset
}

/** One page of assets; `seen` collects its ids so that one listed twice is caught. */
export function checkAssetPage(t: Transport, value: unknown, total: unknown, seen: Set<string>): Asset[] {
  const problem = assetPageProblem(value, total, seen)
  if (problem) throw badAnswer(t, 'list assets', problem)
  return value as Asset[]
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
