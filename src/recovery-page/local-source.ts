// The encrypted files on this device, as the heir chose them: files (<input type=file multiple>), a
// folder (<input webkitdirectory>, e.g. the encrypted export's folder with encrypted-files/*.vault) or
// both dropped on the page. Only files ending in .vault are considered; their names serve the report
// and, for the old blobs that carry no path of their own, the name to save under (as the recovery tool
// does); every other name comes from inside the authenticated blobs.
import { compareCodePoints, ENCRYPTED_FILE_SUFFIX } from '../vault-format'
import type { PageBlob, PageSource } from './page-source'

/** What the page needs of a File (a browser File, or a test's stand-in). */
export interface LocalFile {
  name: string
  size: number
  lastModified?: number
  /** Its path inside a chosen or dropped folder ("export/encrypted-files/a.vault"), else "". */
  webkitRelativePath?: string
  stream(): ReadableStream<Uint8Array>
}

/** A file's name as the heir chose it: its path inside the chosen folder, else its name. */
export function localLabel(file: LocalFile): string {
  return file.webkitRelativePath || file.name
}

/**
 * The .vault files among those chosen (each once: the same file chosen twice, by the same path and
 * size, counts once), in the order of their names, as the recovery tool walks a folder.
 */
export function vaultFiles(files: readonly LocalFile[]): LocalFile[] {
  const seen = new Map<string, LocalFile>()
  for (const file of files) {
    if (!file.name.endsWith(ENCRYPTED_FILE_SUFFIX) || file.name.length === ENCRYPTED_FILE_SUFFIX.length)
      continue
    seen.set(`${localLabel(file)}\u0000${file.size}`, file)
  }
  return [...seen.values()].sort((a, b) => walkOrder(localLabel(a), localLabel(b)))
}

/**
 * The order the recovery tool walks a folder in (FORMAT.md 3.11: among undated copies the first given
 * wins): each folder's names in byte order, a subfolder's files where its name falls.
 */
function walkOrder(a: string, b: string): number {
  const x = a.split('/')
  const y = b.split('/')
  for (let i = 0; i < x.length && i < y.length; i++) {
    const order = compareCodePoints(x[i]!, y[i]!)
    if (order !== 0) return order
  }
  return x.length - y.length
}

/** A source over files chosen or dropped on this device. */
export function localSource(files: readonly LocalFile[], describe: (count: number) => string): PageSource {
  const chosen = vaultFiles(files)
  return {
    describe: () => describe(chosen.length),
    list: async () =>
      chosen.map(
        (file): PageBlob => ({
          label: localLabel(file),
          size: file.size,
          // A file's modification time on this device says nothing about when the owner wrote it.
          open: async (signal) => {
            if (signal?.aborted) throw signal.reason
            return file.stream()
          },
        }),
      ),
  }
}

/** Every file in what was dropped on the page, folders read through (webkitGetAsEntry). */
export async function droppedFiles(items: ArrayLike<object>): Promise<LocalFile[]> {
  type Entry = {
    isFile: boolean
    isDirectory: boolean
    name: string
    fullPath: string
    file?: (ok: (file: File) => void, fail: (error: unknown) => void) => void
    createReader?: () => { readEntries(ok: (entries: Entry[]) => void, fail: (error: unknown) => void): void }
  }
  const entries: Entry[] = []
  const out: LocalFile[] = []
  for (const item of Array.from(items)) {
    const dropped = item as {
      kind?: string
      webkitGetAsEntry?: () => Entry | null
      getAsFile?: () => File | null
    }
    if (dropped.kind !== undefined && dropped.kind !== 'file') continue
    const entry = dropped.webkitGetAsEntry?.()
    if (entry) {
      entries.push(entry)
      continue
    }
    // A browser without the entries API (or a drop made by a script): the file itself, no folders.
    const file = dropped.getAsFile?.()
    if (file)
      out.push({
        name: file.name,
        size: file.size,
        lastModified: file.lastModified,
        stream: () => file.stream() as ReadableStream<Uint8Array>,
      })
  }
  const visit = async (entry: Entry): Promise<void> => {
    if (entry.isFile && entry.file) {
      const file = await new Promise<File>((ok, fail) => entry.file!(ok, fail))
      const path = entry.fullPath.replace(/^\//, '')
      out.push({
        name: file.name,
        size: file.size,
        lastModified: file.lastModified,
        webkitRelativePath: path.includes('/') ? path : '',
        stream: () => file.stream() as ReadableStream<Uint8Array>,
      })
      return
    }
    if (entry.isDirectory && entry.createReader) {
      const reader = entry.createReader()
      // readEntries gives a folder's entries in batches until an empty one.
      for (;;) {
        const batch = await new Promise<Entry[]>((ok, fail) => reader.readEntries(ok, fail))
        if (batch.length === 0) break
        for (const child of batch) await visit(child)
      }
    }
  }
  for (const entry of entries) await visit(entry)
  return out
}
