// The owner's file library: the files a vault holds, not the blobs that hold them. A bundle's files
// and a lone file's name come from this computer's upload index (what it sent, and in which blob);
// files another computer put in come from the newest vault manifest read here (path, size, write
// time; which blob holds them is known only when that blob told the service its name); a blob that
// told the service its real name and is known neither way is listed under that name.
import type { Asset } from '../../../shared/api'
import { assetMetadata } from '../../../shared/asset-metadata'
import { categoryOf, contentTypeFromName, FALLBACK_CONTENT_TYPE } from '../../../shared/content-types'
import type { LibrarySelection, VaultFileList, VaultFileView } from '../../../shared/ipc/vault-types'
import type { ManifestEntry } from '../../../vault-format'
import type { UploadIndexEntry } from './upload-records'
import { carriesManifest, sealedPath } from './vault-manifests'

export interface FileLibrarySources {
  /** Every asset the service lists for the vault. */
  assets: readonly Asset[]
  /** This computer's upload index for the vault (each file's latest upload and the asset holding it). */
  uploadedHere: readonly UploadIndexEntry[]
  /** The files of the newest manifest another computer stored, as read here. */
  elsewhere: readonly ManifestEntry[]
  manifestUnread?: boolean
}

function categoryOfName(path: string) {
  return categoryOf(contentTypeFromName(path) ?? FALLBACK_CONTENT_TYPE)
}

function blobOf(asset: Asset): NonNullable<VaultFileView['blob']> {
  const metadata = assetMetadata(asset)
  return {
    assetId: asset.id,
    storageTxId: asset.storageTxId,
    // A lone file that carried the vault manifest went up as a bundle of one: to the owner, one file.
    bundle: metadata.bundle === true && metadata.fileCount !== 1,
    serviceName: asset.filename,
    nameHidden: metadata.nameSealedInside === true,
  }
}

/** The vault's files, sorted by path (code points, like the manifest). */
export function fileLibrary(sources: FileLibrarySources): VaultFileList {
  const assets = new Map(sources.assets.map((a) => [a.id, a]))
  const files = new Map<string, VaultFileView>()
  const accounted = new Set<string>()

  // An index row whose asset the service no longer lists left the vault (deleted elsewhere): not listed.
  for (const row of sources.uploadedHere) {
    const asset = assets.get(row.assetId)
    if (!asset) continue
    const path = sealedPath(row.relativePath)
    accounted.add(asset.id)
    files.set(path, {
      path,
      sizeBytes: row.size,
      category: categoryOfName(path),
      addedAt: row.uploadedAt,
      blob: blobOf(asset),
      from: 'this-computer',
    })
  }

  // A blob that told the service its path (real names on) is the one holding that manifest entry: of
  // several (the file changed and went up again), the newest, whatever order the service lists them in.
  // The manifest's hash is still checked on what is saved (blobsToSave), so a wrong guess fails loudly.
  const byToldPath = new Map<string, Asset>()
  for (const asset of sources.assets) {
    const { relativePath, bundle } = assetMetadata(asset)
    if (relativePath === undefined || bundle) continue
    const path = sealedPath(relativePath)
    const known = byToldPath.get(path)
    if (!known || Date.parse(asset.createdAt) >= Date.parse(known.createdAt)) byToldPath.set(path, asset)
  }
  for (const entry of sources.elsewhere) {
    const here = files.get(entry.path)
    // The later write wins, as in the manifest this computer writes next (vault-manifests.ts).
    if (here && Date.parse(here.addedAt) >= entry.writtenAtMs) continue
    const asset = byToldPath.get(entry.path)
    if (asset) accounted.add(asset.id)
    files.set(entry.path, {
      path: entry.path,
      sizeBytes: entry.size,
      category: categoryOfName(entry.path),
      addedAt: new Date(entry.writtenAtMs).toISOString(),
      ...(asset ? { blob: blobOf(asset) } : {}),
      from: 'manifest',
    })
  }

  let unnamedBlobs = 0
  for (const asset of sources.assets) {
    if (accounted.has(asset.id)) continue
    const metadata = assetMetadata(asset)
    // A manifest sent alone holds no file of the owner's.
    if (carriesManifest(asset) && metadata.bundle !== true) continue
    const hidden = metadata.nameSealedInside === true
    if (hidden || metadata.bundle === true) {
      // Names sealed inside: the manifest lists them when another computer wrote one.
      if (sources.elsewhere.length === 0) unnamedBlobs++
      continue
    }
    const path = sealedPath(metadata.relativePath ?? asset.filename)
    if (files.has(path)) continue
    files.set(path, {
      path,
      sizeBytes: metadata.plaintextBytes ?? asset.sizeBytes,
      category: asset.category,
      addedAt: asset.createdAt,
      blob: blobOf(asset),
      from: 'service',
    })
  }

  const sorted = [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return { files: sorted, unnamedBlobs, manifestUnread: sources.manifestUnread === true }
}

/**
 * The library's files the owner chose, each once: files by exact path, folders with every file below
 * them (the folder '' is the whole vault), in library order. `within` is the folder a file was chosen
 * through ('' for a file chosen by itself or the whole vault), so a saved folder keeps its own name.
 */
export function selectedFiles(
  files: readonly VaultFileView[],
  selection: LibrarySelection,
): Array<{ file: VaultFileView; within: string | null }> {
  const exact = new Set(selection.files)
  const folders = selection.folders.map((f) => f.replace(/\/+$/, ''))
  const chosen: Array<{ file: VaultFileView; within: string | null }> = []
  for (const file of files) {
    if (exact.has(file.path)) {
      chosen.push({ file, within: null })
      continue
    }
    const folder = folders.find((f) => f === '' || file.path.startsWith(`${f}/`))
    if (folder !== undefined) chosen.push({ file, within: folder })
  }
  return chosen
}
