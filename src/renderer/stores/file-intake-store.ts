// Browser mode: files handed over by the page (a drop, or the Choose buttons) stream to the backend,
// then go through the same upload flow as paths. One intake at a time; the owner can cancel it.
import { create } from 'zustand'
import { AppError } from '../../shared/app-error'
import {
  collectDroppedFiles,
  droppedEntries,
  sendDroppedFiles,
  type TransferProgress,
} from '../bridge/drop-transfer'
import { fileIntake } from '../bridge/vault-client'
import { text } from '../text'
import { showNotice } from './notices-store'
import { useUploadFlowStore } from './upload-flow-store'

type Entries = ReturnType<typeof droppedEntries>

/** How a drop is going: its counts, and its pace once a second of it has been measured. */
export interface Receiving extends TransferProgress {
  bytesPerSecond: number | null
  etaSeconds: number | null
}

/** The pace since the drop began: steadier than the last chunk's, and good enough for "about … left". */
export function paceOf(
  progress: TransferProgress,
  elapsedMs: number,
): Pick<Receiving, 'bytesPerSecond' | 'etaSeconds'> {
  if (elapsedMs < 1000 || progress.sentBytes === 0) return { bytesPerSecond: null, etaSeconds: null }
  const bytesPerSecond = (progress.sentBytes * 1000) / elapsedMs
  return {
    bytesPerSecond,
    etaSeconds: Math.ceil((progress.totalBytes - progress.sentBytes) / bytesPerSecond),
  }
}

interface FileIntakeState {
  /** Bytes on their way to the backend; undefined when nothing is being received. */
  receiving: Receiving | undefined
  receive(vaultId: string, entries: Entries): Promise<void>
  /** A drop on the window: its entries are taken now (only valid inside the event), read later. */
  receiveDrop(vaultId: string, dataTransfer: DataTransfer): Promise<void>
  cancel(): void
}

/** Resolves once the owner has confirmed or declined the upload the intake started. */
function uploadDecided(): Promise<void> {
  const decided = () => {
    const s = useUploadFlowStore.getState()
    // A question set aside for Add credits is not decided: the dropped files are kept for it.
    return !s.pending && !s.parked && !s.busy
  }
  if (decided()) return Promise.resolve()
  return new Promise((resolve) => {
    const stop = useUploadFlowStore.subscribe(() => {
      if (!decided()) return
      stop()
      resolve()
    })
  })
}

function failureText(error: unknown): string {
  if (error instanceof AppError) return text.drop.failed(error.userMessage)
  if (error instanceof DOMException && error.name === 'NotReadableError') return text.drop.readFailed
  return text.drop.failed(error instanceof Error ? error.message : String(error))
}

let controller: AbortController | undefined

export const useFileIntakeStore = create<FileIntakeState>((set, get) => ({
  receiving: undefined,
  receive: async (vaultId, entries) => {
    const intake = fileIntake()
    if (!intake) {
      showNotice({ kind: 'error', body: text.drop.noBackend })
      return
    }
    controller?.abort()
    const mine = new AbortController()
    controller = mine
    try {
      const files = await collectDroppedFiles(entries)
      if (files.length === 0) {
        showNotice({ kind: 'info', body: text.drop.nothingDropped })
        return
      }
      const totalBytes = files.reduce((sum, f) => sum + f.file.size, 0)
      const began = performance.now()
      set({
        receiving: {
          sentBytes: 0,
          totalBytes,
          sentFiles: 0,
          totalFiles: files.length,
          bytesPerSecond: null,
          etaSeconds: null,
        },
      })
      const { dropId, paths } = await sendDroppedFiles(intake, files, {
        onProgress: (progress) =>
          set({ receiving: { ...progress, ...paceOf(progress, performance.now() - began) } }),
        signal: mine.signal,
      })
      set({ receiving: undefined })
      await useUploadFlowStore.getState().start(vaultId, paths)
      await uploadDecided()
      // Keeps only what the queue will read; the rest of the drop is deleted now.
      await intake.request('release', { dropId })
    } catch (error) {
      if (mine.signal.aborted) showNotice({ kind: 'info', body: text.drop.cancelled })
      else showNotice({ kind: 'error', body: failureText(error) })
    } finally {
      if (controller === mine) {
        controller = undefined
        set({ receiving: undefined })
      }
    }
  },
  receiveDrop: (vaultId, dataTransfer) => get().receive(vaultId, droppedEntries(dataTransfer)),
  cancel: () => controller?.abort(),
}))
