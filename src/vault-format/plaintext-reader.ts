// Reads authenticated plaintext (as decryptChunked releases it) by the byte count, whatever the
// pieces it comes in: the bundle reader takes its header, records and files' bytes from it.

const EMPTY = new Uint8Array(0)

export class PlaintextReader {
  private piece: Uint8Array = EMPTY
  private at = 0
  private ended = false

  constructor(private readonly inner: AsyncIterator<Uint8Array>) {}

  /** Whether the plaintext ended (reads on if nothing is buffered). */
  async atEnd(): Promise<boolean> {
    while (this.at >= this.piece.length && !this.ended) {
      const step = await this.inner.next()
      if (step.done) this.ended = true
      else {
        this.piece = step.value
        this.at = 0
      }
    }
    return this.at >= this.piece.length
  }

  /** Up to `max` bytes as a view, valid until the next read; empty only at the end. */
  async read(max: number): Promise<Uint8Array> {
    if (await this.atEnd()) return EMPTY
    const n = Math.min(max, this.piece.length - this.at)
    const view = this.piece.subarray(this.at, this.at + n)
    this.at += n
    return view
  }

  /** Exactly n bytes in a buffer of their own, or fewer if the plaintext ends first. */
  async readExact(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n)
    let filled = 0
    while (filled < n) {
      const view = await this.read(n - filled)
      if (view.length === 0) return out.subarray(0, filled)
      out.set(view, filled)
      filled += view.length
    }
    return out
  }
}
