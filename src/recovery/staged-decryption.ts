// While an heir's download arrives, its file is decrypted beside it into the downloads folder, so that
// once the recovery plan has chosen the copies (recovery-plan.ts, which needs every blob first) a chosen
// copy is linked into place instead of read back and decrypted a second time. The plan, the checks
// and the rules of writing are unchanged: a staged file is only ever a faster source of the same
// authenticated bytes. Anything else leaves nothing staged and the later pass does the work as before:
// a bundle, a manifest, a download resumed from an earlier run, a chunk that fails. Staging never
// fails or slows down the download beyond the decryption it does.
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { type AeadBackendName, cipherByName } from '../node-cipher/cipher-choice'
import { FileCipherError, openEncryptedFile } from '../vault-format'
import { createNewFile, DOWNLOAD_QUEUE_BYTES } from './confined-write'

/** A file decrypted in full while it downloaded: every chunk authenticated, the end included. */
export interface StagedPlaintext {
  path: string
  sha256: string
  bytes: number
}

/** The header's check refused the key or the vault id: a blob that is not this vault's (or its header was altered). */
function isForeign(error: unknown): boolean {
  return error instanceof FileCipherError && (error.reason === 'wrong-key' || error.reason === 'wrong-vault')
}

/** Pieces handed on but not yet taken by the decryption before push() waits (the download's pace). */
const AHEAD = 4

/** Bytes from the download to the decryption, with back-pressure; once closed it takes nothing more. */
class PieceChannel implements AsyncIterable<Uint8Array> {
  #pieces: Uint8Array[] = []
  #ended = false
  #closed = false
  #wakeReader: (() => void) | null = null
  #wakeWriter: (() => void) | null = null

  async push(piece: Uint8Array): Promise<void> {
    if (this.#closed) return
    this.#pieces.push(piece)
    this.#wake()
    while (this.#pieces.length >= AHEAD && !this.#closed) {
      await new Promise<void>((resolve) => {
        this.#wakeWriter = resolve
      })
    }
  }

  end(): void {
    this.#ended = true
    this.#wake()
  }

  /** The reader stopped: what is queued is dropped and later pushes return at once. */
  close(): void {
    this.#closed = true
    this.#pieces = []
    this.#wake()
  }

  #wake(): void {
    for (const wake of [this.#wakeReader, this.#wakeWriter]) wake?.()
    this.#wakeReader = null
    this.#wakeWriter = null
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    try {
      for (;;) {
        const piece = this.#pieces.shift()
        if (piece) {
          if (this.#pieces.length < AHEAD) this.#wakeWriter?.()
          yield piece
          continue
        }
        if (this.#ended || this.#closed) return
        await new Promise<void>((resolve) => {
          this.#wakeReader = resolve
        })
      }
    } finally {
      this.close()
    }
  }
}

export interface StagingOptions {
  /** Where the plaintext goes: a new file in the (confined) downloads folder. */
  path: string
  vaultKey: Uint8Array
  vaultId: string
  backend?: AeadBackendName
}

/**
 * One download's decryption into `path`. push() every piece of the blob in order, from its first
 * byte; then finish() gives the staged file, or null when there is none (and removes what was begun).
 */
export class StagedDecryption {
  readonly #channel = new PieceChannel()
  readonly #result: Promise<StagedPlaintext | null>
  #abandoned = false
  #foreign = false

  constructor(readonly options: StagingOptions) {
    this.#result = this.#run().catch(async (error: unknown) => {
      this.#foreign = isForeign(error)
      this.#channel.close()
      await rm(options.path, { force: true }).catch(() => {})
      return null
    })
  }

  push(piece: Uint8Array): Promise<void> {
    return this.#channel.push(piece)
  }

  /** The header already showed a blob of another key or vault: the rest of it is not worth having. */
  get foreign(): boolean {
    return this.#foreign
  }

  /** The download is complete: the staged file, if every byte decrypted and authenticated. */
  async finish(): Promise<StagedPlaintext | null> {
    this.#channel.end()
    const staged = await this.#result
    if (staged && !this.#abandoned) return staged
    if (staged) await rm(staged.path, { force: true }).catch(() => {})
    return null
  }

  /** The download failed: nothing is kept. */
  async abandon(): Promise<void> {
    this.#abandoned = true
    this.#channel.close()
    await this.finish()
  }

  async #run(): Promise<StagedPlaintext | null> {
    const { path, vaultKey, vaultId, backend } = this.options
    const opened = await openEncryptedFile(this.#channel, { vaultKey, vaultId, ...cipherByName(backend) })
    if (opened.kind !== 'file') {
      // A bundle's files are few and small: the later pass unpacks it.
      await opened.entries.return?.()
      this.#channel.close()
      return null
    }
    const file = await createNewFile(path)
    const hash = createHash('sha256')
    let bytes = 0
    await pipeline(
      opened.body,
      async function* (plain: AsyncIterable<Uint8Array>) {
        for await (const piece of plain) {
          bytes += piece.length
          hash.update(piece)
          yield piece
        }
      },
      // Room for a few decrypted MiB: the decryption goes on while a write is out, instead of
      // holding the download back until each one is done.
      file.createWriteStream({ highWaterMark: 4 << 20 }),
    )
    return { path, sha256: hash.digest('hex'), bytes }
  }
}

/**
 * A download's bytes on their way to its .part file (the service's and Arweave's alike): never more
 * than `room`, the size its listing declared (a longer body fails with tooLong() and its excess is
 * not kept), each piece counted by onPiece and handed to `staging`, if any, before it goes on. With
 * `foreign`, the download fails with it once the staging refused the header as another vault's.
 */
export function countedDownload(
  room: number,
  how: {
    tooLong: () => Error
    onPiece: (bytes: number) => void
    staging?: StagedDecryption
    foreign?: () => Error
  },
): Transform {
  const { tooLong, onPiece, staging, foreign } = how
  return new Transform({
    highWaterMark: DOWNLOAD_QUEUE_BYTES,
    transform(piece: Buffer, _encoding, done) {
      if (piece.length > room) {
        done(tooLong())
        return
      }
      room -= piece.length
      onPiece(piece.length)
      if (!staging) done(null, piece)
      else
        staging.push(piece).then(() => {
          // Anyone can label a transaction with the vault's reference and declare any size.
          if (foreign && staging.foreign) done(foreign())
          else done(null, piece)
        })
    },
  })
}

/** Where the file of the download at `download` is staged: beside it, told apart by a suffix. */
export function stagedPathOf(download: string): string {
  return `${download}.plain`
}

/**
 * The decryption beside the download at `download`. A file left there by a run that was stopped is
 * never reused: what it holds is not known.
 */
export async function stageBeside(
  download: string,
  keys: Omit<StagingOptions, 'path'>,
): Promise<StagedDecryption> {
  const path = stagedPathOf(download)
  // Something that cannot be removed (a folder of that name) only means nothing is staged.
  await rm(path, { force: true }).catch(() => {})
  return new StagedDecryption({ path, ...keys })
}

/**
 * Whether the download begun at `path` (an earlier run's) already shows by its header a blob of
 * another key or vault. Anything else, a header still incomplete included, is not a refusal.
 */
export async function refusedHeader(path: string, keys: Omit<StagingOptions, 'path'>): Promise<boolean> {
  const { vaultKey, vaultId, backend } = keys
  const source = createReadStream(path)
  try {
    const opened = await openEncryptedFile(source, { vaultKey, vaultId, ...cipherByName(backend) })
    await (opened.kind === 'file' ? opened.body.return?.() : opened.entries.return?.())
    return false
  } catch (error) {
    return isForeign(error)
  } finally {
    source.destroy()
  }
}

/** Staged files not linked into place (copies not chosen, or a run that stopped): never reused. */
export async function removeStaged(items: readonly { staged?: StagedPlaintext }[]): Promise<void> {
  for (const { staged } of items) if (staged) await rm(staged.path, { force: true })
}
