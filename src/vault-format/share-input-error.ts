// What goes wrong when a person types, scans or combines recovery words; every message says what to do.

export type ShareInputErrorReason =
  | 'empty'
  | 'unknown-word'
  | 'word-count'
  | 'checksum'
  | 'unsupported-version'
  | 'wrong-kind'
  | 'malformed'
  | 'different-vaults'
  | 'different-splits'
  | 'duplicate-share'
  | 'too-few-shares'
  | 'key-check-failed'
  /** So many kits that trying their combinations would take too long. */
  | 'too-many-shares'

export class ShareInputError extends Error {
  readonly reason: ShareInputErrorReason
  /** 1-based position of the offending word, when one word is to blame. */
  readonly wordNumber: number | undefined

  constructor(reason: ShareInputErrorReason, message: string, wordNumber?: number) {
    super(message)
    this.name = 'ShareInputError'
    this.reason = reason
    this.wordNumber = wordNumber
  }
}
