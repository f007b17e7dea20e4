// The vault manifest as this computer writes it (docs/FORMAT.md 3.10; vault-format/vault-manifest.ts):
// after every change that adds or removes files, the list of the vault's current files (path, size,
// content SHA-256, write time) under the next sequence number, so that recovery knows which copy of
// each file is current and which are missing. The list comes from this computer's upload index, plus
// the files of the newest manifest another computer stored (read from the service before each write:
// a manifest from here must not drop what was uploaded elsewhere). The sequence number is kept per
// vault in the upload database and taken before the manifest is uploaded. The upload queue decides
// where a manifest travels (inside a bundle, or alone) and sends it.
import { createHash } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { sep } from 'node:path'
import type { VaultApiClient } from '../../../service-client'
import type { Asset } from '../../../shared/api'
import { assetMetadata } from '../../../shared/asset-metadata'
import {
  type ManifestEntry,
  newestManifest,
  openVaultBlob,
  type VaultManifest,
  vaultFingerprint,
} from '../../../vault-format'
import { sha256OfFile } from './upload-index'
import type { UploadIndexEntry } from './upload-records'
import type { UploadStore } from './upload-store'

/** The path sealed in a blob and listed in the manifest: '/'-separated, NFC, as FORMAT.md requires. */
export function sealedPath(relativePath: string): string {
  return relativePath.split(sep).join('/').normalize('NFC')
}

/** What a manifest about to be written lists. */
export interface ManifestListing {
  entries: ManifestEntry[]
  /** A digest of the entries: two listings with one digest list the same files. */
  digest: string
  /**
   * Files this computer uploaded whose content hash is unknown (changed on disk since an upload by an
   * earlier version, before it was hashed): not listed; backing them up again lists them.
   */
  unlisted: string[]
}

/** The key of the upload metadata that says a blob carries the vault manifest (never its contents). */
export const MANIFEST_METADATA_FLAG = 'manifest'

export class VaultManifests {
  constructor(private readonly store: UploadStore) {}

  /**
   * The vault's current files: the newest manifest of another computer (when one was adopted) and
   * this computer's index, the later write time winning for a path; a path that is also the folder of
   * a newer one is left out (no disk holds both); `adding` (a bundle about to go up) wins over all.
   */
  async listing(vaultId: string, adding: readonly ManifestEntry[] = []): Promise<ManifestListing> {
    const chosen = new Map<string, ManifestEntry>()
    for (const entry of adding) {
      if (!chosen.has(entry.path) && !clashes(chosen, entry.path)) chosen.set(entry.path, entry)
    }
    const unlisted: string[] = []
    const candidates: Array<{
      path: string
      writtenAtMs: number
      entry: () => Promise<ManifestEntry | null>
    }> = this.#carried(vaultId).map((entry) => ({
      path: entry.path,
      writtenAtMs: entry.writtenAtMs,
      entry: async () => entry,
    }))
    for (const row of this.store.entriesOfVault(vaultId)) {
      candidates.push({
        path: sealedPath(row.relativePath),
        writtenAtMs: writeTimeOf(row),
        entry: async () => {
          const sha256 = row.sha256 ?? (await this.#hashUnchanged(row))
          if (!sha256) return null
          return { path: sealedPath(row.relativePath), size: row.size, sha256, writtenAtMs: writeTimeOf(row) }
        },
      })
    }
    candidates.sort((a, b) => b.writtenAtMs - a.writtenAtMs)
    for (const candidate of candidates) {
      if (chosen.has(candidate.path) || clashes(chosen, candidate.path)) continue
      const entry = await candidate.entry()
      if (entry) chosen.set(entry.path, entry)
      else unlisted.push(candidate.path)
    }
    const entries = [...chosen.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    return { entries, digest: digestOf(entries), unlisted }
  }

  /**
   * The paths the next manifest would list with `adding` (for its exact length in the cost
   * estimate, before any file is hashed or the service is read).
   */
  paths(vaultId: string, adding: readonly string[]): string[] {
    const chosen = new Map<string, true>()
    for (const path of adding) if (!chosen.has(path) && !clashes(chosen, path)) chosen.set(path, true)
    const candidates = [
      ...this.#carried(vaultId).map((e) => ({ path: e.path, writtenAtMs: e.writtenAtMs })),
      ...this.store
        .entriesOfVault(vaultId)
        .map((row) => ({ path: sealedPath(row.relativePath), writtenAtMs: writeTimeOf(row) })),
    ].sort((a, b) => b.writtenAtMs - a.writtenAtMs)
    for (const { path } of candidates) if (!chosen.has(path) && !clashes(chosen, path)) chosen.set(path, true)
    return [...chosen.keys()]
  }

  /**
   * Whether the newest manifest stored lists exactly this, under this vault key (after a key
   * rotation the old one opens with old kits only, so a new one is written). With nothing stored
   * yet, an empty list needs no manifest (nothing changed that one would record).
   */
  isStored(vaultId: string, listing: ManifestListing, vaultKey: Uint8Array): boolean {
    const state = this.store.manifestState(vaultId)
    if (!state?.storedListing) return listing.entries.length === 0
    return state.storedListing === listing.digest && state.storedKey === vaultFingerprint(vaultKey)
  }

  /**
   * Reads the manifests another computer stored since this computer's newest (all of them, on a
   * computer that has none): the newest authentic one's sequence is taken and its files carried into
   * the next manifest from here; files it no longer lists that this computer uploaded before it was
   * written left the vault elsewhere, and are forgotten here too.
   */
  async sync(
    client: VaultApiClient,
    vaultId: string,
    vaultKey: Uint8Array,
    /** The vault's assets when the caller has just listed them (the file library), so they are read once. */
    assets?: readonly Asset[],
  ): Promise<void> {
    const state = this.store.manifestState(vaultId)
    const fresh = (assets ?? (await client.listAllAssets(vaultId))).filter(
      (asset) =>
        carriesManifest(asset) &&
        asset.id !== state?.storedAssetId &&
        (!state?.storedAt || asset.createdAt > state.storedAt),
    )
    if (fresh.length === 0) return
    const found: Array<{ manifest: VaultManifest; asset: Asset }> = []
    for (const asset of fresh) {
      const manifest = await readManifest(client, vaultId, vaultKey, asset.id)
      if (manifest) found.push({ manifest, asset })
    }
    const { chosen } = newestManifest(found)
    if (!chosen || chosen.manifest.sequence <= (state?.storedSequence ?? 0)) return
    const listed = new Set(chosen.manifest.entries.map((e) => e.path))
    for (const row of this.store.entriesOfVault(vaultId)) {
      if (!listed.has(sealedPath(row.relativePath)) && writeTimeOf(row) < chosen.manifest.writtenAtMs) {
        this.store.forgetEntry(vaultId, row.path)
      }
    }
    const entries = [...chosen.manifest.entries]
    this.store.manifestAdopted(vaultId, {
      sequence: chosen.manifest.sequence,
      listing: digestOf([...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))),
      assetId: chosen.asset.id,
      at: chosen.asset.createdAt,
      key: vaultFingerprint(vaultKey),
      carried: JSON.stringify(entries),
    })
  }

  /** The next sequence number, recorded as taken before the manifest is sent (never given out twice). */
  takeSequence(vaultId: string): number {
    const next = (this.store.manifestState(vaultId)?.sequence ?? 0) + 1
    this.store.takeManifestSequence(vaultId, next)
    return next
  }

  /** The manifest with this sequence, encrypted under this key, reached the service as this asset. */
  stored(
    vaultId: string,
    stored: {
      sequence: number
      listing: ManifestListing
      asset: Pick<Asset, 'id' | 'createdAt'>
      vaultKey: Uint8Array
    },
  ): void {
    this.store.manifestStored(vaultId, {
      sequence: stored.sequence,
      listing: stored.listing.digest,
      assetId: stored.asset.id,
      at: stored.asset.createdAt,
      key: vaultFingerprint(stored.vaultKey),
    })
  }

  /** Files carried from another computer's manifest that left the vault with a deleted asset. */
  dropCarried(vaultId: string, paths: ReadonlySet<string>): void {
    const carried = this.#carried(vaultId)
    const kept = carried.filter((e) => !paths.has(e.path))
    if (kept.length !== carried.length) this.store.setCarried(vaultId, JSON.stringify(kept))
  }

  /** Files another computer put in the vault, as its newest manifest read here lists them. */
  carried(vaultId: string): ManifestEntry[] {
    return this.#carried(vaultId)
  }

  /** Files another computer put in the vault (its newest manifest read here) of this size. */
  carriedOfSize(vaultId: string, size: number): ManifestEntry[] {
    return this.#carried(vaultId).filter((e) => e.size === size)
  }

  /** A manifest ready to encrypt. */
  manifest(sequence: number, listing: ManifestListing, writtenAtMs: number): VaultManifest {
    return { sequence, writtenAtMs, entries: listing.entries }
  }

  #carried(vaultId: string): ManifestEntry[] {
    const text = this.store.manifestState(vaultId)?.carried
    if (!text) return []
    try {
      return JSON.parse(text) as ManifestEntry[]
    } catch {
      return []
    }
  }

  /** The hash of a file not hashed since its upload, if it is still the file uploaded. */
  async #hashUnchanged(row: UploadIndexEntry): Promise<string | undefined> {
    try {
      const before = await stat(row.path)
      if (before.size !== row.size || before.mtimeMs !== row.mtimeMs) return undefined
      const sha256 = await sha256OfFile(row.path)
      const after = await stat(row.path)
      if (after.size !== row.size || after.mtimeMs !== row.mtimeMs) return undefined
      this.store.setHash(row, sha256)
      return sha256
    } catch {
      return undefined
    }
  }
}

/** The write time sealed in the copy; for a copy of an earlier version (format 2), when it was sent. */
function writeTimeOf(row: UploadIndexEntry): number {
  return row.writtenAtMs ?? Math.max(0, Math.floor(Date.parse(row.uploadedAt)) || 0)
}

/** Whether `path` is a folder of a chosen path, or has a chosen path as one of its folders. */
function clashes(chosen: ReadonlyMap<string, unknown>, path: string): boolean {
  for (let at = path.indexOf('/'); at > 0; at = path.indexOf('/', at + 1)) {
    if (chosen.has(path.slice(0, at))) return true
  }
  const folder = `${path}/`
  for (const other of chosen.keys()) if (other.startsWith(folder)) return true
  return false
}

function digestOf(entries: readonly ManifestEntry[]): string {
  const hash = createHash('sha256')
  for (const e of entries) hash.update(`${e.path}\u0000${e.size}\u0000${e.sha256}\u0000${e.writtenAtMs}\n`)
  return hash.digest('hex')
}

/** Whether the upload's metadata says the blob carries the vault manifest (alone or in a bundle). */
export function carriesManifest(asset: Asset): boolean {
  return assetMetadata(asset)[MANIFEST_METADATA_FLAG] === true
}

/**
 * The manifest a stored blob holds (alone, or embedded in a bundle, which is read only as far as the
 * manifest), if it is an authentic one of this vault under this key; null otherwise.
 */
async function readManifest(
  client: VaultApiClient,
  vaultId: string,
  vaultKey: Uint8Array,
  assetId: string,
): Promise<VaultManifest | null> {
  const controller = new AbortController()
  try {
    const stream = await client.downloadAsset(vaultId, assetId, controller.signal)
    const opened = await openVaultBlob(stream, { vaultKey, vaultId })
    if (opened.kind === 'manifest') return opened.manifest
    if (opened.kind === 'bundle') {
      await opened.entries.return?.()
      return opened.manifest
    }
    return null
  } catch {
    // Not a manifest of this vault under this key, or damaged: it counts for nothing.
    return null
  } finally {
    controller.abort()
  }
}

/** The paths a stored blob holds (a file's, or a bundle's files), read from its authenticated records. */
export async function pathsOfAsset(
  client: VaultApiClient,
  vaultId: string,
  vaultKey: Uint8Array,
  assetId: string,
): Promise<Set<string>> {
  const controller = new AbortController()
  try {
    const stream = await client.downloadAsset(vaultId, assetId, controller.signal)
    const opened = await openVaultBlob(stream, { vaultKey, vaultId })
    if (opened.kind === 'bundle') {
      await opened.entries.return?.()
      return new Set(opened.files.map((f) => f.path))
    }
    if (opened.kind === 'file' && opened.identity) {
      await opened.body.return?.()
      return new Set([opened.identity.path])
    }
    return new Set()
  } catch {
    return new Set()
  } finally {
    controller.abort()
  }
}
