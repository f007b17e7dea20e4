// Heir recovery from Arweave, for when the vault service is gone: the vault's blobs are public, permanent
// Arweave transactions tagged with a reference derived from the vault id (docs/FORMAT.md, "Finding a vault
// on Arweave"), and the vault id is inside the kits. So the kits alone find the blobs through any
// gateway's GraphQL, download them, and decrypt them exactly as local .vault files (recover-files.ts).
// Anyone can tag a transaction with a vault's reference, so blobs that are not of this vault under this
// key are set aside, not counted as failures. Downloads resume (byte ranges) and are kept until a run
// completes, so a re-run after an interruption fetches only what is missing.
import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream } from 'node:stream/web'
import type { AeadBackendName } from '../node-cipher/cipher-choice'
import { AppError } from '../shared/app-error'
import { plaintextLength } from '../vault-format/chunked-format'
import { type FileRecoveryResult, recoverFiles } from './recover-files'

/** Folder inside the output folder holding downloads (removed once a run completes). */
export const ARWEAVE_DOWNLOADS_FOLDER = '.vault-arweave-downloads'

/** The tags of docs/FORMAT.md ("Finding a vault on Arweave"), version 1. */
export const VAULT_APP_NAME = 'Vault-Desktop'

/** SHA-256("vault-desktop/arweave/v1" || 0x00 || UTF-8(vault id)) in lowercase hex: the Vault-Ref tag. */
export function arweaveVaultRef(vaultId: string): string {
  return createHash('sha256')
    .update(Buffer.concat([Buffer.from('vault-desktop/arweave/v1'), Buffer.from([0]), Buffer.from(vaultId)]))
    .digest('hex')
}

/** One transaction tagged with the vault's reference. */
export interface ArweaveBlob {
  txId: string
  /** The wallet that posted it (the vault service's operator, for genuine blobs). */
  owner: string
  size: number
  /** The Content-SHA256 tag, when present and well formed. */
  sha256Hex?: string
  /** When its block was mined (ms); undefined while it waits for a block. */
  minedAtMs?: number
}

export type ArweaveStopCode =
  | 'INVALID_ADDRESS'
  | 'GATEWAY_UNREACHABLE'
  | 'GATEWAY_ERROR'
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
  /** Per-request timeout for the GraphQL queries (default 60 s). */
  timeoutMs?: number
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
  /** Set when the run had to stop (gateway unreachable); a re-run continues. */
  stopped?: { code: ArweaveStopCode; message: string }
}

const SHA256_HEX = /^[0-9a-f]{64}$/

const QUERY = `query($tags: [TagFilter!]!, $after: String) {
  transactions(tags: $tags, first: 100, after: $after, sort: HEIGHT_ASC) {
    pageInfo { hasNextPage }
    edges { cursor node { id owner { address } data { size } block { timestamp } tags { name value } } }
  }
}`

interface TransactionsPage {
  transactions: {
    pageInfo: { hasNextPage: boolean }
    edges: {
      cursor: string
      node: {
        id: string
        owner: { address: string }
        data: { size: string }
        block: { timestamp: number } | null
        tags: { name: string; value: string }[]
      }
    }[]
  }
}

function gatewayUrl(gateway: string): URL {
  let url: URL | undefined
  try {
    url = new URL(gateway)
  } catch {
    url = undefined
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ArweaveRecoveryError(
      'INVALID_ADDRESS',
      `"${gateway}" is not a gateway address. Give one such as https://arweave.net (any Arweave gateway that answers GraphQL queries will do).`,
    )
  }
  url.pathname = url.pathname.replace(/\/+$/, '')
  url.search = ''
  url.hash = ''
  return url
}

function endpoint(gateway: URL, path: string): string {
  return `${gateway.href.replace(/\/$/, '')}/${path}`
}

function unreachable(gateway: URL, what: string, error: unknown): ArweaveRecoveryError {
  const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message
  return new ArweaveRecoveryError(
    'GATEWAY_UNREACHABLE',
    `The Arweave gateway ${gateway.origin} could not be reached ${what} (${cause}). Check the internet connection and the address, or try another gateway (https://arweave.net is one), then start the recovery again: files already recovered are kept and finished downloads are not fetched again.`,
  )
}

/** Every transaction tagged with this vault's reference, oldest first, through the gateway's GraphQL. */
export async function findVaultBlobs(
  gateway: string,
  vaultId: string,
  options: { timeoutMs?: number } = {},
): Promise<ArweaveBlob[]> {
  const url = gatewayUrl(gateway)
  const vaultRef = arweaveVaultRef(vaultId)
  // op EQ is every gateway's default, but arlocal applies it only when given.
  const tags = [
    { name: 'App-Name', values: [VAULT_APP_NAME], op: 'EQ' },
    { name: 'Vault-Ref', values: [vaultRef], op: 'EQ' },
  ]
  const blobs = new Map<string, ArweaveBlob>()
  let after: string | undefined
  for (;;) {
    let response: Response
    try {
      response = await fetch(endpoint(url, 'graphql'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: QUERY, variables: { tags, after } }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
      })
    } catch (error) {
      throw unreachable(url, "to look up the vault's files", error)
    }
    const body = (await response.json().catch(() => ({}))) as {
      data?: TransactionsPage
      errors?: { message: string }[]
    }
    if (!response.ok || !body.data?.transactions) {
      throw new ArweaveRecoveryError(
        'GATEWAY_ERROR',
        `The Arweave gateway ${url.origin} did not answer the search for the vault's files (HTTP ${response.status}${body.errors?.[0] ? `: ${body.errors[0].message}` : ''}). Use a gateway that answers GraphQL queries, such as https://arweave.net, and start again.`,
      )
    }
    const { edges, pageInfo } = body.data.transactions
    for (const { node } of edges) {
      // Whatever the gateway's filter did, only this vault's transactions are downloaded.
      if (!node.tags.some((t) => t.name === 'Vault-Ref' && t.value === vaultRef)) continue
      const sha = node.tags.find((t) => t.name === 'Content-SHA256')?.value.toLowerCase()
      blobs.set(node.id, {
        txId: node.id,
        owner: node.owner.address,
        size: Number(node.data.size),
        ...(sha && SHA256_HEX.test(sha) ? { sha256Hex: sha } : {}),
        ...(node.block ? { minedAtMs: blockTimeMs(node.block.timestamp) } : {}),
      })
    }
    if (!pageInfo.hasNextPage || edges.length === 0) break
    after = edges[edges.length - 1]!.cursor
  }
  return [...blobs.values()]
}

function isBlobLength(size: number): boolean {
  try {
    plaintextLength(size)
    return true
  } catch {
    return false
  }
}

/** Gateways give a block's time in seconds; arlocal (the local test network) gives milliseconds. */
function blockTimeMs(timestamp: number): number {
  return timestamp < 1e11 ? timestamp * 1000 : timestamp
}

async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size
  } catch {
    return undefined
  }
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const piece of createReadStream(path)) hash.update(piece as Buffer)
  return hash.digest('hex')
}

/**
 * Downloads one blob to `<downloads>/<tx id>.vault`, continuing a cut-off download with a byte range.
 * Returns false (and keeps nothing) when the bytes are not what the transaction's tags say.
 */
async function download(
  url: URL,
  blob: ArweaveBlob,
  downloads: string,
  onBytes: (bytes: number) => void,
): Promise<'done' | 'mismatch'> {
  const done = join(downloads, `${blob.txId}.vault`)
  if ((await sizeOf(done)) === blob.size) {
    onBytes(blob.size)
    return 'done'
  }
  const part = `${done}.part`
  let have = (await sizeOf(part)) ?? 0
  if (have > blob.size) {
    await rm(part, { force: true })
    have = 0
  }
  if (have < blob.size) {
    let response: Response
    try {
      response = await fetch(endpoint(url, blob.txId), {
        headers: have > 0 ? { range: `bytes=${have}-` } : {},
      })
    } catch (error) {
      throw unreachable(url, `to download ${blob.txId}`, error)
    }
    if (!response.ok || !response.body) {
      throw new ArweaveRecoveryError(
        'GATEWAY_ERROR',
        `The Arweave gateway ${url.origin} did not serve ${blob.txId} (HTTP ${response.status}). Try again later or with another gateway: files already recovered are kept.`,
      )
    }
    // A gateway that ignores the range sends the whole blob again.
    if (have > 0 && response.status !== 206) have = 0
    onBytes(have)
    const counter = new Transform({
      transform(piece: Buffer, _encoding, next) {
        onBytes(piece.length)
        next(null, piece)
      },
    })
    try {
      await pipeline(
        Readable.fromWeb(response.body as ReadableStream),
        counter,
        createWriteStream(part, { flags: have > 0 ? 'a' : 'w' }),
      )
    } catch (error) {
      if ((error as NodeJS.ErrnoException).syscall) throw error
      throw unreachable(url, `while downloading ${blob.txId} (the download was cut off)`, error)
    }
  } else {
    onBytes(blob.size)
  }
  if ((await sizeOf(part)) !== blob.size || (blob.sha256Hex && (await sha256Of(part)) !== blob.sha256Hex)) {
    await rm(part, { force: true })
    return 'mismatch'
  }
  await rename(part, done)
  return 'done'
}

/**
 * Finds the vault's blobs on Arweave, downloads them into a folder inside `outDir`, and decrypts them
 * there as recover-files.ts does local files (newest copy of a file wins; a single-file blob is dated by
 * its block).
 */
export async function recoverFromArweave(opts: ArweaveRecoveryOptions): Promise<ArweaveRecoveryReport> {
  const vaultRef = arweaveVaultRef(opts.vaultId)
  const report: ArweaveRecoveryReport = {
    vaultId: opts.vaultId,
    vaultRef,
    found: [],
    results: [],
    foreign: [],
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
    report.found = await findVaultBlobs(opts.gateway, opts.vaultId, { timeoutMs: opts.timeoutMs })
  } catch (error) {
    if (!(error instanceof ArweaveRecoveryError)) throw error
    report.stopped = { code: error.code, message: error.message }
    return report
  }
  const downloads = join(opts.outDir, ARWEAVE_DOWNLOADS_FOLDER)
  try {
    await mkdir(downloads, { recursive: true })
  } catch (error) {
    report.stopped = {
      code: 'OUTPUT_UNWRITABLE',
      message: `The folder ${opts.outDir} cannot be used (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Choose a folder you can write to and start again.`,
    }
    return report
  }

  // 1. Download everything first: which copy of a file is newest is known only once all are here.
  const totalBytes = report.found.reduce((sum, b) => sum + b.size, 0)
  let doneBytes = 0
  const inputs: { path: string; blob: ArweaveBlob }[] = []
  for (const [index, blob] of report.found.entries()) {
    // A length no encrypted file can have (section 3.1): someone else's transaction, not worth fetching.
    if (!isBlobLength(blob.size)) {
      report.foreign.push({ txId: blob.txId, owner: blob.owner })
      continue
    }
    let outcome: 'done' | 'mismatch'
    try {
      outcome = await download(url, blob, downloads, (bytes) => {
        doneBytes += bytes
        opts.onProgress?.({
          phase: 'downloading',
          name: blob.txId,
          fileNumber: index + 1,
          fileCount: report.found.length,
          doneBytes,
          totalBytes,
        })
      })
    } catch (error) {
      if (!(error instanceof ArweaveRecoveryError)) throw error
      report.stopped = { code: error.code, message: error.message }
      return report
    }
    if (outcome === 'mismatch') {
      report.results.push({
        input: `arweave:${blob.txId}`,
        output: '',
        status: 'failed',
        reason: 'unreadable',
        message: `The gateway served bytes for ${blob.txId} that are not the stored file (wrong size or SHA-256). Nothing was written for it; run the recovery again, or with another gateway.`,
      })
      continue
    }
    inputs.push({ path: join(downloads, `${blob.txId}.vault`), blob })
  }

  // 2. Decrypt as local files; a blob's block dates it (bundles carry their own date).
  const byPath = new Map(inputs.map((i) => [i.path, i.blob]))
  const ordered = [...inputs].reverse() // newest block first, for blobs no date tells apart
  const results = await recoverFiles({
    vaultKey: opts.vaultKey,
    vaultId: opts.vaultId,
    inputs: ordered.map((i) => i.path),
    outDir: opts.outDir,
    backend: opts.backend,
    uploadedAtMs: (input) => byPath.get(input)?.minedAtMs,
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
  for (const result of results) {
    const blob = byPath.get(result.input)
    const input = blob ? `arweave:${blob.txId}` : result.input
    if (blob && (result.reason === 'wrong-key' || result.reason === 'wrong-vault')) {
      report.foreign.push({ txId: blob.txId, owner: blob.owner })
      continue
    }
    report.results.push({ ...result, input })
  }
  const settled = report.results.every((r) => ['recovered', 'kept', 'superseded'].includes(r.status))
  if (settled) await rm(downloads, { recursive: true, force: true })
  return report
}
