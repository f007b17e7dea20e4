// The rows the file library shows for a folder, a search and a category: one pass over the files,
// fast enough per keystroke for 50,000 of them. Plain data, apart from the store that holds it.

import type { AssetCategory } from '../../shared/api'
import type { VaultFileView } from '../../shared/ipc/vault-types'
import { compareNaturally } from '../../shared/locale-format'

export interface LibraryFilter {
  /** '' for the top; else a folder path without a trailing '/'. */
  folder: string
  search: string
  category: AssetCategory | null
}

export type LibraryRow =
  | { kind: 'folder'; path: string; name: string; files: number; sizeBytes: number }
  | { kind: 'file'; file: VaultFileView; name: string; folder: string }

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

function folderOf(path: string): string {
  const at = path.lastIndexOf('/')
  return at < 0 ? '' : path.slice(0, at)
}

/**
 * The rows for a filter: inside the folder, its subfolders (with the count and size of the files
 * below that match the category) and then its own files; with a search, every file below the folder
 * whose name holds the words, wherever it sits, shown with its folder.
 */
export function libraryRows(files: readonly VaultFileView[], filter: LibraryFilter): LibraryRow[] {
  const prefix = filter.folder ? `${filter.folder}/` : ''
  const words = filter.search.trim().normalize('NFC').toLocaleLowerCase()
  const folders = new Map<string, { files: number; sizeBytes: number }>()
  const own: LibraryRow[] = []
  for (const file of files) {
    if (prefix && !file.path.startsWith(prefix)) continue
    if (filter.category && file.category !== filter.category) continue
    const name = nameOf(file.path)
    if (words) {
      if (name.normalize('NFC').toLocaleLowerCase().includes(words)) {
        own.push({ kind: 'file', file, name, folder: folderOf(file.path) })
      }
      continue
    }
    const rest = file.path.slice(prefix.length)
    const slash = rest.indexOf('/')
    if (slash < 0) {
      own.push({ kind: 'file', file, name, folder: filter.folder })
      continue
    }
    const sub = prefix + rest.slice(0, slash)
    const counted = folders.get(sub) ?? { files: 0, sizeBytes: 0 }
    counted.files++
    counted.sizeBytes += file.sizeBytes
    folders.set(sub, counted)
  }
  const folderRows: LibraryRow[] = [...folders].map(([path, c]) => ({
    kind: 'folder',
    path,
    name: nameOf(path),
    ...c,
  }))
  return [...folderRows, ...own]
}

/** The files in the order people expect (IMG_2 before IMG_10; case aside): sorted once, when they arrive. */
export function inNaturalOrder(files: readonly VaultFileView[]): VaultFileView[] {
  return [...files].sort((a, b) => compareNaturally(a.path, b.path))
}
