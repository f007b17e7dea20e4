// Heir recovery from Arweave, for when the vault service is gone: the vault's blobs are public, permanent
// Arweave transactions tagged with a reference derived from the vault id (docs/FORMAT.md, "Finding a vault
// on Arweave"), and the vault id is inside the kits. So the kits alone find the blobs through any
// gateway's GraphQL, download them, and decrypt them exactly as local .vault files (recover-files.ts).
// Anyone can tag a transaction with a vault's reference, so blobs that are not of this vault under this
// key are set aside, not counted as failures; `owner` accepts only one wallet's transactions, and the
// report says when several wallets tagged the vault. Downloads resume (byte ranges) and are kept until a
// run completes, so a re-run after an interruption fetches only what is missing.
// The gateway is trusted for nothing: transaction ids and addresses must have their exact shape (a
// gateway that sends anything else is refused by name), paging stops at a cap, a download never goes
// past the size the transaction declares, and local names are made here (confined-write.ts).
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { lstat, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream } from 'node:stream/web'
import type { AeadBackendName } from '../node-cipher/cipher-choice'
import { AppError } from '../shared/app-error'
import {
  ARWEAVE_ID,
  type ArweaveBlob,
  DEFAULT_MAX_PAGES,
  gatewayAddress,
  gatewayEndpoint,
  MAX_PAGE_BYTES,
  readSearchPage,
  searchBody,
} from '../shared/arweave-search'
import { type GatewayOddity, type GatewayStep, HEIR_SOURCE_TEXT } from '../shared/heir-source-text'
import { arweaveVaultRef, plaintextLength } from '../vault-format'
import { downloadStream, localDownloadName, makeConfinedFolders, outputRoot } from './confined-write'
import { outputWriteProblem } from './output-space'
import { type FileRecoveryResult, recoverRun } from './recover-files'
import type { ManifestUsed } from './recovery-plan'
import {
  countedDownload,
  refusedHeader,
  removeStaged,
  type StagedDecryption,
  type StagedPlaintext,
  type StagingOptions,
  stageBeside,
  stagedPathOf,
} from './staged-decryption'

/** Folder inside the output folder holding downloads (removed once a run completes). */
export const ARWEAVE_DOWNLOADS_FOLDER = '.vault-arweave-downloads'

export { VAULT_APP_NAME } from '../shared/arweave-search'
// The search and its checks are shared with the heir's recovery page (shared/arweave-search.ts), as
// are the heir's words (shared/heir-source-text.ts) and the Vault-Ref derivation (vault-format).
export { ARWEAVE_ID, type ArweaveBlob, arweaveVaultRef, DEFAULT_MAX_PAGES }

const TEXT = HEIR_SOURCE_TEXT.en

export type ArweaveStopCode =
  | 'INVALID_ADDRESS'
  | 'INVALID_OWNER'
  | 'GATEWAY_UNREACHABLE'
  | 'GATEWAY_ERROR'
  | 'GATEWAY_UNTRUSTWORTHY'
  | 'TOO_MANY_PAGES'
  | 'OUTPUT_UNWRITABLE'

/** Why a run could not go on; the message says what happened and what to do. */
export class ArweaveRecoveryError extends AppError {
  override readonly name = 'ArweaveRecoveryError'
  declare readonly code: ArweaveStopCode

  constructor(code: ArweaveStopCode, message: string) {
    super({ code, userMessage: message })
  }
}

export interface ArweaveRecoveryProgress {
  phase: 'looking' | 'downloading' | 'checking'
  /** The transaction id (downloading) or the encrypted file (checking). */
  name: string
  fileNumber: number
  fileCount: number
  doneBytes: number
  totalBytes: number
}

export interface ArweaveRecoveryOptions {
  /** A gateway serving /graphql and transaction data, e.g. https://arweave.net. */
  gateway: string
  /** The vault id, from the kits. */
  vaultId: string
  vaultKey: Uint8Array
  outDir: string
  backend?: AeadBackendName
  /** Per-request timeout for the GraphQL queries, and the longest a download may stall (default 60 s). */
  timeoutMs?: number
  /** Accept only transactions this wallet posted (the vault service's operator address). */
  owner?: string
  /** Pages followed at most (DEFAULT_MAX_PAGES). */
  maxPages?: number
  onProgress?: (progress: ArweaveRecoveryProgress) => void
}

export interface ArweaveRecoveryReport {
  vaultId: string
  vaultRef: string
  /** The vault's blobs found on the network. */
  found: ArweaveBlob[]
  /** One result per recovered file (a bundle gives one per file inside); input is "arweave:<tx id>". */
  results: FileRecoveryResult[]
  /** Tagged transactions that are not files of this vault under this key (anyone can tag one). */
  foreign: { txId: string; owner: string }[]
  /**
   * Every wallet whose transactions with the vault's label were found (only `owner`'s when given), most
   * first. More than one: someone else labelled transactions with the vault's reference.
   */
  owners: { address: string; count: number }[]
  /** The vault manifest the run went by; null when none was found (or the run stopped before). */
  manifest: ManifestUsed | null
  /** No manifest was found where the files say there must be one (FORMAT.md 3.11). */
  manifestExpected: boolean
  /** Set when the run had to stop (gateway unreachable); a re-run continues. */
  stopped?: { code: ArweaveStopCode; message: string }
}

function gatewayUrl(gateway: string): URL {
  const url = gatewayAddress(gateway)
  if (!url) throw new ArweaveRecoveryError('INVALID_ADDRESS', TEXT.gatewayAddress(gateway))
  return url
}

const endpoint = gatewayEndpoint

function unreachable(gateway: URL, at: GatewayStep, error: unknown): ArweaveRecoveryError {
  const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message
  return new ArweaveRecoveryError('GATEWAY_UNREACHABLE', TEXT.gatewayUnreachable(gateway.origin, at, cause))
}

/** The gateway answered something no honest gateway sends: named, and another gateway advised. */
function untrustworthy(gateway: URL, oddity: GatewayOddity): ArweaveRecoveryError {
  return new ArweaveRecoveryError('GATEWAY_UNTRUSTWORTHY', TEXT.gatewayUntrustworthy(gateway.origin, oddity))
}

/** At most `limit` bytes of a response body, as text; null when it is longer. */
async function boundedText(response: Response, limit: number): Promise<string | null> {
  if (!response.body) return ''
  const pieces: Buffer[] = []
  let length = 0
  for await (const piece of Readable.fromWeb(response.body as ReadableStream)) {
    length += (piece as Buffer).length
    if (length > limit) return null
    pieces.push(piece as Buffer)
  }
  return Buffer.concat(pieces).toString('utf8')
}

/** The "--owner" address as given, or INVALID_OWNER. */
export function checkOwnerAddress(owner: string): string {
  const address = owner.trim()
  if (!ARWEAVE_ID.test(address)) {
    throw new ArweaveRecoveryError('INVALID_OWNER', TEXT.ownerAddress(owner))
  }
  return address
}

/**
 * Every transaction tagged with this vault's reference (and posted by `owner`, when given), oldest
 * first, through the gateway's GraphQL. Throws ArweaveRecoveryError when the gateway cannot be reached,
 * answers something that is not a transaction list, or pages on beyond `maxPages`.
 */
export async function findVaultBlobs(
  gateway: string,
  vaultId: string,
  options: { timeoutMs?: number; owner?: string; maxPages?: number } = {},
): Promise<ArweaveBlob[]> {
  const url = gatewayUrl(gateway)
  const owner = options.owner === undefined ? undefined : checkOwnerAddress(options.owner)
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES
  const vaultRef = arweaveVaultRef(vaultId)
  const blobs = new Map<string, ArweaveBlob>()
  const cursors = new Set<string>()
  let after: string | undefined
  for (let page = 1; ; page++) {
    if (page > maxPages) {
      throw new ArweaveRecoveryError('TOO_MANY_PAGES', TEXT.gatewayTooManyPages(url.origin, maxPages))
    }
    let response: Response
    try {
      response = await fetch(endpoint(url, 'graphql'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: searchBody(vaultRef, owner, after),
        signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
      })
    } catch (error) {
      throw unreachable(url, { step: 'search' }, error)
    }
    let text: string | null
    try {
      text = await boundedText(response, MAX_PAGE_BYTES)
    } catch (error) {
      throw unreachable(url, { step: 'search-read' }, error)
    }
    if (text === null) throw untrustworthy(url, { kind: 'big-page', mb: MAX_PAGE_BYTES >> 20 })
    const read = readSearchPage(text, response.ok, vaultRef, owner, cursors)
    if (read.kind === 'failed') {
      throw new ArweaveRecoveryError(
        'GATEWAY_ERROR',
        TEXT.gatewaySearchFailed(url.origin, response.status, read.detail),
      )
    }
    if (read.kind === 'untrustworthy') throw untrustworthy(url, read.oddity)
    for (const blob of read.blobs) blobs.set(blob.txId, blob)
    if (read.after === undefined) break
    after = read.after
  }
  return [...blobs.values()]
}

/** Each wallet that posted transactions with the vault's label, and how many: most first. */
function ownersOf(blobs: readonly ArweaveBlob[]): { address: string; count: number }[] {
  const counts = new Map<string, number>()
  for (const blob of blobs) counts.set(blob.owner, (counts.get(blob.owner) ?? 0) + 1)
  return [...counts].map(([address, count]) => ({ address, count })).sort((a, b) => b.count - a.count)
}

function isBlobLength(size: number): boolean {
  try {
    plaintextLength(size)
    return true
  } catch {
    return false
  }
}

/** The size of a file there (never through a link: a link counts as nothing there). */
async function sizeOf(path: string): Promise<number | undefined> {
  try {
    const info = await lstat(path)
    return info.isFile() ? info.size : undefined
  } catch {
    return undefined
  }
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const piece of createReadStream(path)) hash.update(piece as Buffer)
  return hash.digest('hex')
}

/** Where a blob's download goes: a name made here, never the transaction id the gateway gave. */
function downloadPath(downloads: string, vaultId: string, blob: ArweaveBlob): string {
  return join(downloads, `${localDownloadName('arweave', vaultId, blob.txId)}.vault`)
}

/** A download that went past the size its transaction declares (turned into 'too-long' below). */
class TooLongError extends AppError {
  override readonly name = 'TooLongError'
  constructor() {
    super({
      code: 'DOWNLOAD_TOO_LONG',
      userMessage: 'The gateway sent more bytes than the transaction holds.',
    })
  }
}

/**
 * Each mined download's date for FORMAT.md 3.11 step 2: the first block that carried its bytes. Anyone
 * can post a blob's public bytes again later, with or without the Content-SHA256 tag; dated by its own
 * block, an old draft re-posted would pass for the newest copy of a file of format 1 or 2.
 */
async function firstMinedDates(
  inputs: readonly { path: string; blob: ArweaveBlob }[],
): Promise<Map<string, number>> {
  const contentOf = new Map<string, string>()
  const first = new Map<string, number>()
  for (const { path, blob } of inputs) {
    if (blob.minedAtMs === undefined) continue
    // A tag has been checked against the bytes downloaded; without one they are hashed here.
    const content = blob.sha256Hex ?? (await sha256Of(path))
    contentOf.set(path, content)
    first.set(content, Math.min(first.get(content) ?? blob.minedAtMs, blob.minedAtMs))
  }
  return new Map([...contentOf].map(([path, content]) => [path, first.get(content)!]))
}

/** A download whose header shows a blob of another key or vault (turned into 'foreign' below). */
class ForeignBlobError extends AppError {
  override readonly name = 'ForeignBlobError'
  constructor() {
    super({
      code: 'DOWNLOAD_FOREIGN',
      userMessage: "The transaction is not a file of this vault: the kits' key does not open it.",
    })
  }
}

/**
 * GET with redirects followed by hand: at most 5, and only to http(s) addresses (arweave.net sends data
 * requests on to its own hosts; a redirect to file: or anything else is the gateway lying).
 */
async function fetchData(
  gateway: URL,
  txId: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<Response> {
  let target = endpoint(gateway, txId)
  for (let hop = 0; ; hop++) {
    const response = await fetch(target, { headers, redirect: 'manual', signal })
    if (response.status < 300 || response.status >= 400 || !response.headers.get('location')) return response
    await response.body?.cancel()
    const next = new URL(response.headers.get('location')!, target)
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw untrustworthy(gateway, { kind: 'redirect', txId, to: JSON.stringify(next.href.slice(0, 80)) })
    }
    if (hop === 5) throw untrustworthy(gateway, { kind: 'redirects', txId })
    target = next.href
  }
}

/**
 * Downloads one blob into `downloads`, continuing a cut-off download with a byte range, never past the
 * size its transaction declares. Returns 'mismatch' (and keeps nothing) when the bytes are not what the
 * transaction's tags say, 'too-long' when the gateway sent more than declared, 'foreign' (and keeps
 * nothing) as soon as its header shows a blob of another key or vault.
 */
async function download(
  url: URL,
  blob: ArweaveBlob,
  done: string,
  stallMs: number,
  onBytes: (bytes: number) => void,
  keys: Omit<StagingOptions, 'path'>,
): Promise<{ outcome: 'done'; staged?: StagedPlaintext } | { outcome: 'mismatch' | 'too-long' | 'foreign' }> {
  // Plaintext staged by a run that was killed is never reused, nor left lying there.
  await rm(stagedPathOf(done), { force: true }).catch(() => {})
  if ((await sizeOf(done)) === blob.size) {
    // Checked against this gateway's tag: an earlier run's may have come from a gateway that lied.
    if (!blob.sha256Hex || (await sha256Of(done)) === blob.sha256Hex) {
      onBytes(blob.size)
      return { outcome: 'done' }
    }
    await rm(done, { force: true })
  }
  const part = `${done}.part`
  let have = (await sizeOf(part)) ?? 0
  if (have > blob.size) {
    await rm(part, { force: true })
    have = 0
  }
  // An earlier run's beginning that already shows another vault's blob is not continued.
  if (have > 0 && have < blob.size && (await refusedHeader(part, keys))) {
    await rm(part, { force: true })
    return { outcome: 'foreign' }
  }
  let staging: StagedDecryption | undefined
  if (have < blob.size) {
    // A download that stops moving for stallMs is ended (a gateway could hold it open for ever).
    const stall = new AbortController()
    let timer = setTimeout(() => stall.abort(), stallMs)
    const moved = () => {
      clearTimeout(timer)
      timer = setTimeout(() => stall.abort(), stallMs)
    }
    const stalled = () =>
      new ArweaveRecoveryError(
        'GATEWAY_UNREACHABLE',
        TEXT.gatewayStalled(url.origin, blob.txId, Math.round(stallMs / 1000)),
      )
    let response: Response
    try {
      response = await fetchData(url, blob.txId, have > 0 ? { range: `bytes=${have}-` } : {}, stall.signal)
    } catch (error) {
      clearTimeout(timer)
      if (error instanceof ArweaveRecoveryError) throw error
      if (stall.signal.aborted) throw stalled()
      throw unreachable(url, { step: 'download', txId: blob.txId }, error)
    }
    if (!response.ok || !response.body) {
      throw new ArweaveRecoveryError(
        'GATEWAY_ERROR',
        TEXT.gatewayNotServed(url.origin, blob.txId, response.status),
      )
    }
    // A gateway that ignores the range sends the whole blob again.
    if (have > 0 && response.status !== 206) have = 0
    onBytes(have)
    // Only a blob downloaded from its first byte in this run is decrypted as it comes.
    if (have === 0) staging = await stageBeside(done, keys)
    // Cut at the declared size: never read beyond it, never keep it; nor past a foreign header.
    const counter = countedDownload(blob.size - have, {
      tooLong: () => new TooLongError(),
      foreign: () => new ForeignBlobError(),
      onPiece: (bytes) => {
        moved()
        onBytes(bytes)
      },
      ...(staging ? { staging } : {}),
    })
    try {
      const sink = await downloadStream(part, have > 0)
      await pipeline(Readable.fromWeb(response.body as ReadableStream), counter, sink)
    } catch (error) {
      await staging?.abandon()
      if (error instanceof TooLongError || error instanceof ForeignBlobError) {
        await rm(part, { force: true })
        return { outcome: error instanceof TooLongError ? 'too-long' : 'foreign' }
      }
      if ((error as NodeJS.ErrnoException).syscall) throw error
      if (stall.signal.aborted) throw stalled()
      throw unreachable(url, { step: 'download', txId: blob.txId, cutOff: true }, error)
    } finally {
      clearTimeout(timer)
    }
  } else {
    onBytes(blob.size)
  }
  if ((await sizeOf(part)) !== blob.size || (blob.sha256Hex && (await sha256Of(part)) !== blob.sha256Hex)) {
    await staging?.abandon()
    await rm(part, { force: true })
    return { outcome: 'mismatch' }
  }
  await rename(part, done)
  const staged = await staging?.finish()
  return { outcome: 'done', ...(staged ? { staged } : {}) }
}

/**
 * Finds the vault's blobs on Arweave, downloads them into a folder inside `outDir`, and decrypts them
 * there as recover-files.ts does local files: the vault's newest manifest decides which files and
 * copies are recovered, else each file's sealed write time (recovery-plan.ts).
 */
export async function recoverFromArweave(opts: ArweaveRecoveryOptions): Promise<ArweaveRecoveryReport> {
  const vaultRef = arweaveVaultRef(opts.vaultId)
  const report: ArweaveRecoveryReport = {
    vaultId: opts.vaultId,
    vaultRef,
    found: [],
    results: [],
    foreign: [],
    owners: [],
    manifest: null,
    manifestExpected: false,
  }
  let url: URL
  try {
    url = gatewayUrl(opts.gateway)
    opts.onProgress?.({
      phase: 'looking',
      name: url.origin,
      fileNumber: 0,
      fileCount: 0,
      doneBytes: 0,
      totalBytes: 0,
    })
    const found = await findVaultBlobs(opts.gateway, opts.vaultId, {
      timeoutMs: opts.timeoutMs,
      maxPages: opts.maxPages,
      ...(opts.owner !== undefined ? { owner: opts.owner } : {}),
    })
    report.owners = ownersOf(found)
    report.found = found
  } catch (error) {
    if (!(error instanceof ArweaveRecoveryError)) throw error
    report.stopped = { code: error.code, message: error.message }
    return report
  }
  const downloads = join(opts.outDir, ARWEAVE_DOWNLOADS_FOLDER)
  try {
    await makeConfinedFolders(await outputRoot(opts.outDir), downloads)
  } catch (error) {
    report.stopped = {
      code: 'OUTPUT_UNWRITABLE',
      message: `The folder ${opts.outDir} cannot be used (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Choose a folder you can write to and start again.`,
    }
    return report
  }

  // 1. Download everything first: which copy of a file is newest is known only once all are here. The
  // disk is not checked before (as the service's run does): these sizes are only what anyone posting
  // under the vault's reference declared, and one of them must not stop the others.
  const totalBytes = report.found.reduce((sum, b) => sum + b.size, 0)
  let doneBytes = 0
  const inputs: { path: string; blob: ArweaveBlob; staged?: StagedPlaintext }[] = []
  for (const [index, blob] of report.found.entries()) {
    // A length no encrypted file can have (section 3.1): someone else's transaction, not worth fetching.
    if (!isBlobLength(blob.size)) {
      report.foreign.push({ txId: blob.txId, owner: blob.owner })
      continue
    }
    const path = downloadPath(downloads, opts.vaultId, blob)
    // Per-request timeout of the searches, and the longest a download may stand still.
    const stallMs = opts.timeoutMs ?? 60_000
    let downloaded: Awaited<ReturnType<typeof download>>
    const keys = {
      vaultKey: opts.vaultKey,
      vaultId: opts.vaultId,
      ...(opts.backend ? { backend: opts.backend } : {}),
    }
    try {
      downloaded = await download(
        url,
        blob,
        path,
        stallMs,
        (bytes) => {
          doneBytes += bytes
          opts.onProgress?.({
            phase: 'downloading',
            name: blob.txId,
            fileNumber: index + 1,
            fileCount: report.found.length,
            doneBytes,
            totalBytes,
          })
        },
        keys,
      )
    } catch (error) {
      // The run stops: nothing staged is kept, this blob's included.
      await rm(stagedPathOf(path), { force: true })
      await removeStaged(inputs)
      const diskProblem = outputWriteProblem(error, opts.outDir, `downloading ${blob.txId}`)
      if (diskProblem) {
        report.stopped = { code: 'OUTPUT_UNWRITABLE', message: diskProblem }
        return report
      }
      if (!(error instanceof ArweaveRecoveryError)) throw error
      report.stopped = { code: error.code, message: error.message }
      return report
    }
    // Set aside as the ones found once downloaded are (below), with no more of it fetched or kept.
    if (downloaded.outcome === 'foreign') {
      report.foreign.push({ txId: blob.txId, owner: blob.owner })
      continue
    }
    if (downloaded.outcome !== 'done') {
      report.results.push({
        input: `arweave:${blob.txId}`,
        output: '',
        status: 'failed',
        reason: 'unreadable',
        message:
          downloaded.outcome === 'too-long'
            ? TEXT.gatewayTooLong(url.origin, blob.txId, blob.size)
            : TEXT.gatewayMismatch(blob.txId),
      })
      continue
    }
    inputs.push({
      path,
      blob,
      ...(downloaded.staged ? { staged: downloaded.staged } : {}),
    })
  }

  // 2. Decrypt as local files. Which copy wins is what the blobs authenticate (the manifest, write
  // times): never the block time or the order the gateway listed them in.
  const byPath = new Map(inputs.map((i) => [i.path, i.blob]))
  const minedAt = await firstMinedDates(inputs)
  const stagedOf = new Map(inputs.flatMap((i) => (i.staged ? [[i.path, i.staged] as const] : [])))
  const run = await recoverRun({
    vaultKey: opts.vaultKey,
    vaultId: opts.vaultId,
    inputs: inputs.map((i) => i.path),
    outDir: opts.outDir,
    backend: opts.backend,
    describeInput: (input) => {
      const blob = byPath.get(input)
      return blob ? `arweave:${blob.txId}` : input
    },
    // Only for a file of format 1 or 2, and never above a copy dated inside (FORMAT.md 3.11, 9.3).
    sourceDateMs: (input) => minedAt.get(input),
    staged: (input) => stagedOf.get(input),
    onProgress: (p) =>
      opts.onProgress?.({
        phase: 'checking',
        name: byPath.get(p.input)?.txId ?? p.input,
        fileNumber: p.fileNumber,
        fileCount: p.fileCount,
        doneBytes: p.allBytesDone,
        totalBytes: p.allBytesTotal,
      }),
  })
  // Named as the heir knows them (transactions), not by the local download names.
  const named = (input: string) => {
    const blob = byPath.get(input)
    return blob ? `arweave:${blob.txId}` : input
  }
  report.manifestExpected = run.manifestExpected
  report.manifest = run.manifest && {
    ...run.manifest,
    inputs: run.manifest.inputs.map(named),
    rivals: run.manifest.rivals.map(named),
  }
  for (const result of run.results) {
    const blob = byPath.get(result.input)
    const input = blob ? `arweave:${blob.txId}` : result.input
    if (blob && (result.reason === 'wrong-key' || result.reason === 'wrong-vault')) {
      report.foreign.push({ txId: blob.txId, owner: blob.owner })
      continue
    }
    report.results.push({ ...result, input })
  }
  await removeStaged(inputs)
  const settled = report.results.every((r) => ['recovered', 'kept', 'superseded'].includes(r.status))
  if (settled) await rm(downloads, { recursive: true, force: true })
  return report
}
