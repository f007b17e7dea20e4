// What binds a blob to its vault and its kind: the contexts of file, bundle and manifest blobs, the
// vault id's bytes, and the salt with its check (docs/FORMAT.md, 3, 3.2 and 3.10). Shared by
// file-cipher.ts, file-bundle.ts and vault-manifest.ts, which all write and read blobs under the files key.

import { concatBytes, randomBytes, utf8 } from './bytes'
import type { CipherImplementation } from './chunk-batch'
import { FileCipherError } from './format-errors'
import { saltCheck } from './vault-key'

/** Format 3 (written now): the identity record carries the owner's write time. */
export const FILE_CONTEXT_PREFIX = 'vault-desktop/file/v3'
/** Format 2: identity record without a write time. Only decrypted; writing them is for tests and vectors. */
export const FILE_CONTEXT_PREFIX_V2 = 'vault-desktop/file/v2'
/** Format 1: blobs without an identity record. Only decrypted; writing them is for tests and vectors. */
export const FILE_CONTEXT_PREFIX_V1 = 'vault-desktop/file/v1'
/** Bundles version 2 (written now): many small files in one blob, each dated (docs/FORMAT.md, 3.9). */
export const BUNDLE_CONTEXT_PREFIX = 'vault-desktop/bundle/v2'
/** Bundles version 1: only decrypted. */
export const BUNDLE_CONTEXT_PREFIX_V1 = 'vault-desktop/bundle/v1'
/** The vault manifest: the list of the vault's current files (docs/FORMAT.md, 3.10). */
export const MANIFEST_CONTEXT_PREFIX = 'vault-desktop/manifest/v1'
export const MAX_VAULT_ID_BYTES = 200
/** How the app and the recovery tool name an encrypted file: its own name plus this. */
export const ENCRYPTED_FILE_SUFFIX = '.vault'

export type FileFormatVersion = 1 | 2 | 3
export type BundleFormatVersion = 1 | 2

/** A vault's key and id, and (optionally) a faster cipher than the portable default. */
export interface FileCipherOptions extends CipherImplementation {
  vaultKey: Uint8Array
  vaultId: string
}

export interface FileEncryptOptions extends FileCipherOptions {
  /** The salt's 16 random bytes. Only for reproducible examples and tests; never fix it in real use. */
  saltPrefix?: Uint8Array
}

export function vaultIdBytes(vaultId: string): Uint8Array {
  if (typeof vaultId !== 'string' || vaultId.length === 0) {
    throw new FileCipherError(
      'invalid-input',
      'A vault id is needed to encrypt or decrypt a file of the vault.',
    )
  }
  const bytes = utf8(vaultId)
  if (bytes.length > MAX_VAULT_ID_BYTES) {
    throw new FileCipherError('invalid-input', `The vault id is longer than ${MAX_VAULT_ID_BYTES} bytes.`)
  }
  return bytes
}

function context(prefix: string, vaultId: string): Uint8Array {
  return concatBytes(utf8(prefix), Uint8Array.of(0), vaultIdBytes(vaultId))
}

/** context = "vault-desktop/file/v3" || 0x00 || UTF-8(vault id) (".../v2", ".../v1" for older formats). */
export function fileContext(vaultId: string, version: FileFormatVersion = 3): Uint8Array {
  const prefix = { 1: FILE_CONTEXT_PREFIX_V1, 2: FILE_CONTEXT_PREFIX_V2, 3: FILE_CONTEXT_PREFIX }[version]
  return context(prefix, vaultId)
}

/** context = "vault-desktop/bundle/v2" || 0x00 || UTF-8(vault id) (".../v1" for version 1). */
export function bundleContext(vaultId: string, version: BundleFormatVersion = 2): Uint8Array {
  return context(version === 1 ? BUNDLE_CONTEXT_PREFIX_V1 : BUNDLE_CONTEXT_PREFIX, vaultId)
}

/** context = "vault-desktop/manifest/v1" || 0x00 || UTF-8(vault id). */
export function manifestContext(vaultId: string): Uint8Array {
  return context(MANIFEST_CONTEXT_PREFIX, vaultId)
}

export function fileSalt(filesKey: Uint8Array, saltPrefix: Uint8Array = randomBytes(16)): Uint8Array {
  if (saltPrefix.length !== 16) throw new RangeError('saltPrefix must be 16 bytes')
  return concatBytes(saltPrefix, saltCheck(filesKey, saltPrefix))
}
