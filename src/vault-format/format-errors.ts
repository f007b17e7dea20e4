// The errors the format throws: a machine-readable reason a caller can react to (the recovery tool's
// per-file report, a hint beside a typed word) and a message a person can act on.

export class VaultFormatError<Reason extends string = string> extends Error {
  readonly reason: Reason

  constructor(reason: Reason, message: string) {
    super(message)
    this.reason = reason
  }
}

export type FileCipherErrorReason =
  /** The key is not 32 bytes. */
  | 'invalid-key'
  /**
   * The file was cut short: it ends inside the header, inside a tag, without its final chunk, or its
   * last chunk fails authentication in a way no single changed byte explains.
   */
  | 'truncated'
  /** A complete, authentic file is followed by extra bytes. */
  | 'trailing-data'
  /** An authentic chunk sits at the wrong position (chunks swapped, repeated or dropped). */
  | 'reordered'
  /** A chunk fails authentication because bytes in it were changed (a single changed byte is located). */
  | 'damaged'
  /** The header's key commitment does not match this key: another vault's key, or a damaged header. */
  | 'wrong-key'
  /** Right vault key, wrong vault id: the file belongs to a different vault (or its commitment is damaged). */
  | 'wrong-vault'
  /** Input the API cannot take (a string instead of bytes, a message beyond the format's limit). */
  | 'invalid-input'
  /** An authentic blob of the vault that holds no file: the vault manifest (FORMAT.md 3.10). */
  | 'not-a-file'

/** What decryption, sealing and key handling throw. */
export class FileCipherError extends VaultFormatError<FileCipherErrorReason> {
  override readonly name = 'FileCipherError'
  constructor(
    reason: FileCipherErrorReason,
    message: string,
    /** The chunk where the problem was found, when it is about a chunk. */
    readonly chunkIndex?: number,
  ) {
    super(reason, message)
  }
}

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
  /** A rehearsal's practice kit given where real kits are needed: it cannot open the vault. */
  | 'practice-kit'
  /** A real guardian or owner kit given to a rehearsal: real kits never go into a practice. */
  | 'real-kit'
  /** A practice kit past its last day. */
  | 'practice-expired'

/** What goes wrong when a person types, scans or combines recovery words; every message says what to do. */
export class ShareInputError extends VaultFormatError<ShareInputErrorReason> {
  override readonly name = 'ShareInputError'
  constructor(
    reason: ShareInputErrorReason,
    message: string,
    /** The 1-based position of the offending word, when one word is to blame. */
    readonly wordNumber?: number,
  ) {
    super(reason, message)
  }
}
