// What the service is told about each upload: the name it keeps (neutral unless the owner chose real
// names for the vault), the metadata field, and the multipart body around the encrypted blob. Its own
// module because file uploads, bundles, manifests and file removal's re-packing all send the same way.
import { randomBytes } from 'node:crypto'
import { LIMITS } from '../../../shared/api'
import type { AssetMetadata } from '../../../shared/asset-metadata'
import { buildMultipartBody } from './multipart-body'
import { MANIFEST_METADATA_FLAG } from './vault-manifests'

/** The name field the service keeps, and the file part's name. */
export interface ServiceNames {
  field: string
  part: string
}

/** Neutral names unless the owner chose real ones for the vault; the encrypted file ends in .c2sp. */
export function serviceNames(hidden: boolean, realName: string): ServiceNames {
  if (!hidden) return { field: realName, part: `${realName}.c2sp` }
  const neutral = neutralFileName()
  return { field: neutral, part: neutral }
}

export function buildMultipartBodyFor(
  names: ServiceNames,
  contentType: string,
  metadata: string,
  length: number,
  content: () => AsyncIterable<Uint8Array>,
) {
  return buildMultipartBody(
    [
      ['filename', names.field],
      ['contentType', contentType],
      ['metadata', metadata],
    ],
    {
      fieldName: 'file',
      filename: names.part,
      contentType: 'application/octet-stream',
      length,
      content,
    },
  )
}

/** What the service sees of a file when names are hidden: no name, path, type or date. */
export function hiddenUploadMetadata(): string {
  return JSON.stringify({
    encryption: 'vault-desktop/file/v3',
    nameSealedInside: true,
  } satisfies AssetMetadata)
}

/**
 * What the service sees of a bundle: that it is one, and how many files it holds; never their names
 * (with names hidden, not their total size either).
 */
export function bundleMetadata(
  fileCount: number,
  contentBytes: number,
  hidden: boolean,
  carriesManifest = false,
): string {
  return JSON.stringify({
    encryption: 'vault-desktop/bundle/v2',
    bundle: true as const,
    fileCount,
    ...(hidden ? { nameSealedInside: true as const } : { plaintextBytes: contentBytes }),
    ...(carriesManifest ? { [MANIFEST_METADATA_FLAG]: true as const } : {}),
  } satisfies AssetMetadata)
}

/** What the service sees of a manifest stored alone: that it is one (so a new computer finds it), nothing else. */
export function manifestMetadata(): string {
  return JSON.stringify({
    encryption: 'vault-desktop/manifest/v1',
    [MANIFEST_METADATA_FLAG]: true,
  } satisfies AssetMetadata)
}

/** A neutral, unique name for the service, telling nothing about the file (nor whether it is a bundle). */
export function neutralFileName(): string {
  return `file-${randomBytes(8).toString('hex')}.vault`
}

/** The metadata field: the relative path (for folder backups) and what is needed to restore. */
export function uploadMetadata(relativePath: string, size: number, mtimeMs: number): string {
  let path = relativePath
  for (;;) {
    const json = JSON.stringify({
      relativePath: path,
      plaintextBytes: size,
      modifiedAt: new Date(mtimeMs).toISOString(),
      encryption: 'vault-desktop/file/v3',
    } satisfies AssetMetadata)
    if (Buffer.byteLength(json) <= LIMITS.metadataMaxBytes) return json
    // Keep the end of an extremely long path; the file name matters most.
    path = `…${path.slice(Math.ceil(path.length / 4))}`
  }
}
