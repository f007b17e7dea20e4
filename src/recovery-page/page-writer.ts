// Where the page writes recovered files. With the File System Access API (Chrome, Edge on a computer):
// into a folder the heir picks, each file streamed through createWritable(), whose bytes the browser
// keeps in a temporary file until close() (the spec's swap file), so a file is complete or absent: one
// that fails to authenticate, or has other content than the vault's list names, is aborted and its name
// removed. Elsewhere (Firefox, Safari, phones): each file gathered in a Blob, up to a stated size, and
// offered as a download.
import { type PageFileSink, PageWriteError, type PageWriter } from './page-recovery'

/** What the page uses of a FileSystemDirectoryHandle (a test may hand its own). */
export interface DirectoryHandleLike {
  readonly name: string
  getDirectoryHandle(name: string, options?: { create?: boolean }): Promise<DirectoryHandleLike>
  getFileHandle(name: string, options?: { create?: boolean }): Promise<FileHandleLike>
  removeEntry(name: string): Promise<void>
}

export interface FileHandleLike {
  createWritable(options?: { keepExistingData?: boolean }): Promise<WritableLike>
}

export interface WritableLike {
  write(data: Uint8Array): Promise<void>
  close(): Promise<void>
  abort(reason?: unknown): Promise<void>
}

/** Files larger than this are not gathered in memory for a download (stated on the page). */
export const DOWNLOAD_LIMIT_BYTES = 200_000_000

const errorName = (error: unknown) => (error as { name?: string })?.name ?? ''
const reasonOf = (error: unknown) =>
  (error as { message?: string })?.message || errorName(error) || String(error)

/** Whether this browser can write into a folder the heir picks. */
export function canWriteFolders(scope: object = globalThis): boolean {
  return typeof (scope as { showDirectoryPicker?: unknown }).showDirectoryPicker === 'function'
}

export interface WriterWords {
  tooLarge(name: string, limit: number): string
  inTheWay(name: string): string
  writeFailed(name: string, why: string): string
}

/** Writes below `root`, a folder the heir picked; never replaces what is there. */
export function folderWriter(root: DirectoryHandleLike, words: WriterWords): PageWriter {
  return {
    async create(segments) {
      const shown = segments.join('/')
      let folder = root
      // Folders this file makes, removed with it when it fails (the recovery tool does the same).
      const made: { parent: DirectoryHandleLike; name: string }[] = []
      try {
        for (const segment of segments.slice(0, -1)) {
          const parent = folder
          folder = await parent.getDirectoryHandle(segment).catch(async (error) => {
            if (errorName(error) !== 'NotFoundError') throw error
            made.push({ parent, name: segment })
            return parent.getDirectoryHandle(segment, { create: true })
          })
        }
      } catch (error) {
        // A file where a folder should be.
        if (errorName(error) === 'TypeMismatchError')
          throw new PageWriteError('exists', words.inTheWay(shown))
        throw new PageWriteError('write-failed', words.writeFailed(shown, reasonOf(error)))
      }
      const name = segments[segments.length - 1]!
      const present = await folder.getFileHandle(name).then(
        () => true,
        (error) => errorName(error) !== 'NotFoundError',
      )
      if (present) throw new PageWriteError('exists', words.inTheWay(shown))
      let writable: WritableLike
      try {
        const handle = await folder.getFileHandle(name, { create: true })
        writable = await handle.createWritable({ keepExistingData: false })
      } catch (error) {
        throw new PageWriteError('write-failed', words.writeFailed(shown, reasonOf(error)))
      }
      const parent = folder
      let finished = false
      const sink: PageFileSink = {
        async write(bytes) {
          try {
            await writable.write(bytes)
          } catch (error) {
            throw new PageWriteError('write-failed', words.writeFailed(shown, reasonOf(error)))
          }
        },
        async commit() {
          try {
            await writable.close()
          } catch (error) {
            await sink.discard()
            throw new PageWriteError('write-failed', words.writeFailed(shown, reasonOf(error)))
          }
          finished = true
          return {}
        },
        async discard() {
          if (finished) return
          finished = true
          await writable.abort().catch(() => {})
          await parent.removeEntry(name).catch(() => {})
          for (const folder of made.reverse()) await folder.parent.removeEntry(folder.name).catch(() => {})
        },
      }
      return sink
    },
  }
}

/** Gathers each file in a Blob (up to `limit` bytes) and hands back a URL to download it under its name. */
export function downloadWriter(words: WriterWords, limit = DOWNLOAD_LIMIT_BYTES): PageWriter {
  return {
    async create(segments, size) {
      const shown = segments.join('/')
      if (size > limit) throw new PageWriteError('too-large', words.tooLarge(shown, limit))
      // A piece may be reused once the next is read: copied into the Blob's parts.
      let parts: Blob[] = []
      return {
        async write(bytes) {
          parts.push(new Blob([bytes.slice()]))
        },
        async commit() {
          const blob = new Blob(parts, { type: 'application/octet-stream' })
          parts = []
          // A download has no folders: the folders go into the name.
          return { download: { url: URL.createObjectURL(blob), name: segments.join(' - ') } }
        },
        async discard() {
          parts = []
        },
      }
    },
  }
}
