// Decrypting encrypted files (or folders of them) into an output folder, for the app and the command
// line alike. Each file is handled on its own: a damaged file does not stop the others; writing (names,
// no overwrite, nothing partial) is recovery-writer.ts's.
import { mkdir, readdir, stat } from 'node:fs/promises'
import { basename, dirname, join, relative, sep } from 'node:path'
import type { AeadBackendName } from '../crypto/aead-backend'
import { plaintextLength } from '../crypto/chunked-format'
import { FileCipherError, type FileCipherErrorReason } from '../crypto/file-cipher-error'
import { ENCRYPTED_FILE_SUFFIX } from '../crypto/recovery-kits'
import { RecoveryWriteError, type RecoveryWriteFailure, writeRecoveredFile } from './recovery-writer'

export interface RecoverFilesOptions {
  vaultKey: Uint8Array
  vaultId: string
  /** Encrypted files, or folders searched (recursively) for files ending in ".vault". */
  inputs: string[]
  outDir: string
  onProgress?: (progress: RecoveryProgress) => void
  backend?: AeadBackendName
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

export type FileRecoveryStatus = 'recovered' | 'kept' | 'failed' | 'skipped'

export interface FileRecoveryResult {
  input: string
  /** Where the plaintext was (or would have been) written. */
  output: string
  status: FileRecoveryStatus
  /** Plaintext bytes written, for recovered files. */
  bytes?: number
  /** FileCipherError reasons, RecoveryWriteError reasons, or 'unreadable'. */
  reason?: FileCipherErrorReason | RecoveryWriteFailure | 'unreadable'
  message?: string
}

interface Job {
  input: string
  size: number
  /** Output path relative to outDir. */
  target: string
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

export async function recoverFiles(opts: RecoverFilesOptions): Promise<FileRecoveryResult[]> {
  const results: FileRecoveryResult[] = []
  const jobs = await collectJobs(opts.inputs, results)
  await mkdir(opts.outDir, { recursive: true })
  const run = { done: 0, total: jobs.reduce((sum, job) => sum + job.size, 0) }
  for (const [i, job] of jobs.entries()) {
    const before = run.done
    results.push(await recoverOne(job, i + 1, jobs.length, opts, run))
    run.done = before + job.size
  }
  return results
}

async function recoverOne(
  job: Job,
  fileNumber: number,
  fileCount: number,
  opts: RecoverFilesOptions,
  run: { done: number; total: number },
): Promise<FileRecoveryResult> {
  const fallback = join(opts.outDir, job.target)
  const fail = (
    reason: FileRecoveryResult['reason'],
    message: string,
    output = fallback,
  ): FileRecoveryResult => ({
    input: job.input,
    output,
    status: reason === 'exists' ? 'skipped' : 'failed',
    reason,
    message,
  })
  // The size was read when the inputs were listed.
  const size = job.size
  try {
    plaintextLength(size)
  } catch (error) {
    if (error instanceof FileCipherError) return fail(error.reason, error.message)
    throw error
  }

  let bytesDone = 0
  try {
    const written = await writeRecoveredFile({
      input: job.input,
      outDir: opts.outDir,
      fallbackPath: job.target.split(sep).join('/'),
      vaultKey: opts.vaultKey,
      vaultId: opts.vaultId,
      backend: opts.backend,
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
    return {
      input: job.input,
      output: written.output,
      status: written.status,
      bytes: written.bytes,
      ...(written.status === 'kept'
        ? { message: 'An identical file is already there (an earlier recovery); left as it is.' }
        : {}),
    }
  } catch (error) {
    if (error instanceof FileCipherError) return fail(error.reason, error.message)
    if (error instanceof RecoveryWriteError) return fail(error.reason, error.message, error.output)
    return fail(
      'unreadable',
      `Could not read '${job.input}': ${(error as Error).message}. Check the file and the disk.`,
    )
  }
}
