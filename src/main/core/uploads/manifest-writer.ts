// Keeping the vault's manifest (its list of files, docs/FORMAT.md) in step with uploads and removals:
// the one a batch's carrier bundle embeds, and the blob of its own written when a batch ends without
// one, one write at a time per vault. A failure is told to the owner and tried again after the next
// change; the queue is idle only once every write is done.
import type { VaultApiClient } from '../../../service-client'
import { uploadCostCredits } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import { isolateName } from '../../../shared/untrusted-text'
import { encryptManifest, type ManifestEntry } from '../../../vault-format'
import type { CreditBalances } from './credit-balances'
import { sha256OfFile } from './upload-index'
import { buildMultipartBodyFor, manifestMetadata, serviceNames } from './upload-metadata'
import type { UploadItem } from './upload-records'
import type { ManifestListing, VaultManifests } from './vault-manifests'

export interface ManifestWriterInputs {
  manifests: VaultManifests
  vaultKey: (vaultId: string) => Promise<Uint8Array | null>
  clientFor: (connectionId: string | undefined) => Promise<VaultApiClient>
  balances: CreditBalances
  now: () => number
  /** A sentence for the owner: the manifest could not be stored, or leaves files out. */
  problem: (vaultId: string, message: string) => void
  /** A write ended (the queue may be idle now). */
  settled: () => void
}

/** A manifest to embed in a carrier bundle, with what to record once the bundle is stored. */
export interface EmbeddedManifest {
  blob: Uint8Array
  sequence: number
  listing: ManifestListing
  /** Each file's SHA-256 as listed: the bundle must send exactly these bytes. */
  hashes: Map<UploadItem, string>
}

export class ManifestWriter {
  /** Manifests being written after a change. */
  readonly #writes = new Set<Promise<void>>()
  readonly #chain = new Map<string, Promise<void>>()
  /** The files the owner was last told the manifest leaves out, per vault. */
  readonly #toldUnlisted = new Map<string, string>()

  constructor(private readonly inputs: ManifestWriterInputs) {}

  /** Whether a write is on its way. */
  get busy(): boolean {
    return this.#writes.size > 0
  }

  /** Resolves once the writes on their way are done (a manifest is small: it finishes or fails). */
  async drain(): Promise<void> {
    await Promise.all(this.#writes)
  }

  /**
   * Writes the vault's manifest as a blob of its own, unless the newest one stored already lists
   * exactly the vault's files (it rode in the batch's bundle). One at a time per vault; the queue is
   * idle only once it is done. A failure is logged and tried again after the next change.
   */
  write(vaultId: string, connectionId: string | undefined, strict = false): Promise<void> {
    const previous = this.#chain.get(vaultId) ?? Promise.resolve()
    let failure: { error: unknown } | undefined
    const write = previous.then(async () => {
      try {
        await this.#writeNow(vaultId, connectionId)
      } catch (error) {
        failure = { error }
        const why =
          error instanceof AppError
            ? error.userMessage
            : error instanceof Error
              ? error.message
              : String(error)
        this.inputs.problem(
          vaultId,
          `The vault's list of its files (its manifest) could not be stored: ${why} Your files are stored, and recovery finds them, but cannot yet tell that they are the newest copies. It is tried again after your next upload.`,
        )
      }
    })
    this.#chain.set(vaultId, write)
    this.#writes.add(write)
    void write.finally(() => {
      this.#writes.delete(write)
      if (this.#chain.get(vaultId) === write) this.#chain.delete(vaultId)
      this.inputs.settled()
    })
    // The chain itself never rejects (the next write must run); a strict caller gets the failure.
    return strict
      ? write.then(() => {
          if (failure) throw failure.error
        })
      : write
  }

  async #writeNow(vaultId: string, connectionId: string | undefined): Promise<void> {
    const { manifests, now } = this.inputs
    const vaultKey = await this.inputs.vaultKey(vaultId)
    if (!vaultKey) return
    const client = await this.inputs.clientFor(connectionId)
    await manifests.sync(client, vaultId, vaultKey)
    const listing = await manifests.listing(vaultId)
    this.#tellUnlisted(vaultId, listing)
    if (manifests.isStored(vaultId, listing, vaultKey)) return
    const sequence = manifests.takeSequence(vaultId)
    const blob = await encryptManifest(manifests.manifest(sequence, listing, now()), {
      vaultKey,
      vaultId,
    })
    const body = buildMultipartBodyFor(
      serviceNames(true, ''),
      'application/octet-stream',
      manifestMetadata(),
      blob.length,
      async function* () {
        yield blob
      },
    )
    const asset = await client.uploadAsset({
      vaultId,
      body: body.stream,
      contentType: body.contentType,
      contentLength: body.contentLength,
      creditsNeeded: uploadCostCredits(blob.length),
    })
    this.inputs.balances.charged(vaultId, asset.creditsConsumed)
    manifests.stored(vaultId, {
      sequence,
      listing,
      asset: { id: asset.id, createdAt: asset.createdAt ?? new Date(now()).toISOString() },
      vaultKey,
    })
  }

  /** Files the manifest cannot list (their content unknown here): the owner hears once per set. */
  #tellUnlisted(vaultId: string, listing: ManifestListing): void {
    const key = listing.unlisted.join('\n')
    if (!key || this.#toldUnlisted.get(vaultId) === key) return
    this.#toldUnlisted.set(vaultId, key)
    const n = listing.unlisted.length
    const named = listing.unlisted.slice(0, 3).map(isolateName).join(', ')
    this.inputs.problem(
      vaultId,
      `${n === 1 ? '1 file' : `${n} files`} uploaded by an earlier version changed on this computer since, so ${n === 1 ? 'its' : 'their'} stored content is not known here and the vault's list of files (its manifest) leaves ${n === 1 ? 'it' : 'them'} out: ${named}${n > 3 ? ', …' : ''}. Back ${n === 1 ? 'it' : 'them'} up again so that recovery counts ${n === 1 ? 'it' : 'them'}.`,
    )
  }

  /** The manifest a carrier bundle embeds: the vault's files once this bundle is stored, encrypted. */
  async forBundle(
    client: VaultApiClient,
    vaultId: string,
    vaultKey: Uint8Array,
    files: ReadonlyArray<{ item: UploadItem; identity: { path: string }; size: number }>,
    createdAtMs: number,
  ): Promise<EmbeddedManifest> {
    const { manifests, now } = this.inputs
    const hashes = new Map<UploadItem, string>()
    const adding: ManifestEntry[] = []
    for (const f of files) {
      const sha256 = await sha256OfFile(f.item.path)
      hashes.set(f.item, sha256)
      adding.push({ path: f.identity.path, size: f.size, sha256, writtenAtMs: createdAtMs })
    }
    await manifests.sync(client, vaultId, vaultKey)
    const listing = await manifests.listing(vaultId, adding)
    this.#tellUnlisted(vaultId, listing)
    const sequence = manifests.takeSequence(vaultId)
    const blob = await encryptManifest(manifests.manifest(sequence, listing, now()), {
      vaultKey,
      vaultId,
    })
    return { blob, sequence, listing, hashes }
  }
}
