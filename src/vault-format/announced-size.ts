// A file is encrypted as exactly the size it announced (the identity record, and the blob's length,
// say so before its bytes come): one guard for every writer of a blob or bundle, and for src/node-cipher's
// reader thread, which finds a short file itself.
import { asBytes, type ByteSource } from './byte-queue'
import { FileCipherError } from './format-errors'

/**
 * The file changed size while it was read. `seen`: the bytes it ended after, or 'more' when it kept
 * going past `size`. `outcome` says what stopped ("encryption stopped", "nothing was stored").
 */
export function sizeChangedError(
  path: string,
  size: number,
  seen: number | 'more',
  outcome: string,
): FileCipherError {
  const what =
    seen === 'more'
      ? `has more than the ${size} bytes announced (it grew while being read?)`
      : `ended after ${seen} of the ${size} bytes announced (it shrank while being read?)`
  return new FileCipherError(
    'invalid-input',
    `'${path}' ${what}; ${outcome}. Try again once the file is no longer changing.`,
  )
}

/**
 * The source's pieces, refusing to pass on a byte beyond `size` and to end short of it. Thrown before
 * the caller seals its final chunk, so no complete blob of the wrong size ever exists.
 */
export async function* exactlyAnnounced(
  source: ByteSource,
  announced: { path: string; size: number },
  outcome: string,
): AsyncGenerator<Uint8Array> {
  let seen = 0
  for await (const raw of source) {
    const piece = asBytes(raw)
    seen += piece.length
    if (seen > announced.size) throw sizeChangedError(announced.path, announced.size, 'more', outcome)
    yield piece
  }
  if (seen !== announced.size) throw sizeChangedError(announced.path, announced.size, seen, outcome)
}
