// The one error type decryption (and key handling) throws, with a machine-readable reason so callers
// can react (e.g. the recovery tool's per-file report) and a message a person can act on.

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

export class FileCipherError extends Error {
  readonly reason: FileCipherErrorReason
  /** Index of the chunk where the problem was found, when it is about a chunk. */
  readonly chunkIndex: number | undefined

  constructor(reason: FileCipherErrorReason, message: string, chunkIndex?: number) {
    super(message)
    this.name = 'FileCipherError'
    this.reason = reason
    this.chunkIndex = chunkIndex
  }
}
