// Decrypting encrypted files (or folders of them) into an output folder, for the app and the command
// line alike. Each file is handled on its own: a damaged file does not stop the others; writing (names,
// no overwrite, nothing partial) is recovery-writer.ts's. Bundles are unpacked, one result per file
// inside; when a path comes in several copies, the newest wins (recovery-plan.ts).
import { mkdir, readdir, stat } from 'node:fs/promises'
import { basename, dirname, join, relative, sep } from 'node:path'
import type { AeadBackendName } from '../node-cipher/cipher-choice'
import { plaintextLength } from '../vault-format/chunked-format'
import { ENCRYPTED_FILE_SUFFIX } from '../vault-format/file-context'
import { FileCipherError, type FileCipherErrorReason } from '../vault-format/format-errors'
import { OutputNames } from './portable-names'
import { type BlobSummary, describeCopy, newestFirst, RecoveredPaths, summarizeBlob } from './recovery-plan'
import {
  type RecoveredBlob,
  RecoveryWriteError,
  type RecoveryWriteFailure,
  writeRecoveredBlob,
} from './recovery-writer'

export interface RecoverFilesOptions {
  vaultKey: Uint8Array
  vaultId: string
  /** Encrypted files, or folders searched (recursively) for files ending in ".vault". */
  inputs: string[]
  outDir: string
  onProgress?: (progress: RecoveryProgress) => void
  backend?: AeadBackendName
  /**
   * When an input was stored (ms), if the caller knows (e.g. its Arweave block): dates a single-file
   * blob, which carries no date inside; a bundle's own date wins.
   */
  uploadedAtMs?: (input: string) => number | undefined
}

export interface RecoveryProgress {
  input: string
  fileNumber: number
  fileCount: number
  bytesDone: number
  bytesTotal: number
  /** Over all files of the run. */
  allBytesDone: number
  allBytesTotal: number
}

/**
 * recovered: written now; kept: an identical file was already there; superseded: an older copy of a
 * file whose newer copy this run recovered (not a failure); skipped: a different file is in the way;
 * failed: nothing written.
 */
export type FileRecoveryStatus = 'recovered' | 'kept' | 'superseded' | 'failed' | 'skipped'

export interface FileRecoveryResult {
  /** The encrypted file (for a file inside a bundle: the bundle). */
  input: string
  /** For a file inside a bundle: its path as recorded in the bundle. */
  entry?: string
  /** Where the plaintext was (or would have been) written. */
  output: string
  status: FileRecoveryStatus
  /** Plaintext bytes written, for recovered files. */
  bytes?: number
  /** FileCipherError reasons, RecoveryWriteError reasons, or 'unreadable'. */
  reason?: FileCipherErrorReason | RecoveryWriteFailure | 'unreadable'
  message?: string
  /** Where a bundle was damaged, in the decryptor's words. */
  detail?: string
}

interface Job {
  input: string
  size: number
  /** Output path relative to outDir. */
  target: string
  summary?: BlobSummary
}

/** "<name>.vault" -> "<name>"; anything else keeps its name plus ".decrypted". */
export function plaintextName(encryptedName: string): string {
  return encryptedName.endsWith(ENCRYPTED_FILE_SUFFIX) && encryptedName.length > ENCRYPTED_FILE_SUFFIX.length
    ? encryptedName.slice(0, -ENCRYPTED_FILE_SUFFIX.length)
    : `${encryptedName}.decrypted`
}

async function* walk(dir: string): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true })
  entries.sort((a, b) => a.name.localeCompare(b.name))
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* walk(path)
    else if (entry.isFile() && entry.name.endsWith(ENCRYPTED_FILE_SUFFIX)) yield path
  }
}

async function collectJobs(inputs: string[], results: FileRecoveryResult[]): Promise<Job[]> {
  const jobs: Job[] = []
  for (const input of inputs) {
    let info: Awaited<ReturnType<typeof stat>>
    try {
      info = await stat(input)
    } catch (error) {
      results.push({
        input,
        output: '',
        status: 'failed',
        reason: 'unreadable',
        message: `Cannot open '${input}': ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}. Check the path.`,
      })
      continue
    }
    if (info.isDirectory()) {
      for await (const file of walk(input)) {
        const rel = relative(input, file)
        const size = (await stat(file)).size
        jobs.push({ input: file, size, target: join(dirname(rel), plaintextName(basename(rel))) })
      }
    } else {
      jobs.push({ input, size: info.size, target: plaintextName(basename(input)) })
    }
  }
  return jobs
}

function readFailure(input: string, error: unknown): Pick<FileRecoveryResult, 'reason' | 'message'> {
  if (error instanceof FileCipherError) return { reason: error.reason, message: error.message }
  if (error instanceof RecoveryWriteError) return { reason: error.reason, message: error.userMessage }
  return {
    reason: 'unreadable',
    message: `Could not read '${input}': ${(error as Error).message}. Check the file and the disk.`,
  }
}

export async function recoverFiles(opts: RecoverFilesOptions): Promise<FileRecoveryResult[]> {
  const results: FileRecoveryResult[] = []
  const listed = await collectJobs(opts.inputs, results)
  await mkdir(opts.outDir, { recursive: true })
  // First tell bundles (and their dates) from file blobs, so the newest copy of a file is written first.
  const jobs: Job[] = []
  for (const job of listed) {
    try {
      plaintextLength(job.size)
      jobs.push({ ...job, summary: await summarizeBlob(job.input, opts) })
    } catch (error) {
      const failed = readFailure(job.input, error)
      results.push({ input: job.input, output: join(opts.outDir, job.target), status: 'failed', ...failed })
    }
  }
  const ordered = newestFirst(jobs, (job) =>
    job.summary?.kind === 'bundle' ? job.summary.createdAtMs : opts.uploadedAtMs?.(job.input),
  )
  const paths = new RecoveredPaths()
  const names = new OutputNames()
  const run = { done: 0, total: ordered.reduce((sum, job) => sum + job.size, 0) }
  for (const [i, job] of ordered.entries()) {
    const before = run.done
    results.push(...(await recoverOne(job, i + 1, ordered.length, opts, run, paths, names)))
    run.done = before + job.size
  }
  return results
}

/** Notes for one file (a rename, an older copy), in one message. */
function joined(...notes: (string | undefined)[]): string | undefined {
  const present = notes.filter((n): n is string => Boolean(n))
  return present.length > 0 ? present.join(' ') : undefined
}

function optional(message: string | undefined): { message?: string } {
  return message ? { message } : {}
}

/** The results of one encrypted file, and what they settle for later (older) copies. */
function resultsOf(job: Job, blob: RecoveredBlob, paths: RecoveredPaths, copy: string): FileRecoveryResult[] {
  const kept = 'An identical file is already there (an earlier recovery); left as it is.'
  if (blob.kind === 'file') {
    const { file } = blob
    const older = file.status === 'recovered' ? paths.olderCopyNote(file.path) : undefined
    if (file.status !== 'superseded') paths.record(file.path, 'written', copy)
    const message = file.status === 'kept' ? kept : joined(file.message, older)
    return [
      {
        input: job.input,
        output: file.output,
        status: file.status,
        bytes: file.bytes,
        ...(message ? { message } : {}),
      },
    ]
  }
  return blob.files.map((file): FileRecoveryResult => {
    const base = { input: job.input, entry: file.path, output: file.output }
    if (file.status === 'superseded')
      return { ...base, status: 'superseded', bytes: 0, message: file.message }
    if (file.status === 'failed') {
      paths.record(file.path, file.reason === 'exists' ? 'blocked' : 'failed', copy)
      return {
        ...base,
        status: file.reason === 'exists' ? 'skipped' : 'failed',
        reason: file.reason,
        message: file.message,
        ...(file.detail ? { detail: file.detail } : {}),
      }
    }
    const older = file.status === 'recovered' ? paths.olderCopyNote(file.path) : undefined
    paths.record(file.path, 'written', copy)
    return {
      ...base,
      status: file.status,
      bytes: file.bytes,
      ...(file.status === 'kept' ? { message: kept } : optional(joined(file.message, older))),
    }
  })
}

async function recoverOne(
  job: Job,
  fileNumber: number,
  fileCount: number,
  opts: RecoverFilesOptions,
  run: { done: number; total: number },
  paths: RecoveredPaths,
  names: OutputNames,
): Promise<FileRecoveryResult[]> {
  const fallback = join(opts.outDir, job.target)
  const fallbackPath = job.target.split(sep).join('/')
  const size = job.size
  let bytesDone = 0
  try {
    const blob = await writeRecoveredBlob({
      input: job.input,
      outDir: opts.outDir,
      fallbackPath,
      vaultKey: opts.vaultKey,
      vaultId: opts.vaultId,
      backend: opts.backend,
      supersededBy: paths.supersededBy,
      names,
      onBytes: (bytes) => {
        bytesDone += bytes
        run.done += bytes
        opts.onProgress?.({
          input: job.input,
          fileNumber,
          fileCount,
          bytesDone,
          bytesTotal: size,
          allBytesDone: run.done,
          allBytesTotal: run.total,
        })
      },
    })
    return resultsOf(job, blob, paths, describeCopy(basename(job.input), job.summary?.createdAtMs))
  } catch (error) {
    // A file blob that failed (a bundle that fails once opened reports per file instead).
    const failed = readFailure(job.input, error)
    const output = error instanceof RecoveryWriteError ? error.output : fallback
    return [
      { input: job.input, output, status: failed.reason === 'exists' ? 'skipped' : 'failed', ...failed },
    ]
  }
}
