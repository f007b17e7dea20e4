// The one way recovered plaintext reaches the user's disk, for every recovery path (local .vault files
// from the app or the command line, and heirs' downloads from the service):
// - the file's name comes from the authenticated blob (format 2 and bundles); older blobs use the
//   caller's name;
// - plaintext goes to a hidden temp file beside the target and gets its name only after every chunk
//   of it authenticated, so a failure leaves nothing behind (not even folders this writer created);
// - an existing file is never replaced: link() refuses it, and an identical file counts as already
//   recovered;
// - a bundle's files are written one by one, each published once all its bytes authenticated: when
//   the bundle fails part-way, the files before stay and the rest are reported failed.
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs'
import { link, lstat, mkdir, open, rename, rmdir, unlink } from 'node:fs/promises'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { type AeadBackendName, cipherByName } from '../node-cipher/cipher-choice'
import { AppError } from '../shared/app-error'
import type { OpenedBundle } from '../vault-format/file-bundle'
import { openEncryptedFile } from '../vault-format/file-cipher'
import { FileCipherError, type FileCipherErrorReason } from '../vault-format/format-errors'

export interface RecoveryWriteOptions {
  /** The encrypted file to read. */
  input: string
  outDir: string
  /** Where a blob without its own name (format 1) goes: relative to outDir, '/'-separated. */
  fallbackPath: string
  vaultKey: Uint8Array
  vaultId: string
  backend?: AeadBackendName
  /** Encrypted bytes read so far, for progress. */
  onBytes?: (bytes: number) => void
  /**
   * Asked before each file is written (a blob's one file, or each file of a bundle) with its path
   * ('/'-separated, as in the blob): a message to leave it out as superseded (a newer copy of it was
   * recovered in this run), or undefined to write it.
   */
  supersededBy?: (path: string) => string | undefined
}

export interface RecoveryWritten {
  /** 'kept': an identical file was already there (an earlier run); 'superseded': left out, see message. */
  status: 'recovered' | 'kept' | 'superseded'
  output: string
  /** The path inside outDir, '/'-separated. */
  relativePath: string
  /** The file's path as recorded in the blob (or the caller's, for old blobs), '/'-separated. */
  path: string
  /** Where the name came from: the authenticated blob, or the caller (old blobs). */
  nameFrom: 'blob' | 'caller'
  bytes: number
  /** Why it was superseded. */
  message?: string
}

/** One file of a bundle: written, kept, superseded, or failed (with why). */
export interface RecoveredBundleFile {
  status: 'recovered' | 'kept' | 'superseded' | 'failed'
  /** The file's path as recorded in the bundle. */
  path: string
  /** Where it was (or would have been) written. */
  output: string
  relativePath: string
  bytes: number
  reason?: FileCipherErrorReason | RecoveryWriteFailure | 'unreadable'
  /** For a person: why it was superseded or failed. */
  message?: string
  /** The decryption error's own words (where the bundle was damaged), when it failed on that. */
  detail?: string
}

export type RecoveredBlob =
  | { kind: 'file'; file: RecoveryWritten }
  | { kind: 'bundle'; createdAtMs: number; files: RecoveredBundleFile[] }

export type RecoveryWriteFailure = 'exists' | 'unsafe-name' | 'write-failed'

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

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i

/**
 * A name Windows can hold (FORMAT.md 3.8: rename rather than refuse): the characters it forbids become
 * '_', trailing dots and spaces are dropped, and reserved device names (CON, NUL, COM1...) get a '_'.
 */
export function windowsSafeSegment(segment: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  let safe = segment.replace(/[<>:"|?*\u0000-\u001f]/g, '_').replace(/[. ]+$/, '')
  if (safe === '') safe = '_'
  return WINDOWS_RESERVED.test(safe) ? `_${safe}` : safe
}

/**
 * outDir joined with a '/'-separated relative path, or null if the path could leave outDir. On
 * Windows, each segment is first made a name Windows can hold.
 */
export function confinedPath(
  outDir: string,
  relativePath: string,
  platform: NodeJS.Platform = process.platform,
): string | null {
  const segments = relativePath.split('/')
  const unsafe = (s: string) =>
    s === '' ||
    s === '.' ||
    s === '..' ||
    s.includes('\\') ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    /[\u0000-\u001f\u007f]/.test(s)
  if (segments.some(unsafe)) return null
  const root = resolve(outDir)
  const target = resolve(root, ...(platform === 'win32' ? segments.map(windowsSafeSegment) : segments))
  return target.startsWith(root + sep) ? target : null
}

async function present(path: string): Promise<boolean> {
  try {
    await lstat(path)
    return true
  } catch {
    return false
  }
}

/** Creates the target's folder; returns the folders created, deepest first, to undo on failure. */
async function makeFolders(root: string, folder: string): Promise<string[]> {
  const created: string[] = []
  for (let dir = folder; dir !== root && dir.startsWith(root + sep); dir = dirname(dir)) {
    if (await present(dir)) break
    created.push(dir)
  }
  await mkdir(folder, { recursive: true })
  return created
}

async function sameContents(a: string, b: string): Promise<boolean> {
  const [left, right] = await Promise.all([open(a, 'r'), open(b, 'r')])
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

/** Decryption and read failures pass through; anything else happened while writing. */
function writeSideError(error: unknown, input: string, output: string): unknown {
  if (error instanceof FileCipherError || error instanceof RecoveryWriteError) return error
  const sys = error as NodeJS.ErrnoException
  if (sys.path === input || sys.syscall === 'read') return error
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

/**
 * Writes one file's authenticated bytes to its path inside outDir: temp file, then link into place,
 * never over a different file. Throws FileCipherError (the body failed), RecoveryWriteError, or the
 * input's read error; leaves nothing behind then.
 */
async function writeBody(
  body: AsyncIterable<Uint8Array>,
  path: string,
  opts: RecoveryWriteOptions,
): Promise<{ status: 'recovered' | 'kept'; output: string; relativePath: string; bytes: number }> {
  const output = confinedPath(opts.outDir, path)
  if (!output) throw unsafeName(opts.outDir, path)
  const root = resolve(opts.outDir)
  const relativePath = relative(root, output).split(sep).join('/')
  let created: string[] = []
  // Same folder as the target, so the final link is atomic and never crosses file systems.
  const temp = join(dirname(output), `.${basename(output)}.${randomBytes(6).toString('hex')}.partial`)
  let bytes = 0
  let sink: WriteStream | undefined
  try {
    await mkdir(root, { recursive: true })
    created = await makeFolders(root, dirname(output))
    sink = createWriteStream(temp, { flags: 'wx', mode: 0o600 })
    await pipeline(
      body,
      async function* (plain: AsyncIterable<Uint8Array>) {
        for await (const piece of plain) {
          bytes += piece.length
          yield piece
        }
      },
      sink,
    )
    if ((await publish(temp, output)) === 'exists') {
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
    // A body that fails at once can reject the pipeline before the stream has even opened its file:
    // wait until it is closed, or the temp file would appear after the unlink and keep its folder.
    if (sink && !sink.closed) await once(sink, 'close').catch(() => {})
    await unlink(temp).catch(() => {})
    for (const dir of created) await rmdir(dir).catch(() => {})
    throw writeSideError(error, opts.input, output)
  }
  return { status: 'recovered', output, relativePath, bytes }
}

/**
 * Decrypts one encrypted file (a file blob or a bundle) into outDir. A file blob that fails throws
 * (FileCipherError, RecoveryWriteError, or the read error); so does a bundle whose header or records
 * fail, before anything is written. Once a bundle opened, every one of its files gets a result.
 */
export async function writeRecoveredBlob(opts: RecoveryWriteOptions): Promise<RecoveredBlob> {
  const source = createReadStream(opts.input, { highWaterMark: 1 << 20 })
  if (opts.onBytes) source.on('data', (piece) => opts.onBytes?.(piece.length))
  try {
    const opened = await openEncryptedFile(source, {
      vaultKey: opts.vaultKey,
      vaultId: opts.vaultId,
      ...cipherByName(opts.backend),
    })
    if (opened.kind === 'bundle') return await writeBundle(opened, opts)

    const nameFrom = opened.identity ? 'blob' : 'caller'
    const path = opened.identity?.path ?? opts.fallbackPath
    const output = confinedPath(opts.outDir, path)
    if (!output) throw unsafeName(opts.outDir, path)
    const superseded = opts.supersededBy?.(path)
    if (superseded) {
      await opened.body.return?.()
      const relativePath = relative(resolve(opts.outDir), output).split(sep).join('/')
      return {
        kind: 'file',
        file: { status: 'superseded', output, relativePath, path, nameFrom, bytes: 0, message: superseded },
      }
    }
    const written = await writeBody(opened.body, path, opts)
    return { kind: 'file', file: { ...written, path, nameFrom } }
  } finally {
    source.destroy()
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

async function writeBundle(opened: OpenedBundle, opts: RecoveryWriteOptions): Promise<RecoveredBlob> {
  const root = resolve(opts.outDir)
  const where = (path: string) => {
    const output = confinedPath(opts.outDir, path)
    return output
      ? { output, relativePath: relative(root, output).split(sep).join('/') }
      : { output: root, relativePath: path }
  }
  const results: RecoveredBundleFile[] = []
  let broken: unknown
  try {
    // Reading on to the next entry authenticates what a skipped entry left unread.
    for await (const entry of opened.entries) {
      const { path } = entry.identity
      const superseded = opts.supersededBy?.(path)
      if (superseded) {
        results.push({ status: 'superseded', path, ...where(path), bytes: 0, message: superseded })
        continue
      }
      try {
        const written = await writeBody(entry.body, path, opts)
        results.push({ ...written, path })
      } catch (error) {
        results.push({
          status: 'failed',
          path,
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
  for (const identity of opened.files.slice(results.length)) {
    results.push({
      status: 'failed',
      path: identity.path,
      ...where(identity.path),
      bytes: 0,
      ...bundleFailure(broken, opts.input),
    })
  }
  return { kind: 'bundle', createdAtMs: opened.createdAtMs, files: results }
}
