// What binds a blob to its vault and its kind: the contexts of file and bundle blobs, the vault id's
// bytes, and the salt with its check (docs/FORMAT.md, 3 and 3.2). Shared by file-cipher.ts and
// file-bundle.ts, which both write and read blobs under the files key.

import { concatBytes, randomBytes, utf8 } from './bytes'
import type { CipherImplementation } from './chunk-batch'
import { FileCipherError } from './format-errors'
import { saltCheck } from './vault-key'

export const FILE_CONTEXT_PREFIX = 'vault-desktop/file/v2'
/** Format 1: blobs without an identity record. Only decrypted; writing them is for tests and vectors. */
export const FILE_CONTEXT_PREFIX_V1 = 'vault-desktop/file/v1'
/** Bundles: many small files in one blob (docs/FORMAT.md, 3.9). */
export const BUNDLE_CONTEXT_PREFIX = 'vault-desktop/bundle/v1'
export const MAX_VAULT_ID_BYTES = 200
/** How the app and the recovery tool name an encrypted file: its own name plus this. */
export const ENCRYPTED_FILE_SUFFIX = '.vault'

export type FileFormatVersion = 1 | 2

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

/** context = "vault-desktop/file/v2" || 0x00 || UTF-8(vault id) (or ".../v1" for format 1). */
export function fileContext(vaultId: string, version: FileFormatVersion = 2): Uint8Array {
  const prefix = version === 1 ? FILE_CONTEXT_PREFIX_V1 : FILE_CONTEXT_PREFIX
  return concatBytes(utf8(prefix), Uint8Array.of(0), vaultIdBytes(vaultId))
}

/** context = "vault-desktop/bundle/v1" || 0x00 || UTF-8(vault id). */
export function bundleContext(vaultId: string): Uint8Array {
  return concatBytes(utf8(BUNDLE_CONTEXT_PREFIX), Uint8Array.of(0), vaultIdBytes(vaultId))
}

export function fileSalt(filesKey: Uint8Array, saltPrefix: Uint8Array = randomBytes(16)): Uint8Array {
  if (saltPrefix.length !== 16) throw new RangeError('saltPrefix must be 16 bytes')
  return concatBytes(saltPrefix, saltCheck(filesKey, saltPrefix))
}
