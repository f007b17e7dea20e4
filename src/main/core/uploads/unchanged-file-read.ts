// Reading a file for upload so that a file written to meanwhile fails instead of being stored half old,
// half new. Two buffers used in turn keep the main thread's garbage low (bench:upload measured it).
import { createHash } from 'node:crypto'
import { open, stat } from 'node:fs/promises'
import { basename } from 'node:path'

const READ_BYTES = 1 << 20

/** Two read buffers, large enough for the largest piece read (at most 1 MiB). */
export function readBuffers(largestFile: number): [Buffer, Buffer] {
  const bytes = Math.max(1, Math.min(READ_BYTES, largestFile))
  return [Buffer.allocUnsafeSlow(bytes), Buffer.allocUnsafeSlow(bytes)]
}

/**
 * Reads exactly `size` bytes and checks at the end that the file still has the size and
 * modification time seen before: a file written to during the upload fails instead of being stored
 * half old, half new. Runs before the multipart tail, so the service never completes that upload.
 * `onHashed` receives the SHA-256 of what was read once it is known unchanged; `buffers` may be
 * shared by files read one after the other (a bundle's).
 */
export async function* readUnchangedFile(
  path: string,
  size: number,
  mtimeMs: number,
  onChanged: (message: string) => void,
  options: { onHashed?: (sha256: string) => void; buffers?: [Buffer, Buffer] } = {},
): AsyncGenerator<Uint8Array> {
  let read = 0
  let pending: Promise<number> | undefined
  const hash = options.onHashed ? createHash('sha256') : undefined
  if (size > 0) {
    // Two buffers used in turn: the next read runs while the consumer encrypts the previous one, and
    // no fresh memory per MiB means far less garbage collection on the main thread.
    const file = await open(path, 'r')
    try {
      const buffers = options.buffers ?? readBuffers(size)
      const bytes = buffers[0].length
      const readInto = (buffer: Buffer) =>
        file.read(buffer, 0, Math.min(bytes, size - read), read).then((r) => r.bytesRead)
      let turn = 0
      pending = readInto(buffers[turn]!)
      for (;;) {
        const n = await pending
        if (n === 0) break
        const current = buffers[turn]!
        read += n
        turn = 1 - turn
        pending = read < size ? readInto(buffers[turn]!) : Promise.resolve(0)
        const piece = current.subarray(0, n)
        hash?.update(piece)
        yield piece
      }
    } finally {
      // Stopped early (cancel, failure): let the read in flight finish before closing.
      await pending?.catch(() => 0)
      await file.close()
    }
  }
  await checkUnchanged(path, size, mtimeMs, read, onChanged)
  if (hash) options.onHashed?.(hash.digest('hex'))
}

/** Throws (after telling `onChanged`) unless `read` is the size seen before and size and time are unchanged. */
export async function checkUnchanged(
  path: string,
  size: number,
  mtimeMs: number,
  read: number,
  onChanged: (message: string) => void,
): Promise<void> {
  const after = await stat(path).catch(() => undefined)
  if (read !== size || !after || after.size !== size || after.mtimeMs !== mtimeMs) {
    const message = `${basename(path)} changed while it was being uploaded, so nothing was stored. Wait until it is no longer being written (or close the program using it), then retry.`
    onChanged(message)
    throw new Error(message)
  }
}
