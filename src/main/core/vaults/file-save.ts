// The owner taking their own files back: the blobs holding the chosen files are downloaded, checked
// and decrypted on this computer, and each chosen file is written where the owner said, through the
// recovery writer (names kept below the folder, never over a different file, nothing partial). Memory
// stays flat: a blob streams from the service through decryption into its file. Its encrypted bytes
// also go to a download file in a hidden folder of the target, so that a save cut off (or cancelled)
// resumes: the bytes already here are read again from disk and only the rest is asked for, with a
// byte range. A file already in place with the same content counts as kept, so saving again into the
// same folder finishes the job.
import { createReadStream } from 'node:fs'
import { rm, rmdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import {
  localDownloadName,
  makeConfinedFolders,
  openDownload,
  outputRoot,
} from '../../../recovery/confined-write'
import { DOWNLOADS_FOLDER } from '../../../recovery/heir-recovery'
import { OutputNames } from '../../../recovery/portable-names'
import { type RecoveredBlob, RecoveryWriteError, writeRecoveredBlob } from '../../../recovery/recovery-writer'
import { VaultApiError } from '../../../service-client'
import { AppError } from '../../../shared/app-error'
import type { FileSaveReport } from '../../../shared/ipc/vault-types'
import { FileCipherError } from '../../../vault-format'

/** What a save reads from the service. */
export interface FileSaveSource {
  downloadAssetFrom(
    vaultId: string,
    assetId: string,
    start: number,
    signal?: AbortSignal,
  ): Promise<{ stream: Readable; partial: boolean }>
}

/** One file to write: its path in the vault and where it goes below the folder. */
export interface FileToSave {
  path: string
  saveAs: string
  /** The content the vault's list names (SHA-256 hex), when the file is the list's: nothing else is written. */
  sha256?: string
}

/** A blob to read, and the chosen files it holds (or, when `searched`, may hold). */
export interface BlobToSave {
  assetId: string
  encryptedBytes: number
  files: FileToSave[]
  /** Read only to look for files whose blob is not known here: finding none in it is no failure. */
  searched?: boolean
}

export interface FileSaveOptions {
  source: FileSaveSource
  vaultId: string
  vaultKey: Uint8Array
  folder: string
  blobs: readonly BlobToSave[]
  signal?: AbortSignal
  onProgress?: (progress: {
    path?: string
    fileNumber: number
    fileCount: number
    doneBytes: number
    totalBytes: number
  }) => void
}

type SaveOutcome = Omit<FileSaveReport, 'saveId'>

/** The name a blob without one of its own (format 1) is asked about under: never a real path. */
const UNNAMED = '\u0000unnamed'

/** The service sent more than it listed: the blob is refused (the owner reads the failed file's line). */
class LongerThanListed extends AppError {
  override readonly name = 'LongerThanListed'
  constructor() {
    super({
      code: 'DOWNLOAD_TOO_LONG',
      userMessage: 'The service sent more bytes than it lists for this blob.',
    })
  }
}

export async function saveVaultFiles(opts: FileSaveOptions): Promise<SaveOutcome> {
  const outcome: SaveOutcome = { folder: opts.folder, saved: 0, kept: 0, bytes: 0, failed: [] }
  const wanted = new Map<string, FileToSave>()
  for (const blob of opts.blobs) for (const f of blob.files) if (!wanted.has(f.path)) wanted.set(f.path, f)
  const fileCount = wanted.size
  const done = new Set<string>()
  const totalBytes = opts.blobs.reduce((sum, b) => sum + b.encryptedBytes, 0)
  let doneBytes = 0
  let current: string | undefined
  const tell = () =>
    opts.onProgress?.({
      ...(current !== undefined ? { path: current } : {}),
      fileNumber: Math.min(fileCount, done.size + 1),
      fileCount,
      doneBytes,
      totalBytes,
    })

  let downloads: string
  try {
    const root = await outputRoot(opts.folder)
    downloads = join(root, DOWNLOADS_FOLDER)
    await makeConfinedFolders(root, downloads)
  } catch (error) {
    throw new AppError({
      code: 'SAVE_FOLDER_UNUSABLE',
      userMessage: `The folder ${opts.folder} cannot be used (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Choose a folder you can write to, with room for the files, and save again.`,
      cause: error,
    })
  }
  // One run's names: two files Windows or a Mac would take for one are both kept, one renamed.
  const names = new OutputNames()

  for (const blob of opts.blobs) {
    if (outcome.stopped) break
    const open = blob.files.filter((f) => !done.has(f.path))
    if (open.length === 0) {
      doneBytes += blob.encryptedBytes
      continue
    }
    const byPath = new Map(open.map((f) => [f.path, f]))
    const part = join(downloads, `${localDownloadName('service', opts.vaultId, blob.assetId)}.part`)
    let readError: unknown
    const before = doneBytes
    try {
      const source = await blobBytes(opts, blob, part, (n) => {
        doneBytes += n
        tell()
      })
      current = blob.files.length === 1 ? blob.files[0]!.path : undefined
      tell()
      let result: RecoveredBlob
      try {
        result = await writeRecoveredBlob({
          input: current ?? blob.assetId,
          source: source.bytes((error) => {
            readError = error
          }),
          outDir: opts.folder,
          fallbackPath: UNNAMED,
          vaultKey: opts.vaultKey,
          vaultId: opts.vaultId,
          names,
          select: (path) => {
            // A blob of the oldest format carries no name: it is the one file the library says it holds.
            const file = byPath.get(path) ?? (path === UNNAMED && !blob.searched ? open[0] : undefined)
            if (!file || done.has(file.path)) return null
            return {
              path: file.path,
              saveAs: file.saveAs,
              ...(file.sha256 ? { expectSha256: file.sha256 } : {}),
            }
          },
        })
      } finally {
        source.close()
      }
      const written = writtenFiles(result, opts.folder)
      for (const w of written) {
        if (w.status === 'failed') continue
        done.add((byPath.get(w.path) ?? open[0]!).path)
        if (w.status === 'kept') outcome.kept++
        else outcome.saved++
        outcome.bytes += w.bytes
      }
      // A bundle cut off part-way: the files before the cut are written, the rest wait for the resume.
      if (readError) throw readError
      for (const w of written) {
        if (w.status !== 'failed') continue
        const file = byPath.get(w.path) ?? open[0]!
        outcome.failed.push({ path: file.path, message: w.message })
        done.add(file.path)
      }
      await rm(part, { force: true })
    } catch (thrown) {
      // What the download itself failed with, whatever the writer made of it on its way out (it takes
      // an error of its body for its own file's write failure).
      const error = readError ?? thrown
      if (opts.signal?.aborted) {
        outcome.stopped = {
          reason: 'cancelled',
          message:
            'Saving was stopped. The files saved so far are in the folder; save again into the same folder to finish, without downloading again what is already here.',
        }
        break
      }
      if (error instanceof VaultApiError && error.status === 404) {
        if (!blob.searched) {
          for (const f of open) {
            outcome.failed.push({
              path: f.path,
              message:
                'The service no longer holds the encrypted copy of this file (it was deleted, perhaps from another computer). Open the Files tab again to see the vault as it is now.',
            })
            done.add(f.path)
          }
        }
        doneBytes = before + blob.encryptedBytes
        continue
      }
      if (error instanceof FileCipherError || error instanceof LongerThanListed) {
        await rm(part, { force: true })
        if (!blob.searched) {
          for (const f of open) {
            outcome.failed.push({
              path: f.path,
              message:
                error instanceof LongerThanListed
                  ? 'The service sent more bytes than it lists for the encrypted copy of this file, so it was refused and nothing was written. Try again later; if it keeps happening, the service needs looking at.'
                  : 'The encrypted copy of this file on the service is damaged or was changed, so it was refused and nothing was written. Your heirs would meet the same problem: back the file up again from this computer if you still have it.',
            })
            done.add(f.path)
          }
        }
        doneBytes = before + blob.encryptedBytes
        continue
      }
      if (readError !== undefined || error instanceof VaultApiError) {
        outcome.stopped = {
          reason: 'interrupted',
          message:
            'The download was cut off: the service stopped answering. The files saved so far are in the folder; check the connection and save again into the same folder to go on where it stopped.',
        }
        break
      }
      // Anything else concerns the folder (a lone file in the way, a disk full).
      const message =
        error instanceof RecoveryWriteError
          ? ownerWords(error.reason, open[0]!.saveAs, opts.folder, error.userMessage)
          : error instanceof AppError
            ? error.userMessage
            : `It could not be written: ${(error as Error).message}. Check the folder and its free space, and save again.`
      for (const f of open) {
        outcome.failed.push({ path: f.path, message })
        done.add(f.path)
      }
      doneBytes = before + blob.encryptedBytes
    }
  }
  if (!outcome.stopped) {
    for (const f of wanted.values()) {
      if (done.has(f.path)) continue
      outcome.failed.push({
        path: f.path,
        message:
          "No blob on the service holds this file as the vault's list names it, so it could not be saved. Your heirs would miss it too: back it up again from the computer that has it.",
      })
    }
    await rmdir(downloads).catch(() => {})
  }
  current = undefined
  tell()
  return outcome
}

type WrittenFile =
  | { status: 'recovered' | 'kept'; path: string; bytes: number }
  | { status: 'failed'; path: string; message: string }

function writtenFiles(result: RecoveredBlob, folder: string): WrittenFile[] {
  if (result.kind === 'file') return result.file ? [result.file] : []
  return result.files.map((f) =>
    f.status === 'failed'
      ? { status: 'failed', path: f.path, message: ownerWords(f.reason, f.relativePath, folder, f.message) }
      : { status: f.status, path: f.path, bytes: f.bytes },
  )
}

/** The writer speaks to heirs ("recover again"); the owner is saving. */
function ownerWords(reason: string | undefined, name: string, folder: string, otherwise?: string): string {
  if (reason === 'exists')
    return `A different file named "${name}" is already in ${folder}; it was left untouched. Choose another folder, or move that file away, and save again.`
  if (reason === 'link')
    return `"${name}" was not saved: a link (a symbolic link or junction) is in its way in ${folder}, and saving never writes through a link. Choose another folder and save again.`
  return otherwise ?? 'It could not be written. Check the folder and save again.'
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size
  } catch {
    return 0
  }
}

/**
 * A blob's encrypted bytes: those already downloaded (a save cut off before), then the rest from the
 * service, each piece kept in the download file before it is decrypted.
 */
async function blobBytes(
  opts: FileSaveOptions,
  blob: BlobToSave,
  part: string,
  counted: (bytes: number) => void,
): Promise<{ bytes(onReadError: (error: unknown) => void): AsyncIterable<Uint8Array>; close(): void }> {
  let have = await sizeOf(part)
  if (have > blob.encryptedBytes) {
    await rm(part, { force: true })
    have = 0
  }
  let remote: Readable | undefined
  if (have < blob.encryptedBytes) {
    const answer = await opts.source.downloadAssetFrom(opts.vaultId, blob.assetId, have, opts.signal)
    remote = answer.stream
    // A failure before the bytes are read still reaches the reader below.
    remote.on('error', () => {})
    if (!answer.partial) have = 0
  }
  return {
    async *bytes(onReadError) {
      if (have > 0) {
        for await (const piece of createReadStream(part, { end: have - 1, highWaterMark: 1 << 20 })) {
          counted(piece.length)
          yield piece as Uint8Array
        }
      }
      if (!remote) return
      const sink = await openDownload(part, have > 0)
      let room = blob.encryptedBytes - have
      // One piece is written to the download file while it is decrypted (never more: memory stays flat).
      let writing: Promise<unknown> | undefined
      try {
        for await (const piece of remote as AsyncIterable<Buffer>) {
          if (piece.length > room) throw new LongerThanListed()
          room -= piece.length
          await writing
          writing = sink.write(piece)
          counted(piece.length)
          yield piece
        }
        await writing
      } catch (error) {
        onReadError(error)
        throw error
      } finally {
        await writing?.catch(() => {})
        await sink.close()
      }
    },
    close: () => remote?.destroy(),
  }
}
