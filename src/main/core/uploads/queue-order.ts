// The upload queue's waiting line: a binary min-heap of queue positions, so taking the next item and
// putting one back cost O(log n) however long the queue. Entries are not removed when an item
// leaves the line some other way (cancelled, started with its bundle); the queue skips those as it
// takes them, and an item put back twice is taken once.
export class QueueOrder {
  readonly #heap: number[] = []

  get size(): number {
    return this.#heap.length
  }

  push(position: number): void {
    const heap = this.#heap
    heap.push(position)
    let i = heap.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (heap[parent]! <= position) break
      heap[i] = heap[parent]!
      i = parent
    }
    heap[i] = position
  }

  peek(): number | undefined {
    return this.#heap[0]
  }

  pop(): number | undefined {
    const heap = this.#heap
    if (heap.length === 0) return undefined
    const top = heap[0]!
    const last = heap.pop()!
    if (heap.length > 0) {
      let i = 0
      for (;;) {
        const left = 2 * i + 1
        if (left >= heap.length) break
        const right = left + 1
        const child = right < heap.length && heap[right]! < heap[left]! ? right : left
        if (heap[child]! >= last) break
        heap[i] = heap[child]!
        i = child
      }
      heap[i] = last
    }
    return top
  }

  clear(): void {
    this.#heap.length = 0
  }
}
