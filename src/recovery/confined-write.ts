// Writing below the heir's output folder without trusting anything already on the disk or anything a
// source said: folders are made one at a time and every path component is checked with lstat (a
// symbolic link or junction anywhere below the output folder is refused, never followed); new files
// are opened with O_CREAT|O_EXCL|O_NOFOLLOW so that an existing entry, link or not, is never written
// through; temp and download names are made here, short and random or hashed, never taken from a
// transaction id, an asset id or a file name.
import { createHash, randomBytes } from 'node:crypto'
import { constants, type WriteStream } from 'node:fs'
import { type FileHandle, lstat, mkdir, open, realpath } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { AppError } from '../shared/app-error'

export { NAME_MAX_BYTES } from '../shared/portable-names'

// Not defined on Windows, where links are refused by the lstat walk instead.
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0

/** A component of the path below the output folder is a link, or a file where a folder must be. */
export class PathInTheWayError extends AppError {
  override readonly name = 'PathInTheWayError'
  constructor(
    readonly kind: 'link' | 'not-a-folder',
    /** The component, relative to the output folder, '/'-separated. */
    readonly component: string,
  ) {
    super({
      code: 'PATH_IN_THE_WAY',
      userMessage: `"${component}" in the output folder is ${kind === 'link' ? 'a link, and recovery never writes through a link' : 'a file where a folder must be'}. Choose an empty folder, or move it away, then recover again.`,
    })
  }
}

/**
 * The output folder, created if needed, as its real path: the folder the heir chose may itself be a
 * link (their choice); everything below it is checked.
 */
export async function outputRoot(outDir: string): Promise<string> {
  await mkdir(outDir, { recursive: true })
  return realpath(outDir)
}

/**
 * Makes every folder from `root` down to `folder`, one at a time, checking each component: an existing
 * link or non-folder throws PathInTheWayError. Returns the folders it created, deepest first, so that
 * a failure can remove them again.
 */
export async function makeConfinedFolders(root: string, folder: string): Promise<string[]> {
  const rel = relative(root, folder)
  if (rel === '') return []
  if (rel.startsWith('..') || rel.split(sep).includes('..')) throw new PathInTheWayError('not-a-folder', rel)
  const created: string[] = []
  let dir = root
  for (const segment of rel.split(sep)) {
    dir = join(dir, segment)
    const shown = relative(root, dir).split(sep).join('/')
    let info = await lstat(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined
      throw error
    })
    if (!info) {
      try {
        await mkdir(dir, { mode: 0o700 })
        created.unshift(dir)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      // Checked again after making it: something may have taken the name in between.
      info = await lstat(dir)
    }
    if (info.isSymbolicLink()) throw new PathInTheWayError('link', shown)
    if (!info.isDirectory()) throw new PathInTheWayError('not-a-folder', shown)
  }
  return created
}

/**
 * Opens a new file for writing (0600). Never opens an existing entry and never follows a link: an
 * entry of that name already there fails with EEXIST (or ELOOP where the platform reports a link so).
 */
export function createNewFile(path: string): Promise<FileHandle> {
  return open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, 0o600)
}

/**
 * Opens a download in progress to go on writing it (or a new one), without following a link: `append`
 * continues after its bytes, otherwise it starts empty.
 */
export async function openDownload(path: string, append: boolean): Promise<FileHandle> {
  const flags =
    constants.O_WRONLY | constants.O_CREAT | O_NOFOLLOW | (append ? constants.O_APPEND : constants.O_TRUNC)
  const info = await lstat(path).catch(() => undefined)
  if (info && !info.isFile()) throw new PathInTheWayError('link', path)
  return open(path, flags, 0o600)
}

/**
 * What a download's pipeline may hold on each side of its byte counter. With the streams' 16 KiB
 * default, every 64 KiB piece paused the response and was its own write; with room for 1 MiB, pieces
 * queue while a write is out and go as one.
 */
export const DOWNLOAD_QUEUE_BYTES = 1 << 20

/** openDownload(), as the stream a download is piped into. */
export async function downloadStream(path: string, append: boolean): Promise<WriteStream> {
  return (await openDownload(path, append)).createWriteStream({ highWaterMark: DOWNLOAD_QUEUE_BYTES })
}

/** Opens an existing file for reading, refusing a link. */
export async function openExistingFile(path: string): Promise<FileHandle> {
  return open(path, constants.O_RDONLY | O_NOFOLLOW)
}

/** A temp name made here: hidden, short (21 bytes), so that any file name the target can hold fits. */
export function localTempName(): string {
  return `.vr-${randomBytes(6).toString('hex')}.part`
}

/**
 * The local name of a download, made here from what is downloaded (a transaction or an asset of a
 * vault): the same on a re-run (so a cut-off download continues), short (24 characters, before any
 * suffix), and nothing of the source's own text in it.
 */
export function localDownloadName(kind: 'arweave' | 'service', vaultId: string, sourceId: string): string {
  const digest = createHash('sha256')
    .update(`vault-desktop/download/${kind}\u0000${vaultId}\u0000${sourceId}`)
    .digest('hex')
  return digest.slice(0, 24)
}
