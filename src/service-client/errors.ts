// The one error type of the Vault Service client: an AppError with the HTTP status, what the call was
// doing, the sentence for the user and the technical detail (its message). Built only from redacted
// text (see transport.ts), so it is safe to log and to send to the renderer.

import { creditsToDollars, ERROR_CODES, type ErrorCode, KEY_PREFIX, LIMITS } from '../shared/api'
import { AppError } from '../shared/app-error'

/** What a call was trying to do; picks the user-facing sentence for 402/409 and friends. */
export type ApiOperation =
  | 'list vaults'
  | 'get vault'
  | 'create vault'
  | 'delete vault'
  | 'configure release'
  | 'add guardian'
  | 'remove guardian'
  | 'list guardians'
  | 'add heir'
  | 'remove heir'
  | 'list heirs'
  | 'upload asset'
  | 'list assets'
  | 'download asset'
  | 'delete asset'
  | 'check in'
  | 'cancel release'
  | 'start release'
  | 'read service info'
  | 'send a test e-mail'
  | 'revoke this key'
  | 'rename vault'
  | 'set check-in links'
  | 'start a rehearsal'
  | 'read the rehearsal'
  | 'end the rehearsal'
  | 'report the rehearsal'
  | 'register kit checks'
  | 'check a kit'

/** Codes from the spec plus the client's own for failures that never got an HTTP answer. */
export type VaultApiErrorCode =
  | ErrorCode
  | 'NETWORK_ERROR'
  | 'TIMEOUT'
  | 'CANCELLED'
  | 'BAD_RESPONSE'
  | 'REDIRECT_REFUSED'
  | (string & {})

export interface VaultApiErrorInit {
  code: VaultApiErrorCode
  status: number
  message: string
  operation: ApiOperation
  requestId?: string
  userMessage?: string
  /** For 402 on uploads: credits the call needs and the balance, when known. */
  creditsNeeded?: number
  creditsBalance?: number
  retryAfterSeconds?: number
}

export class VaultApiError extends AppError {
  override readonly name = 'VaultApiError'
  declare readonly code: VaultApiErrorCode
  /** HTTP status; 0 when no answer came (network error, timeout, cancel). */
  declare readonly status: number
  readonly requestId: string | undefined
  readonly operation: ApiOperation

  constructor(init: VaultApiErrorInit) {
    super({
      code: init.code,
      userMessage: init.userMessage ?? userMessageFor(init),
      detail: `${init.operation}: ${init.message}${init.status ? ` (HTTP ${init.status} ${init.code})` : ''}`,
      status: init.status,
      retryAfterSeconds: init.retryAfterSeconds,
    })
    this.requestId = init.requestId
    this.operation = init.operation
  }

  /** Plain data for logs (the window gets toData()). */
  toJSON(): {
    name: string
    code: string
    status: number
    message: string
    requestId?: string
    operation: string
    userMessage: string
  } {
    return {
      name: this.name,
      code: this.code,
      status: this.status,
      message: this.message,
      ...(this.requestId ? { requestId: this.requestId } : {}),
      operation: this.operation,
      userMessage: this.userMessage,
    }
  }
}

/** Calls the v2 spec does not define; the local service adds them, other services may not. */
const EXTENSION_OPERATIONS: ReadonlySet<ApiOperation> = new Set<ApiOperation>([
  'create vault',
  'delete vault',
  'list guardians',
  'list heirs',
  'download asset',
  'delete asset',
  'start release',
  'read service info',
  'send a test e-mail',
  'revoke this key',
  'rename vault',
  'set check-in links',
  'register kit checks',
  'check a kit',
  'start a rehearsal',
  'read the rehearsal',
  'end the rehearsal',
  'report the rehearsal',
])

/** True when a 404 means the service has no such route (an extension it lacks), not a missing thing. */
export function isMissingExtension(error: unknown): error is VaultApiError {
  return (
    error instanceof VaultApiError && error.status === 404 && isMissingRoute(error.operation, error.message)
  )
}

/** A 404 for an extension call: the route itself is missing (create and service info have no id to miss). */
function isMissingRoute(operation: ApiOperation, message: string): boolean {
  return (
    EXTENSION_OPERATIONS.has(operation) &&
    (operation === 'create vault' || operation === 'read service info' || /no route/i.test(message))
  )
}

function userMessageFor(init: VaultApiErrorInit): string {
  const { status, code, operation, message } = init
  if (code === 'CANCELLED') return 'The request was cancelled; nothing was changed and no credits were used.'
  if (code === 'TIMEOUT')
    return `The Vault Service did not answer in time while trying to ${operation}. Check your connection and try again.`
  if (code === 'NETWORK_ERROR')
    return `Could not reach the Vault Service to ${operation}. Check your connection or that the service is running, then try again.`
  if (code === 'BAD_RESPONSE')
    return `The Vault Service sent an answer this app does not understand (${operation}). Check the service address in Settings; it may not be a Vault Service.`
  switch (status) {
    case 400:
      if (operation === 'upload asset' && /5 ?GB|too large|exceed/i.test(message))
        return 'This file is larger than the 5 GB limit per file. Split it or compress it, then upload again.'
      if (operation === 'add guardian')
        return `The guardian could not be added: ${message}. The vault's preset limits the number of guardians; remove one or change the preset.`
      if (operation === 'add heir')
        return `The heir could not be added: ${message}. A vault can have at most ${LIMITS.maxHeirs} heirs.`
      return `The service rejected the request to ${operation}: ${message}. Correct it and try again.`
    case 401:
      return 'The Vault Service did not accept this API key. Reconnect with a valid key in Settings → Connections.'
    case 402:
      if (operation === 'check in')
        return `A check-in needs ${LIMITS.checkInCostCredits} credits (${creditsToDollars(LIMITS.checkInCostCredits)}) and the balance is too low. Add credits, then check in again.`
      if (operation === 'upload asset') {
        const need =
          init.creditsNeeded !== undefined
            ? ` needs ${init.creditsNeeded} credits (${creditsToDollars(init.creditsNeeded)})`
            : ' needs more credits'
        const have =
          init.creditsBalance !== undefined ? ` and the balance is ${init.creditsBalance} credits` : ''
        return `This upload${need}${have}. Add credits or choose smaller files; nothing was charged.`
      }
      return `Your Vault Credits balance is too low to ${operation}. Add credits and try again.`
    case 403:
      return `This API key cannot ${operation}: agent keys (${KEY_PREFIX.agent}) may only read and check in. Connect with an ${KEY_PREFIX.human} key to make changes.`
    case 404:
      if (isMissingRoute(operation, message))
        return `This Vault Service does not offer "${operation}" (an extension of the local Vault Service, not part of the v2 interface). Use the service's own dashboard for it, or connect to a local Vault Service.`
      if (operation === 'check a kit')
        return `The service does not know this guardian link: ${message}. Nothing was sent but the check code.`
      return `Not found while trying to ${operation}: the vault, guardian, heir or asset may have been removed. Refresh and try again.`
    case 409:
      if (operation === 'cancel release')
        return 'The release cannot be cancelled: the vault is not releasing, or its 30-day contestation period has ended.'
      if (operation === 'add guardian') return 'A guardian with this e-mail address is already on this vault.'
      if (operation === 'add heir') return 'An heir with this e-mail address is already on this vault.'
      if (operation === 'start release')
        return 'A release can be started by hand only while the vault is active and its release trigger is "manual". Change the trigger first.'
      if (operation === 'send a test e-mail')
        return `The service cannot send e-mail: ${message}. Until it can, invitations and release e-mails stay unsent.`
      if (operation === 'register kit checks')
        return `The service did not take the new kits' check codes: ${message}. The kits themselves are fine; guardians cannot confirm them online until their codes are registered.`
      if (operation === 'start a rehearsal')
        return `A practice run can start only while the vault is active (${message}).`
      return `This conflicts with the vault's current state (${message}). Refresh and try again.`
    case 503:
      // The service works but cannot reach what it stores files on (e.g. the Arweave network): nothing changed.
      return `The Vault Service's file storage is out of reach just now (while trying to ${operation}); nothing was changed and no credits were used. Try again in a few minutes.`
    case 429:
      if (operation === 'check a kit')
        return `Too many kit checks with this guardian link just now${init.retryAfterSeconds ? `; wait ${init.retryAfterSeconds} s` : '; wait a minute'} and try again.`
      return `Too many requests for this API key right now${init.retryAfterSeconds ? `; the service asks to wait ${init.retryAfterSeconds} s` : ''}. Wait a moment and try again.`
    default:
      if (status >= 500)
        return `The Vault Service had an internal error (${operation}). Try again in a moment.`
      return `The Vault Service answered ${status} while trying to ${operation}: ${message}.`
  }
}

/** For an answer outside the envelope: the spec's code for its status (src/shared/api.ts). */
export function codeForStatus(status: number): VaultApiErrorCode {
  return (
    (ERROR_CODES as Record<number, ErrorCode>)[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'BAD_RESPONSE')
  )
}
