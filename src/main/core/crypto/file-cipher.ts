// File encryption for a vault: Cobblestone-256 under the vault's files key, with a context that binds
// every blob to this format version and to the vault id. No extra header: the blob is a plain
// Cobblestone ciphertext of exactly encryptedLength(P) bytes.
import { Duplex } from 'node:stream'
import type { AeadBackendName } from './aead-backend'
import { concatBytes, equalBytes, utf8 } from './bytes'
import type { ChunkWorkerPool } from './chunk-worker-pool'
import { SALT_SIZE } from './chunked-format'
import { type ByteSource, decryptChunked, encryptChunked, randomBytes } from './chunked-stream'
import { FileCipherError } from './file-cipher-error'
import { deriveFilesKey, saltCheck } from './vault-key'

export const FILE_CONTEXT_PREFIX = 'vault-desktop/file/v1'
export const MAX_VAULT_ID_BYTES = 200

export interface FileCipherOptions {
  vaultKey: Uint8Array
  vaultId: string
  backend?: AeadBackendName
  /** Worker threads for the node backend (default true). */
  parallel?: boolean | ChunkWorkerPool
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

/** context = "vault-desktop/file/v1" || 0x00 || UTF-8(vault id). */
export function fileContext(vaultId: string): Uint8Array {
  return concatBytes(utf8(FILE_CONTEXT_PREFIX), Uint8Array.of(0), vaultIdBytes(vaultId))
}

export function fileSalt(filesKey: Uint8Array, saltPrefix: Uint8Array = randomBytes(16)): Uint8Array {
  if (saltPrefix.length !== 16) throw new RangeError('saltPrefix must be 16 bytes')
  return concatBytes(saltPrefix, saltCheck(filesKey, saltPrefix))
}

export function encryptStream(
  source: ByteSource,
  opts: FileEncryptOptions,
): AsyncIterableIterator<Uint8Array> {
  const filesKey = deriveFilesKey(opts.vaultKey)
  return encryptChunked(source, {
    inputKey: filesKey,
    context: fileContext(opts.vaultId),
    salt: fileSalt(filesKey, opts.saltPrefix),
    backend: opts.backend,
    parallel: opts.parallel,
  })
}

export function decryptStream(
  source: ByteSource,
  opts: FileCipherOptions,
): AsyncIterableIterator<Uint8Array> {
  const filesKey = deriveFilesKey(opts.vaultKey)
  return decryptChunked(source, {
    inputKey: filesKey,
    context: fileContext(opts.vaultId),
    backend: opts.backend,
    parallel: opts.parallel,
    onCommitmentMismatch: (header) => explainHeaderMismatch(filesKey, opts.vaultId, header),
  })
}

function differingBytes(a: Uint8Array, b: Uint8Array): number[] {
  const at: number[] = []
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) at.push(i)
  return at
}

/**
 * The commitment did not match: wrong key, wrong vault id, or a damaged header. One changed byte in
 * the commitment or the salt is recognisable (the salt carries its own check, see FORMAT.md 3.2).
 */
function explainHeaderMismatch(
  filesKey: Uint8Array,
  vaultId: string,
  header: { salt: Uint8Array; commitment: Uint8Array; expected: Uint8Array },
): FileCipherError {
  const damaged = (offset: number) =>
    new FileCipherError(
      'damaged',
      `The header of the encrypted file is damaged (byte ${offset} was altered), so the file cannot be checked or opened. Get another copy of the encrypted file.`,
    )
  const inCommitment = differingBytes(header.expected, header.commitment)
  if (inCommitment.length === 1) return damaged(SALT_SIZE + inCommitment[0]!)

  const prefix = header.salt.subarray(0, 16)
  const check = header.salt.subarray(16)
  const inCheck = differingBytes(saltCheck(filesKey, prefix), check)
  if (inCheck.length === 0) {
    return new FileCipherError(
      'wrong-vault',
      `This file was encrypted with this vault key, but for a different vault than '${vaultId}'. Check the vault id you entered (the recovery words name the right one).`,
    )
  }
  if (inCheck.length === 1) return damaged(16 + inCheck[0]!)
  // One changed byte in the salt's random part: the check then fits a neighbouring prefix.
  const candidate = prefix.slice()
  for (let i = 0; i < 16; i++) {
    for (let v = 0; v < 256; v++) {
      if (v === prefix[i]) continue
      candidate[i] = v
      if (equalBytes(saltCheck(filesKey, candidate), check)) return damaged(i)
    }
    candidate[i] = prefix[i]!
  }
  return new FileCipherError(
    'wrong-key',
    "This file was not encrypted with this vault's key. Use the guardian shares or recovery kit of the vault this file came from.",
  )
}

/** Node stream adapter: write plaintext, read ciphertext. */
export function createEncryptTransform(opts: FileEncryptOptions): Duplex {
  return Duplex.from(async function* (source: AsyncIterable<Uint8Array>) {
    yield* encryptStream(source, opts)
  })
}

/** Node stream adapter: write ciphertext, read authenticated plaintext; errors with FileCipherError. */
export function createDecryptTransform(opts: FileCipherOptions): Duplex {
  return Duplex.from(async function* (source: AsyncIterable<Uint8Array>) {
    yield* decryptStream(source, opts)
  })
}
