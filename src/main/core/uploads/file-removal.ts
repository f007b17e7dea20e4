// Deleting files from a vault (the owner's file library): the chosen files leave the vault's list
// (the manifest, which is what heirs recover by) and their bytes leave every blob on the service that
// can forget them. A blob that holds only chosen files is deleted; a bundle that also holds files
// that stay is re-packed: downloaded, decrypted into a private temporary folder, the files that stay
// encrypted again into a new bundle with their own identities (path and write time, so the manifest
// still names them), uploaded, the index pointed at it, and only then the old bundle deleted. Each
// step leaves the vault whole, so a run cut off half-way loses no file and running it again finishes.
// Blobs whose files this computer does not know (another computer uploaded them, names hidden) are
// read as far as their authenticated records to find the chosen files in them.

import { createReadStream } from 'node:fs'
import { mkdir, mkdtemp, open, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { nodeCipher } from '../../../node-cipher/cipher-choice'
import { type VaultApiClient, VaultApiError } from '../../../service-client'
import { type Asset, creditsToDollars, uploadCostCredits } from '../../../shared/api'
import { AppError } from '../../../shared/app-error'
import { assetMetadata } from '../../../shared/asset-metadata'
import type {
  FileRemovalPlan,
  FileRemovalReport,
  LibrarySelection,
  VaultFileView,
} from '../../../shared/ipc/vault-types'
import {
  encryptBundleStream,
  encryptedBundleLength,
  encryptedManifestLength,
  FileCipherError,
  type FileIdentity,
  openVaultBlob,
} from '../../../vault-format'
import { fileLibrary, selectedFiles } from './file-library'
import { buildMultipartBodyFor, bundleMetadata, serviceNames } from './upload-metadata'
import type { UploadQueue } from './upload-queue'
import type { UploadIndexEntry } from './upload-records'
import { carriesManifest, sealedPath } from './vault-manifests'

/** The parts of the upload queue a removal works through: its index, its name setting, its manifest. */
export type RemovalQueue = Pick<UploadQueue, 'index' | 'knownFiles' | 'hidesNames' | 'forgetFiles'>

export interface FileRemovalDeps {
  client: VaultApiClient
  queue: RemovalQueue
  /** The vault key, or null when this computer does not hold it. */
  vaultKey: Uint8Array | null
  connectionId?: string
  /** Where the private folder of a re-pack is made (default: the OS temporary folder). */
  tempRoot?: string
}

/** What a blob holds, from its authenticated records. */
type BlobContents =
  | { kind: 'bundle'; files: readonly FileIdentity[]; createdAtMs: number }
  | { kind: 'file'; path: string }

/** A blob that holds chosen files, and what becomes of it. */
interface Holder {
  asset: Asset
  /** Chosen paths it holds. */
  chosen: Set<string>
  /** Files that stay, re-packed into a new bundle (empty: the blob is deleted outright). */
  keep: FileIdentity[]
  createdAtMs: number
}

interface Survey {
  chosen: VaultFileView[]
  paths: Set<string>
  holders: Holder[]
  /** The store keeps every blob (null: the service does not say). */
  permanent: boolean | null
  /** What the manifest written afterwards costs: it lists every file that stays. */
  manifestCredits: number
}

const NOTHING_CHOSEN =
  'None of the chosen files is in this vault any more. Open the Files tab again to see its current files.'
const SAMPLE = 20
/** Records of blobs read so far (a blob never changes): the plan's reads serve the removal. */
const contentsRead = new Map<string, BlobContents>()
const CONTENTS_KEPT = 20_000

function isBundle(asset: Asset): boolean {
  return assetMetadata(asset).bundle === true
}

function keyMissing(): AppError {
  return new AppError({
    code: 'NO_VAULT_KEY',
    userMessage:
      "This computer does not hold the vault key, so it cannot read the blobs that hold these files nor write the vault's list without them. Type in the owner kit's words here (Overview → Vault key), then delete again; nothing was changed.",
  })
}

/** What a blob holds (read as far as its records, then the download stopped); null when unreadable. */
async function contentsOf(
  client: VaultApiClient,
  vaultId: string,
  vaultKey: Uint8Array,
  assetId: string,
): Promise<BlobContents | null> {
  const key = `${vaultId}/${assetId}`
  const known = contentsRead.get(key)
  if (known) return known
  const controller = new AbortController()
  let contents: BlobContents | null = null
  try {
    const stream = await client.downloadAsset(vaultId, assetId, controller.signal)
    const opened = await openVaultBlob(stream, { vaultKey, vaultId, ...nodeCipher(false) })
    if (opened.kind === 'bundle') {
      await opened.entries.return?.()
      contents = { kind: 'bundle', files: opened.files, createdAtMs: opened.createdAtMs }
    } else if (opened.kind === 'file' && opened.identity) {
      await opened.body.return?.()
      contents = { kind: 'file', path: opened.identity.path }
    }
  } catch (error) {
    // Another key (before a rotation), damage, or gone meanwhile: it holds no file of ours that could
    // be read. A service that stopped answering must not pass for "holds nothing": that would leave a
    // deleted file's bytes behind unnoticed.
    if (error instanceof FileCipherError || (error instanceof VaultApiError && error.status === 404))
      return null
    throw error
  } finally {
    controller.abort()
  }
  if (contents) {
    if (contentsRead.size >= CONTENTS_KEPT) contentsRead.clear()
    contentsRead.set(key, contents)
  }
  return contents
}

/**
 * Which blobs hold the chosen files and what becomes of each: the library's blob of each file, and
 * every blob that may hold a copy of one (older copies too: deleted means gone from every blob the
 * store can forget), read as far as its records.
 */
async function survey(deps: FileRemovalDeps, vaultId: string, selection: LibrarySelection): Promise<Survey> {
  const { client } = deps
  const vaultKey = deps.vaultKey
  if (!vaultKey) throw keyMissing()
  const assets = await client.listAllAssets(vaultId)
  const known = await deps.queue.knownFiles(vaultId, deps.connectionId, assets)
  const library = fileLibrary({ assets, ...known })
  const chosen = selectedFiles(library.files, selection).map((c) => c.file)
  const paths = new Set(chosen.map((f) => f.path))
  if (chosen.length === 0) return { chosen, paths, holders: [], manifestCredits: 0, permanent: null }
  const service = await client.getServiceInfo()
  const permanent = service.storage ? service.storage.permanent : null
  const staying = library.files.filter((f) => !paths.has(f.path)).map((f) => f.path)
  const manifestCredits = uploadCostCredits(encryptedManifestLength(staying))

  const holderOf = new Map(library.files.map((f) => [f.path, f.blob?.assetId]))
  const named = new Set<string>()
  for (const f of library.files) if (f.blob) named.add(f.blob.assetId)
  const candidates = new Set<string>()
  for (const f of chosen) if (f.blob) candidates.add(f.blob.assetId)
  // This computer's copies of a chosen path in other blobs than the library names (none, normally).
  for (const row of known.uploadedHere)
    if (paths.has(sealedPath(row.relativePath))) candidates.add(row.assetId)
  for (const asset of assets) {
    // Every bundle (one named for other files may hold an older copy of a chosen one), and every blob
    // no file is known to be in (older copies; another computer's with names hidden). A lone blob the
    // library names holds that one file only.
    if (named.has(asset.id) && !isBundle(asset)) continue
    if (carriesManifest(asset) && !isBundle(asset)) continue
    candidates.add(asset.id)
  }

  const byId = new Map(assets.map((a) => [a.id, a]))
  const holders: Holder[] = []
  for (const id of candidates) {
    const asset = byId.get(id)
    if (!asset) continue
    const contents = await contentsOf(client, vaultId, vaultKey, id)
    if (!contents) continue
    if (contents.kind === 'file') {
      if (paths.has(contents.path)) {
        holders.push({ asset, chosen: new Set([contents.path]), keep: [], createdAtMs: 0 })
      }
      continue
    }
    const held = contents.files.filter((f) => paths.has(f.path))
    if (held.length === 0) continue
    // What stays: files of the library this blob may be the holder of (an older copy of a file whose
    // current copy is in another blob known here is left out: recovery would not use it).
    const keep = contents.files
      .filter((f) => !paths.has(f.path) && holderOf.has(f.path))
      .filter((f) => {
        const holder = holderOf.get(f.path)
        return holder === undefined || holder === id
      })
      // A bundle of format 1 has no write time per file: each keeps the bundle's, as recovery reads it.
      .map((f) => ({ ...f, writtenAtMs: f.writtenAtMs ?? contents.createdAtMs }))
    holders.push({ asset, chosen: new Set(held.map((f) => f.path)), keep, createdAtMs: contents.createdAtMs })
  }
  return { chosen, paths, holders, manifestCredits, permanent }
}

/**
 * A bundle that holds files that stay: re-packed where the store forgets what is deleted; left as it
 * is on a permanent store, where its bytes stay whatever is done (a re-pack would only cost credits).
 */
function repacks(found: Survey, holder: Holder): boolean {
  return holder.keep.length > 0 && found.permanent !== true
}

function repackLength(holder: Holder): number {
  return encryptedBundleLength(holder.keep)
}

/** What deleting the chosen files would do, for the owner's confirmation. Changes nothing. */
export async function planFileRemoval(
  deps: FileRemovalDeps,
  vaultId: string,
  selection: LibrarySelection,
): Promise<FileRemovalPlan> {
  const found = await survey(deps, vaultId, selection)
  if (found.chosen.length === 0) throw new AppError({ code: 'NOT_FOUND', userMessage: NOTHING_CHOSEN })
  const repacked = found.holders.filter((h) => repacks(found, h))
  const kept = found.holders.filter((h) => h.keep.length > 0 && !repacks(found, h))
  return {
    vaultId,
    files: found.chosen.length,
    bytes: found.chosen.reduce((sum, f) => sum + f.sizeBytes, 0),
    sample: found.chosen.slice(0, SAMPLE).map((f) => f.path),
    blobsDeleted: found.holders.length - repacked.length - kept.length,
    bundlesRepacked: repacked.length,
    bundlesKept: kept.length,
    repackCredits: repacked.reduce((sum, h) => sum + uploadCostCredits(repackLength(h)), 0),
    manifestCredits: found.manifestCredits,
    permanentStore: found.permanent,
  }
}

/**
 * Deletes the chosen files: re-packs the bundles that hold other files too (after checking the
 * balance covers them), deletes the blobs, then writes the manifest without the files.
 */
export async function removeVaultFiles(
  deps: FileRemovalDeps,
  vaultId: string,
  selection: LibrarySelection,
): Promise<FileRemovalReport> {
  const { client } = deps
  const found = await survey(deps, vaultId, selection)
  if (found.chosen.length === 0) {
    // A run cut off after its deletes: the files are gone, the list may still name them. Finish it.
    await deps.queue.forgetFiles(vaultId, new Set(selection.files.map(sealedPath)), deps.connectionId)
    throw new AppError({ code: 'NOT_FOUND', userMessage: NOTHING_CHOSEN })
  }
  const repacked = found.holders.filter((h) => repacks(found, h))
  const repackCredits = repacked.reduce((sum, h) => sum + uploadCostCredits(repackLength(h)), 0)
  // Checked before anything is deleted: the re-packs and the new list must both be paid for.
  const credits = repackCredits + found.manifestCredits
  const balance = (await client.getVault(vaultId)).creditsBalance
  if (credits > balance) {
    const what =
      repacked.length > 0
        ? `re-packs ${repacked.length === 1 ? '1 bundle' : `${repacked.length} bundles`} that also hold files you keep and stores the vault's new list of files, which costs`
        : "stores the vault's new list of files, which costs"
    throw new AppError({
      code: 'INSUFFICIENT_CREDITS',
      userMessage: `Deleting these files ${what} ${credits} credits (${creditsToDollars(credits)}); the balance is ${balance} credits. Add credits, then delete again; nothing was deleted or charged.`,
      details: { creditsNeeded: credits, creditsBalance: balance },
    })
  }
  const report: FileRemovalReport = {
    vaultId,
    removed: found.chosen.length,
    blobsDeleted: 0,
    bundlesRepacked: 0,
    creditsSpent: 0,
    contentKept: 0,
  }
  for (const holder of found.holders) {
    if (holder.keep.length > 0 && !repacks(found, holder)) {
      // Left on the permanent store; its deleted files leave the index and the list below.
      report.contentKept++
      continue
    }
    if (holder.keep.length > 0) {
      const asset = await repack(deps, vaultId, holder)
      report.creditsSpent += asset.creditsConsumed
      // The files that stay are in the new bundle: the index points there before the old one goes.
      const moved = deps.queue.index
        .filesOfAsset(vaultId, holder.asset.id)
        .filter((row) => !holder.chosen.has(sealedPath(row.relativePath)))
        .map((row): UploadIndexEntry => ({ ...row, assetId: asset.id }))
      deps.queue.index.recordAll(moved)
      report.bundlesRepacked++
    } else {
      report.blobsDeleted++
    }
    if (!(await deleteBlob(client, vaultId, holder.asset.id))) report.contentKept++
    // The blob is gone: its chosen files are no longer in the vault, whatever happens next.
    deps.queue.index.forgetAsset(vaultId, holder.asset.id)
  }
  await deps.queue.forgetFiles(vaultId, found.paths, deps.connectionId)
  return report
}

/** Deletes a blob; false when the service keeps its bytes (a permanent store). Already gone counts as done. */
async function deleteBlob(client: VaultApiClient, vaultId: string, assetId: string): Promise<boolean> {
  try {
    return (await client.deleteAsset(vaultId, assetId)).contentRemoved
  } catch (error) {
    if (error instanceof VaultApiError && error.status === 404) return true
    throw error
  }
}

/**
 * A new bundle of the files that stay: the old one streamed and decrypted into a private temporary
 * folder (one file at a time, never the bundle in memory), then encrypted and uploaded like the
 * queue's bundles. The folder is removed whatever happens.
 */
async function repack(deps: FileRemovalDeps, vaultId: string, holder: Holder) {
  const { client } = deps
  const vaultKey = deps.vaultKey!
  const cipher = nodeCipher(false)
  const keep = new Map(holder.keep.map((f) => [f.path, f]))
  const dir = await privateFolder(deps.tempRoot ?? tmpdir())
  const controller = new AbortController()
  try {
    const written: Array<{ identity: FileIdentity; file: string }> = []
    const stream = await client.downloadAsset(vaultId, holder.asset.id, controller.signal)
    const opened = await openVaultBlob(stream, { vaultKey, vaultId, ...cipher })
    if (opened.kind !== 'bundle') throw new Error(`blob ${holder.asset.id} is no longer a bundle`)
    for await (const entry of opened.entries) {
      const identity = keep.get(entry.identity.path)
      // Entries not kept are read past (and authenticated) when the next one is asked for.
      if (!identity) continue
      const file = join(dir, `${written.length}`)
      const handle = await open(file, 'wx', 0o600)
      try {
        // A piece is valid only until the next is read: each is written before asking for more.
        for await (const piece of entry.body) await handle.write(piece)
      } finally {
        await handle.close()
      }
      written.push({ identity, file })
    }
    controller.abort()
    if (written.length !== holder.keep.length) {
      throw new Error(`bundle ${holder.asset.id} no longer holds the files it listed`)
    }
    const identities = written.map((w) => w.identity)
    const length = encryptedBundleLength(identities)
    const hidden = deps.queue.hidesNames(vaultId)
    const n = written.length
    const contentBytes = identities.reduce((sum, f) => sum + f.size, 0)
    const body = buildMultipartBodyFor(
      serviceNames(hidden, `Bundle of ${n} small files`),
      'application/octet-stream',
      bundleMetadata(n, contentBytes, hidden),
      length,
      () =>
        encryptBundleStream(
          written.map((w) => ({
            identity: w.identity,
            content: () => createReadStream(w.file, { highWaterMark: 1 << 20 }),
          })),
          { vaultKey, vaultId, createdAtMs: holder.createdAtMs, ...cipher },
        ),
    )
    return await client.uploadAsset({
      vaultId,
      body: body.stream,
      contentType: body.contentType,
      contentLength: body.contentLength,
      creditsNeeded: uploadCostCredits(length),
    })
  } finally {
    controller.abort()
    repacking.delete(dir)
    await rm(dir, { recursive: true, force: true })
  }
}

/** The re-packs' folders in use now (a crash's are removed by the next re-pack). */
const repacking = new Set<string>()
const REPACK_PREFIX = 'vault-repack-'

/** A new folder only this user can read (mkdtemp: 0700), after removing those a crash left behind. */
async function privateFolder(root: string): Promise<string> {
  await mkdir(root, { recursive: true, mode: 0o700 })
  for (const name of await readdir(root)) {
    const left = join(root, name)
    if (name.startsWith(REPACK_PREFIX) && !repacking.has(left))
      await rm(left, { recursive: true, force: true })
  }
  const dir = await mkdtemp(join(root, REPACK_PREFIX))
  repacking.add(dir)
  return dir
}
