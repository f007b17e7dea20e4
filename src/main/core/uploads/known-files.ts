// The vault's files as this computer knows them: its own uploads (the index) and the files of the
// newest manifest another computer stored. What the file library lists and the vault view counts; a
// deletion leaves that list, and the vault's manifest is written without it.
import type { VaultApiClient } from '../../../service-client'
import type { Asset } from '../../../shared/api'
import type { ManifestEntry } from '../../../vault-format'
import type { ManifestWriter } from './manifest-writer'
import type { UploadIndex } from './upload-index'
import type { UploadIndexEntry } from './upload-records'
import type { UploadStore } from './upload-store'
import { pathsOfAsset, sealedPath, type VaultManifests } from './vault-manifests'

export interface KnownFilesInputs {
  store: UploadStore
  index: UploadIndex
  manifests: VaultManifests
  manifestWriter: ManifestWriter
  vaultKey: (vaultId: string) => Promise<Uint8Array | null>
  clientFor: (connectionId: string | undefined) => Promise<VaultApiClient>
}

export class KnownFiles {
  /** count's answers, with the database's change count they were made at. */
  readonly #counts = new Map<string, { version: number; count: number | null }>()

  constructor(private readonly inputs: KnownFilesInputs) {}

  /** How many files are known here (null: none). */
  count(vaultId: string): number | null {
    const { store, manifests } = this.inputs
    // Asked for every vault view the window gets: counted again only once the database changed.
    const version = store.rowsWritten()
    const cached = this.#counts.get(vaultId)
    if (cached?.version === version) return cached.count
    const paths = new Set(manifests.carried(vaultId).map((e) => e.path))
    for (const row of store.entriesOfVault(vaultId)) paths.add(sealedPath(row.relativePath))
    const count = paths.size > 0 ? paths.size : null
    this.#counts.set(vaultId, { version, count })
    return count
  }

  /** The files known here, after reading the newest manifest from the service when the key is here. */
  async list(
    vaultId: string,
    connectionId?: string,
    assets?: readonly Asset[],
  ): Promise<{ uploadedHere: UploadIndexEntry[]; elsewhere: ManifestEntry[]; manifestUnread: boolean }> {
    const { store, manifests } = this.inputs
    let manifestUnread = false
    try {
      const vaultKey = await this.inputs.vaultKey(vaultId)
      if (vaultKey) await manifests.sync(await this.inputs.clientFor(connectionId), vaultId, vaultKey, assets)
    } catch {
      manifestUnread = true
    }
    return {
      uploadedHere: store.entriesOfVault(vaultId),
      elsewhere: manifests.carried(vaultId),
      manifestUnread,
    }
  }

  /** Deleted files leave the list; rejects when the manifest could not be stored. */
  async forget(vaultId: string, paths: ReadonlySet<string>, connectionId?: string): Promise<void> {
    const { store } = this.inputs
    store.write(() => {
      for (const row of store.entriesOfVault(vaultId)) {
        if (paths.has(sealedPath(row.relativePath))) store.forgetEntry(vaultId, row.path)
      }
    })
    this.inputs.manifests.dropCarried(vaultId, paths)
    await this.inputs.manifestWriter.write(vaultId, connectionId, true)
  }

  /** Takes an asset out of the vault on the service, forgets it here, and writes the manifest without it. */
  async deleteAsset(
    vaultId: string,
    assetId: string,
    connectionId?: string,
  ): Promise<{ contentRemoved: boolean }> {
    const { index, manifests } = this.inputs
    const client = await this.inputs.clientFor(connectionId)
    // Uploaded from another computer: its authenticated records say which files leave with it.
    const vaultKey = await this.inputs.vaultKey(vaultId)
    const elsewhere =
      vaultKey && index.filesOfAsset(vaultId, assetId).length === 0
        ? await pathsOfAsset(client, vaultId, vaultKey, assetId)
        : new Set<string>()
    const answer = await client.deleteAsset(vaultId, assetId)
    index.forgetAsset(vaultId, assetId)
    manifests.dropCarried(vaultId, elsewhere)
    await this.inputs.manifestWriter.write(vaultId, connectionId)
    return { contentRemoved: answer.contentRemoved }
  }
}
