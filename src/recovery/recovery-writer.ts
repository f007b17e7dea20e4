// The one way recovered plaintext reaches the user's disk, for every recovery path (local .vault files
// from the app or the command line, heirs' downloads from the service, Arweave):
// - the file's name comes from the authenticated blob (format 2 and bundles); older blobs use the
//   caller's name; never a transaction id, asset id or a service's listing (portable-names.ts), and a
//   name that would collide with another of the run on Windows or a Mac is renamed `name (2)`;
// - every write stays below the output folder and follows no link: folders are made one at a time,
//   each component checked, files opened O_EXCL|O_NOFOLLOW (confined-write.ts);
// - plaintext goes to a short, hidden temp file beside the target (so a 255-byte name still fits) and
//   gets its name only after every chunk of it authenticated, so a failure leaves nothing behind (not
//   even folders this writer created);
// - an existing file is never replaced: link() refuses it, and an identical file counts as already
//   recovered;
// - a bundle's files are written one by one, each published once all its bytes authenticated: when
//   the bundle fails part-way, the files before stay and the rest are reported failed.
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { createReadStream, type WriteStream } from 'node:fs'
import { type FileHandle, link, lstat, open, rename, rmdir, unlink } from 'node:fs/promises'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { type AeadBackendName, cipherByName } from '../node-cipher/cipher-choice'
import { AppError } from '../shared/app-error'
import type { OpenedBundle } from '../vault-format'
import { FileCipherError, type FileCipherErrorReason, openEncryptedFile } from '../vault-format'
import {
  createNewFile,
  localTempName,
  makeConfinedFolders,
  openExistingFile,
  outputRoot,
  PathInTheWayError,
} from './confined-write'
import { confinedPath, OutputNames, type PlacedName, renameNote } from './portable-names'
import type { StagedPlaintext } from './staged-decryption'

export { confinedPath, windowsSafeSegment } from './portable-names'

export interface RecoveryWriteOptions {
  /** The encrypted file to read (or, with `source`, only its name in messages). */
  input: string
  /** The encrypted bytes, when they do not come from the file `input` (a download being saved). */
  source?: AsyncIterable<Uint8Array>
  outDir: string
  /** Where a blob without its own name (format 1) goes: relative to outDir, '/'-separated. */
  fallbackPath: string
  vaultKey: Uint8Array
  vaultId: string
  backend?: AeadBackendName
  /** Encrypted bytes read so far, for progress. */
  onBytes?: (bytes: number) => void
  /**
   * Asked before each file is written (a blob's one file at index 0, or each file of a bundle at its
   * position) with its path ('/'-separated, as in the blob): null leaves it out (another copy is the
   * one to write, recovery-plan.ts), else it is written (a blob without its own name at `path`, when
   * given), and with `expectSha256` only if its content has that SHA-256. Without it, every file is
   * written. `saveAs` places it elsewhere below outDir: the owner's own choice when saving their files
   * (a folder saved without the folders above it), never a name from a source.
   */
  select?: (path: string, index: number) => { path?: string; expectSha256?: string; saveAs?: string } | null
  /** The names given out so far in this run (one per run, so that no two files collide). */
  names?: OutputNames
  /**
   * A file blob's file already decrypted from these same bytes (staged-decryption.ts): linked into
   * place under the same checks instead of decrypted again. Ignored for a bundle.
   */
  staged?: StagedPlaintext
}

export interface RecoveryWritten {
  /** 'kept': an identical file was already there (an earlier run). */
  status: 'recovered' | 'kept'
  output: string
  /** The path inside outDir, '/'-separated. */
  relativePath: string
  /** The file's path as recorded in the blob (or the caller's, for old blobs), '/'-separated. */
  path: string
  /** Where the name came from: the authenticated blob, or the caller (old blobs). */
  nameFrom: 'blob' | 'caller'
  bytes: number
  /** Under which name it was saved, when renamed. */
  message?: string
}

/** One file of a bundle that was to be written: written, kept, or failed (with why). */
export interface RecoveredBundleFile {
  status: 'recovered' | 'kept' | 'failed'
  /** The file's path as recorded in the bundle. */
  path: string
  /** Its position in the bundle. */
  index: number
  /** Where it was (or would have been) written. */
  output: string
  relativePath: string
  bytes: number
  reason?: FileCipherErrorReason | RecoveryWriteFailure | 'unreadable'
  /** For a person: why it failed, or the name it was saved under. */
  message?: string
  /** The decryption error's own words (where the bundle was damaged), when it failed on that. */
  detail?: string
}

/** A file blob's file (none when it was not selected), or the bundle's files that were selected. */
export type RecoveredBlob =
  | { kind: 'file'; file?: RecoveryWritten }
  | { kind: 'bundle'; createdAtMs: number; files: RecoveredBundleFile[] }

/**
 * exists: a different file is at its place; link: a link is in the path (never followed);
 * other-content: not the content asked for (expectSha256), so not written.
 */
export type RecoveryWriteFailure = 'exists' | 'link' | 'unsafe-name' | 'write-failed' | 'other-content'

/** A failure of the writing side; decryption failures stay FileCipherError, read failures stay system errors. */
export class RecoveryWriteError extends AppError {
  override readonly name = 'RecoveryWriteError'
  constructor(
    readonly reason: RecoveryWriteFailure,
    userMessage: string,
    readonly output: string,
  ) {
    super({ code: 'RECOVERY_WRITE_FAILED', userMessage })
  }
}

async function present(path: string): Promise<boolean> {
  try {
    await lstat(path)
    return true
  } catch {
    return false
  }
}

/** Whether the file at `existing` (never followed if it is a link) holds exactly the temp file's bytes. */
async function sameContents(temp: string, existing: string): Promise<boolean> {
  let right: FileHandle
  try {
    right = await openExistingFile(existing)
  } catch {
    return false
  }
  const left = await open(temp, 'r')
  try {
    const [sa, sb] = await Promise.all([left.stat(), right.stat()])
    if (!sb.isFile() || sa.size !== sb.size) return false
    const bufA = Buffer.alloc(1 << 20)
    const bufB = Buffer.alloc(1 << 20)
    for (let at = 0; at < sa.size; ) {
      const [ra, rb] = await Promise.all([
        left.read(bufA, 0, bufA.length, at),
        right.read(bufB, 0, bufB.length, at),
      ])
      if (ra.bytesRead !== rb.bytesRead || ra.bytesRead === 0) return ra.bytesRead === rb.bytesRead
      if (!bufA.subarray(0, ra.bytesRead).equals(bufB.subarray(0, rb.bytesRead))) return false
      at += ra.bytesRead
    }
    return true
  } finally {
    await Promise.all([left.close(), right.close()])
  }
}

/** Gives the checked temp file its name without ever replacing an existing file. */
async function publish(temp: string, output: string): Promise<'published' | 'exists'> {
  try {
    // link() never follows a link at its target: any entry there, a link included, gives EEXIST.
    await link(temp, output)
    await unlink(temp)
    return 'published'
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'exists'
    const code = (error as NodeJS.ErrnoException).code
    // File systems without hard links (FAT, exFAT) refuse link(): check, then rename.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error
  }
  if (await present(output)) return 'exists'
  await rename(temp, output)
  return 'published'
}

function linkInTheWay(relativePath: string, component: string, output: string): RecoveryWriteError {
  return new RecoveryWriteError(
    'link',
    `"${relativePath}" was not recovered: "${component}" in the output folder is a link (a symbolic link or junction), and recovery never writes through a link. Nothing was written for it. Choose an empty folder, or remove that link, then recover again.`,
    output,
  )
}

/** Decryption and read failures pass through; anything else happened while writing. */
function writeSideError(error: unknown, input: string, output: string, relativePath: string): unknown {
  if (error instanceof FileCipherError || error instanceof RecoveryWriteError) return error
  if (error instanceof PathInTheWayError) {
    if (error.kind === 'link') return linkInTheWay(relativePath, error.component, output)
    return new RecoveryWriteError(
      'write-failed',
      `"${relativePath}" was not recovered: "${error.component}" in the output folder is a file where its folder must be. Nothing was written for it. Choose an empty folder, or move that file away, then recover again.`,
      output,
    )
  }
  const sys = error as NodeJS.ErrnoException
  if (sys.path === input || sys.syscall === 'read') return error
  if (sys.code === 'ELOOP') return linkInTheWay(relativePath, relativePath, output)
  return new RecoveryWriteError(
    'write-failed',
    `Could not write "${output}": ${sys.message ?? String(error)}. Check that the folder is writable and has free space, then recover again.`,
    output,
  )
}

function unsafeName(outDir: string, relativePath: string): RecoveryWriteError {
  return new RecoveryWriteError(
    'unsafe-name',
    `The file's name "${relativePath}" is not a valid name inside the chosen folder, so it was not recovered. Nothing was written for it.`,
    resolve(outDir),
  )
}

/** Where `path` goes in this run (renamed when it would collide), or unsafeName. */
function placeOf(
  path: string,
  opts: RecoveryWriteOptions,
  names: OutputNames,
): PlacedName & { output: string; shown: string } {
  const placed = names.place(path)
  const output = confinedPath(opts.outDir, placed.relativePath)
  if (!output) throw unsafeName(opts.outDir, path)
  return { ...placed, output, shown: relative(resolve(opts.outDir), output).split(sep).join('/') }
}

/**
 * Writes one file's authenticated bytes to its place inside outDir: temp file, then link into place,
 * never over a different file and never through a link. Throws FileCipherError (the body failed),
 * RecoveryWriteError, or the input's read error; leaves nothing behind then.
 */
async function writeBody(
  body: AsyncIterableIterator<Uint8Array>,
  place: { output: string; shown: string },
  opts: RecoveryWriteOptions,
  expectSha256?: string,
  staged?: StagedPlaintext,
): Promise<{ status: 'recovered' | 'kept'; output: string; relativePath: string; bytes: number }> {
  const { output, shown: relativePath } = place
  let created: string[] = []
  // Same folder as the target, so the final link is atomic and never crosses file systems; a short
  // name of its own, so a target name of 255 bytes still has a temp file.
  const temp = join(dirname(output), localTempName())
  let bytes = 0
  let handle: FileHandle | undefined
  let sink: WriteStream | undefined
  let adopted = false
  try {
    const root = await outputRoot(opts.outDir)
    created = await makeConfinedFolders(root, dirname(output))
    let digest: string | undefined
    if (staged && (await adoptStaged(staged, temp))) {
      adopted = true
      await body.return?.()
      bytes = staged.bytes
      digest = staged.sha256
    } else {
      handle = await createNewFile(temp)
      sink = handle.createWriteStream()
      const hash = expectSha256 ? createHash('sha256') : undefined
      await pipeline(
        body,
        async function* (plain: AsyncIterable<Uint8Array>) {
          for await (const piece of plain) {
            bytes += piece.length
            hash?.update(piece)
            yield piece
          }
        },
        sink,
      )
      digest = hash?.digest('hex')
    }
    if (expectSha256 && digest !== expectSha256) {
      throw new RecoveryWriteError(
        'other-content',
        `This copy of "${relativePath}" is authentic but not the version the vault's newest list of files names (its content differs), so it was not written.`,
        output,
      )
    }
    if ((await publish(temp, output)) === 'exists') {
      const existing = await lstat(output)
      if (existing.isSymbolicLink()) throw linkInTheWay(relativePath, relativePath, output)
      const identical = await sameContents(temp, output)
      await unlink(temp)
      if (identical) return { status: 'kept', output, relativePath, bytes }
      throw new RecoveryWriteError(
        'exists',
        `A different file named "${relativePath}" is already in ${opts.outDir}; it was left untouched. Choose an empty folder, or move that file away and recover again.`,
        output,
      )
    }
  } catch (error) {
    // A body that fails at once can reject the pipeline before the stream has used its file: wait
    // until it is closed, or the temp file would stay open and keep its folder.
    if (sink && !sink.closed) await once(sink, 'close').catch(() => {})
    else if (handle && !sink) await handle.close().catch(() => {})
    if (handle || adopted) await unlink(temp).catch(() => {})
    for (const dir of created) await rmdir(dir).catch(() => {})
    throw writeSideError(error, opts.input, output, relativePath)
  }
  return { status: 'recovered', output, relativePath, bytes }
}

/**
 * The staged file (decrypted while it downloaded) becomes the temp file beside the target; false when
 * it cannot be linked there (another file system below the output folder): then it is decrypted again.
 */
async function adoptStaged(staged: StagedPlaintext, temp: string): Promise<boolean> {
  try {
    await link(staged.path, temp)
  } catch {
    return false
  }
  await unlink(staged.path).catch(() => {})
  return true
}

/**
 * Decrypts one encrypted file (a file blob or a bundle) into outDir. A file blob that fails throws
 * (FileCipherError, RecoveryWriteError, or the read error); so does a bundle whose header or records
 * fail, before anything is written. Once a bundle opened, every one of its files gets a result.
 */
export async function writeRecoveredBlob(opts: RecoveryWriteOptions): Promise<RecoveredBlob> {
  const names = opts.names ?? new OutputNames()
  const file = opts.source ? undefined : createReadStream(opts.input, { highWaterMark: 1 << 20 })
  if (file && opts.onBytes) file.on('data', (piece) => opts.onBytes?.(piece.length))
  const source = file ?? opts.source!
  try {
    const opened = await openEncryptedFile(source, {
      vaultKey: opts.vaultKey,
      vaultId: opts.vaultId,
      ...cipherByName(opts.backend),
    })
    if (opened.kind === 'bundle') return await writeBundle(opened, opts, names)

    const nameFrom = opened.identity ? 'blob' : 'caller'
    const selected = opts.select ? opts.select(opened.identity?.path ?? opts.fallbackPath, 0) : {}
    if (!selected) {
      await opened.body.return?.()
      return { kind: 'file' }
    }
    // Only a blob without its own name takes one from the caller.
    const path = opened.identity?.path ?? selected.path ?? opts.fallbackPath
    const place = placeOf(selected.saveAs ?? path, opts, names)
    const written = await writeBody(opened.body, place, opts, selected.expectSha256, opts.staged)
    const note = renameNote(place)
    return { kind: 'file', file: { ...written, path, nameFrom, ...(note ? { message: note } : {}) } }
  } finally {
    file?.destroy()
  }
}

function bundleFailure(
  error: unknown,
  input: string,
): Pick<RecoveredBundleFile, 'reason' | 'message' | 'detail'> {
  if (error instanceof FileCipherError) {
    return {
      reason: error.reason,
      message:
        "The bundle holding this file was changed or damaged at or before this file, so it was not recovered and nothing was written for it. The bundle's files before that point were recovered.",
      detail: error.message,
    }
  }
  if (error instanceof RecoveryWriteError) return { reason: error.reason, message: error.userMessage }
  return {
    reason: 'unreadable',
    message: `Could not read '${input}' to the end: ${(error as Error).message}. Check the file and the disk, then recover again.`,
  }
}

async function writeBundle(
  opened: OpenedBundle,
  opts: RecoveryWriteOptions,
  names: OutputNames,
): Promise<RecoveredBlob> {
  const root = resolve(opts.outDir)
  const where = (path: string) => {
    const output = confinedPath(opts.outDir, names.place(path).relativePath)
    return output
      ? { output, relativePath: relative(root, output).split(sep).join('/') }
      : { output: root, relativePath: path }
  }
  const results: RecoveredBundleFile[] = []
  let broken: unknown
  let seen = 0
  try {
    // Reading on to the next entry authenticates what a skipped entry left unread.
    for await (const entry of opened.entries) {
      const { path } = entry.identity
      const index = seen++
      const selected = opts.select ? opts.select(path, index) : {}
      if (!selected) continue
      try {
        const place = placeOf(selected.saveAs ?? path, opts, names)
        const written = await writeBody(entry.body, place, opts, selected.expectSha256)
        const note = renameNote(place)
        results.push({ ...written, path, index, ...(note ? { message: note } : {}) })
      } catch (error) {
        results.push({
          status: 'failed',
          path,
          index,
          ...where(path),
          bytes: 0,
          ...bundleFailure(error, opts.input),
        })
        // A write-side failure concerns this file alone; a decryption or read failure ends the bundle.
        if (!(error instanceof RecoveryWriteError)) {
          broken = error
          break
        }
      }
    }
  } catch (error) {
    broken = error
  } finally {
    await opened.entries.return?.()
  }
  // The files after the damage that were to be written fail too.
  for (const [index, identity] of opened.files.entries()) {
    if (index < seen || (opts.select && !opts.select(identity.path, index))) continue
    results.push({
      status: 'failed',
      path: identity.path,
      index,
      ...where(identity.path),
      bytes: 0,
      ...bundleFailure(broken, opts.input),
    })
  }
  return { kind: 'bundle', createdAtMs: opened.createdAtMs, files: results }
}
