// The owner's file library of one vault: the list of files the main process builds (files:list), the
// folder shown, the name searched and the category chosen; `libraryRows` turns them into the rows
// the list shows (a pass over the files, fast enough per keystroke for 50,000 of them).
import { create } from 'zustand'
import type { AssetCategory } from '../../shared/api'
import type { VaultFileList, VaultFileView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'

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

export interface FileLibraryState {
  vaultId: string | null
  list: VaultFileList | undefined
  loading: boolean
  error: unknown
  filter: LibraryFilter
  load(vaultId: string): Promise<void>
  openFolder(folder: string): void
  setSearch(search: string): void
  setCategory(category: AssetCategory | null): void
}

const NO_FILTER: LibraryFilter = { folder: '', search: '', category: null }

export const useFileLibraryStore = create<FileLibraryState>((set, get) => ({
  vaultId: null,
  list: undefined,
  loading: false,
  error: undefined,
  filter: NO_FILTER,
  load: async (vaultId) => {
    // Another vault starts at its top with no filter; the same vault keeps where the owner was.
    if (get().vaultId !== vaultId) set({ vaultId, list: undefined, filter: NO_FILTER })
    set({ loading: true, error: undefined })
    try {
      const list = await vault().listVaultFiles({ vaultId })
      if (get().vaultId === vaultId) set({ list })
    } catch (error) {
      if (get().vaultId === vaultId) set({ error })
    } finally {
      if (get().vaultId === vaultId) set({ loading: false })
    }
  },
  openFolder: (folder) => set({ filter: { ...get().filter, folder } }),
  setSearch: (search) => set({ filter: { ...get().filter, search } }),
  setCategory: (category) => set({ filter: { ...get().filter, category } }),
}))
