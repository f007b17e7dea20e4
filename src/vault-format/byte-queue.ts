// FIFO of byte pieces from a stream, so chunk boundaries need not match the source's pieces.
// Sources may deliver tiny pieces (a byte at a time), so removing from the front is O(1): a cursor
// into the array, compacted now and then, instead of Array.shift().

/** Where the format's streams read bytes from: any (async) iterable of byte pieces. */
export type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>

export class ByteQueue {
  private pieces: (Uint8Array | undefined)[] = []
  /** Index of the first live piece in `pieces`. */
  private first = 0
  /** Bytes of the first live piece already taken. */
  private head = 0
  length = 0

  push(piece: Uint8Array): void {
    if (piece.length === 0) return
    this.pieces.push(piece)
    this.length += piece.length
  }

  private dropFirst(): void {
    this.pieces[this.first] = undefined // let it be collected now, not at the next compaction
    this.first++
    this.head = 0
    if (this.first >= 1024 && this.first * 2 >= this.pieces.length) {
      this.pieces = this.pieces.slice(this.first)
      this.first = 0
    }
  }

  /** Removes and returns the first n bytes in a buffer the caller owns (`into`, if it is n bytes). */
  take(n: number, into?: Uint8Array): Uint8Array {
    if (n > this.length) throw new RangeError('ByteQueue.take beyond its length')
    const out = into?.length === n ? into : new Uint8Array(n)
    let filled = 0
    while (filled < n) {
      const piece = this.pieces[this.first]!
      const available = piece.length - this.head
      const used = Math.min(available, n - filled)
      out.set(piece.subarray(this.head, this.head + used), filled)
      filled += used
      if (used === available) this.dropFirst()
      else this.head += used
    }
    this.length -= n
    return out
  }

  /**
   * Removes and returns as many whole `unit`s as the first piece holds (at most `max` bytes) as a
   * view, without copying; copies `max` bytes when the first piece holds no whole unit (into the
   * buffer `scratch` gives, when it is that long).
   */
  takeUnits(unit: number, max: number, scratch?: () => Uint8Array): Uint8Array {
    const piece = this.pieces[this.first]
    const n = piece ? Math.min(max, Math.floor((piece.length - this.head) / unit) * unit) : 0
    if (n === 0) return this.take(Math.min(max, this.length), scratch?.())
    const view = piece!.subarray(this.head, this.head + n)
    this.head += n
    this.length -= n
    if (this.head === piece!.length) this.dropFirst()
    return view
  }
}

/** A ByteQueue that reads from its source on demand. */
export class SourceQueue extends ByteQueue {
  readonly #pieces: AsyncIterator<Uint8Array> | Iterator<Uint8Array>
  #ended = false

  constructor(source: ByteSource) {
    super()
    this.#pieces =
      Symbol.asyncIterator in source
        ? (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]()
        : (source as Iterable<Uint8Array>)[Symbol.iterator]()
  }

  /** Reads until at least `min` bytes are queued or the source ended; returns the bytes queued. */
  async fill(min: number): Promise<number> {
    while (!this.#ended && this.length < min) {
      const step = await this.#pieces.next()
      if (step.done) this.#ended = true
      else this.push(asBytes(step.value))
    }
    return this.length
  }
}

export function asBytes(piece: unknown): Uint8Array {
  if (piece instanceof Uint8Array) return piece
  if (piece instanceof ArrayBuffer) return new Uint8Array(piece)
  if (ArrayBuffer.isView(piece)) return new Uint8Array(piece.buffer, piece.byteOffset, piece.byteLength)
  throw new TypeError(`Expected bytes (Uint8Array), got ${typeof piece}; open files without an encoding.`)
}
