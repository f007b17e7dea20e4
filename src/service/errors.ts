// The one error type handlers throw; the HTTP layer turns it into the spec's error envelope.
import { ERROR_CODES, type ErrorCode, type ErrorStatus } from '../shared/api'

export class ApiError extends Error {
  readonly status: ErrorStatus
  readonly code: ErrorCode
  /** Seconds, for 429 responses. */
  readonly retryAfter?: number

  constructor(status: ErrorStatus, message: string, retryAfter?: number) {
    super(message)
    this.status = status
    this.code = ERROR_CODES[status]
    if (retryAfter !== undefined) this.retryAfter = retryAfter
  }
}

export const badRequest = (message: string) => new ApiError(400, message)
export const notFound = (message: string) => new ApiError(404, message)
export const conflict = (message: string) => new ApiError(409, message)
export const forbidden = (message: string) => new ApiError(403, message)
export const unauthorized = (message: string) => new ApiError(401, message)
export const insufficientCredits = (message: string) => new ApiError(402, message)

/** The spec's error envelope; every error the service answers has this body. */
export function errorEnvelope(status: ErrorStatus, message: string) {
  return { error: { code: ERROR_CODES[status], message, status } }
}
