// Blobs on Arweave, the permanent storage network the interface speaks of: each stored (already encrypted)
// file becomes one Arweave data transaction signed with the operator's wallet, and its transaction id is
// the asset's storageTxId. The transactions are tagged (docs/FORMAT.md, "Finding a vault on Arweave") so
// that an heir holding the kits can find a vault's blobs with any gateway, without this service.
//
// A staged file is never read into memory whole: its Arweave chunks and data_root are computed while
// reading it once, the signed transaction header is posted without data, and the chunks are then read
// from disk and posted one by one. The file itself is kept in the cache folder as the local copy that
// reads are served from (read-through: a blob put by another instance is fetched from the gateway once).
import { createHash, randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import {
  chmod,
  type FileHandle,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import Arweave from 'arweave'
import {
  buildLayers,
  type Chunk,
  generateLeaves,
  generateProofs,
  MAX_CHUNK_SIZE,
  MIN_CHUNK_SIZE,
  type Proof,
} from 'arweave/node/lib/merkle.js'
import type { JWKInterface } from 'arweave/node/lib/wallet.js'
import {
  type BlobConfirmation,
  type BlobLabels,
  type BlobStore,
  BlobStoreError,
  type BlobToConfirm,
  type StoredBlob,
} from './blob-store'
import { makePrivateDir, PRIVATE_FILE_MODE } from './private-files'

/** The tags every blob carries; docs/FORMAT.md ("Finding a vault on Arweave") is their specification. */
export const ARWEAVE_TAGS = {
  appName: { name: 'App-Name', value: 'Vault-Desktop' },
  version: { name: 'Vault-Tags-Version', value: '1' },
  vaultRef: 'Vault-Ref',
  contentSha256: 'Content-SHA256',
  contentType: { name: 'Content-Type', value: 'application/octet-stream' },
} as const

/**
 * The public name of a vault on Arweave: SHA-256("vault-desktop/arweave/v1" || 0x00 || vault id) in hex.
 * Heirs compute it from the vault id inside their kits; the vault id itself is never published.
 */
export function vaultRefOf(vaultId: string): string {
  return createHash('sha256')
    .update(Buffer.concat([Buffer.from('vault-desktop/arweave/v1'), Buffer.from([0]), Buffer.from(vaultId)]))
    .digest('hex')
}

export type ArweaveStoreErrorCode =
  | 'WALLET_UNREADABLE'
  | 'BALANCE_TOO_LOW'
  | 'GATEWAY_UNREACHABLE'
  | 'GATEWAY_REFUSED'
  | 'BLOB_NOT_FOUND'
  | 'BLOB_MISMATCH'

/** What went wrong with the Arweave store, in words for the operator: what happened and what to do. */
export class ArweaveStoreError extends BlobStoreError {
  override readonly name = 'ArweaveStoreError'
  readonly code: ArweaveStoreErrorCode

  constructor(code: ArweaveStoreErrorCode, message: string) {
    super(message)
    this.code = code
  }
}

export interface ArweaveBlobStoreOptions {
  /** The gateway (or arlocal) address, e.g. https://arweave.net or http://127.0.0.1:1984. */
  gateway: string
  /** The operator's Arweave wallet: a JWK key file (JSON), which pays for every upload. */
  walletFile: string
  /** Folder for staged uploads and the local copies reads are served from (in the data directory). */
  cacheDir: string
  /** Per-request timeout (default 60 s); tests shorten it. */
  requestTimeoutMs?: number
  /** Blocks on top of a blob's block before confirm() calls it permanent (default 10, past the usual forks). */
  minConfirmations?: number
  /**
   * How long after it was sent a transaction a healthy gateway definitely does not know is taken as
   * dropped (default 1 hour: longer than a gateway takes to show a transaction it accepted).
   */
  resendAfterMs?: number
}

export const DEFAULT_MIN_CONFIRMATIONS = 10
export const DEFAULT_RESEND_AFTER_MS = 60 * 60 * 1000

/**
 * What this instance posted, kept beside the local copy, so that a retried upload of the same bytes is not
 * paid twice: a complete one is reused, and one whose chunks did not all go up is finished.
 */
interface UploadRecord {
  txId: string
  vaultRef: string
  size: number
  postedAt: string
  /** False while chunks may be missing; then `header` is the signed transaction to post again. */
  complete: boolean
  header?: object
}

/**
 * Transaction status as the gateway reports it. `unknown` only for a definite "not found" (404) from a
 * gateway whose /info answers healthily; a busy or failing gateway (429, 5xx, anything else, no answer)
 * makes status() throw GATEWAY_UNREACHABLE instead, since it says nothing about the transaction.
 */
export interface ArweaveTxStatus {
  state: 'pending' | 'confirmed' | 'unknown'
  confirmations: number
}

/** A local copy or staged file older than this is nobody's upload in flight (as in the folder store). */
const IN_FLIGHT_MS = 24 * 60 * 60 * 1000
const CHUNK_ATTEMPTS = 5

/** Reads the operator's wallet and prepares the cache folder; contacts no gateway (the service may start offline). */
export async function openArweaveBlobStore(options: ArweaveBlobStoreOptions): Promise<ArweaveBlobStore> {
  const gateway = parseGateway(options.gateway)
  const wallet = await readWallet(options.walletFile)
  const arweave = Arweave.init({
    host: gateway.hostname,
    port: gateway.port ? Number(gateway.port) : gateway.protocol === 'https:' ? 443 : 80,
    protocol: gateway.protocol.slice(0, -1),
    timeout: options.requestTimeoutMs ?? 60_000,
  })
  const address = await arweave.wallets.jwkToAddress(wallet)
  return new ArweaveBlobStore(arweave, gateway, wallet, address, options)
}

function parseGateway(gateway: string): URL {
  let url: URL
  try {
    url = new URL(gateway)
  } catch {
    throw new ArweaveStoreError(
      'GATEWAY_UNREACHABLE',
      `The Arweave gateway address "${gateway}" is not a URL. Give one such as https://arweave.net (or http://127.0.0.1:1984 for a local arlocal).`,
    )
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new ArweaveStoreError(
      'GATEWAY_UNREACHABLE',
      `The Arweave gateway address "${gateway}" must be a plain http:// or https:// address such as https://arweave.net.`,
    )
  }
  url.pathname = url.pathname.replace(/\/+$/, '')
  return url
}

async function readWallet(walletFile: string): Promise<JWKInterface> {
  let text: string
  try {
    text = await readFile(walletFile, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    throw new ArweaveStoreError(
      'WALLET_UNREADABLE',
      `The Arweave wallet file ${walletFile} cannot be read (${code}). Give the path of the operator's wallet key file (the JSON "JWK" file an Arweave wallet exports), readable by the service's user, and start again.`,
    )
  }
  let jwk: Partial<JWKInterface>
  try {
    jwk = JSON.parse(text) as Partial<JWKInterface>
  } catch {
    jwk = {}
  }
  if (
    jwk.kty !== 'RSA' ||
    typeof jwk.n !== 'string' ||
    typeof jwk.e !== 'string' ||
    typeof jwk.d !== 'string'
  ) {
    throw new ArweaveStoreError(
      'WALLET_UNREADABLE',
      `The file ${walletFile} is not an Arweave wallet key (a JSON "JWK" file with an RSA private key: kty, n, e, d, ...). Export the operator's wallet as a key file and give its path.`,
    )
  }
  return jwk as JWKInterface
}

export class ArweaveBlobStore implements BlobStore {
  readonly kind = 'arweave'
  /** The wallet's address: every blob of this service is a transaction of this owner. */
  readonly address: string
  readonly #arweave: Arweave
  readonly #gateway: URL
  readonly #wallet: JWKInterface
  readonly #copies: string
  readonly #uploads: string
  readonly #staging: string
  readonly #timeoutMs: number
  readonly #minConfirmations: number
  readonly #resendAfterMs: number
  /** Read-through downloads in progress, so one blob is fetched once however many read it at a time. */
  readonly #fetching = new Map<string, Promise<void>>()

  constructor(
    arweave: Arweave,
    gateway: URL,
    wallet: JWKInterface,
    address: string,
    options: ArweaveBlobStoreOptions,
  ) {
    this.#arweave = arweave
    this.#gateway = gateway
    this.#wallet = wallet
    this.address = address
    this.#copies = join(options.cacheDir, 'copies')
    this.#uploads = join(options.cacheDir, 'uploads')
    this.#staging = join(options.cacheDir, 'staging')
    this.#timeoutMs = options.requestTimeoutMs ?? 60_000
    this.#minConfirmations = options.minConfirmations ?? DEFAULT_MIN_CONFIRMATIONS
    this.#resendAfterMs = options.resendAfterMs ?? DEFAULT_RESEND_AFTER_MS
    for (const dir of [options.cacheDir, this.#copies, this.#uploads, this.#staging]) makePrivateDir(dir)
  }

  newTempPath(): string {
    return join(this.#staging, `upload-${randomBytes(12).toString('hex')}.part`)
  }

  /** The cache folder is this instance's own: anything staged at start is a dead upload's. */
  async clearTemp(): Promise<number> {
    const names = await readdir(this.#staging)
    for (const name of names) await rm(join(this.#staging, name), { force: true, recursive: true })
    return names.length
  }

  copyPathOf(sha256Hex: string): string {
    return join(this.#copies, sha256Hex.slice(0, 2), sha256Hex)
  }

  async put(
    tempPath: string,
    blob: { sha256Hex: string; size: number; labels: BlobLabels },
  ): Promise<string> {
    const vaultRef = vaultRefOf(blob.labels.vaultId)
    const copy = this.copyPathOf(blob.sha256Hex)
    makePrivateDir(dirname(copy))
    await chmod(tempPath, PRIVATE_FILE_MODE)
    await rename(tempPath, copy)
    const earlier = await this.#uploadRecord(blob.sha256Hex)
    if (earlier && earlier.vaultRef === vaultRef && earlier.size === blob.size) {
      // The same bytes for the same vault went up before (a retried upload): the network has them,
      // or has their paid transaction and needs the rest of the chunks.
      if (earlier.complete) return earlier.txId
      return this.#sendData(copy, blob, earlier)
    }
    let posted: UploadRecord | undefined
    try {
      const record = await this.#postTransaction(copy, blob, vaultRef)
      posted = record
      return await this.#sendData(copy, blob, record)
    } catch (error) {
      // Before the transaction was posted nothing was paid: no copy of a blob no asset will record.
      // After, the copy and the record stay, so the same upload again finishes this transaction.
      if (!posted) await rm(copy, { force: true })
      throw error
    }
  }

  /** Signs and posts the transaction (paying for it); its data goes up in #sendData. */
  async #postTransaction(
    copy: string,
    blob: { sha256Hex: string; size: number },
    vaultRef: string,
  ): Promise<UploadRecord> {
    const chunks = await chunksOf(copy, blob)
    const reward = await this.#priceOf(blob.size)
    await this.#checkBalance(reward, blob.size)
    const tx = this.#arweave.transactions.fromRaw({
      format: 2,
      owner: this.#wallet.n,
      last_tx: await this.#call('to get a transaction anchor', () =>
        this.#arweave.transactions.getTransactionAnchor(),
      ),
      target: '',
      quantity: '0',
      reward,
      data: new Uint8Array(0),
      data_size: String(blob.size),
      data_root: Arweave.utils.bufferTob64Url(chunks.dataRoot),
    })
    tx.addTag(ARWEAVE_TAGS.appName.name, ARWEAVE_TAGS.appName.value)
    tx.addTag(ARWEAVE_TAGS.version.name, ARWEAVE_TAGS.version.value)
    tx.addTag(ARWEAVE_TAGS.vaultRef, vaultRef)
    tx.addTag(ARWEAVE_TAGS.contentSha256, blob.sha256Hex)
    tx.addTag(ARWEAVE_TAGS.contentType.name, ARWEAVE_TAGS.contentType.value)
    await this.#arweave.transactions.sign(tx, this.#wallet)

    const header = { ...tx.toJSON(), data: '' }
    await this.#postHeader(header)
    const record: UploadRecord = {
      txId: tx.id,
      vaultRef,
      size: blob.size,
      postedAt: new Date().toISOString(),
      complete: false,
      header,
    }
    await this.#saveRecord(blob.sha256Hex, record)
    return record
  }

  /** Posts the data's chunks from the local copy (again, for a resumed upload), then checks the gateway has it all. */
  async #sendData(
    copy: string,
    blob: { sha256Hex: string; size: number },
    record: UploadRecord,
  ): Promise<string> {
    const header = record.header as { data_root: string } | undefined
    // The header again unless the gateway shows it (a transaction is paid once whatever happens: the same
    // signed header posted twice is one transaction).
    if (header) {
      const shown = await this.status(record.txId).then(
        (status) => status.state !== 'unknown',
        () => false,
      )
      if (!shown) await this.#postHeader(header)
    }
    const chunks = await chunksOf(copy, blob)
    const dataRoot = Arweave.utils.bufferTob64Url(chunks.dataRoot)
    const file = await open(copy, 'r')
    try {
      for (const [index, chunk] of chunks.chunks.entries()) {
        await this.#postChunk(file, dataRoot, blob.size, chunk, chunks.proofs[index]!, index)
      }
    } finally {
      await file.close()
    }
    await this.#awaitKnown(record.txId)
    await this.#saveRecord(blob.sha256Hex, { ...record, complete: true, header: undefined })
    return record.txId
  }

  /** A gateway may take a moment to show a transaction it just accepted. */
  async #awaitKnown(txId: string): Promise<void> {
    for (let attempt = 0; attempt < 6; attempt++) {
      // A busy gateway (429, 5xx) is asked again, like one that does not show the transaction yet.
      const status = await this.status(txId).catch((error: unknown) => {
        if (error instanceof ArweaveStoreError && error.code === 'GATEWAY_UNREACHABLE') return null
        throw error
      })
      if (status && status.state !== 'unknown') return
      await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt))
    }
    throw new ArweaveStoreError(
      'GATEWAY_REFUSED',
      `The Arweave gateway ${this.#gateway.origin} accepted transaction ${txId} and its data but does not know it now. Upload the file again: the same bytes finish this transaction instead of paying for a new one.`,
    )
  }

  async #saveRecord(sha256Hex: string, record: UploadRecord): Promise<void> {
    const path = this.#recordPath(sha256Hex)
    await writeFile(`${path}.tmp`, JSON.stringify(record), { mode: PRIVATE_FILE_MODE })
    await rename(`${path}.tmp`, path)
  }

  /**
   * Whether the network has mined the transaction: pending (posted, waiting for a block), confirmed
   * (with how many blocks on top), or unknown to the gateway.
   */
  async status(txId: string): Promise<ArweaveTxStatus> {
    const response = await this.#call('to check a transaction', () =>
      this.#arweave.api.get(`tx/${txId}/status`),
    )
    if (response.status === 202) return { state: 'pending', confirmations: 0 }
    if (response.status === 404) {
      await this.#requireHealthy(`it answered 404 (not found) for transaction ${txId}`)
      return { state: 'unknown', confirmations: 0 }
    }
    if (response.status !== 200) {
      throw new ArweaveStoreError(
        'GATEWAY_UNREACHABLE',
        `The Arweave gateway ${this.#gateway.origin} answered HTTP ${response.status} (${describeBody(response.data)}) when asked about transaction ${txId}: it is busy or failing, which says nothing about the transaction. Nothing is sent again or paid for on such an answer; it is asked again at the next pass.`,
      )
    }
    const data = response.data as { number_of_confirmations?: unknown } | string
    // arlocal answers 200 "Pending" for a posted transaction not mined yet.
    if (typeof data !== 'object' || typeof data.number_of_confirmations !== 'number') {
      return { state: 'pending', confirmations: 0 }
    }
    return { state: 'confirmed', confirmations: data.number_of_confirmations }
  }

  /**
   * A "not found" counts only from a gateway that otherwise answers as a node should: /info with the
   * network's height. A gateway that 404s everything (misrouted, a proxy's error page) is unreachable.
   */
  async #requireHealthy(what: string): Promise<void> {
    const info = await this.#call('to check that it answers healthily', () => this.#arweave.api.get('info'))
    const height = (info.data as { height?: unknown } | null)?.height
    if (info.status !== 200 || typeof height !== 'number') {
      throw new ArweaveStoreError(
        'GATEWAY_UNREACHABLE',
        `The Arweave gateway ${this.#gateway.origin} is not answering healthily: ${what}, but its /info answered HTTP ${info.status} without the network's height. A "not found" from it is not trusted; nothing is sent again or paid for until it answers. Check the gateway address in the service's configuration.`,
      )
    }
  }

  /**
   * Whether a stored blob is mined deep enough to stay. `dropped` only on a definite "not found" from a
   * healthy gateway once the grace period since the transaction was sent has passed; whether to pay for
   * a re-send is the confirmation pass's decision (it counts and caps them). A transaction paid for whose
   * data did not all go up is finished here, without paying again.
   */
  async confirm(blob: BlobToConfirm, now: Date): Promise<BlobConfirmation> {
    const status = await this.status(blob.storageTxId)
    if (status.state === 'confirmed' && status.confirmations >= this.#minConfirmations) {
      return { state: 'confirmed' }
    }
    const copy = this.copyPathOf(blob.sha256Hex)
    if (status.state !== 'unknown') {
      const record = await this.#uploadRecord(blob.sha256Hex)
      if (record && !record.complete && record.txId === blob.storageTxId && (await exists(copy))) {
        await this.#sendData(copy, blob, record)
      }
      return { state: 'pending' }
    }
    if (now.getTime() - blob.sentAt.getTime() < this.#resendAfterMs) return { state: 'pending' }
    const what = `Blob ${blob.storageTxId} of asset ${blob.labels.assetId} (vault ${blob.labels.vaultId}) is unknown to the Arweave gateway ${this.#gateway.origin} ${describeAge(now.getTime() - blob.sentAt.getTime())} after it was sent (the gateway answers 404 and its /info answers healthily): the network dropped the transaction before mining it`
    if (!(await exists(copy))) {
      return {
        state: 'lost',
        reason: `${what}, and this instance has no local copy to send again. If another instance of the service stored the file, it sends it again at its next pass; otherwise ask the vault's owner to upload the file again, or heirs recovering from Arweave will not find it.`,
      }
    }
    return { state: 'dropped', reason: `${what}.` }
  }

  /**
   * Stores the local copy again as a new transaction, unless one sent for these bytes (a re-send for
   * another asset with the same bytes, or an earlier one whose data did not all go up) is still alive.
   */
  async resend(blob: BlobToConfirm): Promise<{ storageTxId: string; unfinished?: string }> {
    const copy = this.copyPathOf(blob.sha256Hex)
    const vaultRef = vaultRefOf(blob.labels.vaultId)
    const earlier = await this.#uploadRecord(blob.sha256Hex)
    let record: UploadRecord
    if (
      earlier &&
      earlier.txId !== blob.storageTxId &&
      earlier.vaultRef === vaultRef &&
      earlier.size === blob.size &&
      (await this.status(earlier.txId)).state !== 'unknown'
    ) {
      if (earlier.complete) return { storageTxId: earlier.txId }
      record = earlier
    } else {
      record = await this.#postTransaction(copy, blob, vaultRef)
    }
    // Paid now: the asset records this transaction whatever happens to its data, which a later confirm
    // finishes, so that a failure here never leads to paying for yet another one.
    try {
      await this.#sendData(copy, blob, record)
      return { storageTxId: record.txId }
    } catch (error) {
      return { storageTxId: record.txId, unfinished: error instanceof Error ? error.message : String(error) }
    }
  }

  async sizeOf(blob: StoredBlob): Promise<number | null> {
    try {
      return (await stat(this.copyPathOf(blob.sha256Hex))).size
    } catch {
      // No local copy: ask the gateway.
    }
    const found = await this.#graphql<{ transaction: { data: { size: string } } | null }>(
      'query($id: ID!) { transaction(id: $id) { data { size } } }',
      { id: blob.storageTxId },
    )
    return found.transaction ? Number(found.transaction.data.size) : null
  }

  async read(blob: StoredBlob, range?: { start: number; end: number }): Promise<Readable> {
    const copy = this.copyPathOf(blob.sha256Hex)
    if (!(await exists(copy))) {
      // A range may be a resumed download of a large file: serve it at once from the gateway.
      if (range) return this.#fetchData(blob.storageTxId, range)
      await this.#fetchCopy(blob)
    }
    return createReadStream(copy, range)
  }

  /** Drops the local copy only: a blob on Arweave is permanent and stays there, encrypted, for good. */
  async remove(blob: StoredBlob): Promise<void> {
    await rm(this.copyPathOf(blob.sha256Hex), { force: true })
    await rm(this.#recordPath(blob.sha256Hex), { force: true })
  }

  /** Frees local copies no asset refers to; nothing on the network can be (or is) deleted. */
  async collectGarbage(isReferenced: (sha256Hex: string) => Promise<boolean>): Promise<number> {
    let removed = 0
    for (const shard of await readdir(this.#copies)) {
      const dir = join(this.#copies, shard)
      for (const name of await readdir(dir)) {
        const path = join(dir, name)
        // A put in progress has its copy in place before its asset is recorded.
        const age = Date.now() - (await stat(path).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs
        if (age <= IN_FLIGHT_MS || (await isReferenced(name))) continue
        await rm(path, { force: true })
        await rm(this.#recordPath(name), { force: true })
        removed++
      }
    }
    return removed
  }

  #recordPath(sha256Hex: string): string {
    return join(this.#uploads, `${sha256Hex}.json`)
  }

  async #uploadRecord(sha256Hex: string): Promise<UploadRecord | undefined> {
    try {
      return JSON.parse(await readFile(this.#recordPath(sha256Hex), 'utf8')) as UploadRecord
    } catch {
      return undefined
    }
  }

  /** Runs a gateway request, turning a failed connection into words for the operator. */
  async #call<T>(what: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request()
    } catch (error) {
      // A local file error (the disk, not the network) is reported as it is.
      if (error instanceof ArweaveStoreError || (error as NodeJS.ErrnoException).syscall) throw error
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message
      throw new ArweaveStoreError(
        'GATEWAY_UNREACHABLE',
        `The Arweave gateway ${this.#gateway.origin} could not be reached ${what} (${cause}). Check the gateway address in the service's configuration and this machine's network; nothing was stored by this attempt, and it can be tried again.`,
      )
    }
  }

  async #priceOf(size: number): Promise<string> {
    return this.#call('to ask the storage price', () => this.#arweave.transactions.getPrice(size))
  }

  async #checkBalance(reward: string, size: number): Promise<void> {
    const balance = await this.#call('to read the wallet balance', () =>
      this.#arweave.wallets.getBalance(this.address),
    )
    if (BigInt(balance) < BigInt(reward)) throw this.#balanceTooLow(reward, size, balance)
  }

  #balanceTooLow(reward: string, size: number, balance?: string): ArweaveStoreError {
    const held = balance === undefined ? '' : ` holds ${this.#arweave.ar.winstonToAr(balance)} AR and`
    return new ArweaveStoreError(
      'BALANCE_TOO_LOW',
      `The Arweave wallet ${this.address}${held} cannot pay the ${this.#arweave.ar.winstonToAr(reward)} AR that storing ${size} bytes costs. Add AR to this wallet, then upload the file again; nothing was stored or paid.`,
    )
  }

  async #postHeader(header: object): Promise<void> {
    const response = await this.#call('to post the transaction', () => this.#arweave.api.post('tx', header))
    // 208: the node already has this transaction.
    if (response.status === 200 || response.status === 208) return
    const reward = (header as { reward: string }).reward
    const size = Number((header as { data_size: string }).data_size)
    if (response.status === 402 || response.status === 410) throw this.#balanceTooLow(reward, size)
    throw new ArweaveStoreError(
      'GATEWAY_REFUSED',
      `The Arweave gateway ${this.#gateway.origin} refused the transaction (HTTP ${response.status}: ${describeBody(response.data)}). The file was not stored; check the gateway address and the wallet, then upload it again.`,
    )
  }

  async #postChunk(
    file: FileHandle,
    dataRoot: string,
    dataSize: number,
    chunk: Chunk,
    proof: Proof,
    index: number,
  ): Promise<void> {
    const bytes = Buffer.alloc(chunk.maxByteRange - chunk.minByteRange)
    const { bytesRead } = await file.read(bytes, 0, bytes.length, chunk.minByteRange)
    if (bytesRead !== bytes.length) throw new Error('The local copy changed while it was being uploaded')
    const body = {
      data_root: dataRoot,
      data_size: String(dataSize),
      data_path: Arweave.utils.bufferTob64Url(proof.proof),
      offset: String(proof.offset),
      chunk: Arweave.utils.bufferTob64Url(bytes),
    }
    let last = ''
    for (let attempt = 1; attempt <= CHUNK_ATTEMPTS; attempt++) {
      try {
        const response = await this.#arweave.api.post('chunk', body)
        if (response.status === 200 || response.status === 208) return
        last = `HTTP ${response.status}: ${describeBody(response.data)}`
        // A node refuses a chunk for good with 400 (bad proof, too big): trying again cannot help.
        if (response.status === 400) break
      } catch (error) {
        last = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message
      }
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt))
    }
    throw new ArweaveStoreError(
      'GATEWAY_REFUSED',
      `The Arweave gateway ${this.#gateway.origin} did not take part ${index + 1} of the file (${last}). The transaction is paid but its data is incomplete; upload the same file again later: the service finishes this transaction instead of paying for a new one.`,
    )
  }

  async #graphql<T>(query: string, variables: Record<string, unknown>): Promise<T> {
    const response = await this.#call('to look the blob up', () =>
      fetch(`${this.#gateway.href.replace(/\/$/, '')}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      }),
    )
    const body = (await response.json().catch(() => ({}))) as { data?: T; errors?: { message: string }[] }
    if (!response.ok || !body.data) {
      throw new ArweaveStoreError(
        'GATEWAY_REFUSED',
        `The Arweave gateway ${this.#gateway.origin} did not answer a GraphQL query (HTTP ${response.status}${body.errors?.[0] ? `: ${body.errors[0].message}` : ''}). Use a gateway that serves /graphql, such as https://arweave.net.`,
      )
    }
    return body.data
  }

  /** The transaction's data (or part of it) straight from the gateway. */
  async #fetchData(txId: string, range?: { start: number; end: number }): Promise<Readable> {
    const response = await this.#call(`to read blob ${txId}`, () =>
      fetch(`${this.#gateway.href.replace(/\/$/, '')}/${txId}`, {
        headers: range ? { range: `bytes=${range.start}-${range.end}` } : {},
        signal: AbortSignal.timeout(this.#timeoutMs),
      }),
    )
    if (response.status === 404) {
      throw new ArweaveStoreError(
        'BLOB_NOT_FOUND',
        `The Arweave gateway ${this.#gateway.origin} does not have blob ${txId} (yet): a transaction not mined is served only by the node it was posted to. Try again after a few blocks, or use the gateway the service posts to.`,
      )
    }
    if (!response.ok || !response.body) {
      throw new ArweaveStoreError(
        'GATEWAY_REFUSED',
        `The Arweave gateway ${this.#gateway.origin} did not serve blob ${txId} (HTTP ${response.status}). Try again later.`,
      )
    }
    const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream)
    // A gateway that ignores Range sends everything: keep only the bytes asked for.
    return range && response.status !== 206 ? body.pipe(sliceOf(range.start, range.end)) : body
  }

  /** Downloads a blob into its local copy, checked against its SHA-256 before it is used. */
  #fetchCopy(blob: StoredBlob): Promise<void> {
    let pending = this.#fetching.get(blob.sha256Hex)
    if (!pending) {
      pending = this.#downloadCopy(blob).finally(() => this.#fetching.delete(blob.sha256Hex))
      this.#fetching.set(blob.sha256Hex, pending)
    }
    return pending
  }

  async #downloadCopy(blob: StoredBlob): Promise<void> {
    const copy = this.copyPathOf(blob.sha256Hex)
    makePrivateDir(dirname(copy))
    const part = join(this.#staging, `fetch-${randomBytes(12).toString('hex')}.part`)
    const hash = createHash('sha256')
    try {
      const body = await this.#fetchData(blob.storageTxId)
      const hashing = new Transform({
        transform(piece: Buffer, _encoding, done) {
          hash.update(piece)
          done(null, piece)
        },
      })
      await this.#call(`to read blob ${blob.storageTxId}`, () =>
        pipeline(body, hashing, createWriteStream(part, { mode: PRIVATE_FILE_MODE })),
      )
      if (hash.digest('hex') !== blob.sha256Hex) {
        throw new ArweaveStoreError(
          'BLOB_MISMATCH',
          `The Arweave gateway ${this.#gateway.origin} served different bytes for blob ${blob.storageTxId} than were stored. Nothing was served; try another gateway.`,
        )
      }
      await rename(part, copy)
    } finally {
      await rm(part, { force: true })
    }
  }
}

/** Arweave's chunking (arweave's merkle.chunkData) for `size` bytes, without the bytes. */
export function chunkRanges(size: number): { start: number; end: number }[] {
  const ranges: { start: number; end: number }[] = []
  let cursor = 0
  while (size - cursor >= MAX_CHUNK_SIZE) {
    let chunkSize = MAX_CHUNK_SIZE
    const next = size - cursor - MAX_CHUNK_SIZE
    // The last two chunks share the rest rather than leave a last chunk under MIN_CHUNK_SIZE.
    if (next > 0 && next < MIN_CHUNK_SIZE) chunkSize = Math.ceil((size - cursor) / 2)
    ranges.push({ start: cursor, end: cursor + chunkSize })
    cursor += chunkSize
  }
  ranges.push({ start: cursor, end: size })
  return ranges
}

/**
 * The transaction's chunks, proofs and data_root from one pass over the file, checking on the way that
 * it is the blob the service meant to store (size and SHA-256).
 */
export async function chunksOf(
  file: string,
  expected: { sha256Hex: string; size: number },
): Promise<{ dataRoot: Uint8Array; chunks: Chunk[]; proofs: Proof[] }> {
  const ranges = chunkRanges(expected.size)
  const whole = createHash('sha256')
  const chunks: Chunk[] = []
  const handle = await open(file, 'r')
  try {
    for (const range of ranges) {
      const bytes = Buffer.alloc(range.end - range.start)
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, range.start)
      if (bytesRead !== bytes.length) throw new Error(`${file} is shorter than ${expected.size} bytes`)
      whole.update(bytes)
      chunks.push({
        dataHash: createHash('sha256').update(bytes).digest(),
        minByteRange: range.start,
        maxByteRange: range.end,
      })
    }
    if ((await handle.stat()).size !== expected.size || whole.digest('hex') !== expected.sha256Hex) {
      throw new Error(`${file} is not the ${expected.size}-byte blob ${expected.sha256Hex}`)
    }
  } finally {
    await handle.close()
  }
  const root = await buildLayers(await generateLeaves(chunks))
  const proofs = generateProofs(root)
  // As arweave's generateTransactionChunks: an empty last chunk is not uploaded.
  const last = chunks[chunks.length - 1]!
  if (last.maxByteRange === last.minByteRange) {
    chunks.pop()
    proofs.pop()
  }
  return { dataRoot: root.id, chunks, proofs }
}

/** Passes on bytes start..end (inclusive) of what flows through. */
function sliceOf(start: number, end: number): Transform {
  let at = 0
  return new Transform({
    transform(piece: Buffer, _encoding, done) {
      const from = Math.max(start - at, 0)
      const to = Math.min(end + 1 - at, piece.length)
      at += piece.length
      done(null, to > from ? piece.subarray(from, to) : undefined)
    },
  })
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path)
    return true
  } catch {
    return false
  }
}

function describeAge(ms: number): string {
  const [count, unit] =
    ms < 7_200_000
      ? [Math.floor(ms / 60_000), 'minute']
      : ms < 172_800_000
        ? [Math.floor(ms / 3_600_000), 'hour']
        : [Math.floor(ms / 86_400_000), 'day']
  return `${count} ${unit}${count === 1 ? '' : 's'}`
}

function describeBody(data: unknown): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data)
  return (text ?? '').slice(0, 200)
}
