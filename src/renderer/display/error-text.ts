// Turns a failure into what the UI shows: the sentence (what happened and what to do), the technical
// detail apart from it, and the affordance the code calls for (reconnect, wait, add credits).
import { AppError } from '../../shared/app-error'
import { coreLang } from '../text'

/** A failure the window describes itself, in its catalogue's words; `lang` is their language. */
export class UiError extends AppError {
  override readonly name = 'UiError'
  constructor(
    userMessage: string,
    readonly lang: string | undefined,
  ) {
    super({ code: 'ERROR', userMessage })
  }
}

export interface ErrorView {
  code: string
  message: string
  /** The language of `message` when it differs from the page's (main writes English). */
  lang: string | undefined
  /** What failed inside (English, for a bug report), shown apart from the sentence. */
  detail: string | undefined
  /** 401: offer to reconnect in Settings. */
  reconnect: boolean
  /** 429: seconds to wait before retrying. */
  retryAfterSeconds: number | null
  /** 402: what is needed and what there is, when known. */
  credits: { needed?: number; balance?: number } | null
  /** OWNER_KIT_REQUIRED: offer to save and confirm the owner kit. */
  ownerKit: boolean
  /** EXTENSION_MISSING: the connected service does not offer this; offer Settings → Connections. */
  extensionMissing: boolean
}

export function errorView(error: unknown): ErrorView {
  if (error instanceof AppError) {
    const details = error.details ?? {}
    const needed = typeof details.creditsNeeded === 'number' ? details.creditsNeeded : undefined
    const balance = typeof details.creditsBalance === 'number' ? details.creditsBalance : undefined
    return {
      code: error.code,
      message: error.userMessage,
      lang: error instanceof UiError ? error.lang : coreLang,
      detail: error.detail,
      reconnect: error.code === 'UNAUTHORIZED',
      retryAfterSeconds:
        error.status === 429 || error.code === 'RATE_LIMITED' ? (error.retryAfterSeconds ?? 1) : null,
      credits: error.status === 402 || error.code === 'INSUFFICIENT_CREDITS' ? { needed, balance } : null,
      ownerKit: error.code === 'OWNER_KIT_REQUIRED',
      extensionMissing: error.code === 'EXTENSION_MISSING',
    }
  }
  // Not from the app's own code (a browser API, a bug in the window): its own words are all there is.
  const message = error instanceof Error ? error.message : String(error)
  return {
    code: 'ERROR',
    message,
    lang: coreLang,
    detail: undefined,
    reconnect: false,
    retryAfterSeconds: null,
    credits: null,
    ownerKit: false,
    extensionMissing: false,
  }
}
