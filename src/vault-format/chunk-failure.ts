// Why decryption failed, in words a person can act on: the file was cut short, has data appended,
// has its parts in the wrong order, or was changed. A chunk that does not authenticate is diagnosed
// by trial decryption within the backend's budget, and by locating a single changed byte.
import type { AeadBackend, ChunkAead } from './aead-backend'
import type { FinishedBatch } from './chunk-batch'
import { chunkNonce, HEADER_SIZE, MAX_CHUNKS, SEALED_CHUNK_SIZE, TAG_SIZE } from './chunked-format'
import { FileCipherError } from './format-errors'
import { locateSingleByteError } from './gcm-error-locator'

export interface ChunkFailure {
  index: number
  /** Ciphertext from the failing chunk's first byte on (at least that chunk). */
  region: Uint8Array
  /** The failing chunk was read as the final (short) one. */
  asFinal: boolean
}

/** The chunk of a batch that did not authenticate (its result's failedAt is not -1). */
export function failedChunk({ result, firstIndex, final }: FinishedBatch): ChunkFailure {
  const sealed = result.input!
  const count = Math.floor(sealed.length / SEALED_CHUNK_SIZE) + (final ? 1 : 0)
  return {
    index: firstIndex + result.failedAt,
    region: sealed.subarray(result.failedAt * SEALED_CHUNK_SIZE),
    asFinal: final && result.failedAt === count - 1,
  }
}

/** The file ends before its header does. */
export function headerCutShort(length: number): FileCipherError {
  return new FileCipherError(
    'truncated',
    `The encrypted file is only ${length} bytes long; even an empty file encrypts to ${HEADER_SIZE + TAG_SIZE}. It was cut short or is not an encrypted file.`,
  )
}

/** The file ends without its final chunk, or inside a chunk's tag (`strayBytes` after the last whole chunk). */
export function endCutShort(strayBytes: number, index: number): FileCipherError {
  return new FileCipherError(
    'truncated',
    strayBytes === 0
      ? 'The encrypted file ends without its closing part: it was cut short (an incomplete download or copy). Get a complete copy of the file.'
      : `The encrypted file ends in the middle of a part (${strayBytes} stray bytes at the end): it was cut short. Get a complete copy of the file.`,
    index,
  )
}

/** Works out why chunk `failure.index` failed, by trial decryption within the backend's budget. */
export function diagnoseChunkFailure(
  backend: AeadBackend,
  aead: ChunkAead,
  failure: ChunkFailure,
  keys: { key: Uint8Array; baseNonce: Uint8Array },
): FileCipherError {
  const { index, region, asFinal } = failure
  const chunk = asFinal ? region : region.subarray(0, SEALED_CHUNK_SIZE)
  const start = HEADER_SIZE + index * SEALED_CHUNK_SIZE
  const part = `Part ${index + 1} of the encrypted file (from byte ${start})`
  let budget = backend.diagnosisBudgetBytes

  // Reordered, repeated or dropped chunks: the chunk authenticates under another index.
  // Half the budget goes to other positions (both directions), half to the trailing-data search.
  // A trial costs at least as much as ~4 KiB of data (per-call setup), whatever the chunk's size.
  const trialCost = Math.max(chunk.length, 4096)
  const window = Math.min(4096, Math.max(1, Math.floor(budget / 4 / trialCost)))
  for (let distance = 1; distance <= window && budget > 0; distance++) {
    for (const j of [index + distance, index - distance]) {
      if (j < 0 || j >= MAX_CHUNKS) continue
      budget -= trialCost
      if (aead.open(j, chunk)) {
        return new FileCipherError(
          'reordered',
          `${part} is authentic but belongs at position ${j + 1}: parts of the file were swapped, repeated or lost (for example by a faulty copy). Get another copy of the encrypted file.`,
          index,
        )
      }
    }
  }

  // Trailing data: a shorter prefix is a valid final chunk, so everything after it was appended.
  const longest = Math.min(region.length - 1, SEALED_CHUNK_SIZE - 1)
  for (let length = TAG_SIZE; length <= longest && budget > 0; length++) {
    budget -= length + 1024
    if (aead.open(index, region.subarray(0, length))) {
      return new FileCipherError(
        'trailing-data',
        `The encrypted file has extra data after its real end (after byte ${start + length}): something was appended to it. The data before that is intact; remove the extra bytes or get a clean copy.`,
        index,
      )
    }
  }

  // A final chunk that fails is either cut short or altered; one changed byte leaves a trace we can find.
  const changed = locateSingleByteError(keys.key, chunkNonce(keys.baseNonce, index), chunk)
  if (asFinal && changed === null) {
    return new FileCipherError(
      'truncated',
      `The encrypted file ends early: its last part (from byte ${start}) is incomplete, so the file was cut short, for example by an interrupted download or copy. Get another, complete copy of the file.`,
      index,
    )
  }
  const where = changed === null ? '' : ` (byte ${start + changed} was altered)`
  return new FileCipherError(
    'damaged',
    `${part} has been changed or damaged${where}, so its contents cannot be trusted and nothing from it is released. Get another copy of the encrypted file.`,
    index,
  )
}
