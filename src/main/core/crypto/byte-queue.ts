// FIFO of byte pieces from a stream, so chunk boundaries need not match the source's pieces.

export class ByteQueue {
  private pieces: Uint8Array[] = []
  private head = 0
  length = 0

  push(piece: Uint8Array): void {
    if (piece.length === 0) return
    this.pieces.push(piece)
    this.length += piece.length
  }

  /** Removes and returns the first n bytes in a fresh buffer the caller owns. */
  take(n: number): Uint8Array {
    if (n > this.length) throw new RangeError('ByteQueue.take beyond its length')
    const out = new Uint8Array(n)
    let filled = 0
    while (filled < n) {
      const piece = this.pieces[0]!
      const available = piece.length - this.head
      const used = Math.min(available, n - filled)
      out.set(piece.subarray(this.head, this.head + used), filled)
      filled += used
      if (used === available) {
        this.pieces.shift()
        this.head = 0
      } else {
        this.head += used
      }
    }
    this.length -= n
    return out
  }

  /**
   * Removes and returns as many whole `unit`s as the first piece holds (at most `max` bytes) as a
   * view, without copying; copies `max` bytes when the first piece holds no whole unit.
   */
  takeUnits(unit: number, max: number): Uint8Array {
    const piece = this.pieces[0]
    const n = piece ? Math.min(max, Math.floor((piece.length - this.head) / unit) * unit) : 0
    if (n === 0) return this.take(Math.min(max, this.length))
    const view = piece!.subarray(this.head, this.head + n)
    this.head += n
    this.length -= n
    if (this.head === piece!.length) {
      this.pieces.shift()
      this.head = 0
    }
    return view
  }

  /** Copies up to n bytes from the front without removing them. */
  peek(n: number): Uint8Array {
    const out = new Uint8Array(Math.min(n, this.length))
    let filled = 0
    for (let i = 0; i < this.pieces.length && filled < out.length; i++) {
      const piece = this.pieces[i]!.subarray(i === 0 ? this.head : 0)
      const used = Math.min(piece.length, out.length - filled)
      out.set(piece.subarray(0, used), filled)
      filled += used
    }
    return out
  }
}

export function asBytes(piece: unknown): Uint8Array {
  if (piece instanceof Uint8Array) return piece
  if (piece instanceof ArrayBuffer) return new Uint8Array(piece)
  if (ArrayBuffer.isView(piece)) return new Uint8Array(piece.buffer, piece.byteOffset, piece.byteLength)
  throw new TypeError(`Expected bytes (Uint8Array), got ${typeof piece}; open files without an encoding.`)
}
