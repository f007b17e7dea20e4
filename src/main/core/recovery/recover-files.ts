// Decrypting encrypted files (or folders of them) into an output folder. Each file is handled on its
// own: a damaged file does not stop the others, nothing is ever overwritten, and a file's plaintext
// appears under its final name only after every chunk authenticated (see authenticated-output.ts).
import { lstat, mkdir, readdir, stat } from 'node:fs/promises'
import { basename, dirname, join, relative } from 'node:path'
import type { AeadBackendName } from '../crypto/aead-backend'
import { plaintextLength } from '../crypto/chunked-format'
import { FileCipherError, type FileCipherErrorReason } from '../crypto/file-cipher-error'
import { ENCRYPTED_FILE_SUFFIX } from '../crypto/recovery-kits'
import { decryptIntoTemp, publishWithoutOverwrite } from './authenticated-output'

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
}

export type FileRecoveryStatus = 'recovered' | 'failed' | 'skipped'

export interface FileRecoveryResult {
  input: string
  /** Where the plaintext was (or would have been) written. */
  output: string
  status: FileRecoveryStatus
  /** Plaintext bytes written, for recovered files. */
  bytes?: number
  /** FileCipherError reasons, or 'exists' / 'unreadable' / 'write-failed'. */
  reason?: FileCipherErrorReason | 'exists' | 'unreadable' | 'write-failed'
  message?: string
}

interface Job {
  input: string
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
        jobs.push({ input: file, target: join(dirname(rel), plaintextName(basename(rel))) })
      }
    } else {
      jobs.push({ input, target: plaintextName(basename(input)) })
    }
  }
  return jobs
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path)
    return true
  } catch {
    return false
  }
}

export async function recoverFiles(opts: RecoverFilesOptions): Promise<FileRecoveryResult[]> {
  const results: FileRecoveryResult[] = []
  const jobs = await collectJobs(opts.inputs, results)
  await mkdir(opts.outDir, { recursive: true })
  for (const [i, job] of jobs.entries()) {
    results.push(await recoverOne(job, i + 1, jobs.length, opts))
  }
  return results
}

async function recoverOne(job: Job, fileNumber: number, fileCount: number, opts: RecoverFilesOptions) {
  const output = join(opts.outDir, job.target)
  const fail = (reason: FileRecoveryResult['reason'], message: string): FileRecoveryResult => ({
    input: job.input,
    output,
    status: reason === 'exists' ? 'skipped' : 'failed',
    reason,
    message,
  })
  if (await exists(output)) {
    return fail('exists', `'${output}' already exists; it was left untouched. Choose an empty output folder.`)
  }
  let size: number
  try {
    size = (await stat(job.input)).size
    plaintextLength(size)
  } catch (error) {
    if (error instanceof FileCipherError) return fail(error.reason, error.message)
    return fail('unreadable', `Cannot read '${job.input}': ${(error as Error).message}.`)
  }

  let bytesDone = 0
  let decrypted: { temp: string; written: number }
  try {
    decrypted = await decryptIntoTemp({
      input: job.input,
      output,
      vaultKey: opts.vaultKey,
      vaultId: opts.vaultId,
      backend: opts.backend,
      onBytes: (bytes) => {
        bytesDone += bytes
        opts.onProgress?.({ input: job.input, fileNumber, fileCount, bytesDone, bytesTotal: size })
      },
    })
  } catch (error) {
    if (error instanceof FileCipherError) return fail(error.reason, error.message)
    const sys = error as NodeJS.ErrnoException
    if (sys.path === job.input || sys.syscall === 'read') {
      return fail('unreadable', `Could not read '${job.input}': ${sys.message}. Check the file and the disk.`)
    }
    return fail(
      'write-failed',
      `Could not write '${output}': ${sys.message}. Check free space and permissions.`,
    )
  }
  try {
    await publishWithoutOverwrite(decrypted.temp, output)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      return fail(
        'exists',
        `'${output}' already exists; it was left untouched. Choose an empty output folder.`,
      )
    }
    return fail('write-failed', `Could not create '${output}': ${(error as Error).message}.`)
  }
  return {
    input: job.input,
    output,
    status: 'recovered',
    bytes: decrypted.written,
  } satisfies FileRecoveryResult
}
