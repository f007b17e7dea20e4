// The metadata field an upload gives the service about a blob, and reading it back. The app writes it
// (main/core/uploads/upload-metadata.ts); the app, the heir's tool and the recovery page read it. It
// comes back from a service that may be wrong or hostile and is not authenticated (names and counts
// only, never what decides which copy is recovered), so a field of the wrong shape is dropped alone:
// one odd asset never stops a listing, let alone an heir's whole recovery.
import * as z from 'zod/mini'

/** A field kept only when it has its shape; otherwise as if absent. */
function lenient<T extends z.ZodMiniType>(schema: T) {
  return z.catch(z.optional(schema), undefined)
}

const count = z.int().check(z.minimum(0))

export const AssetMetadataSchema = z.object({
  /** Which of the app's layouts the blob has ("vault-desktop/file/v3", ".../bundle/v2", ...). */
  encryption: lenient(z.string()),
  /** A single file's path under the folder it was backed up from (absent when names are hidden). */
  relativePath: lenient(z.string()),
  /** The original file's (or a bundle's files') size in bytes, when names are not hidden. */
  plaintextBytes: lenient(count),
  /** The file's modification time, ISO 8601 (single files with real names). */
  modifiedAt: lenient(z.string()),
  /** The name is sealed inside the encrypted file; the service holds a neutral one. */
  nameSealedInside: lenient(z.literal(true)),
  /** Many small files in one encrypted blob. */
  bundle: lenient(z.literal(true)),
  /** A bundle's number of files. */
  fileCount: lenient(count.check(z.minimum(1))),
  /** The blob carries the vault's list of files (alone, or inside a bundle). */
  manifest: lenient(z.literal(true)),
})

export type AssetMetadata = z.infer<typeof AssetMetadataSchema>

const Lenient = z.catch(AssetMetadataSchema, {})

/** An asset as a service lists it, with the metadata its upload gave (anything, until read). */
type ListedAsset = object & { metadata?: unknown }

/** What the asset's metadata says, each field checked on its own; {} when it is not an object. */
export function assetMetadata(asset: ListedAsset): AssetMetadata {
  return Lenient.parse(asset.metadata)
}
