// Decrypting encrypted files (or folders of them) into an output folder, for the app, the command
// line, the heirs' downloads from a service and Arweave alike. Each file is handled on its own: a
// damaged file does not stop the others; writing (names, no overwrite, nothing partial) is
// recovery-writer.ts's. Bundles are unpacked, one result per file inside. Which copy of a file is
// written, and which listed files are missing, is recovery-plan.ts's: first every file is surveyed
// (records and manifests), then the chosen copies are written, and a copy that fails hands over to
// the next in a later round.
import { mkdir, readdir, stat } from 'node:fs/promises'
import { basename, dirname, join, relative, sep } from 'node:path'
import type { AeadBackendName } from '../node-cipher/cipher-choice'
import {
  compareCodePoints,
  ENCRYPTED_FILE_SUFFIX,
  FileCipherError,
  type FileCipherErrorReason,
  plaintextLength,
} from '../vault-format'
import { confinedPath, OutputNames } from './portable-names'
import {
  type CopyOutcome,
  type ManifestUsed,
  RecoveryPlan,
  type SurveyedBlob,
  type SurveyedCopy,
  shownTime,
  surveyBlob,
} from './recovery-plan'
import {
  type RecoveredBlob,
  RecoveryWriteError,
  type RecoveryWriteFailure,
  writeRecoveredBlob,
} from './recovery-writer'
import type { StagedPlaintext } from './staged-decryption'

export interface RecoverFilesOptions {
  vaultKey: Uint8Array
  vaultId: string
  /** Encrypted files, or folders searched (recursively) for files ending in ".vault". */
  inputs: string[]
  outDir: string
  onProgress?: (progress: RecoveryProgress) => void
  backend?: AeadBackendName
  /** How to name an input in the report (default: its file name), e.g. "arweave:<tx id>". */
  describeInput?: (input: string) => string
  /**
   * The date the source gives an input (the service's upload time, the Arweave block's time): used
   * only for a file of format 1 or 2, which has none inside, and never above a copy that has one.
   */
  sourceDateMs?: (input: string) => number | undefined
  /** An input's file already decrypted while it downloaded (staged-decryption.ts), to link into place. */
  staged?: (input: string) => StagedPlaintext | undefined
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
 * recovered: written now; kept: an identical file was already there; superseded: a copy not written
 * because another is the one to recover (an older copy, or one the vault's list does not name): not
 * a failure; newer: a copy written after the vault's newest list, not recovered (a warning); missing:
 * a file the list names of which no copy could be written; skipped: a different file is in the way;
 * failed: nothing written.
 */
export type FileRecoveryStatus =
  | 'recovered'
  | 'kept'
  | 'superseded'
  | 'newer'
  | 'missing'
  | 'failed'
  | 'skipped'

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
  /** Written from an older copy because the newest copy of its path is damaged (exit status 1). */
  olderCopy?: boolean
}

/** What a run found about the vault's manifests (FORMAT.md 3.11). */
export interface ManifestFindings {
  /** The manifest the run went by; null when none was found. */
  manifest: ManifestUsed | null
  /** No manifest was found, but copies that only an app writing manifests makes were: it was lost or withheld. */
  manifestExpected: boolean
}

/** A whole run: each file's result, and what it found of the manifests. */
export interface RecoveryRun extends ManifestFindings {
  results: FileRecoveryResult[]
}

/**
 * What makes a run's exit status 1 beyond files not written (FORMAT.md 3.11): rival manifests, no
 * manifest where one was expected, an older copy written in place of a damaged newest one.
 */
export function runProblems(
  run: ManifestFindings & { results: readonly { olderCopy?: boolean }[] },
): string[] {
  const problems: string[] = []
  if (run.manifest && run.manifest.rivals.length > 0) problems.push('rival lists of files')
  if (run.manifestExpected) problems.push("the vault's list of files is missing")
  const older = run.results.filter((r) => r.olderCopy).length
  if (older > 0) problems.push(`${older} file(s) written from an older copy`)
  return problems
}

/** Whether the run's manifest note warns: no list was found, or rival lists were set aside. */
export function manifestWarns(run: ManifestFindings): boolean {
  return !run.manifest || run.manifest.rivals.length > 0
}

/** The report's sentence about the manifest: which one the run went by, or that there was none. */
export function manifestNote(
  run: ManifestFindings,
  describeInput: (input: string) => string = (input) => input,
): string {
  const m = run.manifest
  if (!m) {
    const expected = run.manifestExpected
      ? " But these files were written by an app that also writes that list, so it was lost or withheld: files may be missing without notice, and an old copy may stand for a newer one. If there is another copy of the vault's encrypted files, recover from it too."
      : ''
    return `No list of the vault's files (manifest) was found, so each file's newest copy was chosen by the write time sealed inside it; a file the owner deleted may come back, and a missing file cannot be noticed.${expected}`
  }
  const rivals =
    m.rivals.length > 0
      ? ` Warning: ${m.rivals.length} other list(s) carry the same number with different contents (${m.rivals.map(describeInput).join(', ')}); they were set aside. The owner's app never writes such lists: the files came from a faulty or hostile source.`
      : ''
  return `Recovered by the vault's newest list of files: number ${m.sequence}, written ${shownTime(m.writtenAtMs)}, naming ${m.listed} file(s) (${describeInput(m.inputs[0]!)}${m.older > 0 ? `; ${m.older} older list(s) set aside` : ''}).${rivals}`
}

interface Job {
  input: string
  size: number
  /** Output path relative to outDir, for a blob without its own name (format 1). */
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
  // Byte order of the UTF-8 names (FORMAT.md 3.11: among undated copies the first given wins), the
  // same on every machine, whatever its language.
  entries.sort((a, b) => compareCodePoints(a.name, b.name))
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

/** Recovers the files; the results only (recoverRun also says which manifest it went by). */
export async function recoverFiles(opts: RecoverFilesOptions): Promise<FileRecoveryResult[]> {
  return (await recoverRun(opts)).results
}

export async function recoverRun(opts: RecoverFilesOptions): Promise<RecoveryRun> {
  const describeInput = opts.describeInput ?? ((input: string) => basename(input))
  const results: FileRecoveryResult[] = []
  const listed = await collectJobs(opts.inputs, results)
  await mkdir(opts.outDir, { recursive: true })
  // 1. What each encrypted file holds: its files' records, a manifest.
  const jobs = new Map<string, Job>()
  const blobs: SurveyedBlob[] = []
  let order = 0
  for (const job of listed) {
    try {
      plaintextLength(job.size)
      const sourceDateMs = opts.sourceDateMs?.(job.input)
      const source = {
        fallbackPath: job.target.split(sep).join('/'),
        encryptedBytes: job.size,
        ...(sourceDateMs !== undefined ? { sourceDateMs } : {}),
      }
      blobs.push(await surveyBlob(job.input, opts, source, () => order++))
      jobs.set(job.input, job)
    } catch (error) {
      const failed = readFailure(job.input, error)
      results.push({ input: job.input, output: join(opts.outDir, job.target), status: 'failed', ...failed })
    }
  }
  const describeCopy = (copy: SurveyedCopy) =>
    `in ${describeInput(copy.input)}${copy.writtenAtMs !== undefined ? `, written ${shownTime(copy.writtenAtMs)}` : ''}`
  const plan = new RecoveryPlan(blobs, describeCopy)

  // 2. Rounds: write the copies the plan chooses; a failed one hands its path to the next copy.
  const names = new OutputNames()
  const run = { done: 0, total: [...jobs.values()].reduce((sum, job) => sum + job.size, 0) }
  let fileNumber = 0
  for (let pending = plan.pendingInputs(); pending.length > 0; pending = plan.pendingInputs()) {
    const attempts = plan.attempts
    for (const input of pending) {
      const job = jobs.get(input)!
      const before = run.done
      results.push(...(await recoverOne(job, ++fileNumber, jobs.size, opts, run, plan, names)))
      run.done = before + job.size
    }
    // Every round settles or moves on at least one copy; one that did not would come round for ever.
    if (plan.attempts === attempts) break
  }

  // 3. What was not written, and why; the listed files that are missing.
  for (const left of plan.leftOvers()) {
    const blob = blobs.find((b) => b.input === left.copy.input)
    results.push({
      input: left.copy.input,
      ...(blob?.kind === 'bundle' ? { entry: left.copy.path } : {}),
      output: confinedPath(opts.outDir, left.copy.path) ?? '',
      status: left.status,
      bytes: 0,
      message: left.message,
    })
  }
  // A listed file whose copies all failed already has its failure above, which says why: one line each.
  const failedAt = new Set(results.filter((r) => r.status === 'failed').flatMap((r) => [r.entry, r.output]))
  for (const { entry, damaged, message } of plan.missing()) {
    if (damaged && (failedAt.has(entry.path) || failedAt.has(confinedPath(opts.outDir, entry.path) ?? '')))
      continue
    results.push({
      input: '',
      entry: entry.path,
      output: confinedPath(opts.outDir, entry.path) ?? '',
      status: 'missing',
      ...(damaged ? { reason: 'damaged' as const } : {}),
      message,
    })
  }
  // Manifests are not files: they appear in the run's note (manifestNote), not as results.
  return { results, manifest: plan.manifest, manifestExpected: plan.manifestExpected }
}

/** Notes for one file (a rename, an older copy), in one message. */
function joined(...notes: (string | undefined)[]): string | undefined {
  const present = notes.filter((n): n is string => Boolean(n))
  return present.length > 0 ? present.join(' ') : undefined
}

const KEPT = 'An identical file is already there (an earlier recovery); left as it is.'

type Selected = Map<number, string>

/** A copy's outcome in the plan, from the writer's failure reason. */
function outcomeOf(reason: string | undefined): CopyOutcome {
  if (reason === 'other-content') return 'other-content'
  return reason === 'exists' || reason === 'link' ? 'blocked' : 'failed'
}

/** The results of one encrypted file's round, recorded in the plan (selected: index -> path written at). */
function resultsOf(
  job: Job,
  blob: RecoveredBlob,
  plan: RecoveryPlan,
  selected: Selected,
): FileRecoveryResult[] {
  if (blob.kind === 'file') {
    const { file } = blob
    if (!file) return []
    const copy = { input: job.input, index: 0 }
    const path = selected.get(0) ?? file.path
    plan.record(copy, path, file.status === 'kept' ? 'kept' : 'written')
    const older = file.status === 'recovered' ? plan.olderCopyNote(copy, path) : undefined
    const message = file.status === 'kept' ? KEPT : joined(file.message, older)
    return [
      {
        input: job.input,
        output: file.output,
        status: file.status,
        bytes: file.bytes,
        ...(message ? { message } : {}),
        ...(older ? { olderCopy: true } : {}),
      },
    ]
  }
  return blob.files.flatMap((file): FileRecoveryResult[] => {
    const copy = { input: job.input, index: file.index }
    const base = { input: job.input, entry: file.path, output: file.output }
    if (file.status === 'failed') {
      plan.record(copy, file.path, outcomeOf(file.reason))
      // Not the listed content: reported with the copies left out, once the rounds are over.
      if (file.reason === 'other-content') return []
      return [
        {
          ...base,
          status: file.reason === 'exists' ? 'skipped' : 'failed',
          reason: file.reason,
          message: file.message,
          ...(file.detail ? { detail: file.detail } : {}),
        },
      ]
    }
    plan.record(copy, file.path, file.status === 'kept' ? 'kept' : 'written')
    const older = file.status === 'recovered' ? plan.olderCopyNote(copy, file.path) : undefined
    const message = file.status === 'kept' ? KEPT : joined(file.message, older)
    return [
      {
        ...base,
        status: file.status,
        bytes: file.bytes,
        ...(message ? { message } : {}),
        ...(older ? { olderCopy: true } : {}),
      },
    ]
  })
}

async function recoverOne(
  job: Job,
  fileNumber: number,
  fileCount: number,
  opts: RecoverFilesOptions,
  run: { done: number; total: number },
  plan: RecoveryPlan,
  names: OutputNames,
): Promise<FileRecoveryResult[]> {
  const fallback = join(opts.outDir, job.target)
  const fallbackPath = job.target.split(sep).join('/')
  const size = job.size
  const selected: Selected = new Map()
  let bytesDone = 0
  try {
    const blob = await writeRecoveredBlob({
      input: job.input,
      outDir: opts.outDir,
      fallbackPath,
      vaultKey: opts.vaultKey,
      vaultId: opts.vaultId,
      backend: opts.backend,
      staged: opts.staged?.(job.input),
      select: (_path, index) => {
        const choice = plan.select(job.input, index)
        if (choice) selected.set(index, choice.path)
        return choice
      },
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
    return resultsOf(job, blob, plan, selected)
  } catch (error) {
    // A file blob that failed, or a blob that would not open at all this round (a bundle that fails
    // once opened reports per file instead).
    const failed = readFailure(job.input, error)
    const path = selected.get(0)
    if (path !== undefined) plan.record({ input: job.input, index: 0 }, path, outcomeOf(failed.reason))
    plan.failInput(job.input)
    if (failed.reason === 'other-content') return []
    const output = error instanceof RecoveryWriteError ? error.output : fallback
    return [
      { input: job.input, output, status: failed.reason === 'exists' ? 'skipped' : 'failed', ...failed },
    ]
  }
}
