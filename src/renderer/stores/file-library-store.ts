// The owner's file library of one vault: the list of files the main process builds (files:list), the
// folder shown, the name searched and the category chosen (library-rows.ts turns them into rows).
import { create } from 'zustand'
import type { AssetCategory } from '../../shared/api'
import type { VaultFileList } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { inNaturalOrder, type LibraryFilter } from './library-rows'

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
      if (get().vaultId === vaultId) set({ list: { ...list, files: inNaturalOrder(list.files) } })
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
