// What the owner does with files in the library: save them decrypted into a folder (with progress,
// cancel and resume), open one, delete some. The bridge calls live here; the dialogs only show.
import { create } from 'zustand'
import type {
  FileRemovalPlan,
  FileRemovalReport,
  FileSaveProgress,
  FileSaveReport,
  LibrarySelection,
} from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { useFileLibraryStore } from './file-library-store'

/** What a dialog is about: the selection, and how to name it to the owner. */
export interface ChosenFiles {
  vaultId: string
  selection: LibrarySelection
  /** A file's or folder's name ('' for the whole vault). */
  name: string
  kind: 'file' | 'folder' | 'vault'
  files: number
  bytes: number
}

export interface FileSaveState {
  chosen: ChosenFiles
  folder: string
  saveId?: string
  running: boolean
  progress?: FileSaveProgress
  report?: FileSaveReport
  error?: unknown
}

export interface FileRemovalState {
  chosen: ChosenFiles
  plan?: FileRemovalPlan
  running: boolean
  report?: FileRemovalReport
  error?: unknown
}

export interface FileActionsState {
  save: FileSaveState | null
  /** The folder the last save went to: offered again (saving into it again resumes or checks). */
  lastFolder: string
  removal: FileRemovalState | null
  /** The file being decrypted to open, and what went wrong last time. */
  opening: { vaultId: string; path: string } | null
  openError: { path: string; error: unknown } | null
  /** The last file opened: its name and how (for the line under the list). */
  opened: { name: string; how: 'default-app' | 'download' } | null

  beginSave(chosen: ChosenFiles): void
  setSaveFolder(folder: string): void
  pickSaveFolder(): Promise<void>
  /** Starts the save, or saves again into the same folder after a stop (files there are kept). */
  startSave(): Promise<void>
  cancelSave(): Promise<void>
  closeSave(): void

  open(vaultId: string, path: string): Promise<void>

  beginRemoval(chosen: ChosenFiles): Promise<void>
  confirmRemoval(): Promise<void>
  closeRemoval(): void
}

let saves = 0
/** Progress events are listened to from the first save on, for the window's life. */
let listening = false

/** Hands a file the backend offers to the browser's own downloads. */
function download(url: string, name: string): void {
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.rel = 'noopener'
  document.body.append(link)
  link.click()
  link.remove()
}

export const useFileActionsStore = create<FileActionsState>((set, get) => ({
  save: null,
  lastFolder: '',
  removal: null,
  opening: null,
  openError: null,
  opened: null,

  beginSave: (chosen) => set({ save: { chosen, folder: get().lastFolder, running: false } }),
  setSaveFolder: (folder) => {
    const save = get().save
    if (save && !save.running) set({ save: { ...save, folder, report: undefined, error: undefined } })
  },
  pickSaveFolder: async () => {
    try {
      const [chosen] = await vault().pickPaths({ kind: 'output-folder' })
      if (chosen) get().setSaveFolder(chosen)
    } catch (error) {
      const save = get().save
      if (save) set({ save: { ...save, error } })
    }
  },
  startSave: async () => {
    const save = get().save
    if (!save || save.running || !save.folder.trim()) return
    const saveId = `save-${Date.now()}-${++saves}`
    set({ lastFolder: save.folder.trim() })
    set({
      save: { ...save, saveId, running: true, progress: undefined, report: undefined, error: undefined },
    })
    if (!listening) {
      listening = true
      vault().on.fileSaveProgress((progress) => {
        const now = get().save
        if (now && now.saveId === progress.saveId) set({ save: { ...now, progress } })
      })
    }
    try {
      const report = await vault().saveVaultFiles({
        vaultId: save.chosen.vaultId,
        selection: save.chosen.selection,
        folder: save.folder.trim(),
        saveId,
      })
      const now = get().save
      if (now?.saveId === saveId) set({ save: { ...now, running: false, report } })
    } catch (error) {
      const now = get().save
      if (now?.saveId === saveId) set({ save: { ...now, running: false, error } })
    }
  },
  cancelSave: async () => {
    const saveId = get().save?.saveId
    if (saveId) await vault().cancelFileSave({ saveId })
  },
  closeSave: () => {
    if (!get().save?.running) set({ save: null })
  },

  open: async (vaultId, path) => {
    if (get().opening) return
    set({ opening: { vaultId, path }, openError: null })
    try {
      const result = await vault().openVaultFile({ vaultId, path })
      if (result.opened === 'download') download(result.url, result.name)
      set({ opened: { name: result.name, how: result.opened } })
    } catch (error) {
      set({ openError: { path, error } })
    } finally {
      set({ opening: null })
    }
  },

  beginRemoval: async (chosen) => {
    set({ removal: { chosen, running: true } })
    try {
      const plan = await vault().planFileRemoval({ vaultId: chosen.vaultId, selection: chosen.selection })
      const now = get().removal
      if (now?.chosen === chosen) set({ removal: { ...now, plan, running: false } })
    } catch (error) {
      const now = get().removal
      if (now?.chosen === chosen) set({ removal: { ...now, running: false, error } })
    }
  },
  confirmRemoval: async () => {
    const removal = get().removal
    if (!removal?.plan || removal.running) return
    set({ removal: { ...removal, running: true, error: undefined } })
    try {
      const report = await vault().removeVaultFiles({
        vaultId: removal.chosen.vaultId,
        selection: removal.chosen.selection,
      })
      set({ removal: { ...removal, running: false, report } })
      // The library shows the vault as it is now; the folder shown may have gone with its files.
      const library = useFileLibraryStore.getState()
      const folder = library.filter.folder
      if (
        removal.chosen.kind !== 'file' &&
        (folder === removal.chosen.selection.folders[0] ||
          folder.startsWith(`${removal.chosen.selection.folders[0]}/`))
      )
        library.openFolder(parentOf(removal.chosen.selection.folders[0] ?? ''))
      await library.load(removal.chosen.vaultId)
    } catch (error) {
      set({ removal: { ...removal, running: false, error } })
    }
  },
  closeRemoval: () => {
    if (!get().removal?.running) set({ removal: null })
  },
}))

function parentOf(path: string): string {
  const at = path.lastIndexOf('/')
  return at < 0 ? '' : path.slice(0, at)
}
