// Where the heir's recovery page reads encrypted blobs from: files or a folder picked on this device,
// the Vault Service with the heir access code, or an Arweave gateway by the vault's tags. Each source
// lists its blobs, and each blob streams its bytes on demand; nothing a source says becomes a file
// name (names come only from inside the authenticated blobs), and its dates count only for the old
// formats that carry none (docs/FORMAT.md 3.11). Runs in the page: no Node.
import { AppError } from '../shared/app-error'

/** One encrypted blob the page can read. */
export interface PageBlob {
  /** How the report names it ("will.vault", "“scan.pdf” on the service", "arweave:<tx>"): never a path. */
  label: string
  /** Its length in bytes, as the source lists it (a blob that streams more or less is refused). */
  size: number
  /** The source's date (upload or block time, ms): used only for blobs of format 1 and 2. */
  sourceDateMs?: number
  /** Its bytes from the start; may be called again (a retry, or a second pass after the survey). */
  open(signal?: AbortSignal): Promise<ReadableStream<Uint8Array>>
}

/** A source the heir chose, ready to list its blobs. */
export interface PageSource {
  /** For the report: "3 files chosen on this device", "the Vault Service at …", "Arweave via …". */
  describe(): string
  /** Every blob to consider, or a PageSourceError whose message says what happened and what to do. */
  list(signal?: AbortSignal): Promise<PageBlob[]>
}

export type PageSourceProblem =
  | 'ACCESS_REFUSED'
  | 'NOT_FOUND'
  | 'UNREACHABLE'
  | 'BAD_ANSWER'
  | 'NOT_RELEASED'
  | 'INVALID_ADDRESS'

/** A source that cannot be read: its message is for the heir, in the page's language. */
export class PageSourceError extends AppError {
  override readonly name = 'PageSourceError'
  declare readonly code: PageSourceProblem
  constructor(code: PageSourceProblem, message: string) {
    super({ code, userMessage: message })
  }
}
