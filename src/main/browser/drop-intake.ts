// Browser mode: files dropped on the page arrive as bytes, not paths. They are written, a chunk at a
// time, into a private folder of the user-data directory (0700, files 0600) and then go through the
// same estimate, queue and encryption as any other path. A dropped file is deleted as soon as its
// upload is done, when the owner declines the upload, and at start for anything no upload needs.
import { randomUUID } from 'node:crypto'
import { type FileHandle, mkdir, open, readdir, rm, rmdir, utimes } from 'node:fs/promises'
import { dirname, join, relative, sep } from 'node:path'
import { AppError } from '../../shared/app-error'
import { releaseReceived } from './received-buffers'

/** Names a browser can hand over; what the queue cannot seal is refused later, with its own reason. */
const MAX_SEGMENT_BYTES = 255
const MAX_PATH_CHARS = 4096
export const DEFAULT_MAX_FILES_PER_DROP = 10_000

/** A drop that cannot be taken: the sentence says which file and what to do. */
export class DropIntakeError extends AppError {
  override readonly name = 'DropIntakeError'
  constructor(userMessage: string) {
    super({ code: 'DROP_FAILED', userMessage })
  }
}

interface IncomingFile {
  dropId: string
  path: string
  size: number
  lastModified: number
  received: number
  /** Of those, written to disk: what the page's window of unacknowledged chunks counts against. */
  written: number
  handle: FileHandle
  /** Writes run one after another, in the order the chunks arrived. */
  writing: Promise<unknown>
}

interface Drop {
  dir: string
  paths: Set<string>
  roots: Set<string>
  ended: boolean
}

/** '/'-separated, relative, no '.' or '..' segments, no control characters. */
export function checkDroppedPath(relativePath: string): string[] {
  const segments = relativePath.split('/')
  const bad =
    relativePath.length === 0 ||
    relativePath.length > MAX_PATH_CHARS ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
    /[\u0000-\u001f\u007f\\]/.test(relativePath) ||
    segments.some((s) => s === '' || s === '.' || s === '..' || Buffer.byteLength(s) > MAX_SEGMENT_BYTES)
  if (bad) {
    throw new DropIntakeError(
      `"${relativePath.slice(0, 200)}" cannot be taken from the drop: the name is empty, too long or not a plain file name. Rename it, then drop it again.`,
    )
  }
  return segments
}

export class DropIntake {
  readonly root: string
  readonly #maxFiles: number
  readonly #drops = new Map<string, Drop>()
  readonly #files = new Map<number, IncomingFile>()
  #nextFileId = 1

  constructor(root: string, options: { maxFilesPerDrop?: number } = {}) {
    this.root = root
    this.#maxFiles = options.maxFilesPerDrop ?? DEFAULT_MAX_FILES_PER_DROP
  }

  /** Whether a path lies in the intake folder (a dropped file, not one of the owner's own). */
  owns(path: string): boolean {
    const rel = relative(this.root, path)
    return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep)
  }

  async begin(): Promise<string> {
    await mkdir(this.root, { recursive: true, mode: 0o700 })
    const dropId = randomUUID()
    const dir = join(this.root, dropId)
    await mkdir(dir, { mode: 0o700 })
    this.#drops.set(dropId, { dir, paths: new Set(), roots: new Set(), ended: false })
    return dropId
  }

  async openFile(dropId: string, relativePath: string, size: number, lastModified: number): Promise<number> {
    const drop = this.#openDrop(dropId)
    if (!Number.isSafeInteger(size) || size < 0)
      throw new DropIntakeError('The dropped file has no valid size.')
    const segments = checkDroppedPath(relativePath)
    if (drop.paths.size >= this.#maxFiles) {
      throw new DropIntakeError(
        `A drop can hold at most ${this.#maxFiles.toLocaleString('en-US')} files. Drop the folder in parts.`,
      )
    }
    const path = join(drop.dir, ...segments)
    if (drop.paths.has(path)) {
      throw new DropIntakeError(`"${relativePath}" is in the drop twice. Drop it once.`)
    }
    await mkdir(dirname(path), { recursive: true, mode: 0o700 })
    const handle = await open(path, 'wx', 0o600).catch((error: NodeJS.ErrnoException) => {
      throw new DropIntakeError(
        `"${relativePath}" could not be received (${error.code ?? 'error'}): a file and a folder of the same name? Drop them separately.`,
      )
    })
    drop.paths.add(path)
    drop.roots.add(join(drop.dir, segments[0]!))
    const fileId = this.#nextFileId++
    this.#files.set(fileId, {
      dropId,
      path,
      size,
      lastModified: Number.isFinite(lastModified) ? lastModified : Date.now(),
      received: 0,
      written: 0,
      handle,
      writing: Promise.resolve(),
    })
    return fileId
  }

  /** Appends the next chunk; resolves with the bytes of the file written so far, this chunk's included. */
  write(fileId: number, bytes: Uint8Array): Promise<number> {
    const file = this.#files.get(fileId)
    if (!file) return Promise.reject(new DropIntakeError('That dropped file is no longer being received.'))
    if (file.received + bytes.byteLength > file.size) {
      return Promise.reject(new DropIntakeError('The dropped file sent more bytes than its size.'))
    }
    file.received += bytes.byteLength
    const written = file.writing.then(async () => {
      let offset = 0
      while (offset < bytes.byteLength) {
        const { bytesWritten } = await file.handle.write(bytes, offset, bytes.byteLength - offset)
        offset += bytesWritten
      }
    })
    file.writing = written.catch(() => undefined)
    return written.then(
      () => {
        // The page sends more only as bytes are written: answer with those, never with what is queued.
        file.written += bytes.byteLength
        releaseReceived(bytes.byteLength)
        return file.written
      },
      (error: NodeJS.ErrnoException) => {
        throw new DropIntakeError(
          error.code === 'ENOSPC'
            ? 'The disk is full: the dropped files could not be kept for encryption. Free some space, then drop them again.'
            : `A dropped file could not be written (${error.code ?? 'error'}). Drop it again.`,
        )
      },
    )
  }

  async closeFile(fileId: number): Promise<void> {
    const file = this.#files.get(fileId)
    if (!file) throw new DropIntakeError('That dropped file is no longer being received.')
    this.#files.delete(fileId)
    await file.writing
    await file.handle.close()
    if (file.received !== file.size) {
      throw new DropIntakeError(
        `Only ${file.received} of ${file.size} bytes of a dropped file arrived. Drop it again.`,
      )
    }
    // The original time, so the backup records when the owner last changed the file.
    const seconds = file.lastModified / 1000
    await utimes(file.path, seconds, seconds)
  }

  /** The drop is complete: the top-level files and folders to back up. */
  end(dropId: string): string[] {
    const drop = this.#openDrop(dropId)
    if ([...this.#files.values()].some((f) => f.dropId === dropId)) {
      throw new DropIntakeError('Some dropped files have not finished arriving. Drop them again.')
    }
    if (drop.paths.size === 0)
      throw new DropIntakeError('The drop held no files (empty folders are not backed up).')
    drop.ended = true
    return [...drop.roots]
  }

  /** Stops a drop and removes everything it wrote. */
  async abort(dropId: string): Promise<void> {
    const drop = this.#drops.get(dropId)
    if (!drop) return
    this.#drops.delete(dropId)
    await this.#closeFilesOf(dropId)
    await rm(drop.dir, { recursive: true, force: true })
  }

  /** After the owner's decision: keeps only the drop's files that an upload still needs. */
  async release(dropId: string, needed: ReadonlySet<string>): Promise<void> {
    const drop = this.#drops.get(dropId)
    if (!drop) return
    await this.#closeFilesOf(dropId)
    for (const path of drop.paths) {
      if (!needed.has(path)) await this.remove(path)
    }
    this.#drops.delete(dropId)
  }

  /** Removes one dropped file and the folders it leaves empty. */
  async remove(path: string): Promise<void> {
    if (!this.owns(path)) return
    await rm(path, { force: true })
    let dir = dirname(path)
    while (this.owns(dir)) {
      try {
        await rmdir(dir)
      } catch {
        break // not empty, or already gone
      }
      dir = dirname(dir)
    }
  }

  /** At start: removes every dropped file no upload needs (left by a crash or a closed page). */
  async sweep(needed: ReadonlySet<string>): Promise<number> {
    let removed = 0
    const visit = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
      for (const entry of entries) {
        const path = join(dir, entry.name)
        if (entry.isDirectory()) await visit(path)
        else if (!needed.has(path)) {
          await this.remove(path)
          removed++
        }
      }
      if (dir !== this.root) await rmdir(dir).catch(() => undefined)
    }
    await visit(this.root)
    return removed
  }

  /** Files of the drop still arriving: closed (their partial bytes are removed by the caller). */
  async #closeFilesOf(dropId: string): Promise<void> {
    for (const [fileId, file] of this.#files) {
      if (file.dropId !== dropId) continue
      this.#files.delete(fileId)
      await file.writing
      await file.handle.close().catch(() => undefined)
    }
  }

  #openDrop(dropId: string): Drop {
    const drop = this.#drops.get(dropId)
    if (!drop || drop.ended) throw new DropIntakeError('That drop is over. Drop the files again.')
    return drop
  }
}

/** Upload states after which the queue never reads the file again. */
const SENT_STATES = new Set(['done', 'skipped'])

interface QueueItem {
  path: string
  state: string
}

/**
 * Ties the intake to the upload queue: a dropped file goes once its upload is done (or skipped);
 * failed and cancelled ones stay for a retry until the owner clears them.
 */
export function keepDroppedFilesFor(
  intake: DropIntake,
  queue: { list(): QueueItem[] },
  onItem: (listener: (item: QueueItem) => void) => void,
) {
  const needed = () =>
    new Set(
      queue
        .list()
        .filter((item) => intake.owns(item.path) && !SENT_STATES.has(item.state))
        .map((item) => item.path),
    )
  onItem((item) => {
    if (SENT_STATES.has(item.state) && intake.owns(item.path)) void intake.remove(item.path)
  })
  return { intake, needed, sweep: () => intake.sweep(needed()) }
}
