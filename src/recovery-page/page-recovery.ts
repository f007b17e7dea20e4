// A recovery run in the page, by the recovery tool's rules (recovery/recover-files.ts): first every
// encrypted file is surveyed (its records and manifests), then the copies the shared plan chooses
// (vault-format/recovery-plan.ts, docs/FORMAT.md 3.11) are decrypted and written, a copy that fails
// handing its path to the next one in a later round; the report names what was recovered, damaged,
// missing, older copies left out and copies newer than the vault's list. Names come only from inside
// the authenticated blobs, placed by shared/portable-names.ts (confined, Windows-safe, no collisions);
// a file is written as it is decrypted and kept only once all of it authenticated (and had the listed
// content), else removed. A blob is read twice (survey, then write) and a remote source downloads it
// anew each time: the write goes ahead only if it is the very blob surveyed.
import { AppError } from '../shared/app-error'
import { confinedSegments, OutputNames, windowsSafeSegment } from '../shared/portable-names'
import type { ChunkBatchRunner } from '../vault-format'
import {
  type CopyOutcome,
  contentHash,
  ENCRYPTED_FILE_SUFFIX,
  FileCipherError,
  HEADER_SIZE,
  type ManifestUsed,
  type OpenedVaultBlob,
  openEncryptedFile,
  openVaultBlob,
  plaintextLength,
  RecoveryPlan,
  type SurveyedBlob,
  type SurveyedCopy,
  shownTime,
  surveyOpened,
  webCryptoBatchRunner,
} from '../vault-format'
import type { PageBlob } from './page-source'

/** Where recovered files go: a folder the heir chose, or downloads. */
export interface PageWriter {
  /**
   * A new file at `segments` (already confined and Windows-safe) of `size` bytes. Throws PageWriteError
   * ('exists' when a file of that name is there: it is never replaced; 'too-large'; 'write-failed').
   */
  create(segments: readonly string[], size: number): Promise<PageFileSink>
}

/** One file being written: kept by commit() only, removed by discard(). */
export interface PageFileSink {
  write(bytes: Uint8Array): Promise<void>
  commit(): Promise<{ download?: { url: string; name: string } }>
  discard(): Promise<void>
}

export type PageWriteFailure = 'exists' | 'too-large' | 'write-failed'

/** A file the page could not write (in the way, too large, refused by the browser): its words are the heir's. */
export class PageWriteError extends AppError {
  override readonly name = 'PageWriteError'
  constructor(
    readonly reason: PageWriteFailure,
    message: string,
  ) {
    super({ code: 'PAGE_WRITE_FAILED', userMessage: message })
  }
}

export type PageFileStatus =
  | 'recovered'
  | 'superseded'
  | 'newer'
  | 'missing'
  | 'damaged'
  | 'failed'
  | 'skipped'

export interface PageFileResult {
  /** The encrypted file as its source names it ('' for a listed file no copy of which was found). */
  label: string
  /** The file's path from inside the blob (a bundle's file, or a listed file). */
  entry?: string
  /** Where it was (or would have been) written, below the chosen folder, '/'-separated. */
  output: string
  status: PageFileStatus
  bytes?: number
  /** In the format's words (English), as the recovery tool reports it. */
  message?: string
  olderCopy?: boolean
  download?: { url: string; name: string }
}

export interface PageRun {
  results: PageFileResult[]
  manifest: ManifestUsed | null
  manifestExpected: boolean
}

export interface PageProgress {
  phase: 'survey' | 'write'
  /** The encrypted file being read. */
  label: string
  fileNumber: number
  fileCount: number
  /** Encrypted bytes read in this phase, of all. */
  bytesDone: number
  bytesTotal: number
}

export interface PageRecoveryOptions {
  blobs: readonly PageBlob[]
  vaultKey: Uint8Array
  vaultId: string
  writer: PageWriter
  signal?: AbortSignal
  onProgress?: (progress: PageProgress) => void
  /** Decryption in flight; default: WebCrypto, four batches (two each in flight). */
  batchRunner?: ChunkBatchRunner
  /** The heir's words for what goes wrong writing or reading (PageText's). */
  words: {
    tooLarge(name: string, limit: number): string
    inTheWay(name: string): string
    writeFailed(name: string, why: string): string
    readFailed(label: string, why: string): string
    blobChanged(label: string): string
    bundleBroken(label: string): string
  }
}

/** "<name>.vault" -> "<name>"; anything else keeps its name plus ".decrypted" (as the recovery tool). */
export function plaintextName(encryptedName: string): string {
  return encryptedName.endsWith(ENCRYPTED_FILE_SUFFIX) && encryptedName.length > ENCRYPTED_FILE_SUFFIX.length
    ? encryptedName.slice(0, -ENCRYPTED_FILE_SUFFIX.length)
    : `${encryptedName}.decrypted`
}

/**
 * The segments a path is written at below the chosen folder: confined (no '..', no empty or control
 * names) and each made a name Windows can hold; null when the path could leave the folder.
 */
export function pageSegments(relativePath: string): string[] | null {
  return confinedSegments(relativePath)?.map(windowsSafeSegment) ?? null
}

/**
 * A stream's bytes as the format reads them, counted, its first HEADER_SIZE bytes copied to `head`;
 * the stream is cancelled when reading stops.
 */
async function* bytesOf(
  stream: ReadableStream<Uint8Array>,
  size: number,
  onBytes: (n: number) => void,
  signal: AbortSignal | undefined,
  head: Uint8Array,
): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader()
  let seen = 0
  try {
    for (;;) {
      // Stop ends the read at once, whatever the source (a local file's stream knows no signal).
      if (signal?.aborted) throw signal.reason
      const { done, value } = await reader.read()
      if (done) break
      if (seen < HEADER_SIZE) head.set(value.subarray(0, HEADER_SIZE - seen), seen)
      seen += value.length
      // A source that streams more than it listed is not read on (a local file that grew, a service).
      if (seen > size) throw new Error(`it holds more than the ${size} bytes listed`)
      onBytes(value.length)
      yield value
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
}

/**
 * What tells this blob from any other of the vault: its salt (fresh for every blob) and commitment
 * (FORMAT.md 3.1), and the records it authenticated.
 */
function blobFingerprint(head: Uint8Array, opened: OpenedVaultBlob): string {
  const headHex = Array.from(head, (b) => b.toString(16).padStart(2, '0')).join('')
  const record = (f: { path: string; size: number; writtenAtMs?: number } | null) =>
    f ? [f.path, f.size, f.writtenAtMs ?? null] : null
  const held =
    opened.kind === 'manifest'
      ? [opened.manifest.sequence, opened.manifest.writtenAtMs]
      : opened.kind === 'file'
        ? [opened.version, record(opened.identity)]
        : [opened.version, opened.createdAtMs, opened.files.map(record)]
  return JSON.stringify([headHex, opened.kind, held])
}

function failureOf(label: string, error: unknown, words: PageRecoveryOptions['words']) {
  if (error instanceof FileCipherError) return { message: error.message, damaged: true }
  if (error instanceof PageWriteError) return { message: error.message, damaged: false }
  if (error instanceof AppError) return { message: error.userMessage, damaged: false }
  return { message: words.readFailed(label, (error as Error)?.message ?? String(error)), damaged: false }
}

function isAbort(error: unknown, signal?: AbortSignal): boolean {
  return Boolean(signal?.aborted) || (error as { name?: string })?.name === 'AbortError'
}

export async function recoverInPage(opts: PageRecoveryOptions): Promise<PageRun> {
  const { blobs, signal, words } = opts
  const runner = opts.batchRunner ?? webCryptoBatchRunner(4)
  const cipher = { vaultKey: opts.vaultKey, vaultId: opts.vaultId, batchRunner: runner }
  const results: PageFileResult[] = []
  // Inputs are the blobs' positions: two sources may give two blobs one label.
  const inputOf = (i: number) => String(i)
  const blobOf = (input: string) => blobs[Number(input)]!
  const labelOf = (input: string) => blobOf(input).label
  const total = blobs.reduce((sum, b) => sum + b.size, 0)
  const abortCheck = () => {
    if (signal?.aborted) throw signal.reason ?? new DOMException('Stopped', 'AbortError')
  }

  // 1. What each encrypted file holds.
  const surveyed: SurveyedBlob[] = []
  const fingerprints = new Map<string, string>()
  let order = 0
  const done = 0
  for (let i = 0; i < blobs.length; i++) {
    abortCheck()
    const blob = blobs[i]!
    opts.onProgress?.({
      phase: 'survey',
      label: blob.label,
      fileNumber: i + 1,
      fileCount: blobs.length,
      bytesDone: done,
      bytesTotal: total,
    })
    const fallbackPath = plaintextName(blob.label.split('/').pop() ?? blob.label)
    const control = new AbortController()
    const stop = () => control.abort(signal?.reason)
    signal?.addEventListener('abort', stop, { once: true })
    try {
      plaintextLength(blob.size)
      const stream = await blob.open(control.signal)
      const head = new Uint8Array(HEADER_SIZE)
      // The survey needs only the first chunk or so of each blob: opened on this thread (noble), so
      // no batch is handed to WebCrypto only to be dropped.
      const opened = await openVaultBlob(
        bytesOf(stream, blob.size, () => {}, control.signal, head),
        {
          vaultKey: opts.vaultKey,
          vaultId: opts.vaultId,
        },
      )
      fingerprints.set(inputOf(i), blobFingerprint(head, opened))
      surveyed.push(
        await surveyOpened(
          inputOf(i),
          opened,
          {
            fallbackPath,
            encryptedBytes: blob.size,
            ...(blob.sourceDateMs !== undefined ? { sourceDateMs: blob.sourceDateMs } : {}),
          },
          () => order++,
        ),
      )
    } catch (error) {
      if (isAbort(error, signal)) throw error
      results.push({
        label: blob.label,
        output: fallbackPath,
        status: 'failed',
        ...messageOnly(failureOf(blob.label, error, words)),
      })
    } finally {
      control.abort()
      signal?.removeEventListener('abort', stop)
    }
  }
  const describeCopy = (copy: SurveyedCopy) =>
    `in ${labelOf(copy.input)}${copy.writtenAtMs !== undefined ? `, written ${shownTime(copy.writtenAtMs)}` : ''}`
  const plan = new RecoveryPlan(surveyed, describeCopy)
  const surveyOf = (input: string): Surveyed => ({
    blob: surveyed.find((s) => s.input === input)!,
    fingerprint: fingerprints.get(input)!,
  })

  // 2. Rounds: write the copies the plan chooses; a failed one hands its path to the next copy.
  const names = new OutputNames()
  const sizeOf = new Map(surveyed.map((s) => [s.input, blobOf(s.input).size]))
  const writeTotal = [...sizeOf.values()].reduce((a, b) => a + b, 0)
  let written = 0
  let fileNumber = 0
  for (let pending = plan.pendingInputs(); pending.length > 0; pending = plan.pendingInputs()) {
    const attempts = plan.attempts
    for (const input of pending) {
      abortCheck()
      const blob = blobOf(input)
      const before = written
      opts.onProgress?.({
        phase: 'write',
        label: blob.label,
        fileNumber: ++fileNumber,
        fileCount: sizeOf.size,
        bytesDone: written,
        bytesTotal: writeTotal,
      })
      results.push(
        ...(await writeBlob(input, blob, surveyOf(input), plan, names, opts, cipher, (n) => {
          written += n
          opts.onProgress?.({
            phase: 'write',
            label: blob.label,
            fileNumber,
            fileCount: sizeOf.size,
            bytesDone: written,
            bytesTotal: writeTotal,
          })
        })),
      )
      written = before + blob.size
    }
    if (plan.attempts === attempts) break
  }

  // 3. What was not written, and why; the listed files that are missing or damaged.
  for (const left of plan.leftOvers()) {
    const blob = surveyed.find((b) => b.input === left.copy.input)
    results.push({
      label: labelOf(left.copy.input),
      ...(blob?.kind === 'bundle' ? { entry: left.copy.path } : {}),
      output: left.copy.path,
      status: left.status,
      bytes: 0,
      message: left.message,
    })
  }
  const failedAt = new Set(
    results
      .filter((r) => r.status === 'failed' || r.status === 'damaged')
      .flatMap((r) => [r.entry, r.output]),
  )
  for (const { entry, damaged, message } of plan.missing()) {
    if (damaged && failedAt.has(entry.path)) continue
    results.push({
      label: '',
      entry: entry.path,
      output: entry.path,
      status: damaged ? 'damaged' : 'missing',
      message,
    })
  }
  return { results, manifest: plan.manifest, manifestExpected: plan.manifestExpected }
}

function messageOnly(failure: { message: string; damaged: boolean }): {
  message: string
  status?: PageFileStatus
} {
  return failure.damaged ? { message: failure.message, status: 'damaged' } : { message: failure.message }
}

type Cipher = { vaultKey: Uint8Array; vaultId: string; batchRunner: ChunkBatchRunner }

/** A copy's outcome in the plan, from a write failure. */
function outcomeOf(error: unknown): CopyOutcome {
  return error instanceof PageWriteError && error.reason === 'exists' ? 'blocked' : 'failed'
}

/**
 * Writes one file's bytes to a new file at its place, checking the listed SHA-256 when there is one;
 * the file is kept only when every byte authenticated and the content is the listed one.
 */
async function writeOne(
  path: string,
  size: number,
  body: AsyncIterable<Uint8Array>,
  expectSha256: string | undefined,
  names: OutputNames,
  opts: PageRecoveryOptions,
): Promise<{
  outcome: 'written' | 'other-content'
  output: string
  download?: { url: string; name: string }
  message?: string
}> {
  const placed = names.place(path)
  const segments = pageSegments(placed.relativePath)
  if (!segments)
    throw new PageWriteError('write-failed', opts.words.writeFailed(path, 'not a name a folder can hold'))
  const output = segments.join('/')
  const sink = await opts.writer.create(segments, size)
  const hash = expectSha256 ? contentHash() : undefined
  try {
    for await (const piece of body) {
      hash?.update(piece)
      // Awaited before the next piece is read: a bundle's pieces are valid until then.
      await sink.write(piece)
    }
    if (hash && hash.hex() !== expectSha256) {
      await sink.discard()
      return { outcome: 'other-content', output }
    }
    const kept = await sink.commit()
    const message =
      placed.renamedBecause !== undefined
        ? `Saved as "${placed.relativePath}": another file of the vault, "${placed.renamedBecause}", has a name that Windows or a Mac would take for the same one, so this one was renamed to keep both.`
        : undefined
    return {
      outcome: 'written',
      output,
      ...(kept.download ? { download: kept.download } : {}),
      ...(message ? { message } : {}),
    }
  } catch (error) {
    await sink.discard().catch(() => {})
    throw error
  }
}

/** What the survey saw of a blob: the copies planned from it, and its fingerprint. */
interface Surveyed {
  blob: SurveyedBlob
  fingerprint: string
}

/**
 * A blob that is not the one surveyed when opened again: its content would land under the surveyed
 * names, so every copy due from it fails (each path moves on to its next copy) and nothing is written.
 */
function changedBlob(
  input: string,
  label: string,
  surveyed: SurveyedBlob,
  plan: RecoveryPlan,
  words: PageRecoveryOptions['words'],
): PageFileResult[] {
  const out: PageFileResult[] = []
  for (const copy of surveyed.copies) {
    const choice = plan.select(input, copy.index)
    if (!choice) continue
    out.push({
      label,
      ...(surveyed.kind === 'bundle' ? { entry: copy.path } : {}),
      output: choice.path,
      status: 'failed',
      message: words.blobChanged(label),
    })
  }
  plan.failInput(input)
  return out
}

async function writeBlob(
  input: string,
  blob: PageBlob,
  survey: Surveyed,
  plan: RecoveryPlan,
  names: OutputNames,
  opts: PageRecoveryOptions,
  cipher: Cipher,
  onBytes: (n: number) => void,
): Promise<PageFileResult[]> {
  const { signal, words } = opts
  const control = new AbortController()
  const stop = () => control.abort(signal?.reason)
  signal?.addEventListener('abort', stop, { once: true })
  const label = blob.label
  const fallbackPath = plaintextName(label.split('/').pop() ?? label)
  let selectedPath: string | undefined
  try {
    const stream = await blob.open(control.signal)
    const head = new Uint8Array(HEADER_SIZE)
    const opened = await openEncryptedFile(bytesOf(stream, blob.size, onBytes, control.signal, head), cipher)
    if (blobFingerprint(head, opened) !== survey.fingerprint) {
      if (opened.kind === 'file') await opened.body.return?.()
      else await opened.entries.return?.()
      return changedBlob(input, label, survey.blob, plan, words)
    }
    if (opened.kind === 'file') {
      const choice = plan.select(input, 0)
      if (!choice) {
        await opened.body.return?.()
        return []
      }
      selectedPath = choice.path
      const copy = { input, index: 0 }
      const size = opened.identity?.size ?? plaintextLength(blob.size)
      const done = await writeOne(choice.path, size, opened.body, choice.expectSha256, names, opts)
      if (done.outcome === 'other-content') {
        plan.record(copy, choice.path, 'other-content')
        return []
      }
      plan.record(copy, choice.path, 'written')
      const older = plan.olderCopyNote(copy, choice.path)
      const message = [done.message, older].filter(Boolean).join(' ')
      return [
        {
          label,
          output: done.output,
          status: 'recovered',
          bytes: size,
          ...(message ? { message } : {}),
          ...(older ? { olderCopy: true } : {}),
          ...(done.download ? { download: done.download } : {}),
        },
      ]
    }
    // A bundle: each selected file written in turn. A write failure touches that file only; damage or
    // a failed read ends the bundle, and the files written before keep their lines (and downloads).
    const out: PageFileResult[] = []
    let broken: unknown
    let reached = 0
    try {
      for await (const entry of opened.entries) {
        reached = entry.index + 1
        const path = entry.identity.path
        const choice = plan.select(input, entry.index)
        if (!choice) {
          // Read through (each chunk still authenticates) to reach the next file.
          for await (const _ of entry.body) void _
          continue
        }
        const copy = { input, index: entry.index }
        try {
          const done = await writeOne(
            choice.path,
            entry.identity.size,
            entry.body,
            choice.expectSha256,
            names,
            opts,
          )
          if (done.outcome === 'other-content') {
            plan.record(copy, choice.path, 'other-content')
            continue
          }
          plan.record(copy, choice.path, 'written')
          const older = plan.olderCopyNote(copy, choice.path)
          const message = [done.message, older].filter(Boolean).join(' ')
          out.push({
            label,
            entry: path,
            output: done.output,
            status: 'recovered',
            bytes: entry.identity.size,
            ...(message ? { message } : {}),
            ...(older ? { olderCopy: true } : {}),
            ...(done.download ? { download: done.download } : {}),
          })
        } catch (error) {
          if (isAbort(error, signal)) throw error
          plan.record(copy, choice.path, outcomeOf(error))
          const failure = failureOf(label, error, words)
          out.push({
            label,
            entry: path,
            output: choice.path,
            status:
              error instanceof PageWriteError && error.reason === 'exists'
                ? 'skipped'
                : failure.damaged
                  ? 'damaged'
                  : 'failed',
            message: failure.message,
          })
          if (!(error instanceof PageWriteError)) {
            broken = error
            break
          }
        }
      }
    } catch (error) {
      if (isAbort(error, signal)) throw error
      broken = error
    } finally {
      await opened.entries.return?.()
    }
    if (broken === undefined) return out
    // The selected files after the damage (or the failed read): not reached, each said so.
    const failure = failureOf(label, broken, words)
    for (const [index, identity] of opened.files.entries()) {
      const choice = index < reached ? null : plan.select(input, index)
      if (!choice) continue
      plan.record({ input, index }, choice.path, 'failed')
      out.push({
        label,
        entry: identity.path,
        output: choice.path,
        status: failure.damaged ? 'damaged' : 'failed',
        message: failure.damaged ? words.bundleBroken(label) : failure.message,
      })
    }
    return out
  } catch (error) {
    if (isAbort(error, signal)) throw error
    const failure = failureOf(label, error, words)
    if (selectedPath !== undefined) plan.record({ input, index: 0 }, selectedPath, outcomeOf(error))
    plan.failInput(input)
    const skipped = error instanceof PageWriteError && error.reason === 'exists'
    return [
      {
        label,
        output: selectedPath ?? fallbackPath,
        status: skipped ? 'skipped' : failure.damaged ? 'damaged' : 'failed',
        message: failure.message,
      },
    ]
  } finally {
    control.abort()
    signal?.removeEventListener('abort', stop)
  }
}
