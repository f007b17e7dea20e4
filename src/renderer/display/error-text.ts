// Turns a failure from the bridge into what the UI shows: the sentence main wrote (what happened
// and what to do), plus the affordance the code calls for (reconnect, wait, add credits).
import { IpcError } from '../../shared/ipc/contract-kit'
import { coreLang } from '../text'

/** A failure the window describes itself, in its catalogue's words; `lang` is their language. */
export class UiError extends Error {
  constructor(
    message: string,
    readonly lang: string | undefined,
  ) {
    super(message)
    this.name = 'UiError'
  }
}

export interface ErrorView {
  code: string
  message: string
  /** The language of `message` when it differs from the page's (main writes English). */
  lang: string | undefined
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
  if (error instanceof IpcError) {
    const details = error.details ?? {}
    const needed = typeof details.creditsNeeded === 'number' ? details.creditsNeeded : undefined
    const balance = typeof details.creditsBalance === 'number' ? details.creditsBalance : undefined
    return {
      code: error.code,
      message: error.message,
      lang: coreLang,
      reconnect: error.code === 'UNAUTHORIZED',
      retryAfterSeconds:
        error.status === 429 || error.code === 'RATE_LIMITED' ? (error.retryAfterSeconds ?? 1) : null,
      credits: error.status === 402 || error.code === 'INSUFFICIENT_CREDITS' ? { needed, balance } : null,
      ownerKit: error.code === 'OWNER_KIT_REQUIRED',
      extensionMissing: error.code === 'EXTENSION_MISSING',
    }
  }
  const message = error instanceof Error ? error.message : String(error)
  return {
    code: 'ERROR',
    message,
    lang: error instanceof UiError ? error.lang : coreLang,
    reconnect: false,
    retryAfterSeconds: null,
    credits: null,
    ownerKit: false,
    extensionMissing: false,
  }
}
