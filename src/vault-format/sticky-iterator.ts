// Streams of the format fail for good: once a read failed, every later read fails with the same error.

/**
 * An async iterator that, once it failed, keeps failing with the same error on every later read
 * (a plain async generator would report a clean end instead).
 */
export class StickyIterator<T> implements AsyncIterableIterator<T> {
  private failure: { error: unknown } | undefined
  constructor(private readonly inner: AsyncGenerator<T>) {}

  async next(): Promise<IteratorResult<T>> {
    if (this.failure) throw this.failure.error
    try {
      return await this.inner.next()
    } catch (error) {
      this.failure = { error }
      throw error
    }
  }

  async return(value?: unknown): Promise<IteratorResult<T>> {
    if (this.failure) return { done: true, value: undefined }
    return this.inner.return(value as T)
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this
  }
}
