// Browser mode: what was dropped (files and whole folders), read a chunk at a time and streamed to
// the backend, never more than a few chunks ahead of what it has written (memory stays flat).
import { AppError } from '../../shared/app-error'
import type { IntakeTransport } from './ws-transport'

export interface DroppedFile {
  file: File
  /** '/'-separated, starting with the dropped folder's name for files inside a folder. */
  relativePath: string
}

export interface TransferProgress {
  sentBytes: number
  totalBytes: number
  sentFiles: number
  totalFiles: number
}

const CHUNK_BYTES = 512 * 1024
/** Chunks sent but not yet written by the backend. */
const WINDOW_CHUNKS = 8

/** Must run inside the drop event: the browser forgets the entries once it returns. */
export function droppedEntries(data: DataTransfer): Array<FileSystemEntry | File> {
  const entries: Array<FileSystemEntry | File> = []
  const items = Array.from(data.items ?? []).filter((item) => item.kind === 'file')
  for (const item of items) {
    const entry = item.webkitGetAsEntry?.()
    const file = item.getAsFile()
    if (entry) entries.push(entry)
    else if (file) entries.push(file)
  }
  // Synthetic drops (and some browsers) carry files without entries.
  if (entries.length === 0) entries.push(...Array.from(data.files ?? []))
  return entries
}

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject))
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject))
}

/** Walks dropped folders (readEntries answers in batches until it returns none). */
export async function collectDroppedFiles(entries: Array<FileSystemEntry | File>): Promise<DroppedFile[]> {
  const out: DroppedFile[] = []
  const visit = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name
    if (entry.isFile) {
      out.push({ file: await fileOf(entry as FileSystemFileEntry), relativePath: path })
    } else if (entry.isDirectory) {
      const reader = (entry as FileSystemDirectoryEntry).createReader()
      for (let batch = await readEntries(reader); batch.length > 0; batch = await readEntries(reader)) {
        for (const child of batch) await visit(child, path)
      }
    }
  }
  for (const entry of entries) {
    if (entry instanceof File) {
      out.push({ file: entry, relativePath: entry.webkitRelativePath || entry.name })
    } else {
      await visit(entry, '')
    }
  }
  return out
}

async function step<T>(transport: IntakeTransport, op: string, fields?: Record<string, unknown>): Promise<T> {
  const response = await transport.request(op, fields)
  if (!response.ok) throw AppError.fromData(response.error)
  return response.value as T
}

/**
 * Streams the files into one drop and returns the paths to back up. On failure or cancel the drop
 * is removed on the backend. `signal` cancels.
 */
export async function sendDroppedFiles(
  transport: IntakeTransport,
  files: readonly DroppedFile[],
  options: { onProgress?: (progress: TransferProgress) => void; signal?: AbortSignal } = {},
): Promise<{ dropId: string; paths: string[] }> {
  const progress: TransferProgress = {
    sentBytes: 0,
    totalBytes: files.reduce((sum, f) => sum + f.file.size, 0),
    sentFiles: 0,
    totalFiles: files.length,
  }
  const { dropId } = await step<{ dropId: string }>(transport, 'begin')
  try {
    for (const { file, relativePath } of files) {
      options.signal?.throwIfAborted()
      const { fileId } = await step<{ fileId: number }>(transport, 'file', {
        dropId,
        relativePath,
        size: file.size,
        lastModified: file.lastModified,
      })
      await sendFile(
        transport,
        fileId,
        file,
        (delta) => {
          progress.sentBytes += delta
          options.onProgress?.({ ...progress })
        },
        options.signal,
      )
      await step(transport, 'close-file', { fileId })
      progress.sentFiles++
      options.onProgress?.({ ...progress })
    }
    const { paths } = await step<{ paths: string[] }>(transport, 'end', { dropId })
    return { dropId, paths }
  } catch (error) {
    await transport.request('abort', { dropId })
    throw error
  }
}

async function sendFile(
  transport: IntakeTransport,
  fileId: number,
  file: File,
  onWritten: (bytes: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  let written = 0
  let failure: string | undefined
  let wake: (() => void) | undefined
  const stop = transport.onAck(fileId, (ack) => {
    if (ack.error !== undefined) failure = ack.error
    else if (ack.received !== undefined) {
      onWritten(ack.received - written)
      written = ack.received
    }
    wake?.()
  })
  const onAbort = () => wake?.()
  signal?.addEventListener('abort', onAbort)
  const waitUntil = async (ready: () => boolean) => {
    while (!ready() && failure === undefined && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        wake = resolve
      })
    }
    if (failure !== undefined) throw new AppError({ code: 'DROP_FAILED', userMessage: failure })
    signal?.throwIfAborted()
  }
  try {
    let sent = 0
    while (sent < file.size) {
      await waitUntil(() => sent - written < WINDOW_CHUNKS * CHUNK_BYTES)
      const bytes = new Uint8Array(await file.slice(sent, sent + CHUNK_BYTES).arrayBuffer())
      if (bytes.byteLength === 0) {
        throw new AppError({
          code: 'DROP_FAILED',
          userMessage: `${file.name} could not be read to the end. Drop it again.`,
        })
      }
      transport.sendChunk(fileId, bytes)
      sent += bytes.byteLength
    }
    await waitUntil(() => written >= file.size)
  } finally {
    stop()
    signal?.removeEventListener('abort', onAbort)
  }
}
