// Heir recovery from a Vault Service: with the heir access code from the release e-mail, list the
// released vault's files, download each (resuming a partial download with a byte range), check and
// decrypt it with the vault key rebuilt from the guardians' shares, and write the original file.
// A file appears under its name only once every chunk authenticated (temp file, then link/rename);
// a file that fails is reported and the others go on; a file already recovered by an earlier run is
// kept and skipped. When the service stops answering the run stops, and a re-run picks up where it
// stopped. Shared by the app's Recovery screen and the command-line recovery tool.
import { lstat, rm, rmdir } from 'node:fs/promises'
import { basename, join, relative, resolve, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { AeadBackendName } from '../node-cipher/cipher-choice'
import { VaultApiClient, VaultApiError, type VaultDetails } from '../service-client'
import { checkServiceAddress } from '../service-client/service-address'
import type { ApiPrefix, Asset } from '../shared/api'
import { AppError } from '../shared/app-error'
import { HEIR_SOURCE_TEXT, type ServiceStep } from '../shared/heir-source-text'
import { listedFiles } from '../shared/service-answers'
import { plaintextLength } from '../vault-format'
import { downloadStream, localDownloadName, makeConfinedFolders, outputRoot } from './confined-write'
import { type DiskNeed, freeBytes, outputWriteProblem, spaceShortfall } from './output-space'
import { type FileRecoveryResult, recoverRun } from './recover-files'
import type { ManifestUsed } from './recovery-plan'
import {
  countedDownload,
  removeStaged,
  type StagedDecryption,
  type StagedPlaintext,
  stageBeside,
  stagedPathOf,
} from './staged-decryption'

/** Folder inside the output folder holding downloads in progress (removed when the run completes). */
export const DOWNLOADS_FOLDER = '.vault-downloads'

export interface HeirAccess {
  /** The service address from the heir's e-mail. */
  serviceUrl: string
  /** The heir access code (hk_...) from the e-mail. */
  accessToken: string
  /** The vault id (it is also inside every guardian share). */
  vaultId: string
  /** Per-request timeout; tests shorten it. */
  timeoutMs?: number
  /** Retries of a failed request before giving up (default 2). */
  maxRetries?: number
}

export interface HeirFile {
  assetId: string
  /** Where the file goes, relative to the output folder (the owner's folder structure when known). */
  name: string
  /** Size on the service (encrypted). */
  encryptedBytes: number
  /** Size of the original file. */
  plaintextBytes: number
  contentType: string
  /** When the service received it (ms): dates a single-file blob, which carries no date inside. */
  uploadedAtMs?: number
  /** A bundle of small files: how many files its upload said it holds (unknown when names were hidden). */
  fileCount?: number
  /**
   * Its upload said it is only the vault's list of files (a manifest stored alone): not a file to show
   * the heir. Unauthenticated, so it only hides it from the list; recovery still downloads and checks it.
   */
  listOnly?: boolean
}

export type HeirStopCode =
  | 'ACCESS_REFUSED'
  | 'INVALID_ADDRESS'
  | 'SERVICE_UNREACHABLE'
  | 'SERVICE_ERROR'
  | 'VAULT_NOT_FOUND'
  | 'OUTPUT_UNWRITABLE'

/** Why a run could not start or had to stop; `message` is for the heir: what happened, what to do. */
export class HeirAccessError extends AppError {
  override readonly name = 'HeirAccessError'
  declare readonly code: HeirStopCode
  /** HTTP status of the service's refusal; 0 when none came. */
  declare readonly status: number

  constructor(code: HeirStopCode, userMessage: string, status = 0) {
    super({ code, userMessage, status })
  }
}

export interface HeirFileResult {
  assetId: string
  name: string
  /** Full path of the original file (written, kept, or where it would have gone). */
  output: string
  /**
   * recovered: written now; kept: already recovered by an earlier run; superseded: a copy not to be
   * recovered (older, or not in the vault's list; not a failure); newer: a copy written after the
   * vault's newest list, not recovered; missing: a file the list names that could not be written;
   * failed: nothing written.
   */
  status: 'recovered' | 'kept' | 'superseded' | 'newer' | 'missing' | 'failed' | 'not-reached'
  bytes?: number
  reason?: string
  message: string
  /** Technical detail (where a file was damaged), for the command-line report. */
  detail?: string
  /** Written from an older copy because the newest copy is damaged. */
  olderCopy?: boolean
}

export interface HeirRecoveryProgress {
  name: string
  fileNumber: number
  fileCount: number
  phase: 'downloading' | 'checking'
  /** Across the whole run: every file's bytes are counted once downloaded and once checked. */
  doneBytes: number
  totalBytes: number
}

export interface HeirRecoveryOptions extends HeirAccess {
  vaultKey: Uint8Array
  outDir: string
  backend?: AeadBackendName
  signal?: AbortSignal
  onProgress?: (progress: HeirRecoveryProgress) => void
}

export interface HeirRecoveryReport {
  vaultId: string
  outDir: string
  results: HeirFileResult[]
  /** Set when the run stopped early (service unreachable, access refused); a re-run resumes. */
  stopped?: { code: HeirStopCode; message: string }
  /** The vault manifest the run went by; null when none was found (or the run stopped first). */
  manifest: ManifestUsed | null
  /** No manifest was found where the files say there must be one (FORMAT.md 3.11). */
  manifestExpected: boolean
}

// The heir's words, shared with the recovery page (shared/heir-source-text.ts).
const TEXT = HEIR_SOURCE_TEXT.en

function unreachable(serviceUrl: string, at: ServiceStep): string {
  return TEXT.unreachable(serviceUrl, at)
}

function toAccessError(
  error: unknown,
  serviceUrl: string,
  at: ServiceStep,
  vaultId?: string,
): HeirAccessError {
  if (error instanceof HeirAccessError) return error
  if (error instanceof VaultApiError) {
    if (error.status === 401) return new HeirAccessError('ACCESS_REFUSED', TEXT.accessRefused, 401)
    if (error.status === 403) {
      return new HeirAccessError('ACCESS_REFUSED', TEXT.otherVault(vaultId), 403)
    }
    if (error.status === 404) {
      return new HeirAccessError('VAULT_NOT_FOUND', TEXT.vaultUnknown, 404)
    }
    // An answer the client refused (another vault, ids that are not ids, one still arriving after its
    // time, a download dripping too slowly): its own words say what.
    if (error.code === 'BAD_RESPONSE') return new HeirAccessError('SERVICE_ERROR', error.userMessage)
    if (error.code === 'TIMEOUT') {
      return new HeirAccessError(
        'SERVICE_UNREACHABLE',
        `${error.userMessage} Start the recovery again later: files already recovered are kept, and a download that was cut off continues where it stopped.`,
      )
    }
    if (error.status === 0) return new HeirAccessError('SERVICE_UNREACHABLE', unreachable(serviceUrl, at))
    // The client follows no redirect; its message says which address to use instead.
    if (error.code === 'REDIRECT_REFUSED') {
      return new HeirAccessError('INVALID_ADDRESS', error.userMessage, error.status)
    }
    return new HeirAccessError('SERVICE_ERROR', TEXT.serviceProblem(at, error.status), error.status)
  }
  // A connection cut in the middle of a download surfaces as a stream error.
  return new HeirAccessError('SERVICE_UNREACHABLE', unreachable(serviceUrl, at))
}

function clientFor(access: HeirAccess, prefix: ApiPrefix): VaultApiClient {
  return new VaultApiClient({
    baseUrl: access.serviceUrl,
    apiKey: access.accessToken,
    prefix,
    timeoutMs: access.timeoutMs ?? 30_000,
    maxRetries: access.maxRetries ?? 2,
  })
}

/**
 * Opens the vault with the heir's access code. Heir codes cannot list vaults, so the API prefix is
 * found by asking for this vault under /api, then /v1.
 */
async function openVault(access: HeirAccess): Promise<{ client: VaultApiClient; vault: VaultDetails }> {
  // The same rule as the owner's connections: an heir's code never crosses a network in clear.
  const address = checkServiceAddress(access.serviceUrl)
  if (!address.ok) {
    throw new HeirAccessError(
      'INVALID_ADDRESS',
      `${address.message} Copy the vault service address exactly as the e-mail gives it.`,
    )
  }
  let lastError: unknown
  for (const prefix of ['/api', '/v1'] as const) {
    const client = clientFor({ ...access, serviceUrl: address.url }, prefix)
    try {
      // The client refuses an answer about another vault than the one asked for (answer-checks.ts).
      const vault = await client.getVault(access.vaultId)
      // An heir's code opens a released vault only: a service that says otherwise is not to be believed.
      if (vault.state !== 'released') {
        throw new HeirAccessError('ACCESS_REFUSED', TEXT.notReleased(access.vaultId, vault.state))
      }
      return { client, vault }
    } catch (error) {
      lastError = error
      if (!(error instanceof VaultApiError && error.status === 404)) break
    }
  }
  throw toAccessError(lastError, access.serviceUrl, { step: 'open' }, access.vaultId)
}

function namesFor(assets: Asset[]): HeirFile[] {
  // The client checked the listing (ids, sizes, no id twice: answer-checks.ts); the ids reach request
  // paths and local download names made here (confined-write.ts). Names, dates and counts are what the
  // uploader told the service (shared with the recovery page: shared/service-answers.ts).
  const listed = listedFiles(assets, (index) => `file-${assets[index]!.id}`, DOWNLOADS_FOLDER)
  return assets.map((asset, index) => {
    const told = listed[index]!
    let plaintextBytes: number
    try {
      // Format 2 blobs also hold the file's name: the uploader's metadata says the exact size.
      const fromBlob = plaintextLength(asset.sizeBytes)
      const declared = told.declaredPlaintextBytes
      plaintextBytes = declared !== undefined && declared <= fromBlob ? declared : fromBlob
    } catch {
      plaintextBytes = -1
    }
    return {
      assetId: asset.id,
      name: told.name,
      encryptedBytes: asset.sizeBytes,
      plaintextBytes,
      contentType: asset.contentType,
      ...(told.uploadedAtMs !== undefined ? { uploadedAtMs: told.uploadedAtMs } : {}),
      ...(told.fileCount !== undefined ? { fileCount: told.fileCount } : {}),
      ...(told.listOnly ? { listOnly: true } : {}),
    }
  })
}

/** The released vault and its files, as the heir will receive them. */
export async function listHeirFiles(access: HeirAccess): Promise<{ vault: VaultDetails; files: HeirFile[] }> {
  const { client, vault } = await openVault(access)
  try {
    return { vault, files: namesFor(await client.listAllAssets(access.vaultId)) }
  } catch (error) {
    throw toAccessError(error, access.serviceUrl, { step: 'list' })
  }
}

async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await lstat(path)).size
  } catch {
    return undefined
  }
}

/** One run's state, shared by its steps: the report it fills, the files, and the progress told so far. */
interface HeirRun {
  opts: HeirRecoveryOptions
  client: VaultApiClient
  files: HeirFile[]
  report: HeirRecoveryReport
  /** The folder inside the output folder that holds downloads in progress. */
  downloads: string
  progress(file: HeirFile, index: number, phase: HeirRecoveryProgress['phase'], add: number): void
}

interface Downloaded {
  file: HeirFile
  index: number
  part: string
  /** Its file, decrypted while it downloaded (staged-decryption.ts), when that went through. */
  staged?: StagedPlaintext
}

/** A file's fields every result repeats. */
function baseOf(run: HeirRun, file: HeirFile): Pick<HeirFileResult, 'assetId' | 'name' | 'output'> {
  return { assetId: file.assetId, name: file.name, output: join(run.opts.outDir, ...file.name.split('/')) }
}

/** The run stops here (a re-run resumes): the report says why, and `file`, if given, was not reached. */
function stopRun(run: HeirRun, stop: HeirAccessError, file?: HeirFile): void {
  run.report.stopped = { code: stop.code, message: stop.userMessage }
  if (file)
    run.report.results.push({ ...baseOf(run, file), status: 'not-reached', message: stop.userMessage })
}

/** Step 1: the vault opened with the heir's code and its files listed; null (the report says why) when not. */
async function openListing(
  opts: HeirRecoveryOptions,
  report: HeirRecoveryReport,
): Promise<{ client: VaultApiClient; files: HeirFile[] } | null> {
  try {
    const opened = await openVault(opts)
    return { client: opened.client, files: namesFor(await opened.client.listAllAssets(opts.vaultId)) }
  } catch (error) {
    const stop = toAccessError(error, opts.serviceUrl, { step: 'list' })
    report.stopped = { code: stop.code, message: stop.userMessage }
    return null
  }
}

/** Step 2: the output folder and its downloads folder, made confined; false (the report says why) when not. */
async function prepareOutput(
  opts: HeirRecoveryOptions,
  report: HeirRecoveryReport,
  downloads: string,
): Promise<boolean> {
  try {
    await makeConfinedFolders(await outputRoot(opts.outDir), downloads)
    return true
  } catch (error) {
    report.stopped = {
      code: 'OUTPUT_UNWRITABLE',
      message: `The folder ${opts.outDir} cannot be used (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Choose a folder you can write to, for example one inside your Documents, and start again.`,
    }
    return false
  }
}

/**
 * Step 3, for one file: its blob downloaded whole into its .part file (resuming what an earlier run
 * got). Returns the download, or null when the file failed or the run stopped (the report says which).
 */
async function downloadOne(run: HeirRun, file: HeirFile, index: number): Promise<Downloaded | null> {
  const { opts, client, report } = run
  const base = baseOf(run, file)
  // Every file is downloaded, also when a run before recovered it: the service's name and size are
  // no proof, and the manifest may be in any blob. The writer counts an identical file as kept.
  if (file.plaintextBytes < 0) {
    report.results.push({
      ...base,
      status: 'failed',
      reason: 'truncated',
      message: `The service holds only ${file.encryptedBytes} bytes for "${file.name}", too few to be an encrypted file: it was damaged or cut short on the service. Nothing was written for it.`,
    })
    return null
  }

  const local = localPathOf(run, file)
  const part = `${local}.part`
  let have = (await sizeOf(part)) ?? 0
  if (have > file.encryptedBytes) {
    await rm(part, { force: true })
    have = 0
  }
  run.progress(file, index, 'downloading', have)
  if (have >= file.encryptedBytes) {
    // Plaintext staged by a run that was killed: not reused (its bytes are unknown), nor left there.
    await rm(stagedPathOf(local), { force: true }).catch(() => {})
    return { file, index, part }
  }
  let staging: StagedDecryption | undefined
  try {
    // Not the client's expectedBytes: its guard can fail the stream before this code has it (an
    // unhandled error); the counter below cuts a longer body instead, in the same words.
    const { stream, partial } = await client.downloadAssetFrom(opts.vaultId, file.assetId, have, opts.signal)
    // A drip the client stops may fail the stream before the pipeline below takes it up; the
    // pipeline still gets that error, this keeps it from being thrown unhandled meanwhile.
    stream.on('error', () => {})
    if (have > 0 && !partial) {
      run.progress(file, index, 'downloading', -have)
      have = 0
    }
    // Only a blob downloaded from its first byte in this run is decrypted as it comes.
    if (have === 0) {
      const { vaultKey, vaultId, backend } = opts
      staging = await stageBeside(local, { vaultKey, vaultId, ...(backend ? { backend } : {}) })
    }
    // Never more than the listing declared: a longer body is cut and the file refused.
    const counter = countedDownload(file.encryptedBytes - have, {
      tooLong: () => new TooLongError(opts.serviceUrl, file.encryptedBytes),
      onPiece: (bytes) => run.progress(file, index, 'downloading', bytes),
      ...(staging ? { staging } : {}),
    })
    const sink = await downloadStream(part, have > 0)
    await pipeline(stream, counter, sink)
  } catch (error) {
    await staging?.abandon()
    if (error instanceof TooLongError) {
      await rm(part, { force: true })
      report.results.push({
        ...base,
        status: 'failed',
        reason: 'wrong-size',
        message: `${error.userMessage} Nothing was written for "${file.name}"; the other files are not affected.`,
      })
      return null
    }
    if (error instanceof VaultApiError && error.status === 404) {
      report.results.push({ ...base, status: 'failed', reason: 'missing', message: TEXT.fileGone(file.name) })
      return null
    }
    // The disk, not the service: a full disk must not read as an unreachable service.
    const diskProblem = outputWriteProblem(error, opts.outDir, `downloading "${file.name}"`)
    if (diskProblem) {
      stopRun(run, new HeirAccessError('OUTPUT_UNWRITABLE', diskProblem), file)
      return null
    }
    stopRun(run, toAccessError(error, opts.serviceUrl, { step: 'download', name: file.name }), file)
    return null
  }
  if (((await sizeOf(part)) ?? 0) !== file.encryptedBytes) {
    await staging?.abandon()
    const cutOff = unreachable(opts.serviceUrl, { step: 'download', name: file.name, cutOff: true })
    stopRun(run, new HeirAccessError('SERVICE_UNREACHABLE', cutOff), file)
    return null
  }
  const staged = await staging?.finish()
  return { file, index, part, ...(staged ? { staged } : {}) }
}

/** A file's download, named here, never after the asset id the service gave. */
function localPathOf(run: HeirRun, file: HeirFile): string {
  return join(run.downloads, localDownloadName('service', run.opts.vaultId, file.assetId))
}

/** Before step 3: the run stops now when the disk cannot take what it downloads and writes (output-space.ts). */
async function roomForDownloads(run: HeirRun): Promise<boolean> {
  const needs: DiskNeed[] = []
  for (const file of run.files) {
    const have = (await sizeOf(`${localPathOf(run, file)}.part`)) ?? 0
    // The vault's list of files alone is never written as a file.
    needs.push({ toDownload: file.encryptedBytes - have, toWrite: file.listOnly ? 0 : file.plaintextBytes })
  }
  const shortfall = await spaceShortfall(
    run.opts.outDir,
    run.downloads,
    await freeBytes(run.downloads),
    needs,
  )
  if (!shortfall) return true
  run.report.stopped = { code: 'OUTPUT_UNWRITABLE', message: shortfall }
  return false
}

/**
 * Step 3: every file not recovered yet, downloaded. Nothing is decrypted before all are here: which
 * copy of a file is the newest is known only once every bundle can be read (recovery-plan.ts).
 */
async function downloadAll(run: HeirRun): Promise<Downloaded[]> {
  const downloaded: Downloaded[] = []
  for (const [index, file] of run.files.entries()) {
    if (run.report.stopped) {
      run.report.results.push({
        ...baseOf(run, file),
        status: 'not-reached',
        message: 'Not recovered yet: the run stopped before this file. Start the recovery again.',
      })
      continue
    }
    const got = await downloadOne(run, file, index)
    if (got) downloaded.push(got)
  }
  return downloaded
}

/**
 * Step 4: the downloads checked and decrypted as local files: the vault's manifest and the write
 * times sealed in the blobs decide which copy of each file is written, never the service's dates
 * (recovery-plan.ts). Downloads are removed, except those of files that could not be written.
 */
async function decryptDownloads(run: HeirRun, downloaded: Downloaded[]): Promise<void> {
  const { opts, report } = run
  const byPart = new Map(downloaded.map((item) => [item.part, item]))
  // Named as the heir knows them (the service's names), not by the local download names.
  const named = (part: string) => `"${byPart.get(part)?.file.name ?? part}" on the service`
  let checked = 0
  const result = await recoverRun({
    vaultKey: opts.vaultKey,
    vaultId: opts.vaultId,
    inputs: downloaded.map((item) => item.part),
    outDir: opts.outDir,
    backend: opts.backend,
    describeInput: (part) => named(part),
    // Only for a file of format 1 or 2, and never above a copy dated inside (FORMAT.md 3.11).
    sourceDateMs: (part) => byPart.get(part)?.file.uploadedAtMs,
    staged: (part) => byPart.get(part)?.staged,
    onProgress: (p) => {
      const item = byPart.get(p.input)
      if (item) run.progress(item.file, item.index, 'checking', p.allBytesDone - checked)
      checked = p.allBytesDone
    },
  })
  report.manifestExpected = result.manifestExpected
  report.manifest = result.manifest && {
    ...result.manifest,
    inputs: result.manifest.inputs.map(named),
    rivals: result.manifest.rivals.map(named),
  }
  const keepPart = new Set<string>()
  for (const fileResult of result.results) {
    const item = byPart.get(fileResult.input)
    report.results.push(heirResultOf(fileResult, item, opts.outDir))
    // A file that could not be written (in the way, say): its download is kept for the next run.
    if (
      item &&
      (fileResult.status === 'skipped' || (fileResult.status === 'failed' && isWriteSide(fileResult.reason)))
    ) {
      keepPart.add(item.part)
    }
  }
  for (const { part } of downloaded) if (!keepPart.has(part)) await rm(part, { force: true })
  await removeStaged(downloaded)
  await rmdir(run.downloads).catch(() => {})
}

export async function recoverFromService(opts: HeirRecoveryOptions): Promise<HeirRecoveryReport> {
  const report: HeirRecoveryReport = {
    vaultId: opts.vaultId,
    outDir: opts.outDir,
    results: [],
    manifest: null,
    manifestExpected: false,
  }
  const listing = await openListing(opts, report)
  if (!listing) return report
  const downloads = join(opts.outDir, DOWNLOADS_FOLDER)
  if (!(await prepareOutput(opts, report, downloads))) return report

  const { client, files } = listing
  const totalBytes = 2 * files.reduce((sum, f) => sum + f.encryptedBytes, 0)
  let doneBytes = 0
  const run: HeirRun = {
    opts,
    client,
    files,
    report,
    downloads,
    progress(file, index, phase, add) {
      doneBytes += add
      opts.onProgress?.({
        name: file.name,
        fileNumber: index + 1,
        fileCount: files.length,
        phase,
        doneBytes,
        totalBytes,
      })
    },
  }
  if (!(await roomForDownloads(run))) return report
  const downloaded = await downloadAll(run)
  if (report.stopped) {
    for (const { file } of downloaded) {
      report.results.push({
        ...baseOf(run, file),
        status: 'not-reached',
        message:
          'Downloaded, not decrypted yet: files are decrypted once all of them are downloaded. Start the recovery again; it will not download this one again.',
      })
    }
    await removeStaged(downloaded)
    return report
  }
  await decryptDownloads(run, downloaded)
  // No rehearsal is reported from here: a practice is recovered with practice kits only
  // (practice-recovery.ts), and nothing is ever computed from the real key for a practice.
  return report
}

function isWriteSide(reason: string | undefined): boolean {
  return reason === 'exists' || reason === 'link' || reason === 'unsafe-name' || reason === 'write-failed'
}

/** One file's line for the heir, from the run's result for it (file: the service's asset it came from). */
function heirResultOf(
  result: FileRecoveryResult,
  downloaded: { file: HeirFile; part: string } | undefined,
  outDir: string,
): HeirFileResult {
  const file = downloaded?.file
  // The name the file was written under (from the blob), else the one it has in the vault: never the
  // local download's name, which a blob refused before its name was read falls back to.
  const fallback = downloaded ? `${basename(downloaded.part)}.decrypted` : undefined
  const name =
    result.output?.startsWith(resolve(outDir)) && basename(result.output) !== fallback
      ? relative(resolve(outDir), result.output).split(sep).join('/')
      : (result.entry ?? file?.name ?? '')
  const base = { assetId: file?.assetId ?? '', name, output: result.output }
  const damaged = result.status === 'failed' && !isWriteSide(result.reason) && result.reason !== 'unreadable'
  if (damaged) {
    return {
      ...base,
      status: 'failed',
      ...(result.reason ? { reason: result.reason } : {}),
      message: result.entry
        ? `The bundle holding this file ("${file?.name}" on the service) was changed or damaged at or before this file, so it was refused and nothing was written for it; the bundle's files before that point were recovered. If there is another copy of it (a backup of the owner's .vault files, for example), recover that copy instead.`
        : "This file was changed or damaged on the service, so it was refused and nothing was written for it. The other files are not affected. If there is another copy of it (a backup of the owner's .vault files, for example), recover that copy instead.",
      ...(result.message ? { detail: result.detail ?? result.message } : {}),
    }
  }
  const status = result.status === 'skipped' ? 'failed' : result.status
  const renamedByService =
    result.status === 'recovered' && !result.entry && file && name !== file.name && !result.message
      ? `Recovered and checked, under the name sealed inside the file (the service listed it as "${file.name}").`
      : undefined
  return {
    ...base,
    status,
    ...(result.bytes !== undefined ? { bytes: result.bytes } : {}),
    ...(result.reason ? { reason: result.reason } : {}),
    message:
      result.status === 'kept'
        ? 'Already recovered by an earlier run; left as it is.'
        : result.status === 'recovered'
          ? (renamedByService ?? [result.message, 'Recovered and checked.'].filter(Boolean).join(' '))
          : (result.message ?? status),
    ...(result.detail ? { detail: result.detail } : {}),
    ...(result.olderCopy ? { olderCopy: true } : {}),
  }
}

/** A download that went past the size the listing declared (the file is refused, the run goes on). */
class TooLongError extends AppError {
  override readonly name = 'TooLongError'
  constructor(serviceUrl: string, listed: number) {
    super({
      code: 'DOWNLOAD_TOO_LONG',
      userMessage: TEXT.tooLong(serviceUrl, listed),
    })
  }
}

/** Plain-language one-liner per result, for the command-line tool. */
export function describeHeirResult(result: HeirFileResult): string {
  const label = {
    recovered: 'ok',
    kept: 'kept',
    superseded: 'older',
    newer: 'NEWER',
    missing: 'MISSING',
    damaged: 'DAMAGED',
    failed: 'FAILED',
    'not-reached': 'waiting',
  }[result.status === 'missing' && result.reason === 'damaged' ? 'damaged' : result.status]
  return `${label.padEnd(8)} ${result.name}${result.status === 'recovered' ? ` (${result.bytes} bytes)` : ''}: ${result.message}${result.detail ? ` (${result.detail})` : ''}`
}
