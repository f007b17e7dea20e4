// The one error type from the core to the screen: a code the window can act on, a sentence for the
// person (what happened and what to do) and, apart from it, the technical detail for logs and the
// "Technical details" disclosure. Core errors extend it; main turns anything else into one in a
// single place (asAppError in src/main/core/ipc/handler-table.ts); the renderer rebuilds it from data.

/** How an AppError crosses the bridge (structured clone in Electron, JSON in browser mode). */
export interface AppErrorData {
  /** Vault API code (e.g. INSUFFICIENT_CREDITS) or the app's own (INVALID_ARGUMENT, FORBIDDEN_SENDER, INTERNAL...). */
  code: string
  /** The sentence for the user: what happened and what to do. */
  message: string
  /** Technical text (what failed inside), never needed to understand the sentence. */
  detail?: string
  /** HTTP status, when a service answered. */
  status?: number
  retryAfterSeconds?: number
  /** Facts the window shows beside the sentence (e.g. creditsNeeded, creditsBalance). */
  details?: Record<string, unknown>
}

export interface AppErrorInit {
  code: string
  userMessage: string
  /** What failed inside, for logs and the "Technical details" disclosure. */
  detail?: string
  status?: number
  retryAfterSeconds?: number
  details?: Record<string, unknown>
  /** The error this one explains, kept for logs and stack traces. */
  cause?: unknown
}

export class AppError extends Error {
  readonly code: string
  /** The sentence for the user: what happened and what to do. */
  readonly userMessage: string
  readonly detail: string | undefined
  readonly status: number | undefined
  readonly retryAfterSeconds: number | undefined
  readonly details: Record<string, unknown> | undefined

  constructor(init: AppErrorInit) {
    // `message` is what logs and stack traces show: the technical detail when there is one.
    super(init.detail ?? init.userMessage, init.cause === undefined ? undefined : { cause: init.cause })
    this.name = 'AppError'
    this.code = init.code
    this.userMessage = init.userMessage
    this.detail = init.detail === init.userMessage ? undefined : init.detail
    this.status = init.status
    this.retryAfterSeconds = init.retryAfterSeconds
    this.details = init.details
  }

  toData(): AppErrorData {
    return {
      code: this.code,
      message: this.userMessage,
      ...(this.detail !== undefined ? { detail: this.detail } : {}),
      ...(this.status ? { status: this.status } : {}),
      ...(this.retryAfterSeconds !== undefined ? { retryAfterSeconds: this.retryAfterSeconds } : {}),
      ...(this.details !== undefined ? { details: this.details } : {}),
    }
  }

  static fromData(data: AppErrorData): AppError {
    const { message, ...rest } = data
    return new AppError({ ...rest, userMessage: message })
  }
}
